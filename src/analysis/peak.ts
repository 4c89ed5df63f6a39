/**
 * @module analysis/peak
 * `vllm bench serve`'s two peak figures, by its definitions (vllm-project/vllm@009e6d4a1cd6,
 * `vllm/benchmarks/serve.py` `calculate_metrics`), over the successful requests:
 * - `max_output_tokens_per_s`: the most token-carrying chunks that arrived in one whole second,
 *   counting seconds from the first successful request's send;
 * - `max_concurrent_requests`: the most requests in flight at once, each in flight over
 *   [sent, end) (a request ending at t is gone before one sent at t arrives).
 */

import type { RequestRecord } from '../record/types.js';
import { SUCCESS_OUTCOMES } from '../record/types.js';

export interface PeakFigures {
  /** Token-carrying chunks in the busiest one-second bucket; null without a successful streamed request. */
  max_output_tokens_per_s: number | null;
  /** Peak number of successful requests in flight; null without a successful request. */
  max_concurrent_requests: number | null;
}

/** The peak figures over `records` (pass the measured phase's final attempts). */
export function peakFigures(records: readonly RequestRecord[]): PeakFigures {
  const ok = records.filter(
    (r) => SUCCESS_OUTCOMES.includes(r.outcome) && r.sent_at_ms !== null && r.end_at_ms !== null,
  );
  if (ok.length === 0) return { max_output_tokens_per_s: null, max_concurrent_requests: null };
  const t0 = Math.min(...ok.map((r) => r.sent_at_ms as number));
  const buckets = new Map<number, number>();
  let chunks = 0;
  for (const r of ok)
    for (const t of r.chunk_times_ms) {
      const b = Math.floor((t - t0) / 1000);
      buckets.set(b, (buckets.get(b) ?? 0) + 1);
      chunks++;
    }
  const events: [number, number][] = [];
  for (const r of ok) events.push([r.sent_at_ms as number, 1], [r.end_at_ms as number, -1]);
  // Departures before arrivals at the same instant: half-open intervals.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let peak = 0;
  for (const [, d] of events) {
    cur += d;
    if (cur > peak) peak = cur;
  }
  return {
    max_output_tokens_per_s: chunks === 0 ? null : Math.max(...buckets.values()),
    max_concurrent_requests: peak,
  };
}
