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
   * `server`: the engine's own timeline (prefill windows and token times from the engine);
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

/**
 * The engine's token times and prefill time of a record, when the server exposed them in
 * `timings` (`token_ms`, `prefill_ms`: `servelab sim --expose-timings`), else null.
 */
export function engineTimes(r: RequestRecord): { tokens: number[]; prefill_ms: number } | null {
  const t = r.timings;
  const tokens = t?.token_ms;
  if (!Array.isArray(tokens) || typeof t?.prefill_ms !== 'number') return null;
  if (!tokens.every((x) => typeof x === 'number')) return null;
  return { tokens: tokens as number[], prefill_ms: t.prefill_ms };
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

/**
 * Long-prefill interference from a run's records alone. The decoding requests are the
 * successful measured ones that are not long; the prefill windows are every long request's.
 * Both are taken on the engine's timeline when each of those records carries engine timings
 * ({@link engineTimes}), else on the client's ({@link clientPrefillWindow} and chunk times).
 * @param records the run's records (any order; warm-up and failures are filtered here)
 * @param isLong which requests are the long prompts (by the experiment's arrangement, or by
 *   prompt length)
 */
export function recordsInterference(
  records: readonly RequestRecord[],
  isLong: (r: RequestRecord) => boolean,
): PrefillInterference {
  const longs = records.filter(isLong);
  const decoders = records.filter(
    (r) => !isLong(r) && r.phase === 'measure' && SUCCESS_OUTCOMES.includes(r.outcome) && isStreamed(r),
  );
  const used = [...longs, ...decoders];
  const engine = used.length > 0 && used.every((r) => engineTimes(r) !== null);
  if (engine) {
    const intervals: [number, number][] = [];
    for (const r of longs) {
      const e = engineTimes(r);
      if (e?.tokens.length) intervals.push([e.tokens[0] - e.prefill_ms, e.tokens[0]]);
    }
    return prefillInterference(
      decoders.map((r) => engineTimes(r)?.tokens ?? []),
      intervals,
      'server',
    );
  }
  const intervals = longs.map(clientPrefillWindow).filter((w): w is [number, number] => w !== null);
  return prefillInterference(
    decoders.map((r) => r.chunk_times_ms),
    intervals,
    'client',
  );
}
