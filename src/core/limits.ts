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
 * The most requests an open loop over a `--duration` may plan. Its schedule and its prompts are
 * generated as they fall due (`schedule/arrivals` `streamArrivals`, `workload/spec-stream`), so
 * they hold no memory per request; what bounds it is time: a seeded Poisson schedule is summed
 * once before its first request to be rescaled exactly (about 40 ns a request, 4 s at this
 * limit; a gamma one about 6 times as long, interruptible), and a long run's records stay in
 * memory until it ends. 10^8 is 200 requests/s for 5.8 days.
 */
export const MAX_STREAMED_REQUESTS = 100_000_000;

/**
 * The problem of a run planning `n` requests when that is over {@link MAX_PLANNED_REQUESTS}; null if not.
 * The one wording of this refusal, in `t`'s language: the flags (`--requests`, `--warmup`), a
 * `--rate × --duration` product and a file's `requests:` all say it so (a file's in English, as
 * every schema message). `limit`: {@link MAX_STREAMED_REQUESTS} for a streamed `--duration` schedule.
 */
export function plannedCountProblem(
  n: number,
  path: string,
  t: T = translator('en'),
  limit: number = MAX_PLANNED_REQUESTS,
): Problem | null {
  if (!(n > limit)) return null;
  const max = limit.toLocaleString('en-US');
  return {
    path,
    message: t('run.limit.planned', { n: n.toExponential(3).replace(/\.?0+e/, 'e'), max }),
    hint: t('run.limit.planned_hint', { max }),
  };
}
