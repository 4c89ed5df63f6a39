/**
 * @module record/types
 * The per-request record: raw timestamps and what the server said. Every planned request
 * ends as exactly one record. Metrics are derived later, in `analysis/`, from these fields.
 * All times are milliseconds since the run started, on a monotonic clock; null = never happened.
 */

/**
 * Outcome classes, in the order of precedence used when several apply (first wins). `lost` is
 * written only by `merge --allow-missing`, for the planned requests of a shard that never
 * reported: nothing is known about them but that they were planned.
 */
export const OUTCOMES = [
  'lost',
  'cancelled',
  'connect_error',
  'http_error',
  'timeout',
  'stream_error',
  'incomplete',
  'length',
  'no_content',
  'ok',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * Successes are `ok` and `length`. A `length` is flagged as truncated: it stopped at a token
 * limit before the length it asked for, or had none (`isTruncated` in `record/outcome`).
 */
export const SUCCESS_OUTCOMES: readonly Outcome[] = ['ok', 'length'];

/** Kind of a token-carrying chunk: r = reasoning, c = content, t = tool call. */
export type ChunkKind = 'r' | 'c' | 't';

export interface Usage {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  /** `completion_tokens_details.reasoning_tokens` (or SGLang's `reasoning_tokens`), when sent. */
  reasoning_tokens?: number | null;
  /** `prompt_tokens_details.cached_tokens`, when sent. */
  cached_tokens?: number | null;
}

export type Phase = 'warmup' | 'measure';

/**
 * Where a record's {@link RequestServerTimes} were read (`record/server-times`): llama.cpp's
 * `timings`, the simulator's `timings`, or the engine's OpenTelemetry request span received on
 * `run --otlp-port` (vLLM's `llm_request`).
 */
export type ServerTimesSource = 'llamacpp.timings' | 'sim' | 'otlp';

/**
 * The engine's own account of one request, in wall milliseconds (docs/metrics.md): null where
 * the engine did not say. Read from the response's `timings` by `record/server-times`.
 */
export interface RequestServerTimes {
  /** Waiting in the engine before the request was first scheduled (null: llama.cpp reports none). */
  queue_ms: number | null;
  /** The request's prefill: first scheduled (llama.cpp: prompt processing start) → first token. */
  prefill_ms: number | null;
  /** Decoding: first token → last token. */
  decode_ms: number | null;
  source: ServerTimesSource;
}

export interface RequestRecord {
  /** This attempt's id, sent as `X-Request-Id`. */
  id: string;
  /** The planned request this attempt belongs to (equals `id` without retries). */
  planned_id: string;
  /** 1-based attempt number (retries are separate records). */
  attempt: number;
  phase: Phase;
  /** Index of the RequestSpec in the workload. */
  index: number;

  planned_at_ms: number | null;
  /**
   * Handed to the HTTP client's transport (undici), after every request built in the same
   * event-loop turn; null if never sent. docs/metrics.md "When `sent` is taken".
   */
  sent_at_ms: number | null;
  headers_at_ms: number | null;
  first_chunk_at_ms: number | null;
  /** First reasoning or content delta. */
  first_token_at_ms: number | null;
  first_reasoning_at_ms: number | null;
  first_content_at_ms: number | null;
  last_token_at_ms: number | null;
  last_content_at_ms: number | null;
  /** The chunk carrying finish_reason (E2E end), or when the request otherwise ended. */
  end_at_ms: number | null;

  /** Arrival time of every token-carrying chunk. */
  chunk_times_ms: number[];
  /** Kind of each token-carrying chunk, parallel to `chunk_times_ms`. */
  chunk_kinds: ChunkKind[];

  /**
   * The response came as an SSE stream, so `chunk_times_ms` are per-token arrival times. False
   * for a non-stream JSON body (`--no-stream`, or a server that ignored `stream: true`): all of
   * it arrived at its end, so it has no TTFT, TPOT or chunk gaps. Absent in records written
   * before this field existed, which were streamed.
   */
  stream: boolean;
  finish_reason: string | null;
  outcome: Outcome;
  /** True when `data: [DONE]` (or a normal end of a non-stream response) was seen. */
  done: boolean;
  has_content: boolean;
  http_status: number | null;
  error: string | null;
  /** Retry-After header on 429/503, in seconds. */
  retry_after_s: number | null;

  usage: Usage | null;
  /** llama.cpp-style `timings` object, when the server sends one. */
  timings: Record<string, unknown> | null;
  /**
   * The server-side times read from `timings` or from the engine's OpenTelemetry span
   * (`record/server-times`); null when the server sent none. Absent in records written before
   * this field existed.
   */
  server?: RequestServerTimes | null;
  /**
   * Why `server` is null although the run asked the engine for its span (`run --otlp-port`):
   * `no_span` (none with this record's trace id arrived by the end of the grace period after the
   * run). Absent otherwise.
   */
  server_reason?: 'no_span' | null;
  /**
   * The W3C trace id sent in this attempt's `traceparent` header (32 hex digits), with
   * `run --otlp-port`: the engine's span for the request carries it. Absent otherwise.
   */
  trace_id?: string | null;

  /** Requested input length (tokens), when the workload set one. */
  input_len: number | null;
  /**
   * Expected output length (tokens): the workload's `output_len`, sent as `max_tokens`. Null
   * when the request asked for none (a `max_tokens` it carried was a generic cap such as
   * `--max-tokens`). A `length` stop that reached it is complete, `ok` (`record/outcome`).
   */
  output_len: number | null;

  /**
   * The session this request is a turn of (`s0`, `s1`, …; the session header's value), and the
   * turn's 0-based position in it. Null outside the sessions load mode; absent in records
   * written before these fields existed.
   */
  session_id?: string | null;
  turn?: number | null;
  /**
   * The 0-based load stage of a staged run's measured request (`--stages`, `load.stages`; the
   * stage whose schedule planned it, sent or not). Absent in other runs, in warm-up records, and
   * in records written before this field existed.
   */
  stage?: number;
}

/** A record with every field empty, for a request that has not (yet) happened. */
export function emptyRecord(
  init: Pick<RequestRecord, 'id' | 'planned_id' | 'attempt' | 'phase' | 'index'>,
): RequestRecord {
  // Fields are listed one by one: V8 handles `{...init, …}` here ~50× slower on Node 20,
  // and the runner builds one record per request.
  return {
    id: init.id,
    planned_id: init.planned_id,
    attempt: init.attempt,
    phase: init.phase,
    index: init.index,
    planned_at_ms: null,
    sent_at_ms: null,
    headers_at_ms: null,
    first_chunk_at_ms: null,
    first_token_at_ms: null,
    first_reasoning_at_ms: null,
    first_content_at_ms: null,
    last_token_at_ms: null,
    last_content_at_ms: null,
    end_at_ms: null,
    chunk_times_ms: [],
    chunk_kinds: [],
    stream: true,
    finish_reason: null,
    outcome: 'cancelled',
    done: false,
    has_content: false,
    http_status: null,
    error: null,
    retry_after_s: null,
    usage: null,
    timings: null,
    server: null,
    input_len: null,
    output_len: null,
    session_id: null,
    turn: null,
  };
}

/** The record moved `offsetMs` later on its timeline (every time field): runs laid end to end. */
export function shiftRecord(r: RequestRecord, offsetMs: number): RequestRecord {
  const sh = (v: number | null) => (v === null ? null : v + offsetMs);
  return {
    ...r,
    planned_at_ms: sh(r.planned_at_ms),
    sent_at_ms: sh(r.sent_at_ms),
    headers_at_ms: sh(r.headers_at_ms),
    first_chunk_at_ms: sh(r.first_chunk_at_ms),
    first_token_at_ms: sh(r.first_token_at_ms),
    first_reasoning_at_ms: sh(r.first_reasoning_at_ms),
    first_content_at_ms: sh(r.first_content_at_ms),
    last_token_at_ms: sh(r.last_token_at_ms),
    last_content_at_ms: sh(r.last_content_at_ms),
    end_at_ms: sh(r.end_at_ms),
    chunk_times_ms: r.chunk_times_ms.map((t) => t + offsetMs),
  };
}

/**
 * Why a run ended, as the runner returns it and report.json stores it (`end.reason`):
 * `drain_timeout`, a duration run whose requests still in flight after `--drain-timeout` were
 * cancelled; `server_gone`, the server stopped answering mid-run.
 */
export type RunEndReason =
  | 'completed'
  | 'duration'
  | 'drain_timeout'
  | 'interrupted'
  | 'error'
  | 'failed_fast'
  | 'late_start'
  | 'server_gone';
