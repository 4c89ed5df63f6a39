/**
 * @module analysis/server-gone
 * A server that stopped answering mid-run: after some attempts reached it, every later one got
 * a connection error (the process died, was killed, or its port closed). Such a run measured a
 * dead server for its last requests, so it failed: the verdict names it (`server_gone`), the
 * exit code is 3, and `diagnose` says so. Pure, over a run's records; times on the run clock.
 */
import type { RequestRecord } from '../record/types.js';

/**
 * Text of the `cancelled` records the runner writes for requests it did not send because the
 * server had stopped answering (the time follows it).
 */
export const SERVER_GONE_UNSENT = 'not sent: the server stopped answering';

/**
 * Back-off of a closed-loop worker after its request ended in a connect error, ms: this, doubled
 * per consecutive connect error of the worker, at most {@link CONNECT_BACKOFF_MAX_MS}. Without it
 * the workers spend every remaining request on a dead port in a fraction of a second.
 */
export const CONNECT_BACKOFF_MS = 100;
export const CONNECT_BACKOFF_MAX_MS = 2_000;
/**
 * After this long with connect errors only (no attempt reached the server since the first of
 * them), the runner stops sending: the rest are recorded `cancelled` ({@link SERVER_GONE_UNSENT}).
 */
export const SERVER_GONE_AFTER_MS = 10_000;
/** Measured requests that must end in a connect error after the last answer to call the server gone. */
export const SERVER_GONE_MIN_REQUESTS = 3;

/** When the server stopped answering, and what that cost the run. */
export interface ServerGone {
  /** Run-clock time of the first connect error after the last attempt that reached the server, ms. */
  at_ms: number;
  /** Measured requests whose final attempt was a connect error from then on. */
  connect_errors: number;
  /** Measured requests the runner did not send because the server was gone. */
  unsent: number;
}

/**
 * Whether the server stopped answering during the run: at least one attempt reached it (any
 * outcome but `connect_error`: an answer, an HTTP error, a stream cut by the server's death),
 * and every attempt sent after the last of those got a connect error, at least
 * {@link SERVER_GONE_MIN_REQUESTS} measured requests of them. Null otherwise, and for a server
 * that never answered (that is "unreachable", which nothing succeeding already says).
 * @param records every attempt of the run, any order
 */
export function serverGone(records: readonly RequestRecord[]): ServerGone | null {
  let lastReached = Number.NEGATIVE_INFINITY;
  for (const r of records) {
    if (r.sent_at_ms === null || r.outcome === 'connect_error' || r.outcome === 'cancelled') continue;
    lastReached = Math.max(lastReached, r.sent_at_ms);
  }
  if (lastReached === Number.NEGATIVE_INFINITY) return null;
  let at = Number.POSITIVE_INFINITY;
  const failed = new Set<string>();
  const finals = new Map<string, RequestRecord>();
  for (const r of records) {
    const f = finals.get(r.planned_id);
    if (!f || r.attempt > f.attempt) finals.set(r.planned_id, r);
    if (r.outcome !== 'connect_error' || r.sent_at_ms === null || r.sent_at_ms < lastReached) continue;
    at = Math.min(at, r.sent_at_ms);
  }
  let unsent = 0;
  for (const f of finals.values()) {
    if (f.phase !== 'measure') continue;
    if (f.outcome === 'connect_error' && f.sent_at_ms !== null && f.sent_at_ms >= at)
      failed.add(f.planned_id);
    if (f.outcome === 'cancelled' && f.sent_at_ms === null && f.error?.startsWith(SERVER_GONE_UNSENT))
      unsent++;
  }
  if (failed.size < SERVER_GONE_MIN_REQUESTS) return null;
  return { at_ms: at, connect_errors: failed.size, unsent };
}
