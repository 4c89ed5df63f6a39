/**
 * @module sim/server/steps
 * `GET /servelab/steps?since=S&limit=N`: the step timeline the engine records under
 * `--record-steps` (`sim/engine/step-log.ts`), a page at a time; `next` is the `since` of the
 * following page, so a long run is read in pages rather than all at once. Times are engine ms;
 * `server_clock_ms` (the server's clock when it answered) and `time_scale` let a client put them
 * on its own clock: server ms = engine ms / time_scale. A simulator that does not record answers
 * 404, as any other server does, so a client's probe tells the two apart.
 */
import type { ServerResponse } from 'node:http';
import type { SimEngine } from '../engine/types.js';
import { sendError, sendJson } from './responses.js';

/** Steps a page holds by default, and at most. */
export const STEPS_PAGE = 1000;
export const STEPS_PAGE_MAX = 10_000;

/** Answer one `GET /servelab/steps` (the query is read from `url`). */
export function serveSteps(
  engine: SimEngine,
  serverClockMs: number,
  timeScale: number,
  url: string,
  res: ServerResponse,
): void {
  const q = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  const int = (name: string, dflt: number) => {
    const v = q.get(name);
    const n = v === null ? dflt : Number(v);
    return Number.isInteger(n) && n >= 0 ? n : null;
  };
  const since = int('since', 1);
  const limit = int('limit', STEPS_PAGE);
  if (since === null || limit === null) {
    sendError(res, 400, '`since` and `limit` must be integers ≥ 0.', since === null ? 'since' : 'limit');
    return;
  }
  const page = engine.stepPage(since, Math.min(limit, STEPS_PAGE_MAX));
  if (!page) {
    sendError(res, 404, 'This simulator does not record its steps; start it with --record-steps.');
    return;
  }
  sendJson(res, 200, { ...page, server_clock_ms: serverClockMs, time_scale: timeScale });
}
