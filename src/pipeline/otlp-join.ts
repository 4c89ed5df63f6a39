/**
 * @module pipeline/otlp-join
 * The join of the engine's OpenTelemetry request spans to the run's records (`run --otlp-port`):
 * each attempt went out with a `traceparent` whose trace id its record keeps (`trace_id`); a span
 * with that trace id and the engine's latency attributes (`record/server-times`
 * {@link serverTimesOfSpan}) fills the record's `server` with `source: 'otlp'`.
 *
 * A span usually arrives after its response: engines export in batches (vLLM's
 * `BatchSpanProcessor`, whose default schedule delay `OTEL_BSP_SCHEDULE_DELAY` is 5000 ms in the
 * OpenTelemetry SDK specification). So the records the engine answered (HTTP 200) without
 * timing them in the response wait here, in front of the sinks that keep them (requests.jsonl,
 * the store), until their span arrives or the run's grace period ends; then the rest go on with
 * `server: null` and `server_reason: 'no_span'`. Everything else passes straight through.
 */
import type { OtlpSpan } from '../monitor/index.js';
import { serverTimesOfSpan } from '../record/server-times.js';
import type { RequestRecord, RequestServerTimes } from '../record/types.js';
import type { RunObserver } from '../runner/events.js';

/** How long the end of a run waits for spans still on their way, at most (ms). */
export const OTLP_GRACE_MS = 6000;

/** What the join did. */
export interface SpanJoinStats {
  /** Records that waited for a span (the engine answered them). */
  expected: number;
  /** Of those, the ones a span was joined to. */
  joined: number;
}

/** Records held for their spans in front of `sinks`. */
export interface SpanJoin {
  /** Pass to the runner in place of the sinks. */
  observer: RunObserver;
  /** Hand received spans here. */
  onSpans(spans: readonly OtlpSpan[]): void;
  /**
   * After the load: wait until every held record has its span or `graceMs` passed, then hand on
   * the rest (and the deferred run end). Idempotent.
   */
  settle(graceMs: number): Promise<SpanJoinStats>;
}

/** Hold records for their engine spans in front of `sinks` (see the module comment). */
export function joinSpans(sinks: readonly RunObserver[]): SpanJoin {
  const early = new Map<string, RequestServerTimes>();
  const held = new Map<string, RequestRecord>();
  const ended: Parameters<NonNullable<RunObserver['onRunEnd']>>[0][] = [];
  const stats: SpanJoinStats = { expected: 0, joined: 0 };
  let settled = false;
  let wake: (() => void) | null = null;
  const forward = (rec: RequestRecord) => {
    for (const s of sinks) s.onRecord?.(rec);
  };
  const fill = (rec: RequestRecord, times: RequestServerTimes) => {
    rec.server = times;
    rec.server_reason = null;
    stats.joined++;
  };
  const observer: RunObserver = {
    onRunStart: (info) => {
      for (const s of sinks) s.onRunStart?.(info);
    },
    onSent: (rec, late) => {
      for (const s of sinks) s.onSent?.(rec, late);
    },
    onChunk: (rec) => {
      for (const s of sinks) s.onChunk?.(rec);
    },
    onRecord: (rec) => {
      const id = rec.trace_id;
      // Already timed by its response (llama.cpp's `timings`): nothing to wait for.
      if (settled || !id || rec.http_status !== 200 || rec.server) return forward(rec);
      stats.expected++;
      const times = early.get(id);
      if (times) {
        early.delete(id);
        fill(rec, times);
        return forward(rec);
      }
      held.set(id, rec);
    },
    onRunEnd: (reason) => {
      if (settled) for (const s of sinks) s.onRunEnd?.(reason);
      else ended.push(reason);
    },
  };
  return {
    observer,
    onSpans(spans) {
      for (const span of spans) {
        const times = serverTimesOfSpan(span.attributes);
        if (!times) continue;
        const rec = held.get(span.trace_id);
        if (rec) {
          held.delete(span.trace_id);
          fill(rec, times);
          forward(rec);
        } else if (!settled) early.set(span.trace_id, times);
      }
      if (held.size === 0) wake?.();
    },
    async settle(graceMs) {
      if (!settled && held.size > 0 && graceMs > 0)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      if (settled) return stats;
      settled = true;
      wake = null;
      for (const rec of held.values()) {
        rec.server_reason = 'no_span';
        forward(rec);
      }
      held.clear();
      early.clear();
      for (const reason of ended) for (const s of sinks) s.onRunEnd?.(reason);
      return stats;
    },
  };
}
