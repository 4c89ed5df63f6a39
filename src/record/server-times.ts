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
 * - vLLM's OpenTelemetry request span (`source: 'otlp'`, {@link serverTimesOfSpan}), received on
 *   `run --otlp-port` and joined to the record by the trace id of its `traceparent`.
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

/**
 * vLLM's span attribute names (vllm-project/vllm `vllm/tracing.py` `SpanAttributes`, commit
 * 03b8a674ec7e654ab285df6f013a53a24381f941), each a duration in seconds. vLLM sets them on its
 * `llm_request` span (kind SERVER, parent: the request's `traceparent`) when a request finishes,
 * in `vllm/v1/engine/output_processor.py` `do_tracing` (commit
 * d07822605346f767b672503c9aae85aa23ef2d82): `time_in_queue` = scheduled − queued,
 * `time_in_model_prefill` = first token − scheduled, `time_in_model_decode` = last token − first
 * token, `time_to_first_token` = first token − arrival, `e2e` = finish − arrival.
 */
export const VLLM_SPAN_ATTRIBUTES = {
  queue_s: 'gen_ai.latency.time_in_queue',
  prefill_s: 'gen_ai.latency.time_in_model_prefill',
  decode_s: 'gen_ai.latency.time_in_model_decode',
  ttft_s: 'gen_ai.latency.time_to_first_token',
  e2e_s: 'gen_ai.latency.e2e',
  inference_s: 'gen_ai.latency.time_in_model_inference',
  request_id: 'gen_ai.request.id',
  prompt_tokens: 'gen_ai.usage.prompt_tokens',
  completion_tokens: 'gen_ai.usage.completion_tokens',
} as const;

/** A span attribute's value as OTLP carries it (string, number, boolean; lists are not read here). */
export type SpanAttributeValue = string | number | boolean | null;

/**
 * The server-side times in an engine's request span (its attributes by name), in wall ms: vLLM's
 * seconds × 1000. Null when the span carries none of them (another span of the same trace).
 * @example
 * serverTimesOfSpan({ 'gen_ai.latency.time_in_queue': 0.002, 'gen_ai.latency.time_in_model_prefill': 0.05 })
 * // { queue_ms: 2, prefill_ms: 50, decode_ms: null, source: 'otlp' }
 */
export function serverTimesOfSpan(
  attributes: Readonly<Record<string, SpanAttributeValue>>,
): RequestServerTimes | null {
  const ms = (name: string) => {
    const v = attributes[name];
    const x = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    return typeof x === 'number' && Number.isFinite(x) ? x * 1000 : null;
  };
  const queue = ms(VLLM_SPAN_ATTRIBUTES.queue_s);
  const prefill = ms(VLLM_SPAN_ATTRIBUTES.prefill_s);
  const decode = ms(VLLM_SPAN_ATTRIBUTES.decode_s);
  if (queue === null && prefill === null && decode === null) return null;
  return { queue_ms: queue, prefill_ms: prefill, decode_ms: decode, source: 'otlp' };
}
