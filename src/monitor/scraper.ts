/**
 * @module monitor/scraper
 * Scrapes engine and GPU metrics during a run and lines them up with the run's clock.
 *
 * The load loop must never wait on a scrape: {@link startScraper} returns at once, every scrape
 * runs on its own timer with a timeout shorter than the interval, a scrape still in flight when
 * the next tick comes is skipped (not queued), and every failure is counted, not thrown. Only
 * `stop()` awaits anything, and that happens after the load has finished.
 */
import { Agent, type Dispatcher, request } from 'undici';
import { UsageError } from '../core/errors.js';
import { redactUrl, serverRoot } from '../core/url.js';
import type { ScrapePoint } from '../record/series.js';
import type { Clock } from '../runtime/clock.js';
import {
  detectEngine,
  type EngineKind,
  MAPPED_NAMES,
  normalize,
  SERVER_TOKEN_RATE,
  tokenRate,
  VOCAB,
} from './maps.js';
import { parsePrometheusText, type Sample } from './prom-parse.js';
import type { ScrapeSource, SourceReading } from './source.js';

/** The series contract (record/series), part of monitoring's surface. */
export type { ScrapePoint } from '../record/series.js';
/** Shared with the client (core/url); re-exported as part of monitoring's surface. */
export { redactUrl };

/** Fetches a URL's body as text; must reject on a non-2xx status and honour `signal`. */
export type GetFn = (url: string, signal: AbortSignal) => Promise<string>;

/** What the scraper counts, per source and summed over all sources. */
export interface ScrapeCounts {
  /** Scrapes started. */
  attempts: number;
  ok: number;
  /** Failed scrapes, timeouts included. */
  failures: number;
  timeouts: number;
  /** Successful scrapes that took longer than `slow_ms`. */
  slow: number;
  /** Ticks skipped because the previous scrape of this source was still in flight. */
  skipped: number;
}

/** Fresh counts; its keys (complete, as the type checks) are also what a snapshot sums. */
const zeroCounts = (): ScrapeCounts => ({
  attempts: 0,
  ok: 0,
  failures: 0,
  timeouts: 0,
  slow: 0,
  skipped: 0,
});

export interface SourceStats extends ScrapeCounts {
  source: string;
  parse_errors: number;
  /** Longest successful scrape, ms. */
  max_duration_ms: number | null;
  engine: EngineKind | null;
  last_error: string | null;
}

export interface ScrapeStats extends ScrapeCounts {
  interval_ms: number;
  timeout_ms: number;
  slow_ms: number;
  sources: SourceStats[];
}

export interface ScraperOptions {
  /** `/metrics` URLs (`--scrape`, repeatable). */
  urls?: readonly string[];
  /** Extra sources, e.g. nvidia-smi (`monitor/nvidia-smi` `nvidiaSmiSource`). */
  sources?: readonly ScrapeSource[];
  /** Time between scrape starts, ms. Default 1000. */
  intervalMs?: number;
  /** Per-scrape timeout, ms; must be below the interval. Default 80% of the interval. */
  timeoutMs?: number;
  /** A successful scrape slower than this counts as slow, ms. Default half the interval. */
  slowMs?: number;
  clock: Clock;
  /** HTTP GET for `urls`; default {@link createHttpGet} (closed by `stop()`). */
  get?: GetFn;
  /** Called for each normalized value. Must be cheap; exceptions are swallowed and counted. */
  onPoint: (p: ScrapePoint) => void;
  /** Called with every raw sample of a successful `/metrics` scrape, when the caller keeps raw series. */
  onSamples?: (source: string, t_ms: number, samples: readonly Sample[]) => void;
}

export interface Scraper {
  /**
   * Settles when the first reading of every source has come back or failed (each is bounded by
   * the scrape timeout). Await it before the first request, so the series opens before the run
   * does and counter deltas cover every request.
   */
  first: Promise<void>;
  /** Stop the timers. With `final` (default true) run one last scrape of every source first, so
   * counter deltas include the end of the run. Resolves with the counts. */
  stop(opts?: { final?: boolean }): Promise<ScrapeStats>;
  /**
   * Read every source now, off schedule, and settle when the readings are back (or failed,
   * within the scrape timeout); a source still being read is waited for instead.
   */
  scrapeNow(): Promise<void>;
  /** Counts so far. */
  stats(): ScrapeStats;
}

/**
 * Start scraping every source now and then every `intervalMs` on `clock`. Throws
 * {@link UsageError} for a bad URL or interval; never throws or rejects for a failing target.
 *
 * @example
 * const s = startScraper({ urls: ['http://127.0.0.1:8000/metrics'], clock, onPoint: (p) => store.add(p) });
 * // … run …
 * const stats = await s.stop();
 */
export function startScraper(opts: ScraperOptions): Scraper {
  const intervalMs = opts.intervalMs ?? 1000;
  const timeoutMs = opts.timeoutMs ?? intervalMs * 0.8;
  const slowMs = opts.slowMs ?? intervalMs / 2;
  const problems = [];
  if (!(intervalMs > 0) || !Number.isFinite(intervalMs))
    problems.push({
      path: '--scrape-interval',
      message: `must be a positive number of ms, got ${intervalMs}`,
    });
  if (!(timeoutMs > 0) || timeoutMs >= intervalMs)
    problems.push({
      path: 'scrape timeout',
      message: `must be positive and below the interval (${intervalMs} ms), got ${timeoutMs}`,
      hint: 'a scrape that may last longer than the interval would overlap the next one',
    });
  const urls = opts.urls ?? [];
  for (const url of urls) {
    let ok = false;
    try {
      const protocol = new URL(url).protocol;
      ok = protocol === 'http:' || protocol === 'https:';
    } catch {
      // reported below
    }
    if (!ok)
      problems.push({
        path: '--scrape',
        message: `not an http(s) URL: ${redactUrl(url)}`,
        hint: 'give the full URL, e.g. http://127.0.0.1:8000/metrics',
      });
  }
  if (problems.length > 0) throw new UsageError(problems);
  // Our own Agent only when we scrape URLs with the default get; stop() closes it.
  const own = opts.get || urls.length === 0 ? null : createHttpGet();
  const get = opts.get ?? own?.get;
  const sources: ScrapeSource[] = get
    ? urls.map((url) => httpSource(url, get, { raw: !!opts.onSamples }))
    : [];
  sources.push(...(opts.sources ?? []));

  const { clock, onPoint, onSamples } = opts;
  interface State {
    src: ScrapeSource;
    stats: SourceStats;
    inflight: Promise<void> | null;
    abort: AbortController | null;
    lastGen: { t_ms: number; value: number } | null;
  }
  const states: State[] = sources.map((src) => ({
    src,
    inflight: null,
    abort: null,
    lastGen: null,
    stats: {
      source: src.name,
      ...zeroCounts(),
      parse_errors: 0,
      max_duration_ms: null,
      engine: null,
      last_error: null,
    },
  }));

  const emit = (p: ScrapePoint) => {
    try {
      onPoint(p);
    } catch {
      // An observer bug must not kill scraping; the points it lost are its own problem.
    }
  };

  const scrape = (st: State): Promise<void> => {
    if (st.inflight) {
      st.stats.skipped++;
      return st.inflight;
    }
    st.stats.attempts++;
    const ac = new AbortController();
    st.abort = ac;
    let timedOut = false;
    const startedMs = clock.now();
    const cancelTimeout = clock.setTimer(() => {
      timedOut = true;
      ac.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const fail = (message: string) => {
      st.stats.failures++;
      if (timedOut) st.stats.timeouts++;
      st.stats.last_error = timedOut ? `timed out after ${timeoutMs} ms` : message;
    };
    let p: Promise<SourceReading>;
    try {
      p = st.src.read(ac.signal);
    } catch (err) {
      p = Promise.reject(err);
    }
    st.inflight = p
      .then(
        (reading) => {
          // A read that ignored the abort and came back late is discarded: its time is wrong.
          if (ac.signal.aborted) return fail(String(ac.signal.reason?.message ?? 'aborted'));
          const t_ms = clock.now();
          const took = t_ms - startedMs;
          st.stats.ok++;
          if (took > slowMs) st.stats.slow++;
          st.stats.max_duration_ms = Math.max(st.stats.max_duration_ms ?? 0, took);
          st.stats.parse_errors += reading.parse_errors ?? 0;
          if (reading.engine) st.stats.engine = reading.engine;
          for (const name of VOCAB) {
            const value = reading.values[name];
            if (value !== undefined) emit({ t_ms, source: st.src.name, name, value });
          }
          const gen = reading.values.generation_tokens_total;
          if (gen !== undefined) {
            if (st.lastGen) {
              const rate = tokenRate(st.lastGen, { t_ms, value: gen });
              if (rate !== null) emit({ t_ms, source: st.src.name, name: SERVER_TOKEN_RATE, value: rate });
            }
            st.lastGen = { t_ms, value: gen };
          }
          if (onSamples && reading.samples) {
            try {
              onSamples(st.src.name, t_ms, reading.samples);
            } catch {
              // same as emit(): never let a consumer stop the scraper
            }
          }
        },
        (err: unknown) => fail(errorMessage(err)),
      )
      .finally(() => {
        cancelTimeout();
        st.inflight = null;
        st.abort = null;
      });
    return st.inflight;
  };

  let stopped = false;
  const t0 = clock.now();
  let tick = 0;
  let cancelTick: (() => void) | null = null;
  const onTick = () => {
    if (stopped) return;
    for (const st of states) void scrape(st);
    // Absolute schedule: tick k fires at t0 + k·interval, so a slow callback never drifts it;
    // ticks missed while the event loop was busy are dropped, not fired in a burst.
    tick = Math.max(tick + 1, Math.ceil((clock.now() - t0) / intervalMs));
    const at = t0 + tick * intervalMs;
    cancelTick = clock.setTimer(onTick, at - clock.now());
  };
  onTick();
  const first = Promise.all(states.map((st) => st.inflight)).then(() => {});

  const snapshot = (): ScrapeStats => {
    const srcs = states.map((s) => ({ ...s.stats }));
    const totals = zeroCounts();
    const keys = Object.keys(totals) as (keyof ScrapeCounts)[];
    for (const st of srcs) for (const k of keys) totals[k] += st[k];
    return {
      interval_ms: intervalMs,
      timeout_ms: timeoutMs,
      slow_ms: slowMs,
      ...totals,
      sources: srcs,
    };
  };

  return {
    first,
    stats: snapshot,
    async scrapeNow() {
      if (stopped) return;
      await Promise.all(states.map((st) => st.inflight ?? scrape(st)));
    },
    async stop({ final = true } = {}) {
      if (stopped) return snapshot();
      stopped = true;
      cancelTick?.();
      if (final) {
        // Let a scrape already in flight finish (it is bounded by its timeout), then take one
        // more reading so counters cover the last requests of the run.
        await Promise.all(states.map((st) => st.inflight));
        await Promise.all(states.map((st) => scrape(st)));
      } else {
        for (const st of states) st.abort?.abort(new Error('scraper stopped'));
        await Promise.all(states.map((st) => st.inflight));
      }
      await own?.close();
      return snapshot();
    },
  };
}

/**
 * A `/metrics` endpoint as a {@link ScrapeSource}: GET, parse, detect the engine, normalize.
 * Parsing runs on the load generator's thread, so unless `raw` asks for every sample only the
 * mapped series are parsed (several times cheaper on a large vLLM exposition).
 */
export function httpSource(url: string, get: GetFn, opts: { raw?: boolean } = {}): ScrapeSource {
  const parseOpts = opts.raw ? {} : { only: MAPPED_NAMES };
  let engine: EngineKind | null = null;
  return {
    name: redactUrl(url),
    async read(signal) {
      const text = await get(url, signal);
      const { samples, errors } = parsePrometheusText(text, parseOpts);
      // Detect once a real engine shows up; an early scrape of a starting server may be empty.
      if (engine === null || engine === 'unknown') engine = detectEngine(samples);
      return { values: normalize(samples, engine), samples, engine, parse_errors: errors.length };
    },
  };
}

/** Largest `/metrics` body we accept; an engine with thousands of LoRA series is still far below. */
const MAX_BODY_BYTES = 32 << 20;

/**
 * Default {@link GetFn}: undici `request` (never `fetch`) on undici's global dispatcher, or on
 * `dispatcher` when given. Rejects on a non-200 status with `HTTP <status>` and on a body over
 * 32 MiB.
 */
export async function httpGetText(
  url: string,
  signal: AbortSignal,
  dispatcher?: Dispatcher,
): Promise<string> {
  const res = await request(url, {
    method: 'GET',
    signal,
    dispatcher,
    headers: { accept: 'text/plain;version=0.0.4;q=1,*/*;q=0.1' },
  });
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new Error(`HTTP ${res.statusCode}`);
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of res.body) {
    bytes += (chunk as Buffer).length;
    if (bytes > MAX_BODY_BYTES) {
      res.body.destroy();
      throw new Error(`body larger than ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A {@link GetFn} on its own undici Agent, so scrapes never share a connection pool with the
 * load and `close()` leaves no keep-alive socket behind when the run ends.
 */
export function createHttpGet(): { get: GetFn; close(): Promise<void> } {
  const agent = new Agent({ connections: 2, keepAliveTimeout: 10_000 });
  return { get: (url, signal) => httpGetText(url, signal, agent), close: () => agent.close() };
}

/**
 * Whether `url` answers a GET with 200 within 2 s: `scrape: auto` scrapes the target's
 * `/metrics` only when it does. Never throws.
 */
export async function metricsAnswer(url: string, dispatcher?: Dispatcher): Promise<boolean> {
  try {
    const res = await request(url, { method: 'GET', headersTimeout: 2000, bodyTimeout: 2000, dispatcher });
    await res.body.dump();
    return res.statusCode === 200;
  } catch {
    return false;
  }
}

/**
 * The `/metrics` URL that goes with an OpenAI base URL: `http://h:8000/v1` → `http://h:8000/metrics`.
 * Engines serve `/metrics` at the root, next to `/v1`.
 */
export function defaultMetricsUrl(baseUrl: string): string {
  return `${serverRoot(baseUrl)}/metrics`;
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
