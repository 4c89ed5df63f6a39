/**
 * @module core/limits
 * Sizes a run refuses up front, before anything is built for them.
 */
import type { Problem } from './errors.js';

/**
 * The most requests one run may plan (measured, and warm-up on its own). A run holds its
 * schedule, its workload and its records in memory, about a kilobyte or more per request, so a
 * million is already a gigabyte or more; past it a run would grow until the heap gave out (`--requests 1e8`
 * took 4 GB, `--warmup 1e9` died out of memory) before sending anything. Refused up front instead.
 */
export const MAX_PLANNED_REQUESTS = 1_000_000;

/** The problem of a run planning `n` requests when that is over {@link MAX_PLANNED_REQUESTS}; null if not. */
export function plannedCountProblem(n: number, path: string): Problem | null {
  if (!(n > MAX_PLANNED_REQUESTS)) return null;
  return {
    path,
    message: `plans ${n.toExponential(3).replace(/\.?0+e/, 'e')} requests, over the most one run plans (${MAX_PLANNED_REQUESTS.toLocaleString('en-US')})`,
    hint: `split the load into runs of at most ${MAX_PLANNED_REQUESTS.toLocaleString('en-US')} requests (a lower --rate or a shorter --duration)`,
  };
}
