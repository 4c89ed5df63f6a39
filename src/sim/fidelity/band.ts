/**
 * @module sim/fidelity/band
 * The error band measured for each regime, read from the stored results of
 * `npm run fidelity -- --write` (src/sim/fidelity/results.json), for `plan` summaries.
 */

import { type T, translator } from '../../i18n/index.js';
import type { Regime } from './measurements.js';
import results from './results.json' with { type: 'json' };

export interface FidelityBand {
  regime: Regime;
  rows: number;
  medianAbsErrorPct: number;
  maxAbsErrorPct: number;
}

/** The measured band of `regime` (see docs/fidelity.md). */
export function fidelityBand(regime: Regime): FidelityBand {
  const b = (results.bands as FidelityBand[]).find((x) => x.regime === regime);
  if (!b) throw new Error(`no fidelity band for ${regime}`);
  return b;
}

/** One reading of the simulator's /metrics series (`report.series`): a vocabulary name at a time. */
export interface RegimeReading {
  t_ms: number;
  name: string;
  value: number;
}

/** Share of `waiting` readings above zero from which a run counts as saturated. */
export const SATURATED_WAITING_SHARE = 0.25;
/** KV usage (0..1) counted as "near full", and the share of readings at or above it that saturates. */
export const KV_NEAR_FULL = 0.95;
export const SATURATED_KV_SHARE = 0.25;
/** Fewer `waiting` readings than this are no evidence; the client heuristic decides. */
const MIN_READINGS = 3;

/**
 * The regime a run falls in. With the server's own series (`report.series`, which `plan` always
 * has: the simulator's /metrics), the engine decides: saturated when requests waited in its queue
 * (`waiting` > 0) in at least {@link SATURATED_WAITING_SHARE} of the readings, or its KV cache was
 * near full ({@link KV_NEAR_FULL}) in at least {@link SATURATED_KV_SHARE} of them; else low.
 * Readings are taken at a fixed scrape interval, so a share of readings is a share of the window.
 * Without enough readings, a client heuristic: saturated when the median TTFT exceeds 20 median
 * decode steps (requests waited for the engine or for the API server).
 */
export function regimeOf(
  ttftP50Ms: number | null,
  tpotP50Ms: number | null,
  series?: readonly RegimeReading[],
): Regime {
  const waiting = series?.filter((p) => p.name === 'waiting') ?? [];
  if (waiting.length >= MIN_READINGS) {
    const kv = series?.filter((p) => p.name === 'kv_usage') ?? [];
    const waitShare = waiting.filter((p) => p.value > 0).length / waiting.length;
    const kvShare = kv.length ? kv.filter((p) => p.value >= KV_NEAR_FULL).length / kv.length : 0;
    return waitShare >= SATURATED_WAITING_SHARE || kvShare >= SATURATED_KV_SHARE ? 'saturated' : 'low';
  }
  if (ttftP50Ms === null || tpotP50Ms === null || tpotP50Ms <= 0) return 'low';
  return ttftP50Ms > 20 * tpotP50Ms ? 'saturated' : 'low';
}

/** One summary line, e.g. `fidelity (low load): median |error| 5.4%, max 76.4% over 7 public measurements`. */
export function fidelityLine(regime: Regime, t: T = translator('en')): string {
  const b = fidelityBand(regime);
  return t(regime === 'low' ? 'sim.fidelity.low' : 'sim.fidelity.saturation', {
    median: b.medianAbsErrorPct.toFixed(1),
    max: b.maxAbsErrorPct.toFixed(1),
    rows: b.rows,
  });
}
