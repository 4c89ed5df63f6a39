/**
 * @module workload/streams
 * The workload's per-purpose random streams and its bounded-parallel map, shared by the
 * request builders (`workload/build`) and the session builder (`workload/sessions`).
 */
import { hashString, Rng } from '../runtime/rng.js';

/** Seed of the stream named `label`; `index` gives each prompt its own distinct stream. */
export function streamRng(seed: number, label: string, index = 0): Rng {
  // XOR with the index keeps streams for different indexes distinct (a hash per index could collide).
  return new Rng((hashString(`${seed}:${label}`) ^ index) >>> 0);
}

/** `fn` over `items` with at most `limit` calls in flight; results in input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Parallel token counts; local tokenizers run synchronously, so this only affects the remote path. */
export const COUNT_CONCURRENCY = 8;
