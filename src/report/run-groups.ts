/**
 * @module report/run-groups
 * Which requests a report's headline and its distribution charts speak for, when the runs are
 * not one measurement each: an A/B's blocks pooled per side (`exp/kinds/ab` stores each block as
 * a run whose `config.level` is `{side, block}`), and a baseline's cold first request apart from
 * its warm ones (`exp/kinds/baseline`: no warm-up, the first measured request is the cold one).
 * Pure: values come from `analysis/` (`measuredSuccesses`, `requestMetrics`, `describe`).
 */
import type { LoadedRun } from '../analysis/loaded-run.js';
import { requestMetrics } from '../analysis/request.js';
import { describe, type Stats } from '../analysis/stats.js';
import { groupAttempts, measuredSuccesses } from '../analysis/summary.js';
import type { RequestRecord } from '../record/types.js';

/** A request metric the headline and the CDFs read per request. */
export type GroupMetric = 'ttft_ms' | 'tpot_ms' | 'e2e_ms';

/** Runs drawn and summarised as one: a run on its own, or an A/B side's blocks. */
export interface RunGroup {
  /** Legend and card name: the run's label, or `A · target` for an A/B side. */
  name: string;
  runs: readonly LoadedRun[];
}

/** An A/B side as the headline shows it. */
export interface AbSideGroup extends RunGroup {
  side: 'A' | 'B';
  /** The side's target, from the run's configuration (`config.target`). */
  target: string;
}

const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/**
 * The A/B side a run measured, from its stored level (`config.level.side`, written by
 * `exp/kinds/ab` for every block); null for any other run.
 */
export function abSideOf(run: LoadedRun): 'a' | 'b' | null {
  const side = obj(obj(run.config)?.level)?.side;
  return side === 'a' || side === 'b' ? side : null;
}

/**
 * The runs as an A/B's two sides, each with its blocks in report order; null unless every run
 * is an A/B block and both sides are there (a report over one side, or over an A/B and other
 * runs, keeps one line and one card set per run).
 */
export function abSides(runs: readonly LoadedRun[]): [AbSideGroup, AbSideGroup] | null {
  if (runs.length < 2) return null;
  const of = (s: 'a' | 'b'): AbSideGroup | null => {
    const rs = runs.filter((r) => abSideOf(r) === s);
    if (!rs.length) return null;
    const target = obj(rs[0].config)?.target;
    const side = s === 'a' ? 'A' : 'B';
    const name = typeof target === 'string' && target ? target : rs[0].label;
    return { side, target: name, name: `${side} · ${name}`, runs: rs };
  };
  if (runs.some((r) => abSideOf(r) === null)) return null;
  const a = of('a');
  const b = of('b');
  return a && b ? [a, b] : null;
}

/** Per-request values of `metric` over the successful measured requests of `runs`, pooled. */
export function pooledValues(
  runs: readonly LoadedRun[],
  metric: GroupMetric,
  keep: (r: RequestRecord) => boolean = () => true,
): number[] {
  const out: number[] = [];
  for (const run of runs)
    for (const r of measuredSuccesses(run.records)) {
      if (!keep(r)) continue;
      const v = requestMetrics(r)[metric];
      if (v !== undefined) out.push(v);
    }
  return out;
}

/** Statistics of `metric` pooled over `runs` (see {@link pooledValues}). */
export function pooledStats(
  runs: readonly LoadedRun[],
  metric: GroupMetric,
  keep?: (r: RequestRecord) => boolean,
): Stats {
  return describe(pooledValues(runs, metric, keep));
}

/**
 * Output tokens/s of runs measured one after another, pooled: all their output tokens over all
 * their windows, each run's window recovered from its own rate (tokens / rate). Null when a run
 * has no rate or no token count (no data, not zero).
 */
export function pooledOutputTokS(runs: readonly LoadedRun[]): number | null {
  let tokens = 0;
  let seconds = 0;
  for (const r of runs) {
    const s = r.summary;
    const rate = s.output_throughput_tok_s;
    const mean = s.output_tokens.mean;
    if (rate === null || rate <= 0 || mean === null) return null;
    const n = mean * s.requests.succeeded;
    tokens += n;
    seconds += n / rate;
  }
  return seconds > 0 ? tokens / seconds : null;
}

/**
 * A run's cold request: its first measured request (lowest `index`, as `exp/kinds/baseline`
 * sends them one at a time with no warm-up), final attempt; null without one.
 */
export function coldRequestOf(run: LoadedRun): RequestRecord | null {
  let first: RequestRecord | null = null;
  for (const g of groupAttempts(run.records).values())
    if (g.final.phase === 'measure' && (first === null || g.final.index < first.index)) first = g.final;
  return first;
}

/**
 * How a report draws its runs' distributions: an A/B's two sides (each pooled over its blocks),
 * else one group per run under its label.
 */
export function distributionGroups(runs: readonly LoadedRun[]): RunGroup[] {
  return abSides(runs) ?? runs.map((r) => ({ name: r.label, runs: [r] }));
}
