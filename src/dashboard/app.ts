/**
 * @module dashboard/app
 * The dashboard's HTTP routes on plain `node:http`: the static page (bundled from
 * `assets/dashboard/`, with echarts served from `node_modules`, so the page needs no network),
 * the JSON API over the store, and the live stream of a running run.
 *
 * Routes (GET only):
 * - `/` the page; `/app.js`, `/style.css`, `/report.css` (the report's fragment rules),
 *   `/vendor/echarts.min.js` its assets
 * - `/api/i18n` the page's prose in the dashboard's language (`dashboard.*` keys)
 * - `/api/runs[?experiment=ID]` runs, newest first · `/api/experiments`
 * - `/api/experiments/:id` the experiment, its runs, its kind's answer (`answer`, `answer_html`:
 *   what the page leads with), and the report over its runs: headline, table (a verdict per
 *   level), the cross-run charts (load curve with its knee) and the diagnosis
 * - `/api/runs/:id` the row and its summary (stored, or computed while running), the report's
 *   headline and table
 * - `/api/runs/:id/records?offset=&limit=` records in commit order, paged
 * - `/api/runs/:id/series` scraped server series (run-clock ms)
 * - `/api/runs/:id/charts` the report's charts for the run (echarts options)
 * - `/api/compare?ids=a,b` the report's table and charts for several runs
 * - `/api/runs/:id/live` server-sent events while the run is `running` (see `server/live`)
 *
 * Ids may be unique prefixes. Unknown ids answer 404 JSON with a hint.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { diagnose } from '../analysis/diagnose/index.js';
import type { LoadedRun } from '../analysis/loaded-run.js';
import { UsageError } from '../core/errors.js';
import { CATALOGUES, type T, translator } from '../i18n/index.js';
import type { ExperimentAnswer } from '../report/answer.js';
import {
  answerHtml,
  chartsBesideAnswers,
  comparisonTable,
  diagnosisHtml,
  FRAGMENT_CSS,
  headlineHtml,
  renderTableHtml,
  reportCharts,
} from '../report/index.js';
import type { Clock } from '../runtime/clock.js';
import type { RunRow, Store } from '../store/index.js';
import { streamLive } from './live.js';
import { experimentListItem, loadedRunFromStore, runListItem, runSummary } from './store-runs.js';

/** Records per page of `/api/runs/:id/records` unless `limit` says otherwise, and the most allowed. */
export const RECORDS_PAGE = 500;
export const RECORDS_PAGE_MAX = 5000;
/** Most runs in one comparison (the page and the charts stop being readable past this). */
export const COMPARE_MAX = 12;

/** One static file, read once at start. */
interface Asset {
  type: string;
  body: Buffer;
}

/** Read the page's files and echarts into memory. */
export function loadAssets(assetsDir: URL): Map<string, Asset> {
  const read = (name: string) => readFileSync(new URL(name, assetsDir));
  const echartsPath = createRequire(import.meta.url).resolve('echarts/dist/echarts.min.js');
  return new Map<string, Asset>([
    ['/', { type: 'text/html; charset=utf-8', body: read('index.html') }],
    ['/app.js', { type: 'text/javascript; charset=utf-8', body: read('app.js') }],
    ['/style.css', { type: 'text/css; charset=utf-8', body: read('style.css') }],
    ['/report.css', { type: 'text/css; charset=utf-8', body: Buffer.from(FRAGMENT_CSS) }],
    ['/vendor/echarts.min.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(echartsPath) }],
  ]);
}

/** Where the bundled page lives: `assets/dashboard/` at the package root (same path from `src/` and `dist/`). */
export const DEFAULT_ASSETS_DIR = new URL('../../assets/dashboard/', import.meta.url);

/** What the request handler needs. */
export interface AppDeps {
  store: Store;
  clock: Clock;
  assets: Map<string, Asset>;
  /** Live streams register their stop function here so that closing the dashboard ends them. */
  liveStreams: Set<() => void>;
  /** Poll period of live streams, ms (default `LIVE_POLL_MS`). */
  livePollMs?: number;
  /** Recently loaded finished runs (see {@link loadRunCached}); created on first use when absent. */
  cache?: Map<string, CachedRun>;
  /** Language of the page's prose and of the report fragments (default English). */
  t?: T;
  /**
   * What a stored experiment's results answer (its kind's `answer`; `exp/run-experiment`
   * `experimentAnswer`), passed in by the caller since the kinds sit beside the dashboard, not
   * under it. Without it, or for a kind without one, the page has no answer section.
   */
  answerOf?: (kind: string, results: unknown, t: T) => ExperimentAnswer | null;
}

/** A loaded run and the row state it was loaded at. */
interface CachedRun {
  records: number;
  status: string;
  run: LoadedRun;
}

/**
 * Finished runs kept loaded: the page asks for a run's detail and its charts back to back, and
 * an experiment's page for all of its levels.
 */
const CACHE_RUNS = 16;

/**
 * {@link loadedRunFromStore} with a small cache of finished runs: parsing every record of a large run
 * takes seconds (20 000 records of 128 chunks: ~1.3 s), and a finished run no longer changes.
 * A running run is always read afresh.
 */
function loadRunCached(deps: AppDeps, row: RunRow): LoadedRun {
  if (row.status === 'running') return loadedRunFromStore(deps.store, row);
  deps.cache ??= new Map();
  const hit = deps.cache.get(row.id);
  if (hit && hit.records === row.records && hit.status === row.status) {
    deps.cache.delete(row.id); // re-insert: Map order is the LRU order
    deps.cache.set(row.id, hit);
    return hit.run;
  }
  const run = loadedRunFromStore(deps.store, row);
  deps.cache.set(row.id, { records: row.records, status: row.status, run });
  while (deps.cache.size > CACHE_RUNS) deps.cache.delete(deps.cache.keys().next().value as string);
  return run;
}

/** An error answered as JSON with a status: `{error, hint?}`. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // Everything the page needs is served from here; nothing may be fetched from elsewhere.
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
};

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Hostnames a loopback dashboard answers to; anything else is a DNS-rebinding attempt. */
function isLoopbackHostHeader(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return name === 'localhost' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name);
}

function notFoundRun(id: string): HttpError {
  return new HttpError(404, `no run ${id} in the store`, 'GET /api/runs lists the stored runs');
}

function mustRun(store: Store, id: string): RunRow {
  const row = store.getRun(id);
  if (!row) throw notFoundRun(id);
  return row;
}

function intParam(u: URL, name: string, def: number, max: number): number {
  const raw = u.searchParams.get(name);
  if (raw === null || raw === '') return def;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 0)
    throw new HttpError(
      400,
      `${name} must be a non-negative integer, got ${JSON.stringify(raw)}`,
      `e.g. ?${name}=0`,
    );
  return Math.min(v, max);
}

function decodePart(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new HttpError(
      400,
      `malformed path segment ${JSON.stringify(s)}`,
      'percent-escapes must be valid UTF-8',
    );
  }
}

/** The API routes; each returns a JSON body, or handles the response itself (the live stream) and returns undefined. */
function routeApi(path: string, u: URL, res: ServerResponse, deps: AppDeps): unknown {
  const { store } = deps;
  const t = deps.t ?? translator('en');
  const parts = path.split('/').filter(Boolean).map(decodePart); // ['api', 'runs', ':id', …]
  const [, what, id, sub, extra] = parts;

  if (what === 'i18n' && id === undefined) {
    const cat = CATALOGUES[t.lang];
    return {
      lang: t.lang,
      messages: Object.fromEntries(Object.entries(cat).filter(([k]) => k.startsWith('dashboard.'))),
    };
  }
  if (what === 'runs' && id === undefined) {
    const exp = u.searchParams.get('experiment');
    if (exp && !store.getExperiment(exp))
      throw new HttpError(404, `no experiment ${exp} in the store`, 'GET /api/experiments lists them');
    return { runs: store.listRuns({ experimentId: exp || undefined, order: 'desc' }).map(runListItem) };
  }
  if (what === 'experiments' && id === undefined) {
    const counts = new Map<string, number>();
    for (const r of store.listRuns())
      if (r.experiment_id) counts.set(r.experiment_id, (counts.get(r.experiment_id) ?? 0) + 1);
    return {
      experiments: store
        .listExperiments()
        .reverse()
        .map((e) => experimentListItem(e, counts.get(e.id) ?? 0)),
    };
  }
  if (what === 'experiments' && id !== undefined && sub === undefined) {
    const e = store.getExperiment(id);
    if (!e) throw new HttpError(404, `no experiment ${id} in the store`, 'GET /api/experiments lists them');
    const rows = store.listRuns({ experimentId: e.id });
    const runs = rows.map(runListItem);
    // The report over its runs: what `servelab report EXP_ID` leads with.
    const loaded = rows.filter((r) => r.records > 0).map((r) => loadRunCached(deps, r));
    const d = loaded.length ? diagnose(loaded, { t }) : null;
    const answer = e.summary?.results ? (deps.answerOf?.(e.kind, e.summary.results, t) ?? null) : null;
    return {
      answer,
      answer_html: answer ? answerHtml(answer, t) : '',
      experiment: {
        ...experimentListItem(e, runs.length),
        spec: e.spec,
        record: e.record,
        summary: e.summary,
      },
      runs,
      headline_html: d ? headlineHtml(loaded, d, t, { answers: answer ? [answer] : [] }) : '',
      table_html: loaded.length ? renderTableHtml(comparisonTable(loaded), t) : '',
      charts: loaded.length
        ? chartsBesideAnswers(reportCharts(loaded, t), answer ? [answer] : []).filter(
            (c) => c.run === undefined,
          )
        : [],
      diagnosis_html: d ? diagnosisHtml(d, t) : '',
    };
  }
  if (what === 'compare' && id === undefined) {
    const ids = [
      ...new Set(
        (u.searchParams.get('ids') ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ];
    if (ids.length === 0)
      throw new HttpError(400, 'no run ids to compare', 'e.g. /api/compare?ids=ab12cd34,ef56ab78');
    if (ids.length > COMPARE_MAX)
      throw new HttpError(400, `at most ${COMPARE_MAX} runs at once, got ${ids.length}`, 'pick fewer runs');
    const rows = ids.map((i) => ({ i, row: store.getRun(i) }));
    const missing = rows.filter((r) => !r.row).map((r) => r.i);
    if (missing.length)
      throw new HttpError(
        404,
        `no run ${missing.join(', ')} in the store`,
        'GET /api/runs lists the stored runs',
      );
    const runs = rows.map((r) => loadRunCached(deps, r.row as RunRow));
    const table = comparisonTable(runs);
    return {
      runs: rows.map((r, k) => ({ ...runListItem(r.row as RunRow), summary: runs[k].summary })),
      table,
      table_html: renderTableHtml(table, t),
      headline_html: headlineHtml(runs, diagnose(runs, { t }), t),
      charts: reportCharts(runs, t),
    };
  }
  if (what === 'runs' && id !== undefined && extra === undefined) {
    const row = mustRun(store, id);
    switch (sub) {
      case undefined: {
        const run = loadRunCached(deps, row);
        const { source } = runSummary(row, run.records);
        return {
          run: {
            ...runListItem(row),
            config: row.config,
            environment: row.environment,
            record: row.record,
            window: row.window,
          },
          summary: run.summary,
          summary_source: source,
          // A run in progress has its live headline on the page, from the live stream.
          headline_html: row.status === 'running' ? '' : headlineHtml([run], diagnose([run], { t }), t),
          table_html: renderTableHtml(comparisonTable([run]), t),
        };
      }
      case 'records': {
        const offset = intParam(u, 'offset', 0, Number.MAX_SAFE_INTEGER);
        const limit = Math.max(1, intParam(u, 'limit', RECORDS_PAGE, RECORDS_PAGE_MAX));
        const records: unknown[] = [];
        for (const r of store.getRecordRows(row.id, { offset, pageSize: limit })) {
          records.push(JSON.parse(r.record));
          if (records.length >= limit) break;
        }
        const next = offset + records.length;
        return {
          run_id: row.id,
          offset,
          limit,
          records,
          next_offset: next,
          total: row.records,
          done: next >= row.records,
        };
      }
      case 'series':
        return { run_id: row.id, series: store.getSeries(row.id) };
      case 'charts':
        return { run_id: row.id, charts: reportCharts([loadRunCached(deps, row)], t) };
      case 'live': {
        const stop = streamLive(row, res, { store, clock: deps.clock, pollMs: deps.livePollMs, t });
        deps.liveStreams.add(stop);
        res.on('close', () => deps.liveStreams.delete(stop));
        return undefined;
      }
    }
  }
  throw new HttpError(
    404,
    `no such API route: ${path}`,
    'routes: /api/i18n, /api/runs, /api/experiments, /api/runs/:id, /api/runs/:id/records, /api/runs/:id/series, /api/runs/:id/charts, /api/runs/:id/live, /api/compare?ids=a,b',
  );
}

/**
 * The dashboard's request handler.
 * @example
 * const handler = createDashboardHandler({ store, clock, assets: loadAssets(DEFAULT_ASSETS_DIR), liveStreams: new Set() });
 * http.createServer(handler).listen(0, '127.0.0.1');
 */
export function createDashboardHandler(deps: AppDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    try {
      if (!isLoopbackHostHeader(req.headers.host))
        throw new HttpError(
          403,
          'this dashboard answers only to a loopback host name',
          'open it as http://127.0.0.1:PORT/',
        );
      if (req.method !== 'GET' && req.method !== 'HEAD')
        throw new HttpError(405, `${req.method} is not allowed`, 'the dashboard is read-only: use GET');
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      const path = u.pathname;
      if (path === '/api' || path.startsWith('/api/')) {
        const body = routeApi(path, u, res, deps);
        if (body !== undefined) sendJson(res, 200, body);
        return;
      }
      const asset = deps.assets.get(path === '/index.html' ? '/' : path);
      if (!asset) throw new HttpError(404, `not found: ${path}`, 'the dashboard is at /');
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': asset.type,
        'content-length': asset.body.length,
        'cache-control': 'no-cache',
      });
      res.end(req.method === 'HEAD' ? undefined : asset.body);
    } catch (e) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (e instanceof HttpError)
        sendJson(res, e.status, { error: e.message, ...(e.hint ? { hint: e.hint } : {}) });
      else if (e instanceof UsageError)
        sendJson(res, 400, {
          error: e.problems[0]?.message ?? e.message,
          problems: e.problems,
          hint: e.problems[0]?.hint,
        });
      // Anything else is a bug: say so without a stack trace (the message has no secrets: the
      // store redacts them on write).
      else sendJson(res, 500, { error: `internal error: ${(e as Error).message}` });
    }
  };
}
