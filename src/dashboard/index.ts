/**
 * @module server
 * `servelab dashboard`: a local, read-only web page over the store, on loopback only. It lists
 * runs and experiments, shows one run with the report's table and charts (server series on the
 * run's time axis), compares runs side by side, and follows a running run live over
 * server-sent events while `servelab run` writes the same SQLite file (WAL mode).
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../core/errors.js';
import type { T } from '../i18n/index.js';
import { type Clock, RealClock } from '../runtime/clock.js';
import { openStore } from '../store/index.js';
import type { AppDeps } from './app.js';
import { createDashboardHandler, DEFAULT_ASSETS_DIR, loadAssets } from './app.js';

export type { AppDeps } from './app.js';

export {
  COMPARE_MAX,
  createDashboardHandler,
  DEFAULT_ASSETS_DIR,
  loadAssets,
  RECORDS_PAGE,
  RECORDS_PAGE_MAX,
} from './app.js';
export type { LiveCharts, LivePercentiles, LiveStats, LiveUpdate } from './live.js';
export { LIVE_POLL_MS, LiveTracker, sseFrame, streamLive } from './live.js';
export type { ExperimentListItem, RunListItem, RunVerdict } from './store-runs.js';
export {
  experimentListItem,
  isSummary,
  loadedRunFromStore,
  runLabel,
  runLevel,
  runListItem,
  runSummary,
  runWindow,
  storedVerdict,
} from './store-runs.js';

/** Options of {@link startDashboard}. */
export interface DashboardOptions {
  /** The store file to read (it must exist). */
  dbPath: string;
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Loopback address to bind: `127.0.0.1` (default), `::1` or `localhost`. */
  host?: string;
  /** Where the ready line goes (`listening on http://127.0.0.1:PORT`). Default: nowhere. */
  log?: (line: string) => void;
  /** Timers for the live streams' polling. Default RealClock. */
  clock?: Clock;
  /** Poll period of live streams, ms. Default `LIVE_POLL_MS` (500). */
  livePollMs?: number;
  /** The page's files; default the bundled `assets/dashboard/`. */
  assetsDir?: URL;
  /** Language of the page's prose (`--lang`; default English). */
  t?: T;
  /** What a stored experiment answers (see `AppDeps.answerOf`); the CLI passes the kinds' `experimentAnswer`. */
  answerOf?: AppDeps['answerOf'];
}

/** A running dashboard. */
export interface Dashboard {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  port: number;
  /** Stop live streams, close connections, the server and the store. Idempotent. */
  close(): Promise<void>;
}

/** Whether `host` names a loopback interface (the only place the dashboard may listen). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Start the dashboard over the store at `dbPath`, read-only.
 * @throws UsageError for a missing store, a non-loopback host, a bad or busy port
 * @example
 * const d = await startDashboard({ dbPath: 'servelab.db', log: (l) => io.stdout.write(`${l}\n`) });
 * // … later
 * await d.close();
 */
export async function startDashboard(opts: DashboardOptions): Promise<Dashboard> {
  const host = opts.host ?? '127.0.0.1';
  const port = opts.port ?? 0;
  const problems = [];
  if (!isLoopbackHost(host))
    problems.push({
      path: '--host',
      message: `${host} is not a loopback address; the dashboard serves only this machine`,
      hint: 'use 127.0.0.1 (default), ::1 or localhost; reach it from elsewhere through an SSH tunnel',
    });
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    problems.push({
      path: '--port',
      message: `port must be an integer 0..65535, got ${port}`,
      hint: 'e.g. --port 8600, or 0 for any free port',
    });
  if (!existsSync(opts.dbPath))
    problems.push({
      path: '--db',
      message: `no store at ${opts.dbPath}`,
      hint: 'run `servelab run … --db FILE` first, or point --db at an existing store',
    });
  if (problems.length) throw new UsageError(problems);

  const clock = opts.clock ?? new RealClock();
  const store = openStore(opts.dbPath, { readonly: true, clock });
  const liveStreams = new Set<() => void>();
  let assets: ReturnType<typeof loadAssets>;
  try {
    assets = loadAssets(opts.assetsDir ?? DEFAULT_ASSETS_DIR);
  } catch (e) {
    store.close();
    throw new UsageError(
      `cannot read the dashboard's page: ${(e as Error).message}`,
      'reinstall servelab: assets/dashboard is part of the package',
    );
  }
  const server = createServer(
    createDashboardHandler({
      store,
      clock,
      assets,
      liveStreams,
      livePollMs: opts.livePollMs,
      t: opts.t,
      answerOf: opts.answerOf,
    }),
  );

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    store.close();
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE')
      throw new UsageError([
        {
          path: '--port',
          message: `port ${port} on ${host} is in use`,
          hint: 'pick another --port, or 0 for any free one',
        },
      ]);
    if (err.code === 'EADDRNOTAVAIL' || err.code === 'EAFNOSUPPORT')
      throw new UsageError([
        { path: '--host', message: `cannot listen on ${host}: ${err.code}`, hint: 'use 127.0.0.1' },
      ]);
    throw e;
  }

  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown}:${bound}/`;
  opts.log?.(`listening on http://${shown}:${bound}`);

  let closing: Promise<void> | null = null;
  return {
    url,
    port: bound,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const stop of [...liveStreams]) stop();
        server.close(() => {
          store.close();
          resolve();
        });
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/**
 * Run the dashboard until SIGINT/SIGTERM (the way `servelab dashboard` runs), then close it.
 * @param onInterrupt subscribes to the interrupt signals and returns an unsubscribe (the CLI's `io.onInterrupt`)
 * @returns the signal that stopped it
 */
export async function serveDashboard(
  opts: DashboardOptions,
  onInterrupt: (handler: (signal: string) => void) => () => void,
): Promise<string> {
  const dash = await startDashboard(opts);
  const signal = await new Promise<string>((resolve) => {
    const off = onInterrupt((sig) => {
      off();
      resolve(sig);
    });
  });
  await dash.close();
  return signal;
}
