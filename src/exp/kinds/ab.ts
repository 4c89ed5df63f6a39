/**
 * @module exp/kinds/ab
 * `ab`: one switch between two targets (or two configurations), the same workload and seed on
 * both, measured in counterbalanced blocks (A B, B A, …). Per metric: the delta B − A of the
 * per-request means with a paired, block-clustered bootstrap 95% CI (requests are paired by
 * prompt; blocks are resampled, then pairs within them), a bootstrap p-value, Holm's correction across the metrics,
 * and the verdict. A difference is **significant** only when its Holm-adjusted p-value is below
 * `alpha` (default 0.05) AND its size is at least `min_effect_pct` percent of A's mean (default
 * 5%): a statistically certain 1% change is not worth acting on, and the effect floor keeps an
 * A/A comparison of two identical servers (which differ only by timing noise) from being called
 * different. Then the quality gate (`exp/quality`) on a fixed sample set.
 *
 * Per-request metric values: `ttft_ms`, `e2e_ms`, `tpot_ms` as `analysis/request` defines them;
 * `itl_ms` = the request's mean chunk gap; `output_tokens_per_s` = completion tokens / E2E, a
 * per-request figure (shown as "output_tokens_per_s (per request)"), not a run's aggregate
 * output tok/s. The result's types and its answer are in `exp/kinds/ab-result`.
 */

import { z } from 'zod';
import { requestMetrics } from '../../analysis/index.js';
import { seriesSummary } from '../../analysis/series.js';
import { poolSpeculative, type SpeculativeSummary, speculativeSummary } from '../../analysis/speculative.js';
import { UsageError } from '../../core/errors.js';
import { err, FRACTION, listOf, nonNegNum, oneOf, posInt, section, str } from '../../core/fields.js';
import type { ScrapePoint } from '../../record/series.js';
import type { RequestRecord } from '../../record/types.js';
import { SUCCESS_OUTCOMES } from '../../record/types.js';
import { cdfPoints } from '../../report/charts.js';
import { Rng } from '../../runtime/rng.js';
import { arrivalOffsetsMs } from '../../schedule/index.js';
import { bootstrapDelta, holmAdjust, minResamples, type Statistic } from '../comparison-stats.js';
import { type ExperimentRecord, makeField, setRecordField } from '../experiment-record.js';
import { isObj, targetsOf } from '../fields.js';
import { compileQualityChecks, fetchQualityOutputs, judgeQuality, type QualityResult } from '../quality.js';
import {
  type AbDistribution,
  type AbMetric,
  type AbMetricResult,
  type AbResult,
  abAnswer,
} from './ab-result.js';
import type { KindContext, LiveTarget } from './context.js';
import { defineKind, type OwnFile } from './kind.js';
import { reindex } from './points.js';

/** Measured requests are split into this many counterbalanced blocks per side (fewer when short). */
export const AB_BLOCKS = 4;

/** Warm-up requests per side at least (more with `warmup:` or at higher concurrency: 4 per slot). */
export const AB_MIN_WARMUP = 16;

/** The per-request value of a metric (undefined when not computable). */
export function metricValue(rec: RequestRecord, metric: AbMetric): number | undefined {
  const m = requestMetrics(rec);
  switch (metric) {
    case 'ttft_ms':
    case 'tpot_ms':
    case 'e2e_ms':
      return m[metric];
    case 'itl_ms':
      return m.itl_ms.length ? m.itl_ms.reduce((s, x) => s + x, 0) / m.itl_ms.length : undefined;
    case 'output_tokens_per_s': {
      const n = rec.usage?.completion_tokens;
      return n != null && m.e2e_ms !== undefined && m.e2e_ms > 0 ? (n * 1000) / m.e2e_ms : undefined;
    }
  }
}

/**
 * A metric {@link compareSides} compares beyond the A/B metrics' means: a named per-request value
 * and the statistic taken of it (the upgrade gate compares TTFT p99s and the share of requests
 * that met the SLO).
 */
export interface SideMetric {
  /** Its name in the result, e.g. `ttft_ms p99`. */
  name: string;
  /** The request's value; undefined when it has none (the pair is left out). */
  value: (rec: RequestRecord) => number | undefined;
  /** The statistic compared; default the mean. */
  stat?: Statistic;
  /** Larger is better (tokens/s, SLO met); default false (latency). */
  higherIsBetter?: boolean;
  /** Pair failed requests too (their value must say what a failure counts as); default false. */
  withFailures?: boolean;
}

const abSideMetric = (metric: AbMetric): SideMetric => ({
  name: metric,
  value: (r) => metricValue(r, metric),
  higherIsBetter: metric === 'output_tokens_per_s',
});

/**
 * Compare two sides' records metric by metric (paired by request index).
 * @param metrics A/B metrics (per-request means), or {@link SideMetric}s
 * @param rng seeded randomness for the bootstrap
 */
export function compareSides(
  a: readonly RequestRecord[],
  b: readonly RequestRecord[],
  metrics: readonly (AbMetric | SideMetric)[],
  opts: { alpha: number; minEffectPct: number; resamples: number; blockOf?: (index: number) => number },
  rng: Rng,
): AbMetricResult[] {
  // Pairs: the k-th measurement of a request on A with its k-th on B (k > 1 with `repeats`).
  const byIndex = (rs: readonly RequestRecord[]) => {
    const m = new Map<number, RequestRecord[]>();
    for (const r of rs) {
      if (r.phase !== 'measure') continue;
      const list = m.get(r.index);
      if (list) list.push(r);
      else m.set(r.index, [r]);
    }
    return m;
  };
  const ma = byIndex(a);
  const mb = byIndex(b);
  const ok = (r: RequestRecord | undefined): r is RequestRecord =>
    !!r && SUCCESS_OUTCOMES.includes(r.outcome);
  const raw = metrics.map((m) => {
    const spec = typeof m === 'string' ? abSideMetric(m) : m;
    const xa: number[] = [];
    const xb: number[] = [];
    const cl: number[] = [];
    for (const [i, la] of ma) {
      const lb = mb.get(i) ?? [];
      la.forEach((ra, k) => {
        const rb = lb[k];
        if (!rb || (!spec.withFailures && (!ok(ra) || !ok(rb)))) return;
        const va = spec.value(ra);
        const vb = spec.value(rb);
        if (va === undefined || vb === undefined) return;
        xa.push(va);
        xb.push(vb);
        cl.push(opts.blockOf ? opts.blockOf(i) : 0);
      });
    }
    const d = bootstrapDelta(xa, xb, opts.resamples, rng.fork(spec.name), true, cl, spec.stat);
    return { spec, d };
  });
  const adj = holmAdjust(raw.map((r) => r.d.p_value));
  return raw.map(({ spec, d }, i) => {
    const significant =
      d.delta_pct !== null && adj[i] < opts.alpha && Math.abs(d.delta_pct) >= opts.minEffectPct;
    const bBetter = d.delta !== null && (spec.higherIsBetter ? d.delta > 0 : d.delta < 0);
    return {
      metric: spec.name,
      ...d,
      p_holm: adj[i],
      significant,
      better: significant ? (bBetter ? 'b' : 'a') : null,
    };
  });
}

/** Run the A/B. */
export async function runAb(ctx: KindContext<OwnFile<'ab', 'ab', typeof abSchema>>): Promise<AbResult> {
  const ab = ctx.exp.ab;
  // Refused before measuring: too few resamples would report "no significant difference" for
  // any data, which reads as a finding.
  const need = minResamples(ab.metrics.length, ab.alpha);
  if (ab.bootstrap_resamples < need)
    throw new UsageError([
      {
        path: 'ab.bootstrap_resamples',
        message: ctx.tr('exp.usage.ab_resamples', {
          resamples: ab.bootstrap_resamples,
          plus_one: ab.bootstrap_resamples + 1,
          metrics: ab.metrics.length,
          alpha: ab.alpha,
        }),
        hint: ctx.tr('exp.usage.ab_resamples_hint', { need }),
      },
    ]);
  const a = ctx.target(ab.a);
  const b = ctx.target(ab.b);
  const l = ctx.exp.load;
  const conc = l.concurrency?.[0] ?? 1;
  const specs = reindex(await ctx.workload({ count: l.requests ?? 32 }));
  // Warm-up prompts differ from the measured ones, so they warm the engine, not its prefix cache.
  const warmupSpecs = reindex(
    await ctx.workload({ count: Math.max(AB_MIN_WARMUP, 4 * conc), seed: ctx.exp.seed + 13 }),
  );
  const runs: Record<'a' | 'b', RequestRecord[]> = { a: [], b: [] };
  const ids: AbResult['runs'] = { a: [], b: [] };
  // Counterbalanced blocks (A B, B A, A B, …): each request is measured on both sides close in
  // time, so drift of the machine over the experiment (warm-up, a noisy neighbour) falls on
  // both sides instead of on whichever ran first.
  const nBlocks = Math.max(1, Math.min(AB_BLOCKS, Math.floor(specs.length / Math.max(1, conc))));
  const per = Math.ceil(specs.length / nBlocks);
  const rate = l.rates?.[0];
  const warmed = { a: false, b: false };
  // Speculative decoding per side, every block pooled (analysis/speculative).
  const spec: { a: SpeculativeSummary[]; b: SpeculativeSummary[] } = { a: [], b: [] };
  for (let k = 0; k < nBlocks; k++) {
    const block = specs.slice(k * per, (k + 1) * per);
    if (!block.length) break;
    const order = k % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const side of order) {
      const t = side === 'a' ? a : b;
      if (ctx.exp.cache.policy === 'cold') await ctx.ensureCold([t]);
      const m = await ctx.measure(t, {
        label: `side=${side} block=${k + 1}/${nBlocks}`,
        level: { side, block: k + 1 },
        specs: block,
        load:
          rate !== undefined
            ? {
                kind: 'open',
                arrivalsMs: arrivalOffsetsMs({
                  rateRps: rate,
                  arrival: l.arrival as 'constant' | 'poisson' | 'gamma',
                  burstiness: l.arrival === 'gamma' ? l.burstiness : undefined,
                  count: block.length,
                  seed: ctx.exp.seed + k,
                }),
                maxConcurrency: l.max_concurrency ?? null,
              }
            : { kind: 'closed', concurrency: conc },
        // Each side warmed once, the same way, so that running first (cold JIT, cold sockets, a
        // cold engine) is not mistaken for the switch. Measured on the 2-core dev box: with 2
        // requests per slot an A/A over HTTP still showed side A ~30% slower; with 16+ it did not.
        ...(warmed[side] ? {} : { warmup: Math.max(ctx.exp.warmup, AB_MIN_WARMUP, 4 * conc), warmupSpecs }),
      });
      warmed[side] = true;
      runs[side].push(...m.records);
      ids[side].push(m.run.run_id);
      spec[side].push(speculativeSummary(seriesSummary(m.series as ScrapePoint[]), m.records));
    }
  }
  const metrics = compareSides(
    runs.a,
    runs.b,
    ab.metrics as AbMetric[],
    {
      alpha: ab.alpha,
      minEffectPct: ab.min_effect_pct,
      resamples: ab.bootstrap_resamples,
      blockOf: (i) => Math.floor(i / per),
    },
    new Rng(ctx.exp.seed).fork('ab-bootstrap'),
  );
  const requests = { a: failures(runs.a), b: failures(runs.b) };
  const distribution = distributionOf((ab.metrics as AbMetric[])[0] ?? 'ttft_ms', runs);
  for (const side of ['a', 'b'] as const) {
    const f = requests[side];
    if (f.failed > 0)
      ctx.warnings.push(
        `${side === 'a' ? ab.a : ab.b} (side ${side.toUpperCase()}) failed ${f.failed} of ${f.measured} measured requests: the metrics compare only the pairs where both sides succeeded`,
      );
  }
  let quality: QualityResult | null = null;
  if (ab.quality) {
    const checks = compileQualityChecks(ab.quality as Parameters<typeof compileQualityChecks>[0]);
    const samples = reindex(
      await ctx.workload({ count: ab.quality.samples, seed: ctx.exp.seed + 7, plain: true }),
    );
    const outA = await qualityOutputs(ctx, a, samples);
    const outB = await qualityOutputs(ctx, b, samples);
    quality = judgeQuality(outA, outB, checks);
    if (!quality.passed)
      ctx.warnings.push(`quality gate failed (${ab.b}: ${quality.b.failures.length} failures)`);
  }
  const diff = ab.switch ?? describeSwitch(a, b);
  return {
    kind: 'ab',
    a: ab.a,
    b: ab.b,
    switch: diff,
    alpha: ab.alpha,
    min_effect_pct: ab.min_effect_pct,
    resamples: ab.bootstrap_resamples,
    runs: ids,
    metrics,
    requests,
    significant: metrics.some((m) => m.significant),
    quality,
    distribution,
    speculative:
      spec.a.length || spec.b.length ? { a: poolSpeculative(spec.a), b: poolSpeculative(spec.b) } : null,
  };
}

/** A metric's CDF on each side over its successful measured requests, every block pooled. */
function distributionOf(metric: AbMetric, runs: Record<'a' | 'b', RequestRecord[]>): AbDistribution {
  const side = (recs: readonly RequestRecord[]) =>
    cdfPoints(
      recs
        .filter((r) => r.phase === 'measure' && SUCCESS_OUTCOMES.includes(r.outcome))
        .map((r) => metricValue(r, metric))
        .filter((v): v is number => v !== undefined),
    );
  return { metric, a: side(runs.a), b: side(runs.b) };
}

/** Measured requests of one side and how many did not succeed. */
function failures(recs: readonly RequestRecord[]): { measured: number; failed: number } {
  const measured = recs.filter((r) => r.phase === 'measure');
  return {
    measured: measured.length,
    failed: measured.filter((r) => !SUCCESS_OUTCOMES.includes(r.outcome)).length,
  };
}

/** A sim option as the switch line shows it: unset is the simulator's default, not "undefined". */
const showSimValue = (v: unknown): string =>
  v === undefined ? 'default' : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);

function describeSwitch(a: LiveTarget, b: LiveTarget): string {
  const out: string[] = [];
  const sa = (a.spec.sim ?? {}) as Record<string, unknown>;
  const sb = (b.spec.sim ?? {}) as Record<string, unknown>;
  for (const k of new Set([...Object.keys(sa), ...Object.keys(sb)]))
    if (JSON.stringify(sa[k]) !== JSON.stringify(sb[k]))
      out.push(`sim.${k}: ${showSimValue(sa[k])} → ${showSimValue(sb[k])}`);
  if (JSON.stringify(a.generation) !== JSON.stringify(b.generation)) out.push('generation');
  if (a.spec.url !== b.spec.url) out.push('url');
  return out.join(', ') || 'none (A/A)';
}

/** The quality samples' answers from one side, through the target's own endpoint. */
function qualityOutputs(ctx: KindContext, t: LiveTarget, samples: ReturnType<typeof reindex>) {
  return t.live.settle(
    fetchQualityOutputs(
      {
        baseUrl: t.baseUrl,
        model: t.model,
        endpoint: t.endpoint,
        headers: t.headers,
        apiKey: t.apiKey,
        extraBody: t.extraBody,
        maxTokens: t.generation.max_tokens ?? null,
        dispatcher: t.live.dispatcher ?? undefined,
      },
      samples,
      ctx.deps.signal,
    ),
  );
}

// ---- the kind module: file section and rules, defaults, template, console output ----------

/** Metrics an A/B compares (per-request values; see docs/metrics.md). */
export const AB_METRICS = ['ttft_ms', 'tpot_ms', 'e2e_ms', 'itl_ms', 'output_tokens_per_s'] as const;
/** A/B: a difference is significant only when Holm-adjusted p < alpha and |delta| ≥ this percentage. */
export const DEFAULT_AB_MIN_EFFECT_PCT = 5;
export const DEFAULT_AB_ALPHA = 0.05;
export const DEFAULT_AB_RESAMPLES = 2000;

export const qualitySchema = z.strictObject({
  /** Size of the fixed sample set sent to both sides. */
  samples: posInt().default(8),
  /** Exact match against side A's output, or against an expected-answers JSONL file (`{"answer": …}` per line). */
  expected: z
    .union([z.literal('side-a'), z.strictObject({ file: str() })], err('expected side-a or {file: PATH}'))
    .optional(),
  /** Every output must match this regular expression. */
  regex: str().optional(),
  /** Every output must be JSON valid against this schema (inline object, or a path to a .json file). */
  json_schema: z
    .union([str(), z.record(z.string(), z.unknown())], err('expected a JSON schema object or a file path'))
    .optional(),
});

export const abSchema = z.strictObject({
  a: str(),
  b: str(),
  /** The one factor that differs between a and b (free text, recorded). */
  switch: str().optional(),
  metrics: listOf(oneOf(AB_METRICS)).default([...AB_METRICS]),
  alpha: z
    .number(err(FRACTION))
    .gt(0, err('expected a number in (0, 1)'))
    .lt(1, err('expected a number in (0, 1)'))
    .default(DEFAULT_AB_ALPHA),
  min_effect_pct: nonNegNum().default(DEFAULT_AB_MIN_EFFECT_PCT),
  bootstrap_resamples: posInt().default(DEFAULT_AB_RESAMPLES),
  quality: section(qualitySchema.optional()),
});

/** Fields in which two target definitions differ (sim options, model, endpoint, generation). */
export function switchesBetween(a: unknown, b: unknown): string[] {
  const out: string[] = [];
  if (!isObj(a) || !isObj(b)) return out;
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  // Two servers always differ in `url`; that is where they run, not a switch.
  for (const k of ['model', 'endpoint', 'extra_body']) if (!same(a[k], b[k])) out.push(k);
  for (const group of ['sim', 'generation'] as const) {
    const ga = isObj(a[group]) ? a[group] : {};
    const gb = isObj(b[group]) ? b[group] : {};
    for (const k of new Set([...Object.keys(ga), ...Object.keys(gb)]))
      if (!same(ga[k], gb[k])) out.push(`${group}.${k}`);
  }
  // Fault injection is one switch, whichever of its knobs (rate, kinds) differ.
  const faults: string[] = out.filter((k) => k === 'sim.fault_rate' || k === 'sim.faults');
  if (faults.length > 1) return [...out.filter((k) => !faults.includes(k)), 'sim.faults'];
  return out;
}

export const abKind = defineKind({
  kind: 'ab',
  section: 'ab',
  sectionSchema: abSchema,
  rules(f, report) {
    const ab = f.ab;
    if (ab === undefined) {
      report(['ab'], 'an A/B needs an `ab` section naming its two sides', 'ab: {a: TARGET, b: TARGET}');
      return;
    }
    if (!isObj(ab)) return;
    const targets = isObj(f.targets) ? f.targets : undefined;
    const names = Object.keys(targetsOf(f));
    for (const side of ['a', 'b'] as const)
      if (typeof ab[side] === 'string' && targets && !names.includes(ab[side]))
        report(['ab', side], `no target named ${ab[side]}`, `targets here: ${names.join(', ') || '(none)'}`);
    if (typeof ab.a === 'string' && ab.a === ab.b)
      report(
        ['ab', 'b'],
        'a and b are the same target',
        'define two targets, even if identical (an A/A check)',
      );
    if (
      typeof ab.a === 'string' &&
      typeof ab.b === 'string' &&
      targets &&
      names.includes(ab.a) &&
      names.includes(ab.b)
    ) {
      const diff = switchesBetween(targets[ab.a], targets[ab.b]);
      if (diff.length > 1)
        report(
          ['ab'],
          `an A/B changes exactly one factor; ${ab.a} and ${ab.b} differ in ${diff.join(', ')}`,
          'make the targets identical except for the one switch under test',
        );
    }
    const q = ab.quality;
    if (isObj(q) && q.expected === undefined && q.regex === undefined && q.json_schema === undefined)
      report(
        ['ab', 'quality'],
        'a quality check needs expected, regex or json_schema',
        'e.g. expected: side-a',
      );
    if (isObj(q) && typeof q.regex === 'string') {
      try {
        new RegExp(q.regex);
      } catch (e) {
        report(
          ['ab', 'quality', 'regex'],
          `invalid regular expression: ${(e as Error).message}`,
          'JavaScript RegExp syntax',
        );
      }
    }
  },
  // The section has no defaults of its own to fill: the rules refuse a file without it.
  defaults: (f) => {
    if (!f.ab) throw new Error('ab section missing (the schema requires it)');
    return { ...f, ab: f.ab };
  },
  template: (t) => `${t.head('ab', 'ab', t.tr('tpl.ab.about'))}
targets:
${t.simTarget({ name: 'bf16-kv', full: true })}
${t.simTarget({ name: 'fp8-kv', set: [`kv_cache_dtype: fp8                # ${t.tr('tpl.ab.the_switch')}`] })}
${t.urlTargets}

ab:
  a: bf16-kv
  b: fp8-kv
  switch: kv_cache_dtype              # ${t.tr('tpl.ab.switch')}
  metrics: [ttft_ms, tpot_ms, e2e_ms, itl_ms, output_tokens_per_s]
  alpha: 0.05                         # ${t.tr('tpl.ab.alpha')}
  min_effect_pct: 5                   # ${t.tr('tpl.ab.min_effect')}
  bootstrap_resamples: 2000
  quality:
    samples: 8                        # ${t.tr('tpl.ab.samples')}
    expected: side-a                  # ${t.tr('tpl.ab.expected')}
    # regex: '^\\S'                   # ${t.tr('tpl.ab.regex')}
    # json_schema: {type: object}     # ${t.tr('tpl.ab.json_schema')}

${t.common({ load: ['concurrency: 4', 'requests: 32'], generation: ['temperature: 0'] })}
`,
  run: runAb,
  answer: abAnswer,
  // The answer (`exp/kinds/ab-result`) holds the whole console result: the per-metric table, the
  // quality check and the notes; nothing is left for a table of the kind's own.
  format: () => [],
  // The fixed quality samples are the record's `quality` for the two sides.
  targetRecords: (targets, res) => {
    const q = res.quality;
    if (!q) return null;
    const sides: Record<string, typeof q.a> = { [res.a]: q.a, [res.b]: q.b };
    return Object.fromEntries(
      targets.map((t): [string, ExperimentRecord | null] => {
        const qs = sides[t.name];
        if (!qs || !t.record) return [t.name, t.record];
        const note = `probed: ${q.checks.join(', ') || 'quality'} on fixed samples`;
        return [
          t.name,
          setRecordField(
            t.record,
            'quality',
            makeField({
              samples: [qs.samples, note],
              successes: [qs.successes, note],
              truncations: [qs.truncations, note],
              errors: [qs.errors, note],
            }),
          ),
        ];
      }),
    );
  },
});
