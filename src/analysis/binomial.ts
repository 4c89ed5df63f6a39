/**
 * @module analysis/binomial
 * How sure a share of successes is: the Wilson score interval of a binomial proportion (E. B.
 * Wilson, "Probable inference, the law of succession, and statistical inference", JASA 22(158),
 * 1927; recommended over the normal "Wald" interval near 0 and 1 by Brown, Cai and DasGupta,
 * "Interval estimation for a binomial proportion", Statistical Science 16(2), 2001). An SLO
 * attainment of 99% rests on the few turns that missed it: 139 of 140 is 99.3%, 138 of 140 is
 * 98.6%, and a capacity search that reads the point estimate alone flips on one turn.
 */

/** z of the two-sided 95% interval (the 97.5th percentile of the standard normal). */
export const Z_95_TWO_SIDED = 1.959964;
/** z of a one-sided 95% bound (the 95th percentile of the standard normal). */
export const Z_95_ONE_SIDED = 1.644854;

/**
 * The Wilson score interval of `successes` out of `n` at normal quantile `z`:
 * (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n), clamped to [0, 1].
 * @returns null when `n` is 0 (no data)
 */
export function wilsonInterval(
  successes: number,
  n: number,
  z: number = Z_95_TWO_SIDED,
): { low: number; high: number } | null {
  if (!(n > 0)) return null;
  const k = Math.min(Math.max(successes, 0), n);
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // At k = 0 or k = n the bound on that side is exactly 0 or 1 (the formula's rounding aside).
  return {
    low: k === 0 ? 0 : Math.max(0, centre - half),
    high: k === n ? 1 : Math.min(1, centre + half),
  };
}

/** How a share of successes reads against a required share: {@link judgeAttainment}. */
export type AttainmentJudgement = 'meets' | 'fails' | 'cannot_tell';

/**
 * Whether `successes` of `n` meet a required share `target`, with the 95% Wilson interval:
 * - `fails` when the interval's upper bound is below the target (even the most favourable
 *   reading of the evidence misses it);
 * - `meets` when the point estimate reaches the target (the upper bound then does too);
 * - `cannot_tell` otherwise: the point estimate is under the target but the interval still holds
 *   it, so more trials could show either.
 * A capacity search takes only `meets` as a pass (the answer is a level shown to meet) and names
 * the `cannot_tell` levels beside it, so a verdict never rests on a level whose evidence is mute.
 * @returns null when `n` is 0 (no data)
 */
export function judgeAttainment(
  successes: number,
  n: number,
  target: number,
): { judgement: AttainmentJudgement; low: number; high: number } | null {
  const ci = wilsonInterval(successes, n);
  if (!ci) return null;
  const judgement = ci.high < target ? 'fails' : successes / n >= target ? 'meets' : 'cannot_tell';
  return { judgement, ...ci };
}
