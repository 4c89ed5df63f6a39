/**
 * @module client/engine-steps
 * The simulator's step timeline over HTTP (`GET /servelab/steps`, `sim/server/steps.ts`): a
 * probe before a run that says whether the server offers it and where its log ends (so the run
 * reads only its own steps), and the read after the run, a page at a time. A server that does
 * not offer it (vLLM, SGLang, llama.cpp, a simulator without `--record-steps`) answers something
 * other than the page; the probe then says null and nothing more is asked.
 *
 * The steps come in engine ms on the server's timeline; each gets `t_ms` on the caller's clock:
 * the server's clock (`server_clock_ms`, engine ms / `time_scale`) shifted by the difference
 * between the two clocks when the last page was answered (exact on a virtual clock; over a
 * socket, off by the time the answer took to arrive).
 */

import { serverRoot } from '../core/url.js';
import type { EngineStepRecord, RunStepRecord } from '../record/engine-step.js';
import type { Clock } from '../runtime/clock.js';
import { apiRequest, type EngineApiOptions } from './engine-api.js';

/** Where a run's steps start in the server's log. */
export interface StepCursor {
  baseUrl: string;
  since: number;
}

interface StepPageBody {
  steps: EngineStepRecord[];
  next: number;
  end: number;
  server_clock_ms: number;
  time_scale: number;
}

const PAGE = 10_000;
/** A probe or page that takes longer than this is given up (the run's numbers do not wait on it). */
const TIMEOUT_MS = 10_000;

function isPage(v: unknown): v is StepPageBody {
  const p = v as StepPageBody;
  return (
    !!p &&
    typeof p === 'object' &&
    Array.isArray(p.steps) &&
    Number.isInteger(p.next) &&
    Number.isInteger(p.end) &&
    typeof p.server_clock_ms === 'number' &&
    typeof p.time_scale === 'number' &&
    p.time_scale > 0
  );
}

async function getPage(baseUrl: string, since: number, limit: number, o: EngineApiOptions) {
  const url = `${serverRoot(baseUrl)}/servelab/steps?since=${since}&limit=${limit}`;
  const a = await apiRequest(url, 'GET', { timeoutMs: TIMEOUT_MS, ...o });
  if (a.status !== 200) return null;
  try {
    const body: unknown = JSON.parse(a.text);
    return isPage(body) ? body : null;
  } catch {
    return null;
  }
}

/** Before a run: the cursor after the server's newest step, or null when it offers no steps. */
export async function openStepCursor(baseUrl: string, o: EngineApiOptions = {}): Promise<StepCursor | null> {
  try {
    const page = await getPage(baseUrl, 1, 0, o);
    return page ? { baseUrl, since: page.end } : null;
  } catch {
    return null;
  }
}

/**
 * After a run: every step from the cursor on, each with `t_ms` on `clock`. Null when the server
 * stopped answering (the run keeps its numbers; it has no timeline).
 */
export async function readSteps(
  cursor: StepCursor,
  clock: Clock,
  o: EngineApiOptions = {},
): Promise<RunStepRecord[] | null> {
  const raw: EngineStepRecord[] = [];
  let since = cursor.since;
  let last: StepPageBody | null = null;
  let clientNow = 0;
  try {
    for (;;) {
      const page = await getPage(cursor.baseUrl, since, PAGE, o);
      clientNow = clock.now();
      if (!page) return null;
      last = page;
      raw.push(...page.steps);
      if (page.steps.length === 0 || page.next >= page.end) break;
      since = page.next;
    }
  } catch {
    return null;
  }
  const offset = clientNow - last.server_clock_ms;
  const scale = last.time_scale;
  return raw.map((s) => ({ ...s, t_ms: s.start_ms / scale + offset }));
}
