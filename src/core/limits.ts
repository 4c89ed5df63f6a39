/**
 * @module core/limits
 * Sizes a run refuses up front, before anything is built for them.
 */
import { type T, translator } from '../i18n/index.js';
import type { Problem } from './errors.js';

/**
 * The most requests one run may plan (measured, and warm-up on its own). A run holds its
 * schedule, its workload and its records in memory, about a kilobyte or more per request, so a
 * million is already a gigabyte or more; past it a run would grow until the heap gave out (`--requests 1e8`
 * took 4 GB, `--warmup 1e9` died out of memory) before sending anything. Refused up front instead.
 */
export const MAX_PLANNED_REQUESTS = 1_000_000;

/**
 * The problem of a run planning `n` requests when that is over {@link MAX_PLANNED_REQUESTS}; null if not.
 * The one wording of this refusal, in `t`'s language: the flags (`--requests`, `--warmup`), a
 * `--rate × --duration` product and a file's `requests:` all say it so (a file's in English, as
 * every schema message).
 */
export function plannedCountProblem(n: number, path: string, t: T = translator('en')): Problem | null {
  if (!(n > MAX_PLANNED_REQUESTS)) return null;
  const max = MAX_PLANNED_REQUESTS.toLocaleString('en-US');
  return {
    path,
    message: t('run.limit.planned', { n: n.toExponential(3).replace(/\.?0+e/, 'e'), max }),
    hint: t('run.limit.planned_hint', { max }),
  };
}
