/**
 * @module exp/kinds/baseline
 * `baseline`: one request at a time against each target, with the same generation settings for
 * every target (thinking included; a mismatch is refused). Reports the cold first request apart
 * from the warm ones, and correctness: finish reasons, EOS (`stop` before max_tokens) vs
 * `length`, and the reasoning/content split against what `thinking` asked for.
 */
import { z } from 'zod';
import { mean, requestMetrics } from '../../analysis/index.js';
import { UsageError } from '../../core/errors.js';
import { posInt } from '../../core/fields.js';
import type { T } from '../../i18n/index.js';
import { SUCCESS_OUTCOMES } from '../../record/types.js';
import type { ExperimentAnswer } from '../../report/answer.js';
import { bandInterval, fidelityBand, fidelityLine } from '../../sim/fidelity/band.js';
import { loadLevels, targetsOf } from '../fields.js';
import type { KindContext } from './context.js';
import { defineKind, type OwnFile } from './kind.js';
import { reindex } from './points.js';

/** The cold (first) request's numbers, ms. */
export interface ColdRequest {
  outcome: string;
  finish_reason: string | null;
  ttft_ms: number | null;
  e2e_ms: number | null;
  tpot_ms: number | null;
}

/** Warm requests' means and maxima, ms. */
export interface WarmRequests {
  n: number;
  ttft_ms_mean: number | null;
  ttft_ms_max: number | null;
  e2e_ms_mean: number | null;
  tpot_ms_mean: number | null;
}

export interface BaselineCorrectness {
  finish_reasons: Record<string, number>;
  /** Ended by the model (finish_reason `stop`). */
  eos: number;
  /**
   * Truncated: cut at a token limit before the output length asked for, or with none asked
   * (outcome `length`). An answer that reached its asked length ends in finish_reason `length`
   * (see `finish_reasons`) without counting here.
   */
  length: number;
  errors: number;
  /** `generation.thinking` as sent (null = the engine's default). */
  thinking: boolean | null;
  requests_with_reasoning: number;
  requests_with_content: number;
  /** Mean `usage.completion_tokens_details.reasoning_tokens`, when reported. */
  reasoning_tokens_mean: number | null;
  /** What looks wrong, in words (empty when nothing does). */
  problems: string[];
}

export interface BaselineTargetResult {
  target: string;
  run_id: string | null;
  requests: number;
  cold: ColdRequest | null;
  warm: WarmRequests;
  /** Cold TTFT / mean warm TTFT (>1: the first request paid a cold start). */
  cold_ttft_ratio: number | null;
  correctness: BaselineCorrectness;
  /** The target is servelab's simulator (its numbers carry the simulator's error band); absent in older results. */
  simulated?: boolean;
}

export interface BaselineResult {
  kind: 'baseline';
  generation: Record<string, unknown>;
  targets: BaselineTargetResult[];
}

/** Run the baseline on every target. */
export async function runBaseline(ctx: KindContext<BaselineFile>): Promise<BaselineResult> {
  // Same generation settings everywhere (the schema refuses per-target ones; callers that build
  // an experiment in code are checked here too).
  const first = ctx.targets[0];
  const mismatched = ctx.targets.filter(
    (t) => JSON.stringify(t.generation) !== JSON.stringify(first.generation),
  );
  if (mismatched.length)
    throw new UsageError(
      mismatched.map((t) => ({
        path: `targets.${t.name}.generation`,
        message: ctx.tr('exp.usage.baseline_generation', { target: t.name, first: first.name }),
        hint: ctx.tr('exp.usage.baseline_generation_hint'),
      })),
    );
  const n = ctx.exp.baseline.requests;
  const specs = reindex(await ctx.workload({ count: n }));
  const out: BaselineTargetResult[] = [];
  for (const t of ctx.targets) {
    if (ctx.exp.cache.policy === 'cold') await ctx.ensureCold([t]);
    // No warm-up: the first request is the cold one, reported apart.
    const m = await ctx.measure(t, {
      label: 'c=1',
      level: { concurrency: 1 },
      specs,
      load: { kind: 'closed', concurrency: 1 },
    });
    const recs = m.records;
    const metrics = recs.map((r) => requestMetrics(r));
    const ok = recs.map((r) => SUCCESS_OUTCOMES.includes(r.outcome));
    const c0 = recs[0];
    const cold: ColdRequest | null = c0
      ? {
          outcome: c0.outcome,
          finish_reason: c0.finish_reason,
          ttft_ms: metrics[0].ttft_ms ?? null,
          e2e_ms: metrics[0].e2e_ms ?? null,
          tpot_ms: metrics[0].tpot_ms ?? null,
        }
      : null;
    const warmIdx = recs.map((_, i) => i).filter((i) => i > 0 && ok[i]);
    const pick = (k: 'ttft_ms' | 'e2e_ms' | 'tpot_ms') =>
      warmIdx.map((i) => metrics[i][k]).filter((v): v is number => v !== undefined);
    const warmTtft = pick('ttft_ms');
    const warm: WarmRequests = {
      n: warmIdx.length,
      ttft_ms_mean: mean(warmTtft),
      ttft_ms_max: warmTtft.length ? Math.max(...warmTtft) : null,
      e2e_ms_mean: mean(pick('e2e_ms')),
      tpot_ms_mean: mean(pick('tpot_ms')),
    };
    const finish: Record<string, number> = {};
    for (const r of recs) finish[r.finish_reason ?? 'none'] = (finish[r.finish_reason ?? 'none'] ?? 0) + 1;
    const thinking = t.generation.thinking ?? null;
    const withReasoning = recs.filter(
      (r) => r.chunk_kinds.includes('r') || (r.usage?.reasoning_tokens ?? 0) > 0,
    ).length;
    const withContent = recs.filter((r) => r.has_content).length;
    const rt = recs.map((r) => r.usage?.reasoning_tokens).filter((v): v is number => typeof v === 'number');
    const errors = ok.filter((x) => !x).length;
    const problems: string[] = [];
    if (errors > 0) problems.push(`${errors} of ${recs.length} requests failed`);
    const lengthN = recs.filter((r) => r.outcome === 'length').length;
    if (lengthN > 0)
      problems.push(`${lengthN} answers were cut at a token limit before the length they asked for`);
    if (thinking === false && withReasoning > 0)
      problems.push(
        `thinking is off but ${withReasoning} answers carry reasoning (is enable_thinking honoured?)`,
      );
    else if (thinking === true && withReasoning === 0 && recs.length > 0)
      problems.push(
        'thinking is on but no answer streamed reasoning (model without reasoning, or no reasoning parser)',
      );
    const contentMissing = recs.filter((r) => SUCCESS_OUTCOMES.includes(r.outcome) && !r.has_content).length;
    if (contentMissing > 0) problems.push(`${contentMissing} answers have reasoning but no content`);
    out.push({
      target: t.name,
      simulated: t.simOptions !== null,
      run_id: m.run.run_id,
      requests: recs.length,
      cold,
      warm,
      cold_ttft_ratio: cold?.ttft_ms != null && warm.ttft_ms_mean ? cold.ttft_ms / warm.ttft_ms_mean : null,
      correctness: {
        finish_reasons: finish,
        eos: finish.stop ?? 0,
        length: lengthN,
        errors,
        thinking,
        requests_with_reasoning: withReasoning,
        requests_with_content: withContent,
        reasoning_tokens_mean: mean(rt),
        problems,
      },
    });
  }
  return { kind: 'baseline', generation: { ...first.generation }, targets: out };
}

/** A number for the answer: whole above 100, else 3 significant digits; null stays null. */
const readable = (v: number | null | undefined): number | null =>
  v === null || v === undefined ? null : Math.abs(v) >= 100 ? Math.round(v) : Number(v.toPrecision(3));

/**
 * What the baseline answers: per target the cold first request apart from the warm ones (never
 * mixed into one percentile), and whether the answers are complete. One level only, so no load
 * curve and no knee: the chart sets cold against warm TTFT per target.
 */
export function baselineAnswer(res: BaselineResult, t: T): ExperimentAnswer {
  const show = (v: number | null | undefined) => (v === null || v === undefined ? '—' : String(readable(v)));
  const parts = res.targets.map((x) =>
    x.warm.ttft_ms_mean === null
      ? t('exp.baseline.answer.no_warm', { target: x.target, cold: show(x.cold?.ttft_ms) })
      : t('exp.baseline.answer.target', {
          target: x.target,
          cold: show(x.cold?.ttft_ms),
          warm: show(x.warm.ttft_ms_mean),
          ratio: show(x.cold_ttft_ratio),
        }),
  );
  const troubled = res.targets.filter((x) => x.correctness.problems.length > 0).map((x) => x.target);
  parts.push(
    troubled.length
      ? t('exp.baseline.answer.problems', { targets: troubled.join(', ') })
      : t('exp.baseline.answer.clean'),
  );
  const targets = res.targets.map((x) => x.target);
  return {
    kind: 'baseline',
    question: t('exp.baseline.answer.question'),
    verdict: t('exp.baseline.answer.sentence', { parts: parts.join(t('exp.baseline.answer.sep')) }),
    table: {
      columns: [
        t('exp.col.target'),
        t('exp.baseline.cold_ttft'),
        t('exp.baseline.warm_ttft'),
        t('exp.baseline.warm_ttft_max'),
        t('exp.baseline.cold_ratio'),
        t('exp.baseline.cold_e2e'),
        t('exp.baseline.warm_e2e'),
        'TPOT ms',
        t('exp.baseline.finish'),
        t('exp.baseline.problems'),
      ],
      rows: res.targets.map((x) => [
        x.target,
        readable(x.cold?.ttft_ms),
        readable(x.warm.ttft_ms_mean),
        readable(x.warm.ttft_ms_max),
        readable(x.cold_ttft_ratio),
        readable(x.cold?.e2e_ms),
        readable(x.warm.e2e_ms_mean),
        readable(x.warm.tpot_ms_mean),
        Object.entries(x.correctness.finish_reasons)
          .map(([k, v]) => `${k}:${v}`)
          .join(' '),
        x.correctness.problems.join('; ') || t('exp.baseline.none'),
      ]),
    },
    notes: [],
    chart: res.targets.some((x) => x.cold?.ttft_ms != null || x.warm.ttft_ms_mean !== null)
      ? {
          type: 'bar',
          title: t('exp.baseline.answer.chart'),
          // Cold against warm on the x axis, a bar per target: one target is still two categories.
          x: {
            name: '',
            unit: null,
            categories: [t('exp.baseline.answer.cold'), t('exp.baseline.answer.warm')],
          },
          y: { name: 'TTFT', unit: 'ms' },
          series: res.targets.map((x, i) => ({
            name: targets[i],
            points: [
              [0, readable(x.cold?.ttft_ms)],
              [1, readable(x.warm.ttft_ms_mean)],
            ] as [number, number | null][],
          })),
        }
      : null,
    run_ids: res.targets.map((x) => x.run_id).filter((id): id is string => id !== null),
    interval: simulatorBand(res, t),
  };
}

/**
 * The simulator's error band around the first simulated target's warm TTFT: the fitted model's
 * 80% band (sim/fidelity/band `bandInterval`), else its measured median |error| at low load (one request at a time is low load), from `npm run fidelity`
 * (sim/fidelity/band, docs/fidelity.md); null when no target is simulated.
 */
function simulatorBand(res: BaselineResult, t: T): ExperimentAnswer['interval'] {
  const x = res.targets.find((r) => r.simulated && r.warm.ttft_ms_mean !== null);
  const v = x?.warm.ttft_ms_mean;
  if (!x || v === null || v === undefined) return null;
  // The fitted model's 80% band of a mean TTFT (issue 26), else the low-load regime's median |error|.
  const fitted = bandInterval('ttft_mean', v, t('exp.baseline.band_what', { target: x.target }), t);
  if (fitted) return fitted;
  const e = fidelityBand('low').medianAbsErrorPct / 100;
  return {
    what: t('exp.baseline.band_what', { target: x.target }),
    low: Number((v * (1 - e)).toPrecision(3)),
    high: Number((v * (1 + e)).toPrecision(3)),
    note: fidelityLine('low', t),
  };
}

// ---- the kind module: file section and rules, defaults, template, console output ----------

/** A baseline file, its section defaulted. */
type BaselineFile = OwnFile<'baseline', 'baseline', typeof baselineSchema>;

export const baselineSchema = z.strictObject({
  /** Sequential requests per target; the first is reported apart as the cold one. */
  requests: posInt().default(5),
});

export const baselineKind = defineKind({
  kind: 'baseline',
  section: 'baseline',
  sectionSchema: baselineSchema,
  rules(f, report) {
    const { conc, rates } = loadLevels(f);
    if (rates || conc?.some((c) => c !== 1))
      report(
        ['load'],
        'a baseline sends one request at a time',
        'remove load.concurrency/rates; use kind concurrency-sweep for load',
      );
    // Same generation settings for every target, thinking included: a mismatch is refused.
    for (const [n, t] of Object.entries(targetsOf(f)))
      if (t.generation !== undefined)
        report(
          ['targets', n, 'generation'],
          'a baseline uses the same generation settings for every target',
          'move the settings to the top-level `generation:`',
        );
  },
  defaults: (f) => ({
    ...f,
    baseline: f.baseline ?? baselineSchema.parse({}),
    load: { ...f.load, concurrency: f.load.concurrency ?? [1] },
  }),
  template: (t) => `${t.head('baseline', 'baseline', t.tr('tpl.baseline.about'))}
targets:
${t.simTarget({ name: 'h100', full: true })}
${t.simTarget({ name: 'a100', gpu: 'a100-80gb' })}
${t.urlTargets}

baseline:
  requests: 5                         # ${t.tr('tpl.baseline.requests')}

${t.common({ load: [`# ${t.tr('tpl.baseline.load')}`], workload: ['input_len: 256', 'output_len: 128'], warmup: 0 })}
`,
  run: runBaseline,
  answer: baselineAnswer,
  // The answer holds the whole console result (cold and warm apart, correctness per target).
  format: () => [],
});
