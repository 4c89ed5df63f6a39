/**
 * @module analysis/diagnose/rules/shared
 * What several rules share: number formatting for evidence lines, a request's TTFT, medians,
 * the worst request ids, a run's series summary over its measurement window, and counting the
 * intervals that cover an instant.
 */
import type { ScrapePoint } from '../../../record/series.js';
import type { RequestRecord } from '../../../record/types.js';
import type { LoadedRun } from '../../loaded-run.js';
import { ttftMs } from '../../request.js';
import { seriesSummary } from '../../series.js';
import { describe, lowerBound, upperBound } from '../../stats.js';
import { measurementWindow } from '../../window.js';

export const fmt = (v: number | null | undefined, d = 1) => (v == null ? '—' : v.toFixed(d));
export const ttftOf = (r: RequestRecord): number | null => ttftMs(r) ?? null;
export const median = (xs: readonly number[]) => describe(xs).p50 ?? 0;
export const topIds = (pairs: [string, number][], k = 5) =>
  pairs
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([id]) => id);

export function runSeries(run: LoadedRun) {
  if (!run.series?.length) return null;
  const w = run.window ?? measurementWindow(run.records);
  return seriesSummary(run.series as ScrapePoint[], w ? { from_ms: w.start_ms, to_ms: w.end_ms } : {});
}

/** Intervals sorted for counting how many cover an instant in O(log n). */
export class Coverage {
  private readonly starts: Float64Array;
  private readonly ends: Float64Array;
  constructor(iv: readonly (readonly [number, number])[]) {
    this.starts = Float64Array.from(iv.map((x) => x[0])).sort();
    this.ends = Float64Array.from(iv.map((x) => x[1])).sort();
  }
  /** Intervals with start ≤ t < end (`closed`) or start < t < end. */
  at(t: number, closed = true): number {
    const started = closed ? bound(this.starts, t, true) : bound(this.starts, t, false);
    return started - bound(this.ends, t, true);
  }
}

/** Number of values ≤ x (`inclusive`) or < x in ascending `a`. */
export const bound = (a: Float64Array, x: number, inclusive: boolean): number =>
  inclusive ? upperBound(a, x) : lowerBound(a, x);
