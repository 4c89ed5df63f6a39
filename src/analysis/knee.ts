/**
 * @module analysis/knee
 * The knee of a load curve, one rule for the experiment result (`exp/kinds/points`) and the
 * report's load chart, so that both name the same level: the last level before throughput stops
 * rising (or, with stop rules, before the tail blows up).
 */
import { EN } from './diagnose/default-lang.js';

/**
 * Throughput "stops rising" when the next level adds less than this fraction of what the load
 * step added (10%: at a doubling of concurrency, less than +10% throughput). Chosen because
 * run-to-run noise of a closed loop on one engine is a few percent, while a doubling of
 * concurrency below saturation adds tens of percent. Relative to the step, not absolute,
 * because a rate sweep's steps are small (capacity × 0.9 → 1 → 1.1): an engine keeping up with
 * a +10% rate step adds ~10% throughput, and a fixed 10% bar would call that a knee.
 */
export const KNEE_MIN_GAIN = 0.1;

/** The knee of a sweep: the last level before throughput stops rising or the tail blows up. */
export interface Knee {
  /** Index into the sweep's points; null when throughput still rose at the last level. */
  index: number | null;
  /** Why, in English (stored with the result; rendered with i18n/stored `translateStored`). */
  reason: string;
}

/**
 * Find the knee: the first level i whose successor adds < {@link KNEE_MIN_GAIN} × the load
 * step's relative increase in throughput (levels[i+1] / levels[i] − 1; a doubling when the
 * levels are not given), or trips a stop rule (the tail blows up). A level without throughput
 * is skipped: the next one is compared with the last level that had one.
 * @param throughput per point (tokens/s or requests/s)
 * @param stopped which point tripped a stop rule
 * @param levels the load of each point (concurrency or requests/s), ascending
 */
export function throughputKnee(
  throughput: readonly (number | null)[],
  stopped: readonly (string | null)[],
  levels?: readonly number[],
): Knee {
  let i: number | null = null; // last level with a throughput
  for (let j = 0; j < throughput.length; j++) {
    if (j > 0 && stopped[j])
      return { index: j - 1, reason: EN('exp.reason.knee.stop_rule', { reason: stopped[j] }) };
    const b = throughput[j];
    if (b === null) continue;
    const a = i === null ? null : throughput[i];
    if (i !== null && a !== null && a > 0) {
      const la = levels?.[i];
      const lb = levels?.[j];
      const step = la !== undefined && lb !== undefined && la > 0 && lb > la ? lb / la - 1 : 1;
      const need = KNEE_MIN_GAIN * step;
      const gain = (b - a) / a;
      if (gain < need)
        return {
          index: i,
          reason: EN('exp.reason.knee.plateau', {
            gain: (gain * 100).toFixed(1),
            need: (need * 100).toFixed(1),
            share: KNEE_MIN_GAIN * 100,
            step: (step * 100).toFixed(0),
          }),
        };
    }
    i = j;
  }
  return { index: null, reason: EN('exp.reason.knee.rising') };
}
