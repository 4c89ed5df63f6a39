/**
 * @module analysis/littles-law
 * The Little's-law check (L = λW): the time-average number of requests in flight against what
 * the load predicts, with an estimator that is unbiased for the two kinds of load servelab
 * makes. Pure; times are milliseconds on the run clock. Definitions in `docs/metrics.md`.
 *
 * Why not λ·W over the send span for every run: over [first send, last send] the identity is
 * ∫L dt = Σ W − (the time requests in flight at the last send spend after it). A closed loop of
 * c users in lock-step waves sends its last wave at the last send, so a run of k = N/c waves
 * counts k waves of sends over k − 1 wave lengths and reads a gap of 1/(k − 1) (11% at
 * c = 100, N = 1,000; 100% at N = 200) while exactly c requests were in flight throughout.
 */
import { mean, percentile } from './stats.js';
import { inFlightProfile, type MeasurementWindow } from './window.js';

/** A Little's-law gap above this is invalid and warned about (one threshold everywhere). */
export const LITTLES_LAW_MAX_GAP = 0.1;
/** Measured attempts below which the gap is reported but not judged ("too few requests"). */
export const LITTLES_LAW_MIN_REQUESTS = 50;
/**
 * An open loop's send span must hold this many early sojourns (the median time in flight of its
 * first {@link EARLY_REQUESTS} requests) to be judged: the boundary terms of a short span are noise of about
 * W/T (a stable open loop at 10 requests/s with W = 1 s, 50 requests, reads > 10% in most
 * draws). Early sojourns, not the mean: an overloaded loop's queue lengthens its late ones.
 */
export const LITTLES_LAW_MIN_SOJOURNS = 20;
/** The first requests of an open loop, whose sojourns set its time scale (they met no queue yet). */
const EARLY_REQUESTS = 10;

/** The check's figures, as the summary carries them. */
export interface LittlesLaw {
  /** Time-average number of attempts in flight over the judged window (requests). */
  measured_in_flight: number | null;
  /** What the load predicts: a closed loop's population, or λ·W of an open loop (requests). */
  predicted_in_flight: number | null;
  /** |predicted − measured| / measured. */
  rel_gap: number | null;
  /**
   * `closed_loop`: the prediction is the loop's population c; `open_loop`: λ·W over the send
   * span without its fill. Absent in summaries written before it existed.
   */
  basis?: 'closed_loop' | 'open_loop';
  /**
   * Whether the run had enough requests for the gap to be judged; false: "too few requests",
   * a note, not a verdict. Absent in summaries written before it existed.
   */
  judged?: boolean;
}

/**
 * Little's law for one run's measured attempts.
 *
 * - **Closed loop** (`closedLoopUsers` = c): while requests remain, each of the c users has one
 *   in flight and sends the next the moment it ends, so Little's law with no think time
 *   predicts L = c (min(c, N) for a short run). Measured: the time-average in flight over the
 *   send span [first send, last send], the stretch in which every user is busy. A gap means the
 *   client did not keep its users busy (it lagged, or its connections queued). Judged from
 *   {@link LITTLES_LAW_MIN_REQUESTS} attempts and more than one per user.
 * - **Open loop** (`null`): over [first send + fill, last send], where fill is the mean time in
 *   flight (at most half the span): measured L is the time-average in flight there, predicted
 *   λ·W with λ the sends in [start, end) over the window and W their mean time in flight.
 *   Skipping the fill makes the two boundary terms alike (requests already in flight at the
 *   start, requests still in flight at the end), so a stable loop reads ≈ 0; an overloaded one
 *   builds a queue, its late requests' long W raises λ·W above L and the gap grows with the
 *   overload. Judged from {@link LITTLES_LAW_MIN_REQUESTS} attempts over a span of at least
 *   {@link LITTLES_LAW_MIN_SOJOURNS} early sojourns.
 * @param intervals each measured attempt's [sent, end], ms
 * @param window the run's window, used when there is a single send
 * @param closedLoopUsers the closed loop's concurrency, or null for an open loop
 */
export function littlesLaw(
  intervals: readonly (readonly [number, number])[],
  window: MeasurementWindow | null,
  closedLoopUsers: number | null = null,
): LittlesLaw {
  const n = intervals.length;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const [s] of intervals) {
    first = Math.min(first, s);
    last = Math.max(last, s);
  }
  const spread = n > 1 && last > first;
  const closed = closedLoopUsers !== null && closedLoopUsers > 0;
  const none: LittlesLaw = {
    measured_in_flight: null,
    predicted_in_flight: null,
    rel_gap: null,
    basis: closed ? 'closed_loop' : 'open_loop',
    judged: false,
  };
  if (closed) {
    const span = spread ? { start_ms: first, end_ms: last } : window;
    const profile = span ? inFlightProfile(intervals, span) : undefined;
    if (!profile) return none;
    const predicted = Math.min(closedLoopUsers, n);
    return {
      ...gapOf(profile.mean, predicted),
      basis: 'closed_loop',
      judged: spread && n >= LITTLES_LAW_MIN_REQUESTS && n > closedLoopUsers,
    };
  }
  if (!spread) {
    // One send (or all at one instant): no rate to speak of.
    const profile = window ? inFlightProfile(intervals, window) : undefined;
    return { ...none, measured_in_flight: profile ? profile.mean : null };
  }
  const sojourns = intervals.map(([s, e]) => e - s);
  const fill = Math.min(mean(sojourns) as number, (last - first) / 2);
  const start = first + fill;
  const inside = intervals.filter(([s]) => s >= start && s < last);
  const profile = inFlightProfile(intervals, { start_ms: start, end_ms: last });
  const w = mean(inside.map(([s, e]) => e - s));
  if (!profile || w === null) return none;
  const predicted = ((inside.length * 1000) / (last - start)) * (w / 1000);
  const bySend = [...intervals].sort((a, b) => a[0] - b[0]);
  const early = bySend.slice(0, EARLY_REQUESTS).map(([s, e]) => e - s);
  const earlyW = percentile(
    early.sort((a, b) => a - b),
    50,
  );
  return {
    ...gapOf(profile.mean, predicted),
    basis: 'open_loop',
    judged:
      n >= LITTLES_LAW_MIN_REQUESTS && earlyW !== null && last - first >= LITTLES_LAW_MIN_SOJOURNS * earlyW,
  };
}

function gapOf(
  measured: number,
  predicted: number,
): Pick<LittlesLaw, 'measured_in_flight' | 'predicted_in_flight' | 'rel_gap'> {
  return {
    measured_in_flight: measured,
    predicted_in_flight: predicted,
    rel_gap: measured > 0 ? Math.abs(predicted - measured) / measured : null,
  };
}
