/**
 * @module analysis/stalls
 * What counts as a stall in a run's streams: a chunk gap far above the run's own median. One
 * threshold for the report's chunk-gap chart (which marks it) and the diagnosis's pauses rule
 * (which attributes each stall to a cause), so both call the same gaps stalls.
 */
import { percentile } from './stats.js';

/** A gap counts as a stall when above this multiple of the run's median chunk gap… */
export const STALL_FACTOR = 5;
/** …and above this floor, ms (so a 2 ms median does not make 10 ms gaps "stalls"). */
export const STALL_MIN_MS = 50;

/**
 * Stall threshold for a run's chunk gaps: max({@link STALL_FACTOR} × median gap, {@link STALL_MIN_MS}), ms.
 * @returns null with no gaps
 */
export function stallThresholdMs(gapsMs: readonly number[]): number | null {
  if (gapsMs.length === 0) return null;
  const med = percentile(Float64Array.from(gapsMs).sort(), 50) as number;
  return Math.max(STALL_FACTOR * med, STALL_MIN_MS);
}
