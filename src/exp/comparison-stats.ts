/**
 * @module exp/comparison-stats
 * The statistics behind an A/B verdict: a bootstrap 95% confidence interval of a metric's delta
 * (B − A, in the metric's unit and in percent of A), a bootstrap p-value from the same
 * resamples, and Holm's step-down correction across the compared metrics.
 *
 * Why bootstrap: latency distributions are skewed and multi-modal (queueing, preemption), so a
 * t-test's normality assumption is wrong exactly where it matters; the percentile bootstrap
 * makes no such assumption. Why Holm: five metrics tested at α = 0.05 each would flag a false
 * difference in ~23% of A/A runs; Holm keeps the family-wise error at α and is never less
 * powerful than Bonferroni. Randomness comes from an injected {@link Rng}, so a seed reproduces
 * every interval.
 */
import { mean, percentile } from '../analysis/index.js';
import type { Rng } from '../runtime/rng.js';

/** A statistic of one sample (the mean, a percentile); null without data. */
export type Statistic = (xs: readonly number[]) => number | null;

/** The p-th percentile (0–100) as a {@link Statistic} (numpy's linear interpolation, as `analysis`). */
export function percentileStat(p: number): Statistic {
  return (xs) =>
    xs.length
      ? percentile(
          [...xs].sort((x, y) => x - y),
          p,
        )
      : null;
}

/**
 * A bootstrapped delta of means, B − A (or of another {@link Statistic}, when one is given:
 * `mean_a`/`mean_b` then hold that statistic's value on each side).
 */
export interface BootstrapDelta {
  /** Samples used on each side (pairs, when paired). */
  n_a: number;
  n_b: number;
  paired: boolean;
  mean_a: number | null;
  mean_b: number | null;
  /** mean(B) − mean(A), in the metric's unit. */
  delta: number | null;
  /** delta / mean(A) × 100; null when mean(A) is 0 or missing. */
  delta_pct: number | null;
  /** 95% percentile-bootstrap interval of `delta` (null without data on both sides). */
  ci_low: number | null;
  ci_high: number | null;
  /**
   * Two-sided bootstrap p-value: 2 × the smaller share of resampled deltas on either side of 0,
   * floored at 1/(resamples + 1). 1 when every resample is exactly 0 (identical samples).
   */
  p_value: number;
}

/**
 * Bootstrap the difference of means between two samples.
 *
 * Paired when `pairs` is true (a[i] and b[i] are the same request on the two sides, so the
 * per-request differences are resampled: the prompt's own variance cancels); otherwise each
 * side is resampled independently. With `clusters` (a cluster id per pair, e.g. the block it
 * was measured in), the paired bootstrap is two-stage: clusters first, then pairs within them.
 * Requests of one run share its conditions (a GC pause, a noisy neighbour), so they are not
 * independent; resampling whole blocks carries that run-level variance into the interval.
 *
 * @param a side A's values (one per request), in the metric's unit
 * @param b side B's values, same unit
 * @param resamples bootstrap resamples (e.g. 2000)
 * @param rng seeded randomness
 * @param stat compare this statistic instead of the mean (a p99, say): each resample draws the
 *   requests (pairs when paired, clusters first when clustered) and takes it on either side
 */
export function bootstrapDelta(
  a: readonly number[],
  b: readonly number[],
  resamples: number,
  rng: Rng,
  pairs = false,
  clusters?: readonly number[],
  stat?: Statistic,
): BootstrapDelta {
  const paired = pairs && a.length === b.length && a.length > 0;
  const ma = stat ? stat(a) : mean(a);
  const mb = stat ? stat(b) : mean(b);
  const out: BootstrapDelta = {
    n_a: a.length,
    n_b: b.length,
    paired,
    mean_a: ma,
    mean_b: mb,
    delta: ma !== null && mb !== null ? mb - ma : null,
    delta_pct: ma !== null && mb !== null && ma !== 0 ? ((mb - ma) / Math.abs(ma)) * 100 : null,
    ci_low: null,
    ci_high: null,
    p_value: 1,
  };
  if (out.delta === null) return out;
  const r = Math.max(1, Math.floor(resamples));
  const deltas = new Float64Array(r);
  if (stat) {
    // Any statistic: resample the requests (pairs, or each side), then take it on each side.
    const groups =
      paired && clusters && clusters.length === a.length
        ? groupBy(
            a.map((_, i) => i),
            clusters,
          )
        : null;
    const all = a.map((_, i) => i);
    for (let k = 0; k < r; k++) {
      if (paired) {
        const idx =
          groups && groups.length > 1 ? resampleClusteredIndices(groups, rng) : resampleIndices(all, rng);
        deltas[k] = (stat(idx.map((i) => b[i])) ?? 0) - (stat(idx.map((i) => a[i])) ?? 0);
      } else
        deltas[k] =
          (stat(
            resampleIndices(
              b.map((_, i) => i),
              rng,
            ).map((i) => b[i]),
          ) ?? 0) - (stat(resampleIndices(all, rng).map((i) => a[i])) ?? 0);
    }
  } else if (paired) {
    const d = a.map((x, i) => b[i] - x);
    const groups = clusters && clusters.length === d.length ? groupBy(d, clusters) : null;
    for (let k = 0; k < r; k++)
      deltas[k] = groups && groups.length > 1 ? resampleClustered(groups, rng) : resampleMean(d, rng);
  } else {
    for (let k = 0; k < r; k++) deltas[k] = resampleMean(b, rng) - resampleMean(a, rng);
  }
  deltas.sort();
  out.ci_low = percentile(deltas, 2.5);
  out.ci_high = percentile(deltas, 97.5);
  let below = 0;
  let above = 0;
  for (const x of deltas) {
    if (x <= 0) below++;
    if (x >= 0) above++;
  }
  // Every resample exactly 0 (identical sides): no evidence of any difference.
  if (below === r && above === r) out.p_value = 1;
  else out.p_value = Math.min(1, Math.max(1 / (r + 1), (2 * Math.min(below, above)) / r));
  return out;
}

function groupBy(d: readonly number[], clusters: readonly number[]): number[][] {
  const m = new Map<number, number[]>();
  d.forEach((x, i) => {
    const g = m.get(clusters[i]);
    if (g) g.push(x);
    else m.set(clusters[i], [x]);
  });
  return [...m.values()];
}

/** Two-stage resample: clusters with replacement, then values within each chosen cluster. */
function resampleClustered(groups: readonly (readonly number[])[], rng: Rng): number {
  let s = 0;
  let n = 0;
  for (let g = 0; g < groups.length; g++) {
    const xs = groups[Math.floor(rng.next() * groups.length)];
    for (let i = 0; i < xs.length; i++) s += xs[Math.floor(rng.next() * xs.length)];
    n += xs.length;
  }
  return s / n;
}

/** Indices drawn with replacement, as many as there are. */
function resampleIndices(idx: readonly number[], rng: Rng): number[] {
  const n = idx.length;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = idx[Math.floor(rng.next() * n)];
  return out;
}

/** Two-stage resample of indices: clusters with replacement, then indices within each. */
function resampleClusteredIndices(groups: readonly (readonly number[])[], rng: Rng): number[] {
  const out: number[] = [];
  for (let g = 0; g < groups.length; g++)
    out.push(...resampleIndices(groups[Math.floor(rng.next() * groups.length)], rng));
  return out;
}

function resampleMean(xs: readonly number[], rng: Rng): number {
  const n = xs.length;
  let s = 0;
  for (let i = 0; i < n; i++) s += xs[Math.floor(rng.next() * n)];
  return s / n;
}

/**
 * Holm–Bonferroni adjusted p-values, in the input order: sort ascending, multiply the k-th
 * smallest (0-based) by (m − k), enforce monotonicity, cap at 1. A metric is significant at
 * level α when its adjusted p-value is below α.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => [p, i] as const).sort((x, y) => x[0] - y[0]);
  const adj = new Array<number>(m);
  let running = 0;
  order.forEach(([p, i], k) => {
    running = Math.max(running, Math.min(1, p * (m - k)));
    adj[i] = running;
  });
  return adj;
}

/**
 * Fewest bootstrap resamples with which a difference can be called significant at all: the
 * smallest p-value {@link bootstrapDelta} gives is 1/(resamples + 1), and Holm multiplies the
 * smallest by the number of metrics, so with fewer resamples every metric comes out "not
 * significant" whatever the data: an A/B that cannot fail to find nothing.
 * @param metrics number of metrics compared (Holm's family size)
 * @param alpha significance level
 */
export function minResamples(metrics: number, alpha: number): number {
  const m = Math.max(1, metrics);
  let r = Math.max(1, Math.floor(m / alpha) - 1);
  while (m / (r + 1) >= alpha) r++;
  return r;
}
