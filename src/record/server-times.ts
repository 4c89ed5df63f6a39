/**
 * @module record/server-times
 * A request's server-side times, read from what the engine said about it in its `timings`
 * object, in wall milliseconds. One reading for every engine that sends one:
 *
 * - llama.cpp's `llama-server` (`source: 'llamacpp.timings'`): every response ends with
 *   `timings` {`cache_n`, `prompt_n`, `prompt_ms`, `predicted_n`, `predicted_ms`, …}
 *   (ggml-org/llama.cpp `tools/server/README.md`, "timings"). In `tools/server/server.cpp`
 *   `update_slots`, `prompt_ms` is `t_prompt_processing` = first sampled token − the slot's
 *   `t_start_process_prompt`, and `predicted_ms` is `t_token_generation` = latest token − first
 *   token. It reports no time spent waiting for a free slot, so `queue_ms` is null
 *   (docs/metrics.md#server-side-times).
 * - servelab's simulator (`source: 'sim'`): `timings` in engine ms with `queue_ms` (arrival at
 *   the engine → first scheduled), `prefill_ms` (first scheduled → first token), `decode_ms`
 *   (first → last token) and `time_scale`; under `--time-scale X` one wall ms is X engine ms,
 *   so each is divided by X.
 *
 * Pure; the client fills `RequestRecord.server` with it, and readers of records written before
 * that field existed call {@link serverTimes}.
 */
import type { RequestRecord, RequestServerTimes } from './types.js';

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The server-side times in a response's `timings` object, in wall ms; null when it has none
 * (no `timings`, or one this reading does not know).
 * @example
 * serverTimesOf({ prompt_ms: 5.7, predicted_ms: 12.3, prompt_n: 23, cache_n: 0 })
 * // { queue_ms: null, prefill_ms: 5.7, decode_ms: 12.3, source: 'llamacpp.timings' }
 */
export function serverTimesOf(
  timings: Readonly<Record<string, unknown>> | null | undefined,
): RequestServerTimes | null {
  if (!timings) return null;
  const scale = num(timings.time_scale);
  if (scale !== null) {
    // servelab's simulator: engine ms, `time_scale` engine ms per wall ms.
    const s = scale > 0 ? scale : 1;
    const wall = (v: unknown) => {
      const x = num(v);
      return x === null ? null : x / s;
    };
    return {
      queue_ms: wall(timings.queue_ms),
      prefill_ms: wall(timings.prefill_ms),
      decode_ms: wall(timings.decode_ms),
      source: 'sim',
    };
  }
  const prompt = num(timings.prompt_ms);
  const predicted = num(timings.predicted_ms);
  if (prompt === null && predicted === null) return null;
  return { queue_ms: null, prefill_ms: prompt, decode_ms: predicted, source: 'llamacpp.timings' };
}

/** A record's server-side times: its `server` field, else read from its `timings` (older records). */
export function serverTimes(r: RequestRecord): RequestServerTimes | null {
  return r.server !== undefined ? r.server : serverTimesOf(r.timings);
}
