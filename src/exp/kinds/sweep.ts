/**
 * @module exp/kinds/sweep
 * `concurrency-sweep` and `rate-sweep`: the same length distribution at rising load, one run
 * per level and target, stopping once a stop rule trips (error rate > X, or p99 TTFT/E2E > K ×
 * the first level's); throughput and p50/p95/p99 against load; the knee (see `throughputKnee`); and,
 * for the concurrency sweep with `find_max_concurrency`, the largest concurrency meeting the SLO.
 *
 * SLO met (the `p90` rule of `analysis/capacity` `judgeProbe`): the run's p90 of each SLO
 * metric is within its limit (`itl_ms`: p90 of all token gaps) and its error rate is within
 * the sweep's error-rate stop rule. The search (the one of `servelab plan
 * --find-max-concurrency`) doubles past the sweep's levels while the SLO holds (up to 4 × the
 * last level), then bisects between the last pass and the first failure.
 *
 * This module measures, stops and finds the knee; the result's shape and how it reads (console
 * table, the answer) are in `exp/kinds/sweep-report`.
 */

import { z } from 'zod';
import { findMaxLevel, type ProbeRun } from '../../analysis/capacity.js';
import { EN } from '../../analysis/diagnose/default-lang.js';
import { type Knee, throughputKnee } from '../../analysis/knee.js';
import { summarize } from '../../analysis/summary.js';
import { UsageError } from '../../core/errors.js';
import { bool, fraction, listOf, posNum } from '../../core/fields.js';
import { type ArrivalKind, arrivalOffsetsMs } from '../../schedule/index.js';
import { parseStages, stagedSchedule } from '../../schedule/stages.js';
import { increasing, loadLevels } from '../fields.js';
import type { KindContext, LiveTarget, Measured } from './context.js';
import { defineKind, type KindFile, type OwnFile } from './kind.js';
import {
  pctOf,
  pointOf,
  type RunHeadline,
  reindex,
  type StopRules,
  stopReason,
  verdictOf,
} from './points.js';
import {
  formatSweep,
  type MaxConcurrency,
  MIN_VALID_LEVELS_FOR_KNEE,
  type SweepPoint,
  type SweepResult,
  type SweepTargetResult,
  storedReason,
  sweepAnswer,
} from './sweep-report.js';

const throughputOf = (p: RunHeadline) => p.output_throughput_tok_s ?? p.request_throughput_rps;

/**
 * The sweep's conclusion for one target. The knee is found over the valid levels only (a level
 * whose numbers cannot bear weight says nothing about the engine); the levels left out are
 * named with their reasons, and with too few valid levels the knee is undetermined, never a
 * number.
 */
export function concludeSweep(
  target: string,
  factor: SweepTargetResult['factor'],
  points: SweepPoint[],
): SweepTargetResult {
  const valid = points.filter((p) => p.validity.length === 0);
  const left_out = points
    .filter((p) => p.validity.length > 0)
    .map((p) => ({ level: p.level, reasons: p.validity.map((r) => r.code) }));
  const base = { target, factor, points, left_out, stopped_at: points.find((p) => p.stopped)?.level ?? null };
  if (valid.length < MIN_VALID_LEVELS_FOR_KNEE)
    return {
      ...base,
      knee: null,
      knee_determined: false,
      knee_reason: EN('exp.reason.knee.too_few', {
        valid: valid.length,
        levels: points.length,
        need: MIN_VALID_LEVELS_FOR_KNEE,
      }),
    };
  let knee: Knee = throughputKnee(
    valid.map(throughputOf),
    valid.map((p) => p.stopped),
    valid.map((p) => p.level),
  );
  // The level that tripped a stop rule is left out when its run is not valid, and the valid
  // levels alone may still rise; but the sweep ended because the tail blew up there, not for
  // want of levels. The knee is then the last valid level before it, and the reason says so
  // (never "still rising: extend the levels" beside a stop column that says the latency exploded).
  const stop = points.find((p) => p.stopped);
  if (knee.index === null && stop && stop.validity.length > 0) {
    const before = valid.filter((p) => p.level < stop.level);
    if (before.length)
      knee = {
        index: before.length - 1,
        reason: EN('exp.reason.knee.stop_invalid', {
          level: stop.level,
          reason: stop.stopped,
          codes: stop.validity.map((r) => r.code).join(', '),
        }),
      };
  }
  return {
    ...base,
    knee: knee.index === null ? null : valid[knee.index].level,
    knee_determined: knee.index !== null,
    knee_reason: knee.reason,
  };
}

/** What the SLO search keeps of a level's run (the sweep's levels are its first probes). */
type SweepRun = ProbeRun & { run_id: string | null };
const sweepRun = (m: Measured): SweepRun => ({
  summary: m.summary,
  validity: m.run.validity,
  run_id: m.run.run_id,
});

async function closedLevel(ctx: KindContext, t: LiveTarget, c: number, label: string) {
  const level = { concurrency: c };
  const { specs, warmupSpecs, coldPrompts } = await ctx.levelWorkload(level, { count: ctx.requestsFor(c) });
  const measured = reindex(specs);
  if (ctx.exp.cache.policy === 'cold') await ctx.ensureCold([t]);
  return ctx.measure(t, {
    label,
    level,
    specs: measured,
    load: { kind: 'closed', concurrency: c },
    warmup: ctx.exp.warmup,
    warmupSpecs,
    coldPrompts,
    ...(ctx.exp.cache.policy === 'warm'
      ? { warmup: Math.max(ctx.exp.warmup, measured.length), warmupSpecs: measured }
      : {}),
  });
}

/** Run a concurrency sweep on every target. */
export async function runConcurrencySweep(
  ctx: KindContext<OwnFile<'concurrency-sweep', 'sweep', typeof sweepSchema>>,
): Promise<SweepResult> {
  const rules: StopRules = { ...ctx.exp.sweep.stop };
  const levels = ctx.exp.load.concurrency ?? [1, 2, 4, 8, 16, 32, 64];
  const out: SweepTargetResult[] = [];
  for (const t of ctx.targets) {
    const points: SweepPoint[] = [];
    const summaries = new Map<number, SweepRun>();
    for (const c of levels) {
      const m = await closedLevel(ctx, t, c, `c=${c}`);
      const p = pointOf(m.run);
      summaries.set(c, sweepRun(m));
      const stopped = points.length ? stopReason(p, points[0], rules) : null;
      points.push({ ...p, level: c, achieved_rate_rps: null, stopped });
      logLevel(ctx, 'exp.progress.level_c', t.name, c, p, stopped);
      if (stopped) break;
    }
    const res = concludeSweep(t.name, 'concurrency', points);
    if (ctx.exp.sweep.find_max_concurrency)
      res.max_concurrency = await searchMax(ctx, t, summaries, rules.error_rate);
    out.push(res);
  }
  return {
    kind: 'concurrency-sweep',
    prompts: ctx.exp.workload.reuse_prompts ? 'reused' : 'fresh',
    stop: rules,
    knee_min_gain: 0.1,
    targets: out,
    slo: sloOf(ctx.exp.slo),
  };
}

/** The experiment's SLO without its unset keys. */
function sloOf(slo: Record<string, number | undefined> | undefined): Record<string, number> {
  return Object.fromEntries(Object.entries(slo ?? {}).filter(([, v]) => v !== undefined)) as Record<
    string,
    number
  >;
}

async function searchMax(
  ctx: KindContext,
  t: LiveTarget,
  measured: Map<number, SweepRun>,
  maxErrorRate: number,
): Promise<MaxConcurrency> {
  const slo = sloOf(ctx.exp.slo);
  if (!Object.keys(slo).length)
    throw new UsageError([
      {
        path: 'sweep.find_max_concurrency',
        message: ctx.tr('exp.usage.find_max_needs_slo'),
        hint: ctx.tr('exp.usage.find_max_needs_slo_hint'),
      },
    ]);
  const probes: MaxConcurrency['probes'] = [];
  const levels = [...measured.keys()].sort((a, b) => a - b);
  // The levels measured, then doubling up to 4 × the largest, then bisecting (analysis/capacity).
  const found = await findMaxLevel(
    async (c) => {
      let m = measured.get(c);
      if (!m) {
        m = sweepRun(await closedLevel(ctx, t, c, `search c=${c}`));
        measured.set(c, m);
      }
      return m;
    },
    {
      rule: { p90: slo, maxErrorRate },
      invalid: (c, codes) => `the probe at concurrency ${c} is not valid (${codes})`,
      onProbe: (c, m, v) =>
        probes.push({ concurrency: c, ok: v.ok, valid: m.validity.length === 0, run_id: m.run_id }),
    },
    { levels, max: (levels[levels.length - 1] ?? 1) * 4 },
  );
  if (found.undetermined)
    return { concurrency: null, undetermined: found.undetermined, bounded: false, slo, probes };
  return { concurrency: found.level, undetermined: null, bounded: found.bounded, slo, probes };
}

/** Run a rate sweep (open loop) on every target. */
export async function runRateSweep(
  ctx: KindContext<OwnFile<'rate-sweep', 'sweep', typeof sweepSchema>>,
): Promise<SweepResult> {
  const rules: StopRules = { ...ctx.exp.sweep.stop };
  const l = ctx.exp.load;
  const out: SweepTargetResult[] = [];
  for (const t of ctx.targets) {
    if (l.stages !== undefined) {
      out.push({
        ...concludeSweep(t.name, 'rate_rps', await stagedPoints(ctx, t, l.stages)),
        capacity_rps: null,
      });
      continue;
    }
    let rates = l.rates;
    let capacity: number | null = null;
    if (!rates) {
      // Capacity: a saturating closed loop (max_concurrency, default 32 in flight).
      const c = l.max_concurrency ?? 32;
      const m = await closedLevel(ctx, t, c, `capacity c=${c}`);
      // In simulated time, like the schedules (a sim at time scale X serves X times more per wall second).
      const wall = m.summary.request_throughput_rps;
      capacity = wall === null ? null : wall / ctx.timeScale(t);
      if (!capacity)
        throw new UsageError([
          {
            path: `targets.${t.name}`,
            message: ctx.tr('exp.usage.no_capacity'),
            hint: ctx.tr('exp.usage.no_capacity_hint'),
          },
        ]);
      const fr = ctx.exp.sweep.capacity_fractions ?? [...DEFAULT_CAPACITY_FRACTIONS];
      rates = fr.map((f) => Number((f * capacity!).toPrecision(3)));
      ctx.deps.log(
        ctx.tr('exp.progress.capacity', {
          target: t.name,
          rps: capacity.toFixed(2),
          rates: rates.join(', '),
        }),
      );
    }
    const points: SweepPoint[] = [];
    for (const rate of rates) {
      const count =
        l.requests ?? (l.duration_s !== undefined ? Math.max(1, Math.ceil(rate * l.duration_s)) : 32);
      const level = { rate_rps: rate };
      const w = await ctx.levelWorkload(level, { count });
      const specs = reindex(w.specs);
      const arrivalsMs = arrivalOffsetsMs({
        rateRps: rate,
        arrival: l.arrival as 'constant' | 'poisson' | 'gamma',
        burstiness: l.arrival === 'gamma' ? l.burstiness : undefined,
        count,
        seed: ctx.exp.seed,
      });
      if (ctx.exp.cache.policy === 'cold') await ctx.ensureCold([t]);
      const m = await ctx.measure(t, {
        label: `rate=${rate}`,
        level,
        specs,
        load: { kind: 'open', arrivalsMs, maxConcurrency: l.max_concurrency ?? null },
        warmup: ctx.exp.warmup,
        warmupSpecs: w.warmupSpecs,
        coldPrompts: w.coldPrompts,
      });
      const p = pointOf(m.run);
      const stopped = points.length ? stopReason(p, points[0], rules) : null;
      points.push({ ...p, level: rate, achieved_rate_rps: m.summary.achieved_rate_rps, stopped });
      logLevel(ctx, 'exp.progress.level_rate', t.name, rate, p, stopped);
      if (stopped) break;
    }
    out.push({ ...concludeSweep(t.name, 'rate_rps', points), capacity_rps: capacity });
  }
  return {
    kind: 'rate-sweep',
    prompts: ctx.exp.workload.reuse_prompts ? 'reused' : 'fresh',
    stop: rules,
    knee_min_gain: 0.1,
    targets: out,
    slo: sloOf(ctx.exp.slo),
  };
}

/**
 * rate-sweep with `load.stages`: inference-perf's multi-stage load in one run (`schedule/stages`:
 * each stage starts when the previous one has drained, plus `load.stage_pause_s`), so the prefix
 * cache carries from stage to stage as it does upstream. Each stage is a point, its figures
 * summarized from its own records (`RequestRecord.stage`); the run's verdict stands for each.
 */
async function stagedPoints(
  ctx: KindContext<OwnFile<'rate-sweep', 'sweep', typeof sweepSchema>>,
  t: LiveTarget,
  text: string,
): Promise<SweepPoint[]> {
  const l = ctx.exp.load;
  const stages = parseStages(text, 'load.stages');
  const arrival = l.arrival as ArrivalKind;
  const schedule = stagedSchedule(stages, arrival, ctx.exp.seed, l.stage_pause_s ?? 0, l.burstiness);
  const level = { stages: text };
  const w = await ctx.levelWorkload(level, { count: schedule.arrivalsMs.length });
  if (ctx.exp.cache.policy === 'cold') await ctx.ensureCold([t]);
  const m = await ctx.measure(t, {
    label: `stages=${text}`,
    level,
    specs: reindex(w.specs),
    load: { kind: 'open', maxConcurrency: l.max_concurrency ?? null, ...schedule },
    warmup: ctx.exp.warmup,
    warmupSpecs: w.warmupSpecs,
    coldPrompts: w.coldPrompts,
  });
  return stages.map((st, i) => {
    const summary = summarize(
      m.records.filter((r) => r.stage === i),
      { max_concurrency: l.max_concurrency ?? null },
    );
    const p = pointOf({ ...m.run, summary, cache: null, server_tokens_per_s: null });
    logLevel(ctx, 'exp.progress.level_rate', t.name, st.rateRps, p, null);
    return { ...p, level: st.rateRps, achieved_rate_rps: summary.achieved_rate_rps, stopped: null };
  });
}

// ---- the kind module: file section and rules, defaults, template, console output ----------

/** Sweep stop rules: stop once the error rate passes this fraction… */
export const DEFAULT_STOP_ERROR_RATE = 0.05;
/** …or p99 TTFT exceeds this multiple of the first level's p99 TTFT… */
export const DEFAULT_STOP_TTFT_P99_FACTOR = 10;
/** …or p99 E2E exceeds this multiple of the first level's p99 E2E. */
export const DEFAULT_STOP_E2E_P99_FACTOR = 10;
export const DEFAULT_SWEEP_CONCURRENCY = [1, 2, 4, 8, 16, 32, 64];
export const DEFAULT_CAPACITY_FRACTIONS = [0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.25];

const stopSchema = z.strictObject({
  error_rate: fraction().default(DEFAULT_STOP_ERROR_RATE),
  ttft_p99_factor: posNum().default(DEFAULT_STOP_TTFT_P99_FACTOR),
  e2e_p99_factor: posNum().default(DEFAULT_STOP_E2E_P99_FACTOR),
});

/** The `sweep` section, read by both sweeps. */
export const sweepSchema = z.strictObject({
  stop: stopSchema.default({
    error_rate: DEFAULT_STOP_ERROR_RATE,
    ttft_p99_factor: DEFAULT_STOP_TTFT_P99_FACTOR,
    e2e_p99_factor: DEFAULT_STOP_E2E_P99_FACTOR,
  }),
  /** concurrency-sweep: search for the largest concurrency meeting `slo` (as `servelab plan --find-max-concurrency`). */
  find_max_concurrency: bool().default(false),
  /** rate-sweep without `load.rates`: rates as fractions of the measured capacity. */
  capacity_fractions: listOf(posNum()).optional(),
});

/** The `sweep` section as a rule reads it (a map, or nothing). */
const sweepAt = (f: { sweep?: unknown }): Record<string, unknown> =>
  f.sweep && typeof f.sweep === 'object' ? (f.sweep as Record<string, unknown>) : {};

/** A stop or knee reason, stored in English, in `tr`'s language. */

/** The progress line of one sweep level: its throughput, p99 TTFT, cache hits, verdict and stop reason. */
function logLevel(
  ctx: KindContext,
  key: 'exp.progress.level_c' | 'exp.progress.level_rate',
  target: string,
  level: number,
  p: RunHeadline,
  stopped: string | null,
): void {
  const line = ctx.tr(key, {
    target,
    level,
    tok_s: p.output_throughput_tok_s?.toFixed(1) ?? '-',
    rps: p.request_throughput_rps?.toFixed(2) ?? '-',
    ttft: p.ttft_ms.p99?.toFixed(1) ?? '-',
    hits: pctOf(p.cache_hit_rate),
    verdict: verdictOf(p, ctx.tr),
  });
  ctx.deps.log(
    stopped ? line + ctx.tr('exp.progress.stop', { reason: storedReason(stopped, ctx.tr) }) : line,
  );
}

/** The `sweep` section's defaults. */
const withSweep = <F extends KindFile<string, 'sweep', typeof sweepSchema>>(f: F) => ({
  ...f,
  sweep: f.sweep ?? sweepSchema.parse({}),
});

export const concurrencySweepKind = defineKind({
  kind: 'concurrency-sweep',
  section: 'sweep',
  sectionSchema: sweepSchema,
  rules(f, report) {
    const { conc, rates } = loadLevels(f);
    if (rates)
      report(['load', 'rates'], 'a concurrency sweep is closed loop', 'use kind rate-sweep for rates');
    if (conc && conc.length < 2)
      report(['load', 'concurrency'], 'a sweep needs at least two levels', 'e.g. [1, 2, 4, 8, 16]');
    else if (conc && !increasing(conc))
      report(['load', 'concurrency'], 'levels must increase', 'e.g. [1, 2, 4, 8, 16]');
    const sweep = sweepAt(f);
    if (sweep.find_max_concurrency === true && f.slo === undefined)
      report(
        ['sweep', 'find_max_concurrency'],
        'needs an `slo` to meet',
        'add e.g. slo: {ttft_ms: 1000, tpot_ms: 50}',
      );
    if (sweep.capacity_fractions !== undefined)
      report(['sweep', 'capacity_fractions'], 'capacity_fractions applies to rate-sweep', 'remove it');
  },
  defaults: (f) => {
    const s = withSweep(f);
    return { ...s, load: { ...s.load, concurrency: s.load.concurrency ?? [...DEFAULT_SWEEP_CONCURRENCY] } };
  },
  template: (t) => `${t.head('concurrency-sweep', 'concurrency-sweep', t.tr('tpl.concurrency_sweep.about'))}
targets:
${t.simTarget({ name: 'sim', full: true, set: ['max_num_seqs: 8'] })}
${t.urlTargets}

sweep:
  stop:                               # ${t.tr('tpl.sweep.stop')}
    error_rate: 0.05                  # ${t.tr('tpl.sweep.stop_error_rate')}
    ttft_p99_factor: 10               # ${t.tr('tpl.sweep.stop_ttft')}
    e2e_p99_factor: 10                # ${t.tr('tpl.sweep.stop_e2e')}
  find_max_concurrency: false         # ${t.tr('tpl.sweep.find_max')}

${t.common({ load: ['concurrency: [1, 2, 4, 8, 16, 32]', `requests: 32                      # ${t.tr('tpl.sweep.requests')}`], slo: ['ttft_ms: 1000', 'tpot_ms: 50', 'e2e_ms: 20000'] })}
`,
  run: runConcurrencySweep,
  format: formatSweep,
  answer: sweepAnswer,
});

export const rateSweepKind = defineKind({
  kind: 'rate-sweep',
  section: 'sweep',
  sectionSchema: sweepSchema,
  loadStages: true,
  rules(f, report) {
    const { conc, rates } = loadLevels(f);
    if (conc)
      report(
        ['load', 'concurrency'],
        'a rate sweep is open loop',
        'use load.rates (and max_concurrency to cap in-flight requests)',
      );
    if (rates && rates.length < 2)
      report(
        ['load', 'rates'],
        'a sweep needs at least two rates',
        'or leave rates out to derive them from the measured capacity',
      );
    else if (rates && !increasing(rates))
      report(['load', 'rates'], 'rates must increase', 'e.g. [1, 2, 4, 8]');
    const sweep = sweepAt(f);
    if (rates && sweep.capacity_fractions !== undefined)
      report(
        ['sweep', 'capacity_fractions'],
        'both load.rates and capacity_fractions are set',
        'keep one of them',
      );
    if (sweep.find_max_concurrency === true)
      report(
        ['sweep', 'find_max_concurrency'],
        'find_max_concurrency applies to concurrency-sweep',
        'remove it',
      );
  },
  defaults: (f) => {
    const s = withSweep(f);
    return !s.load.rates && s.load.stages === undefined && !s.sweep.capacity_fractions
      ? {
          ...s,
          sweep: {
            ...sweepSchema.parse({}),
            ...s.sweep,
            capacity_fractions: [...DEFAULT_CAPACITY_FRACTIONS],
          },
        }
      : s;
  },
  // The rates reach past the built-in simulator's capacity (about 66 req/s here, max_num_seqs 8):
  // 160 req/s adds under 1% throughput over 80, so the shipped sweep finds its knee in virtual
  // time, and 100 requests per rate last long enough at 160 req/s for the queue to show.
  template: (t) => `${t.head('rate-sweep', 'rate-sweep', t.tr('tpl.rate_sweep.about'))}
targets:
${t.simTarget({ name: 'sim', full: true, set: ['max_num_seqs: 8'] })}
${t.urlTargets}

sweep:
  stop:
    error_rate: 0.05
    ttft_p99_factor: 10
    e2e_p99_factor: 10
  # capacity_fractions: [0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.25]   # ${t.tr('tpl.sweep.capacity_fractions')}

${t.common({ load: [`rates: [10, 20, 40, 80, 160]      # ${t.tr('tpl.sweep.rates')}`, 'arrival: poisson', `requests: 100                     # ${t.tr('tpl.sweep.per_rate')}`] })}
`,
  run: runRateSweep,
  format: formatSweep,
  answer: sweepAnswer,
});
