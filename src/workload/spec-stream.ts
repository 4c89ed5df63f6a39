/**
 * @module workload/spec-stream
 * How a prompt source makes its requests, one at a time ({@link SpecMaker}), and the two ways to
 * read it: whole ({@link makeAll}, `buildWorkload`) or streamed as the runner reads it
 * ({@link streamSpecs}, a `--duration` open loop, issue 28: a 24-hour soak at 200/s planned 17
 * million specs before its first request). Both draw the same per-purpose random streams in the
 * same order, so request i is the same spec either way.
 */
import type { RequestSpec, SpecStream } from './types.js';

/**
 * A source's requests. `draw(i)` takes request i's draws from the sequential random streams
 * (lengths): called once per request, in index order, synchronously. `build(i, d)` makes the
 * spec from them (counting tokens, maybe remotely); it depends on nothing drawn for others.
 */
export interface SpecMaker<D> {
  count: number;
  draw(index: number): D;
  build(index: number, drawn: D): Promise<RequestSpec>;
}

/** Every spec of `m`, at most `limit` builds in flight; in index order. */
export async function makeAll<D>(m: SpecMaker<D>, limit: number): Promise<RequestSpec[]> {
  const drawn = Array.from({ length: m.count }, (_, i) => m.draw(i));
  const out = new Array<RequestSpec>(m.count);
  let next = 0;
  const worker = async () => {
    while (next < m.count) {
      const i = next++;
      out[i] = await m.build(i, drawn[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, m.count) }, worker));
  return out;
}

/** Draws skipped per slice before yielding (see {@link streamSpecs}'s `from`). */
const SKIP_SLICE = 100_000;

/**
 * `m`'s specs from index `from` on, built as they are read: `ahead` builds run ahead of the
 * last read, so a spec is usually ready when its request falls due. Reads go front to back.
 * Starting past 0 draws (and drops) the earlier requests' draws first, in slices with `pause`
 * between them (the warm-up's prompts come after the measured ones in every stream).
 */
export async function streamSpecs<D>(
  m: SpecMaker<D>,
  opts: { from?: number; ahead: number; pause: () => Promise<void>; signal?: AbortSignal },
): Promise<SpecStream> {
  const from = opts.from ?? 0;
  let drawn = 0;
  while (drawn < from && !opts.signal?.aborted) {
    const end = Math.min(from, drawn + SKIP_SLICE);
    for (; drawn < end; drawn++) m.draw(drawn);
    if (drawn < from) await opts.pause();
  }
  // Stopped early (an aborted signal): no read is answered, as the runner, stopped, reads none.
  const length = m.count - from;
  const pending = new Map<number, Promise<RequestSpec>>();
  let last = -1;
  return {
    streamed: true,
    length,
    at(index: number): Promise<RequestSpec> {
      if (drawn < from) return Promise.reject(new Error('spec stream: read after its start was interrupted'));
      if (!(Number.isInteger(index) && index >= 0 && index < length))
        return Promise.reject(new RangeError(`spec ${index} of a stream of ${length}`));
      if (index < last || (index === last && !pending.has(index)))
        return Promise.reject(
          new RangeError(`spec ${index} read after spec ${last}: a stream reads forward`),
        );
      for (const k of pending.keys()) if (k < index) pending.delete(k);
      while (drawn - from <= Math.min(index + opts.ahead, length - 1)) {
        const k = drawn - from;
        const p = m.build(from + k, m.draw(drawn++));
        // A build read never (the run stopped first) must not surface as an unhandled rejection.
        p.catch(() => undefined);
        pending.set(k, p);
      }
      last = index;
      const p = pending.get(index) as Promise<RequestSpec>;
      pending.delete(index);
      return p;
    },
  };
}
