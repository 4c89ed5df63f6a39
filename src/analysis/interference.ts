/**
 * @module analysis/interference
 * Long-prefill interference: how much the decoding of running requests slows while a long
 * prompt's prefill is in the engine. In vLLM's scheduler a prefill (or a chunk of it, up to
 * `max_num_batched_tokens`) shares the engine step with the running decodes, so every decode
 * waits for it. The gaps between the decoding requests' tokens are split into those that
 * overlap a long prefill and those that do not, and the stall ratio compares their means.
 * One implementation for the `mixed-input` experiment's table and the diagnosis rule, so the
 * two report the same number. Pure; times in ms.
 */
import { serverTimes } from '../record/server-times.js';
import { type RequestRecord, SUCCESS_OUTCOMES } from '../record/types.js';
import { isStreamed } from './request.js';
import { describe, type Stats } from './stats.js';

/** Where the prefill windows and token times were read. */
export type InterferenceTimeline = 'server' | 'client';

/** The decoding requests' token gaps with and without a long prefill overlapping them. */
export interface PrefillInterference {
  /** Gaps while a long prefill overlapped them, ms. */
  gaps_overlapping_ms: Stats;
  /** Gaps while no long prefill ran, ms. */
  gaps_clean_ms: Stats;
  /** Mean overlapping gap / mean clean gap (> 1: long prefills stall decoding); null without both. */
  stall_ratio: number | null;
  /**
   * `server`: the server's own prefill windows (and token times, on the engine's clock when it
   * exposes them, else the client's chunk times with each window ending at its first chunk);
   * `client`: each long request's [sent, first token] window, queueing included (an upper bound
   * on its prefill), and the client's chunk times.
   */
  intervals_from: InterferenceTimeline;
}

/**
 * Split the gaps of token-time lists by overlap with intervals: a gap (t₍ₖ₋₁₎, tₖ] overlaps an
 * interval [s, e] when s < tₖ and e > t₍ₖ₋₁₎.
 * @param times one ascending list of token times per decoding request (ms)
 * @param intervals prefill windows as [start, end] (ms, the same clock)
 */
export function splitGapsByOverlap(
  times: readonly (readonly number[])[],
  intervals: readonly (readonly [number, number])[],
): { overlapping: number[]; clean: number[] } {
  const overlapping: number[] = [];
  const clean: number[] = [];
  for (const ts of times) {
    for (let k = 1; k < ts.length; k++) {
      const a = ts[k - 1];
      const b = ts[k];
      const hit = intervals.some(([s, e]) => s < b && e > a);
      (hit ? overlapping : clean).push(b - a);
    }
  }
  return { overlapping, clean };
}

/** Interference from token times and prefill windows on one timeline. */
export function prefillInterference(
  times: readonly (readonly number[])[],
  intervals: readonly (readonly [number, number])[],
  from: InterferenceTimeline,
): PrefillInterference {
  const { overlapping, clean } = splitGapsByOverlap(times, intervals);
  const o = describe(overlapping);
  const c = describe(clean);
  return {
    gaps_overlapping_ms: o,
    gaps_clean_ms: c,
    stall_ratio: o.mean !== null && c.mean ? o.mean / c.mean : null,
    intervals_from: from,
  };
}

/** A record's token times and prefill time as the engine told them ({@link engineTimes}), wall ms. */
export interface EngineTimes {
  /** Token times, wall ms, on the clock named by `clock`. */
  tokens: number[];
  /** The request's prefill, wall ms; its window ends at `tokens[0]`. */
  prefill_ms: number;
  /**
   * `engine`: the engine's own per-token times (`timings.token_ms`: `servelab sim
   * --expose-timings`, engine ms divided by its `time_scale`); `client`: the client's chunk
   * times, with the engine's prefill (`server.prefill_ms`: llama.cpp's `timings.prompt_ms`)
   * ending at the first chunk.
   */
  clock: 'engine' | 'client';
}

/**
 * The engine's token times and prefill time of a record, in wall ms: the engine's per-token
 * times when the server exposed them in `timings` (`token_ms`, `prefill_ms`), else the client's
 * streamed chunk times with the server's own prefill (`record/server-times`, e.g. llama.cpp's
 * `prompt_ms`); null when the server told neither.
 */
export function engineTimes(r: RequestRecord): EngineTimes | null {
  const t = r.timings;
  const tokens = t?.token_ms;
  if (
    Array.isArray(tokens) &&
    typeof t?.prefill_ms === 'number' &&
    tokens.every((x) => typeof x === 'number')
  ) {
    // Engine ms → wall ms: a real-time simulator at time scale X runs X times faster.
    const scale = typeof t.time_scale === 'number' && t.time_scale > 0 ? t.time_scale : 1;
    return {
      tokens: (tokens as number[]).map((x) => x / scale),
      prefill_ms: t.prefill_ms / scale,
      clock: 'engine',
    };
  }
  const prefill = serverTimes(r)?.prefill_ms ?? null;
  if (prefill === null || !isStreamed(r) || r.chunk_times_ms.length === 0) return null;
  return { tokens: r.chunk_times_ms, prefill_ms: prefill, clock: 'client' };
}

/**
 * The client's view of a request's prefill: [sent, first token-carrying chunk of any kind], ms.
 * Queueing is included, so it bounds the prefill from above. Null when not sent, when no token
 * arrived, or when the response was not streamed (its one chunk is the end, not the first token).
 */
export function clientPrefillWindow(r: RequestRecord): [number, number] | null {
  const first = r.chunk_times_ms[0];
  if (r.sent_at_ms === null || first === undefined || !isStreamed(r)) return null;
  return [r.sent_at_ms, first];
}

/** A request's prefill window on the client's clock, and whose account it is. */
export interface PrefillWindow {
  from: number;
  to: number;
  /** `server`: the engine's own prefill time ending at the first chunk; `client`: [sent, first chunk]. */
  source: InterferenceTimeline;
}

/**
 * A request's prefill window on the client's clock: where the engine timed the prefill
 * ({@link engineTimes}: llama.cpp's `timings.prompt_ms`, the simulator's), [first chunk − that
 * prefill, first chunk], never before the request was sent; else the client's
 * {@link clientPrefillWindow} [sent, first chunk], queueing included. No network correction is
 * made: the window's end and every other stream's token times are all arrival times at the
 * client, each one return trip after the engine's own, so the overlaps are those the engine saw.
 * Null when no first token arrived (or the response was not streamed).
 */
export function prefillWindow(r: RequestRecord): PrefillWindow | null {
  const client = clientPrefillWindow(r);
  if (client === null) return null;
  const prefill = engineTimes(r)?.prefill_ms ?? null;
  if (prefill === null) return { from: client[0], to: client[1], source: 'client' };
  return { from: Math.max(client[0], client[1] - prefill), to: client[1], source: 'server' };
}

/**
 * Prefill interference from a run's records alone: the decoding requests' gaps split by overlap
 * with the sources' prefill windows. The decoders are the successful measured streamed requests
 * that `isDecoder` picks (default: those that are not sources). When every record used carries
 * the engine's own token times ({@link engineTimes} clock `engine`), windows and gaps are on the
 * engine's clock; otherwise the gaps are the client's chunk times and each source's window is
 * {@link prefillWindow} (the server's prefill where it timed it), and the result says `server`
 * only when every source's window was the server's.
 * @param records the run's records (any order; warm-up and failures are filtered here)
 * @param isSource whose prefills count (the long prompts of `mixed-input`; every request for
 *   the diagnosis, where equal-length prompts prefill too)
 * @param isDecoder whose gaps are split (default: not a source)
 */
export function recordsInterference(
  records: readonly RequestRecord[],
  isSource: (r: RequestRecord) => boolean,
  isDecoder: (r: RequestRecord) => boolean = (r) => !isSource(r),
): PrefillInterference {
  const sources = records.filter(isSource);
  const decoders = records.filter(
    (r) => isDecoder(r) && r.phase === 'measure' && SUCCESS_OUTCOMES.includes(r.outcome) && isStreamed(r),
  );
  const used = [...new Set([...sources, ...decoders])];
  // One clock for every window and token time: all the engine's, or all the client's.
  const clocks = new Set(used.map((r) => engineTimes(r)?.clock ?? null));
  if (used.length > 0 && clocks.size === 1 && clocks.has('engine')) {
    const intervals: [number, number][] = [];
    for (const r of sources) {
      const e = engineTimes(r);
      if (e?.tokens.length) intervals.push([e.tokens[0] - e.prefill_ms, e.tokens[0]]);
    }
    return prefillInterference(
      decoders.map((r) => engineTimes(r)?.tokens ?? []),
      intervals,
      'server',
    );
  }
  const windows = sources.map(prefillWindow).filter((w): w is PrefillWindow => w !== null);
  return prefillInterference(
    decoders.map((r) => r.chunk_times_ms),
    windows.map((w) => [w.from, w.to] as [number, number]),
    windows.length > 0 && windows.every((w) => w.source === 'server') ? 'server' : 'client',
  );
}
