/**
 * @module pipeline/monitoring
 * What runs beside a measurement: scraping the engine's /metrics (and the local GPU), and
 * servelab's own exporter. Scrapes never stall the load loop; their failures are counted and
 * reported with the run.
 */
import type { Dispatcher } from 'undici';
import { type SeriesSummary, seriesSummary } from '../analysis/series.js';
import {
  createExporter,
  defaultMetricsUrl,
  httpGetText,
  localGpuSources,
  metricsAnswer,
  type ScrapePoint,
  type ScrapeStats,
  startMetricsServer,
  startScraper,
} from '../monitor/index.js';
import type { RunReport } from '../report/run/report.js';
import type { RunObserver } from '../runner/events.js';
import type { Clock } from '../runtime/clock.js';

export interface MonitoringSettings {
  /** `auto` = the target's /metrics when it answers; `off`; or explicit URLs. */
  scrape: 'auto' | 'off' | string[];
  scrapeIntervalMs: number;
  /** Serve servelab's own /metrics on this port during the run (0 = any), or null. */
  metricsPort: number | null;
  /**
   * Receive the engine's OpenTelemetry spans on this port (0 = any) and send a `traceparent`
   * with every request, so each record is joined to its span (`run --otlp-port`); null or
   * absent: off.
   */
  otlpPort?: number | null;
  /** Labels on every exporter series (a shard's `shard` and `run_id`, so Prometheus can sum shards). */
  exporterLabels?: Record<string, string>;
}

export interface MonitoringResult {
  scrape: ScrapeStats | null;
  server: SeriesSummary | null;
  points: ScrapePoint[];
  exporter_url: string | null;
}

export interface Monitoring {
  observers: RunObserver[];
  /**
   * Take a reading of every source now and wait for it: called when the warm-up is over, so the
   * measurement window's counter deltas start at a reading taken before its first request.
   */
  mark(): Promise<void>;
  /** Stop everything; summarise the series over the window. */
  stop(): Promise<MonitoringResult>;
}

/**
 * Start scraping and the exporter as configured. Resolves once the first scrape of every source
 * has come back (or failed, within the scrape timeout), so the series opens before the first
 * request is sent and the last scrape (at `stop`) closes it after the last response: the
 * counter deltas then bracket the whole run.
 */
export async function startMonitoring(
  s: MonitoringSettings,
  deps: {
    targetUrl: string;
    clock: Clock;
    log: (line: string) => void;
    onPoints?: (p: ScrapePoint[]) => void;
    /** The in-process simulator's dispatcher, when that is the target. */
    dispatcher?: Dispatcher;
    /** Read this machine's GPU (nvidia-smi) when the target is local; default true. */
    gpu?: boolean;
  },
): Promise<Monitoring> {
  const observers: RunObserver[] = [];
  let exporterClose: (() => Promise<void>) | null = null;
  let exporterUrl: string | null = null;
  if (s.metricsPort !== null) {
    const exp = createExporter(s.exporterLabels);
    observers.push(exp.observer);
    const srv = await startMetricsServer(exp.registry, { port: s.metricsPort, log: deps.log });
    exporterClose = () => srv.close();
    exporterUrl = `${srv.url}/metrics`;
  }

  let urls: string[] = [];
  if (s.scrape === 'auto') {
    const url = defaultMetricsUrl(deps.targetUrl);
    if (await metricsAnswer(url, deps.dispatcher)) urls = [url];
  } else if (s.scrape !== 'off') urls = s.scrape;
  const sources = s.scrape === 'off' || deps.gpu === false ? [] : localGpuSources(deps.targetUrl);
  const dispatcher = deps.dispatcher;
  const points: ScrapePoint[] = [];
  let pending: ScrapePoint[] = [];
  const scraper =
    urls.length || sources.length
      ? startScraper({
          urls,
          sources,
          intervalMs: s.scrapeIntervalMs,
          clock: deps.clock,
          get: dispatcher ? (url, signal) => httpGetText(url, signal, dispatcher) : undefined,
          onPoint: (p) => {
            points.push(p);
            if (deps.onPoints) {
              pending.push(p);
              if (pending.length >= 100) {
                deps.onPoints(pending);
                pending = [];
              }
            }
          },
        })
      : null;
  await scraper?.first;

  return {
    observers,
    mark: async () => {
      await scraper?.scrapeNow();
    },
    async stop() {
      const stats = scraper ? await scraper.stop() : null;
      if (deps.onPoints && pending.length) deps.onPoints(pending);
      pending = [];
      await exporterClose?.();
      // The whole run, warm-up included: the first reading came back before the first request
      // and the last is taken after the last response, so counter deltas bracket every request
      // the run made (what the client/server token-count check compares with the records' usage).
      const server = points.length ? seriesSummary(points) : null;
      return { scrape: stats, server, points, exporter_url: exporterUrl };
    },
  };
}

/**
 * A run report's `monitoring` block from what the monitor saw: the whole-run summary, the
 * measurement window's (from `points`, on the run's timeline), the scrape's statistics and the
 * exporter; undefined when nothing was monitored.
 */
export function reportMonitoring(
  mon: MonitoringResult,
  points: readonly ScrapePoint[],
  window: { start_ms: number; end_ms: number },
): RunReport['monitoring'] | undefined {
  if (!(mon.server || mon.scrape || mon.exporter_url)) return undefined;
  return {
    server: mon.server as unknown as Record<string, number | null> | null,
    server_window: points.length
      ? (seriesSummary(points as ScrapePoint[], {
          from_ms: window.start_ms,
          to_ms: window.end_ms,
        }) as unknown as Record<string, number | null>)
      : null,
    scrape: mon.scrape as unknown as Record<string, unknown> | null,
    exporter_url: mon.exporter_url,
  };
}
