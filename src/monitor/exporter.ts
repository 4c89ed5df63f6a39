/**
 * @module monitor/exporter
 * servelab's own Prometheus exporter (`--metrics-port`): the client's view of a run as
 * `servelab_*` series, so a Grafana board can put it next to the engine's view.
 *
 * It lives on its own prom-client Registry without the default Node process metrics, because
 * promtool flags those (and they describe servelab, not the target). Names follow Prometheus
 * conventions: base units (seconds), `_total` on counters.
 */
import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { chunkGaps, e2eMs, ttftMs } from '../analysis/request.js';
import { UsageError } from '../core/errors.js';
import { OUTCOMES, type RequestRecord, SUCCESS_OUTCOMES } from '../record/types.js';
import type { RunObserver } from '../runner/events.js';
import { listenLocal } from './listen.js';

/** TTFT buckets, s: vLLM's `time_to_first_token_seconds` buckets, so the two line up in Grafana. */
export const TTFT_BUCKETS_S = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640,
  2560,
];
/** E2E buckets, s: vLLM's e2e buckets with finer steps below 0.3 s for short simulated requests. */
export const E2E_BUCKETS_S = [
  0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480,
  960, 1920, 7680,
];
/** Chunk-gap buckets, s: vLLM's inter-token buckets with sub-10 ms steps added. */
export const CHUNK_GAP_BUCKETS_S = [
  0.001, 0.0025, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5,
  10, 20, 40, 80,
];
/** Generator-lateness buckets, s: a 2 ms p99 lateness budget sits in the middle. */
export const LATENESS_BUCKETS_S = [
  0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
];

export interface Exporter {
  /** Feed this to the runner. Every hook is O(1) and never throws. */
  observer: RunObserver;
  registry: Registry;
}

/**
 * Whether a finished attempt counts in the latency histograms and token counters: exactly the
 * requests the run summary's latency distributions use, i.e. successful (`ok`, `length`)
 * attempts of the measurement phase. A success is always a request's final attempt, so retried
 * requests count once, as in the summary.
 */
export function countsInSummary(rec: RequestRecord): boolean {
  return rec.phase === 'measure' && SUCCESS_OUTCOMES.includes(rec.outcome);
}

/** What every latency histogram and token counter observes (their HELP text ends with it). */
const COUNTED =
  'successful measured requests only (warm-up and failures excluded), as the run summary counts them';

/**
 * Create the exporter's registry and the run observer that fills it.
 *
 * The latency histograms and token counters observe a request when its record is final, with
 * `analysis/`'s per-request definitions (TTFT to the first content or tool-call chunk, E2E to
 * the finish chunk, both from the send; chunk gaps), and only for the requests that
 * {@link countsInSummary}: a Grafana panel and `report.json` then describe the same requests.
 * Token counters use the server's `usage` only and skip records without it, never estimating.
 * `servelab_requests_total` counts every finished attempt (warm-up and retries included) by
 * outcome. `labels` go on every series (a shard's `shard` and `run_id`).
 */
export function createExporter(labels: Record<string, string> = {}): Exporter {
  const registry = new Registry();
  // A shard's `shard` and `run_id` on every series: Prometheus sums the shards of one run by run_id.
  if (Object.keys(labels).length) registry.setDefaultLabels(labels);
  const registers = [registry];
  const requests = new Counter({
    name: 'servelab_requests_total',
    help: 'Finished request attempts by outcome class, warm-up and retried attempts included.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const inFlight = new Gauge({
    name: 'servelab_requests_in_flight',
    help: 'Requests sent to the target and not yet finished.',
    registers,
  });
  const ttft = new Histogram({
    name: 'servelab_time_to_first_token_seconds',
    help: `Client-side time from sending a request to its first content or tool-call delta, in seconds; ${COUNTED}.`,
    buckets: TTFT_BUCKETS_S,
    registers,
  });
  const e2e = new Histogram({
    name: 'servelab_e2e_latency_seconds',
    help: `Client-side time from sending a request to its finish chunk, in seconds; ${COUNTED}.`,
    buckets: E2E_BUCKETS_S,
    registers,
  });
  const chunkGap = new Histogram({
    name: 'servelab_chunk_gap_seconds',
    help: `Time between consecutive token-carrying chunks of one stream, in seconds; ${COUNTED}.`,
    buckets: CHUNK_GAP_BUCKETS_S,
    registers,
  });
  const lateness = new Histogram({
    name: 'servelab_generator_lateness_seconds',
    help: 'How late the load generator sent each open-loop request (sent minus planned), in seconds.',
    buckets: LATENESS_BUCKETS_S,
    registers,
  });
  const outputTokens = new Counter({
    name: 'servelab_output_tokens_total',
    help: `Output tokens reported by the server in usage.completion_tokens; ${COUNTED}.`,
    registers,
  });
  const promptTokens = new Counter({
    name: 'servelab_prompt_tokens_total',
    help: `Prompt tokens reported by the server in usage.prompt_tokens; ${COUNTED}.`,
    registers,
  });
  // Start every outcome at 0 so rate() and "no errors yet" queries see a series from the start.
  for (const outcome of OUTCOMES) requests.inc({ outcome }, 0);

  // Records whose onSent we saw, so in-flight never goes negative for a record that was never sent.
  const sent = new Set<string>();

  const observer: RunObserver = {
    onSent(rec, lateness_ms) {
      sent.add(rec.id);
      inFlight.inc();
      if (lateness_ms !== null && Number.isFinite(lateness_ms))
        lateness.observe(Math.max(0, lateness_ms) / 1000);
    },
    onRecord(rec: RequestRecord) {
      if (sent.delete(rec.id)) inFlight.dec();
      requests.inc({ outcome: rec.outcome });
      if (!countsInSummary(rec)) return;
      const t = ttftMs(rec);
      const e = e2eMs(rec);
      if (t !== undefined) ttft.observe(t / 1000);
      if (e !== undefined) e2e.observe(e / 1000);
      for (const g of chunkGaps(rec)) chunkGap.observe(g / 1000);
      const u = rec.usage;
      if (u?.completion_tokens != null) outputTokens.inc(u.completion_tokens);
      if (u?.prompt_tokens != null) promptTokens.inc(u.prompt_tokens);
    },
    onRunEnd() {
      // Anything still marked in flight was never recorded; do not leave the gauge stuck.
      inFlight.set(0);
      sent.clear();
    },
  };
  return { observer, registry };
}

export interface MetricsServer {
  /** `http://127.0.0.1:PORT` (no path). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serve `registry` on `GET /metrics` (`--metrics-port`). Port 0 picks a free port. Prints
 * `listening on http://HOST:PORT` through `log` once bound.
 *
 * @param opts.port TCP port; 0 for any free one.
 * @param opts.host bind address, loopback by default: the exporter needs no outside access
 *   unless the user asks for it.
 * @throws UsageError (naming `--metrics-port`) for a port out of range or in use
 */
export async function startMetricsServer(
  registry: Registry,
  opts: { port: number; host?: string; log?: (line: string) => void },
): Promise<MetricsServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535)
    return Promise.reject(
      new UsageError([
        {
          path: '--metrics-port',
          message: `port must be an integer 0..65535, got ${opts.port}`,
          hint: 'e.g. --metrics-port 9464, or 0 for any free port',
        },
      ]),
    );
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(path === '/metrics' ? 405 : 404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(path === '/metrics' ? 'method not allowed\n' : 'not found; try /metrics\n');
      return;
    }
    registry.metrics().then(
      (body) => {
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`${err instanceof Error ? err.message : String(err)}\n`);
      },
    );
  });
  // Scrapers keep connections open; do not let them hold close() hostage.
  server.keepAliveTimeout = 5000;
  const { url, port } = await listenLocal(server, host, opts.port, (code) => ({
    path: '--metrics-port',
    message: `cannot listen on ${host}:${opts.port} (${code === 'EADDRINUSE' ? 'in use' : 'permission denied'})`,
    hint: 'pick another --metrics-port, or 0 for any free one',
  }));
  opts.log?.(`listening on ${url}`);
  return {
    url,
    port,
    close: () =>
      new Promise<void>((res, rej) => {
        server.close((err) => (err ? rej(err) : res()));
        server.closeAllConnections();
      }),
  };
}
