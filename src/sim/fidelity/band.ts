/**
 * @module sim/fidelity/band
 * The error band measured for each regime, read from the stored results of
 * `npm run fidelity -- --write` (src/sim/fidelity/results.json), for `plan` summaries.
 */
import results from './results.json' with { type: 'json' };
import type { Regime } from './table.js';

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

/**
 * The regime a run falls in, from its own summary: saturated when the median TTFT exceeds 20
 * median decode steps (requests waited for the engine or for the API server), else low. A
 * heuristic: the engine's queue is not in the client's records.
 */
export function regimeOf(ttftP50Ms: number | null, tpotP50Ms: number | null): Regime {
  if (ttftP50Ms === null || tpotP50Ms === null || tpotP50Ms <= 0) return 'low';
  return ttftP50Ms > 20 * tpotP50Ms ? 'saturated' : 'low';
}

/** One summary line, e.g. `fidelity (low load): median |error| 5.4%, max 76.4% over 7 public measurements`. */
export function fidelityLine(regime: Regime): string {
  const b = fidelityBand(regime);
  const name = regime === 'low' ? 'low load' : 'saturation';
  return `simulator fidelity (${name}): median |error| ${b.medianAbsErrorPct.toFixed(1)}%, max ${b.maxAbsErrorPct.toFixed(1)}% over ${b.rows} public measurements (docs/fidelity.md)`;
}
