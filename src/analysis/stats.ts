/**
 * @module analysis/stats
 * Descriptive statistics over plain number lists: exact percentiles (sort, then linear
 * interpolation, numpy's default `method="linear"`), mean, population standard deviation,
 * and a weighted variant used for guidellm's token-weighted ITL dialect.
 * Pure functions; "no data" is `null`, never 0.
 */

/** The fixed statistic keys every latency metric carries in the summary. */
export const STAT_KEYS = ['n', 'mean', 'std', 'min', 'p50', 'p90', 'p95', 'p99', 'max'] as const;
export type StatKey = (typeof STAT_KEYS)[number];

/**
 * Distribution of one metric. Values are in the metric's unit (the metric name says which, e.g.
 * `ttft_ms`). Every field except `n` is `null` when `n` is 0.
 */
export interface Stats {
  n: number;
  mean: number | null;
  /** Population standard deviation (divides by n, like numpy's default `ddof=0`). */
  std: number | null;
  min: number | null;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

/** A `Stats` with no samples. */
export function emptyStats(): Stats {
  return { n: 0, mean: null, std: null, min: null, p50: null, p90: null, p95: null, p99: null, max: null };
}

/**
 * The p-th percentile of an ascending-sorted list, by linear interpolation between the two
 * nearest ranks: rank h = (n − 1)·p/100, value = a[⌊h⌋] + (h − ⌊h⌋)·(a[⌊h⌋+1] − a[⌊h⌋]).
 * This is numpy's default (`np.percentile(a, p)`), which vLLM bench and SGLang also use.
 * @param sorted values in ascending order (not checked, for speed)
 * @param p percentile in [0, 100]
 * @returns the percentile, or `null` for an empty list
 */
export function percentile(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be in [0, 100], got ${p}`);
  const h = ((n - 1) * p) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  const frac = h - lo;
  // `a + frac·(b − a)` keeps the result inside [a, b] for finite inputs, and exactly `a` at frac 0.
  return frac === 0 ? sorted[lo] : sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

/**
 * Summarise a list of samples (any order; the input is not modified).
 * @param values samples in one unit; non-finite values are a caller bug and are rejected
 */
export function describe(values: readonly number[]): Stats {
  const n = values.length;
  if (n === 0) return emptyStats();
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(sorted[i])) throw new RangeError(`non-finite sample: ${sorted[i]}`);
    sum += sorted[i];
  }
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (sorted[i] - mean) ** 2;
  return {
    n,
    mean,
    std: Math.sqrt(ss / n),
    min: sorted[0],
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[n - 1],
  };
}

/**
 * Summarise weighted samples as if each value were repeated `weight` times (integer weights).
 * Percentiles use the same linear rule as {@link describe} on that implicit expanded list, so
 * `describeWeighted([[v, 3]])` equals `describe([v, v, v])`, without materialising the list.
 * `n` is the total weight. Used for guidellm's ITL, which weights each request's mean gap by
 * its N − 1 token gaps.
 * @param samples `[value, weight]` pairs; weights ≤ 0 are skipped
 */
export function describeWeighted(samples: readonly (readonly [number, number])[]): Stats {
  const items = samples.filter(([, w]) => w > 0).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let sum = 0;
  for (const [v, w] of items) {
    if (!Number.isFinite(v) || !Number.isInteger(w)) throw new RangeError(`bad weighted sample: ${v} × ${w}`);
    total += w;
    sum += v * w;
  }
  if (total === 0) return emptyStats();
  const mean = sum / total;
  let ss = 0;
  for (const [v, w] of items) ss += w * (v - mean) ** 2;
  // Value at 0-based position k of the expanded list.
  const at = (k: number): number => {
    let acc = 0;
    for (const [v, w] of items) {
      acc += w;
      if (k < acc) return v;
    }
    return items[items.length - 1][0];
  };
  const pct = (p: number): number => {
    const h = ((total - 1) * p) / 100;
    const lo = Math.floor(h);
    const frac = h - lo;
    const a = at(lo);
    return frac === 0 ? a : a + frac * (at(Math.min(lo + 1, total - 1)) - a);
  };
  return {
    n: total,
    mean,
    std: Math.sqrt(ss / total),
    min: items[0][0],
    p50: pct(50),
    p90: pct(90),
    p95: pct(95),
    p99: pct(99),
    max: items[items.length - 1][0],
  };
}

/**
 * Number of values ≤ x in ascending `sorted` (binary search): the index where a value just
 * above x would go. `sorted` is not checked, for speed.
 */
export function upperBound(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Number of values < x in ascending `sorted` (binary search). */
export function lowerBound(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Insert `v` into ascending `xs` in place, after any equal values, keeping it sorted. */
export function insertSorted(xs: number[], v: number): void {
  xs.splice(upperBound(xs, v), 0, v);
}

/** Arithmetic mean, or `null` for an empty list. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/**
 * One-sample Kolmogorov–Smirnov statistic D = sup |F_n(x) − F(x)| of `values` against the
 * continuous CDF `cdf` (Kolmogorov 1933; the two one-sided gaps at each order statistic).
 * @returns D, or null for an empty list
 */
export function ksStatistic(values: readonly number[], cdf: (x: number) => number): number | null {
  const n = values.length;
  if (n === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  let d = 0;
  for (let i = 0; i < n; i++) {
    const f = cdf(sorted[i]);
    d = Math.max(d, (i + 1) / n - f, f - i / n);
  }
  return d;
}

/**
 * The asymptotic KS critical value at significance 0.01, 1.628 / √n (Smirnov 1948's table):
 * a sample from `cdf` exceeds it with probability about 1%.
 */
export function ksCritical01(n: number): number {
  return 1.628 / Math.sqrt(n);
}
