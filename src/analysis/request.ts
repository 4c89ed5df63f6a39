/**
 * @module analysis/request
 * Per-request metrics derived from one {@link RequestRecord}'s raw timestamps. The exact
 * definitions live in `docs/metrics.md`; this file is their only implementation.
 * Pure: a metric that cannot be computed (the event never happened, no usage, or a
 * non-streaming response, which has no per-token times) is `undefined`.
 */
import type { RequestRecord } from '../record/types.js';

/** Per-request metrics; all times in milliseconds. `undefined` = not computable for this request. */
export interface RequestMetrics {
  /** First content or tool-call chunk − sent (reasoning does not count). */
  ttft_ms: number | undefined;
  /** First reasoning chunk − sent. */
  ttfr_ms: number | undefined;
  /** End (the finish_reason chunk) − sent. */
  e2e_ms: number | undefined;
  /** (last token − first token of any kind) / (usage.completion_tokens − 1); needs usage and N > 1. */
  tpot_ms: number | undefined;
  /** Gaps between consecutive token-carrying chunks of any kind (empty with < 2 chunks). */
  itl_ms: number[];
  /** Largest of `itl_ms` (a stall). */
  max_gap_ms: number | undefined;
  /** First content or tool-call chunk − planned send. */
  ttft_from_planned_ms: number | undefined;
  /** End − planned send. */
  e2e_from_planned_ms: number | undefined;
  /** Sent − planned (the generator's lateness, slot wait included). */
  lateness_ms: number | undefined;
  /** Sent − planned when the request waited for a concurrency slot, else 0. */
  queue_ms: number | undefined;
  /** vLLM bench's TTFT: first chunk of any kind (role-only and reasoning chunks included) − sent. */
  vllm_ttft_ms: number | undefined;
  /** guidellm's TPOT: (last token − sent) / N, TTFT included. */
  guidellm_tpot_ms: number | undefined;
  /** guidellm's per-request ITL, (last token − first token) / (N − 1); same value as `tpot_ms`. */
  guidellm_itl_ms: number | undefined;
  /** Weight of `guidellm_itl_ms` in guidellm's distribution: N − 1 token gaps (0 when undefined). */
  guidellm_itl_weight: number;
}

/** Options for {@link requestMetrics}. */
export interface RequestMetricOptions {
  /**
   * Planned send time (ms) the `*_from_planned_ms` metrics count from. With retries, pass the
   * first attempt's planned time so that the user-visible latency includes failed attempts.
   * Default: the record's own `planned_at_ms`.
   */
  planned_at_ms?: number | null;
  /**
   * Whether this request found every concurrency slot busy at its planned time
   * (see `slotWaits` in `analysis/window`). Default false: `queue_ms` is 0.
   */
  waited_for_slot?: boolean;
}

/** Largest value, without spreading (a long stream can have tens of thousands of gaps). */
function largest(values: readonly number[]): number | undefined {
  let m: number | undefined;
  for (const v of values) if (m === undefined || v > m) m = v;
  return m;
}

const diff = (a: number | null | undefined, b: number | null | undefined): number | undefined =>
  a == null || b == null ? undefined : a - b;

/**
 * Time (ms since run start) of the first non-reasoning output: the first content delta, or the
 * first tool-call chunk when that came earlier. Tool-call-only answers are successes (`ok`), so
 * their first tool-call delta is their first token of output.
 */
export function firstOutputAt(rec: RequestRecord): number | null {
  let t = rec.first_content_at_ms;
  const i = rec.chunk_kinds.indexOf('t');
  if (i >= 0) {
    const tt = rec.chunk_times_ms[i];
    if (tt !== undefined && (t === null || tt < t)) t = tt;
  }
  return t;
}

/**
 * Whether the record has per-token times: its response was streamed. A non-stream body
 * arrives whole at its end, so its "first token" is its end and TTFT, TPOT and chunk gaps do
 * not exist. Records from before the `stream` field lack it; they were streamed.
 */
export function isStreamed(rec: RequestRecord): boolean {
  return rec.stream !== false;
}

/** Gaps (ms) between consecutive token-carrying chunks, in arrival order (none unless streamed). */
export function chunkGaps(rec: RequestRecord): number[] {
  if (!isStreamed(rec)) return [];
  const ts = rec.chunk_times_ms;
  const out: number[] = [];
  for (let i = 1; i < ts.length; i++) out.push(ts[i] - ts[i - 1]);
  return out;
}

/**
 * Time to first token (ms): first content or tool-call chunk − sent; `undefined` without
 * either, and for a non-streamed response (see {@link isStreamed}).
 */
export function ttftMs(rec: RequestRecord): number | undefined {
  return isStreamed(rec) ? diff(firstOutputAt(rec), rec.sent_at_ms) : undefined;
}

/** End-to-end latency (ms): end (the finish_reason chunk) − sent; `undefined` without either. */
export function e2eMs(rec: RequestRecord): number | undefined {
  return diff(rec.end_at_ms, rec.sent_at_ms);
}

/**
 * Compute every per-request metric of one attempt's record.
 * @param rec the record (times in ms since the run started)
 * @param opts planned time to count from (retries) and whether the request waited for a slot
 * @example
 * const m = requestMetrics(rec);
 * if (m.ttft_ms !== undefined) console.log(`TTFT ${m.ttft_ms.toFixed(1)} ms`);
 */
export function requestMetrics(rec: RequestRecord, opts: RequestMetricOptions = {}): RequestMetrics {
  const sent = rec.sent_at_ms;
  const planned = opts.planned_at_ms === undefined ? rec.planned_at_ms : opts.planned_at_ms;
  // Without a stream every per-token time is the body's end: no first-token metric exists.
  const streamed = isStreamed(rec);
  const out = streamed ? firstOutputAt(rec) : null;
  const n = rec.usage?.completion_tokens ?? null;
  const firstTok = streamed ? rec.first_token_at_ms : null;
  const lastTok = streamed ? rec.last_token_at_ms : null;

  const decode = diff(lastTok, firstTok);
  const tpot = n !== null && n > 1 && decode !== undefined ? decode / (n - 1) : undefined;
  const sinceSent = diff(lastTok, sent);
  const gaps = chunkGaps(rec);
  const lateness = diff(sent, rec.planned_at_ms);

  return {
    ttft_ms: ttftMs(rec),
    ttfr_ms: streamed ? diff(rec.first_reasoning_at_ms, sent) : undefined,
    e2e_ms: e2eMs(rec),
    tpot_ms: tpot,
    itl_ms: gaps,
    max_gap_ms: largest(gaps),
    ttft_from_planned_ms: diff(out, planned),
    e2e_from_planned_ms: diff(rec.end_at_ms, planned),
    lateness_ms: lateness,
    queue_ms: lateness === undefined ? undefined : opts.waited_for_slot ? lateness : 0,
    vllm_ttft_ms: streamed ? diff(rec.first_chunk_at_ms, sent) : undefined,
    guidellm_tpot_ms: n !== null && n >= 1 && sinceSent !== undefined ? sinceSent / n : undefined,
    guidellm_itl_ms: tpot,
    guidellm_itl_weight: tpot === undefined ? 0 : (n as number) - 1,
  };
}

/**
 * The prompt tokens the server served from its prefix cache, as a share of all prompt tokens:
 * Σ `usage.prompt_tokens_details.cached_tokens` / Σ `usage.prompt_tokens` over the records that
 * report both (llama.cpp: `timings.cache_n`, which it reports as `cached_tokens` too); null when
 * none does. A run meant to be cold reads 0.
 */
export function cachedPromptShare(records: readonly RequestRecord[]): number | null {
  let hit = 0;
  let all = 0;
  for (const r of records) {
    const u = r.usage;
    if (u?.cached_tokens == null || u.prompt_tokens == null || !(u.prompt_tokens > 0)) continue;
    hit += u.cached_tokens;
    all += u.prompt_tokens;
  }
  return all > 0 ? hit / all : null;
}
