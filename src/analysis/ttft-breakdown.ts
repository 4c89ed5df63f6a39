/**
 * @module analysis/ttft-breakdown
 * Where a run's time to first token went, from the engine's own account of each request
 * (`RequestRecord.server`, read from its `timings` by `record/server-times`): the engine's
 * queue, the request's prefill, and the rest (network, the API server's work, and, where the
 * engine reports no queue, the wait for a slot). What is split is the client's time to the
 * first token of any kind (reasoning included), which is where the engine's prefill ends; a
 * reasoning model's `ttft_ms` (content) adds the reasoning's decode after it. Definitions in
 * docs/metrics.md#ttft-breakdown. Pure; "no data" is `null` with a reason, never 0.
 */
import { type MessageKey, type T, translator } from '../i18n/index.js';
import { serverTimes } from '../record/server-times.js';
import type { RequestRecord, ServerTimesSource } from '../record/types.js';
import { clientPrefillWindow } from './interference.js';
import { describe, percentile } from './stats.js';

/** One part of the TTFT over the run's successful requests, ms. */
export interface TtftPart {
  /** Requests that have this part. */
  n: number;
  mean: number | null;
  p50: number | null;
  /** Why the part is null (in the summary's language); null when it has values. */
  reason: string | null;
}

/** The TTFT split into what the engine says it spent and the rest. */
export interface TtftBreakdown {
  /** Where the server's times came from (the most common source); null when no request had any. */
  source: ServerTimesSource | null;
  /**
   * What is split: first token-carrying chunk of any kind − sent, over the requests whose
   * prefill the engine timed (= server queue + server prefill + rest, request by request).
   */
  first_token_ms: TtftPart;
  /** The engine's queue: arrival at the engine → first scheduled (`server.queue_ms`). */
  server_queue_ms: TtftPart;
  /** The request's prefill as the engine timed it (`server.prefill_ms`). */
  server_prefill_ms: TtftPart;
  /** First token − sent − server queue (when the engine reports one) − server prefill, per request. */
  ttft_rest_ms: TtftPart;
}

const EN = translator('en');

function part(values: readonly number[], reason: MessageKey | null, t: T): TtftPart {
  const s = describe(values);
  return { n: s.n, mean: s.mean, p50: s.p50, reason: s.n === 0 && reason ? t(reason) : null };
}

/**
 * The TTFT breakdown of a run's successful requests (pass each planned request's final
 * attempt, as the summary's latencies use). A request counts where it was streamed with a
 * first token and the engine timed its prefill; the queue part only where the engine also timed
 * its queue.
 * @param successes the successful measured requests' final attempts
 * @param t the language of the reasons (default English, what a stored summary keeps)
 * @example
 * ttftBreakdown(measuredSuccesses(records)).server_prefill_ms.p50 // ms, or null
 */
export function ttftBreakdown(successes: readonly RequestRecord[], t: T = EN): TtftBreakdown {
  const first: number[] = [];
  const queue: number[] = [];
  const prefill: number[] = [];
  const rest: number[] = [];
  const sources = new Map<ServerTimesSource, number>();
  let withTtft = 0;
  for (const r of successes) {
    const w = clientPrefillWindow(r);
    if (w === null) continue;
    const ttft = w[1] - w[0];
    withTtft += 1;
    const s = serverTimes(r);
    if (!s || s.prefill_ms === null) continue;
    sources.set(s.source, (sources.get(s.source) ?? 0) + 1);
    first.push(ttft);
    prefill.push(s.prefill_ms);
    if (s.queue_ms !== null) queue.push(s.queue_ms);
    rest.push(ttft - (s.queue_ms ?? 0) - s.prefill_ms);
  }
  let source: ServerTimesSource | null = null;
  for (const [k, n] of sources) if (source === null || n > (sources.get(source) ?? 0)) source = k;
  const none: MessageKey = withTtft === 0 ? 'run.ttft_split.no_ttft' : 'run.ttft_split.no_timings';
  return {
    source,
    first_token_ms: part(first, none, t),
    server_queue_ms: part(queue, prefill.length === 0 ? none : 'run.ttft_split.no_queue', t),
    server_prefill_ms: part(prefill, none, t),
    ttft_rest_ms: part(rest, none, t),
  };
}

/** How much of the slowest requests' TTFT each part explains ({@link ttftTailShares}). */
export interface TtftTailShares {
  /** The percentile the tail starts at. */
  pct: number;
  /** Requests at or above it whose prefill the engine timed. */
  n: number;
  /** The tail's mean TTFT (first token of any kind − sent), ms. */
  ttft_ms: number;
  /** Σ server queue / Σ TTFT over the tail; null where the engine reports no queue. */
  queue: number | null;
  /** Σ own prefill / Σ TTFT. */
  prefill: number | null;
  /** Σ the rest (network, API server, and the queue where the engine reports none) / Σ TTFT. */
  rest: number | null;
}

/**
 * Where the TTFT of the requests at or above its `pct` percentile went: each part of
 * {@link ttftBreakdown}, summed over those requests, as a share of their summed TTFT ("78%
 * queue, 15% prefill"). The tail is taken over every streamed request with a first token; its
 * shares over those the engine timed. Null when none of the tail was timed.
 * @param successes the successful measured requests' final attempts
 */
export function ttftTailShares(successes: readonly RequestRecord[], pct = 99): TtftTailShares | null {
  const timed: { ttft: number; queue: number | null; prefill: number | null }[] = [];
  const all: number[] = [];
  for (const r of successes) {
    const w = clientPrefillWindow(r);
    if (w === null) continue;
    const ttft = w[1] - w[0];
    all.push(ttft);
    const s = serverTimes(r);
    timed.push({ ttft, queue: s?.queue_ms ?? null, prefill: s?.prefill_ms ?? null });
  }
  const cut = describeAt(all, pct);
  if (cut === null) return null;
  const tail = timed.filter((x) => x.ttft >= cut && x.prefill !== null);
  const total = tail.reduce((a, x) => a + x.ttft, 0);
  if (tail.length === 0 || !(total > 0)) return null;
  const queued = tail.every((x) => x.queue !== null);
  const queue = queued ? tail.reduce((a, x) => a + (x.queue as number), 0) : null;
  const prefill = tail.reduce((a, x) => a + (x.prefill as number), 0);
  return {
    pct,
    n: tail.length,
    ttft_ms: total / tail.length,
    queue: queue === null ? null : queue / total,
    prefill: prefill / total,
    rest: (total - (queue ?? 0) - prefill) / total,
  };
}

/** The `pct` percentile of `xs`, or null when empty. */
function describeAt(xs: readonly number[], pct: number): number | null {
  return xs.length ? percentile(Float64Array.from(xs).sort(), pct) : null;
}
