/**
 * @module analysis/window
 * Time-window math over a run's records: the measurement window every throughput divides by,
 * the time-averaged number of requests in flight (a sweep line, for the Little's-law check),
 * and which requests had to wait for a concurrency slot (for `queue_ms`).
 * Pure; times are milliseconds since the run started.
 */
import type { RequestRecord } from '../record/types.js';
import { lowerBound, upperBound } from './stats.js';

/** A closed time interval [start_ms, end_ms] on the run clock. */
export interface MeasurementWindow {
  start_ms: number;
  end_ms: number;
}

/**
 * When a sent attempt stopped occupying the server/slot: its end, or else the last thing
 * seen from it. An attempt that never recorded an end (it should not happen: cancelled
 * requests get an end too) is taken to end at its last known time rather than dropped.
 */
export function attemptEndAt(rec: RequestRecord): number | null {
  if (rec.sent_at_ms === null) return null;
  return (
    rec.end_at_ms ?? rec.last_token_at_ms ?? rec.first_chunk_at_ms ?? rec.headers_at_ms ?? rec.sent_at_ms
  );
}

/**
 * The default measurement window: from the first send to the last end among `measure`-phase
 * attempts (warm-up excluded, retries included). The runner records its own window; pass that
 * to `summarize` instead when it has one.
 * @returns the window, or `undefined` when no measured attempt was sent
 */
export function measurementWindow(records: readonly RequestRecord[]): MeasurementWindow | undefined {
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const r of records) {
    if (r.phase !== 'measure' || r.sent_at_ms === null) continue;
    start = Math.min(start, r.sent_at_ms);
    end = Math.max(end, attemptEndAt(r) as number);
  }
  return start === Number.POSITIVE_INFINITY ? undefined : { start_ms: start, end_ms: end };
}

/** How many requests were in flight over a window. */
export interface InFlightProfile {
  /** Time-average of the in-flight count over the window (requests). */
  mean: number;
  /** Largest in-flight count at any instant inside the window (requests). */
  peak: number;
}

/**
 * Sweep a line across `[start, end)` intervals, clipped to `window`, integrating the number
 * in flight over time. Ends sort before starts at equal times, so back-to-back requests on one
 * connection never count as two at once.
 * @param intervals `[start_ms, end_ms]` pairs (e.g. sent → end of each attempt)
 * @returns `undefined` when the window has zero or negative length
 */
export function inFlightProfile(
  intervals: readonly (readonly [number, number])[],
  window: MeasurementWindow,
): InFlightProfile | undefined {
  const span = window.end_ms - window.start_ms;
  if (!(span > 0)) return undefined;
  const events: [number, number][] = [];
  for (const [s, e] of intervals) {
    const a = Math.max(s, window.start_ms);
    const b = Math.min(e, window.end_ms);
    if (b <= a) continue;
    events.push([a, 1], [b, -1]);
  }
  events.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let count = 0;
  let peak = 0;
  let area = 0;
  let prev = window.start_ms;
  for (const [t, d] of events) {
    area += count * (t - prev);
    prev = t;
    count += d;
    if (count > peak) peak = count;
  }
  return { mean: area / span, peak };
}

/**
 * Ids of the attempts that found every concurrency slot busy at their planned time, i.e. at
 * least `maxConcurrency` other attempts (any phase) were ahead of them and not yet ended then:
 * sent before it (by its planned time, or after it but still ahead of it in the queue) and
 * ended after its planned time. Those waited for a slot, and their whole `sent − planned` is
 * queueing (`queue_ms`). Counting the ones sent ahead after the planned time matters for a
 * burst (`--rate inf`): every request is planned at t = 0, none is sent by then, and the ninth
 * under a cap of eight still waits for the first to end.
 * With no cap (`null`) nothing waits. O(n log n).
 * @param records every attempt of the run (warm-up included: it occupies slots too)
 * @param maxConcurrency the run's `--max-concurrency`, or null
 */
export function slotWaits(
  records: readonly RequestRecord[],
  maxConcurrency: number | null | undefined,
): Set<string> {
  const waited = new Set<string>();
  if (maxConcurrency == null) return waited;
  const sent: number[] = [];
  const ended: number[] = [];
  for (const r of records) {
    if (r.sent_at_ms === null) continue;
    sent.push(r.sent_at_ms);
    ended.push(attemptEndAt(r) as number);
  }
  const S = Float64Array.from(sent).sort();
  const E = Float64Array.from(ended).sort();
  for (const r of records) {
    const t = r.planned_at_ms;
    if (t === null || r.sent_at_ms === null) continue;
    // Ahead of r and in flight at t: sent before r (every one sent after t ends after t).
    let busy: number;
    if (r.sent_at_ms > t) busy = lowerBound(S, r.sent_at_ms) - upperBound(E, t);
    else {
      // Sent on time: in flight at t, itself left out.
      busy = upperBound(S, t) - upperBound(E, t);
      if ((attemptEndAt(r) as number) > t) busy -= 1;
    }
    if (busy >= maxConcurrency) waited.add(r.id);
  }
  return waited;
}
