/**
 * @module gate/load/target-io
 * What the gate's cancellation, cache and load checks (groups 4, 8, 10) send and read: chat
 * requests they can abandon at any moment (before the first byte, mid-stream, on a client
 * timeout), and the target's `/metrics` read through the monitor's own source
 * (`monitor/scraper` `httpSource`: the same GET, Prometheus parser, engine detection and name
 * maps a run's scrape uses), so `running`, `waiting`, `kv_usage` and the token counters mean
 * here what they mean in a report.
 */
import { request } from 'undici';
import { targetHeaders } from '../../core/headers.js';
import {
  defaultMetricsUrl,
  type EngineKind,
  httpGetText,
  httpSource,
  type Normalized,
  type ScrapeSource,
} from '../../monitor/index.js';
import { RealClock } from '../../runtime/clock.js';
import type { GateTarget } from '../types.js';

/** The chat endpoint of a target. */
export function chatUrl(target: GateTarget): string {
  return `${target.baseUrl.replace(/\/+$/, '')}/chat/completions`;
}

/** The `/health` URL that goes with a target's base URL (next to `/metrics`, at the root). */
export function healthUrl(target: GateTarget): string {
  return defaultMetricsUrl(target.baseUrl).replace(/\/metrics$/, '/health');
}

/** One scrape, in servelab's vocabulary. */
export interface MetricsReading {
  values: Normalized;
  engine: EngineKind;
}

/** A target's `/metrics`, read on demand. */
export interface MetricsProbe {
  /** The reading now, or null when `/metrics` does not answer (or answers nothing servelab reads). */
  read(signal?: AbortSignal): Promise<MetricsReading | null>;
  url: string;
}

/** The `/metrics` of `target`, read through the monitor's scrape source. */
export function metricsProbe(target: GateTarget): MetricsProbe {
  const url = defaultMetricsUrl(target.baseUrl);
  const source: ScrapeSource = httpSource(url, (u, signal) => httpGetText(u, signal, target.dispatcher));
  return {
    url,
    async read(signal) {
      try {
        const r = await source.read(signal ?? AbortSignal.timeout(5000));
        return !r.engine || r.engine === 'unknown' ? null : { values: r.values, engine: r.engine };
      } catch {
        return null;
      }
    },
  };
}

/** The wall clock the checks time themselves on (timeouts, "within 2 s"). */
export const wallClock = (): RealClock => new RealClock();

/** Sleep `ms` of wall time. */
export function pause(clock: RealClock, ms: number, signal?: AbortSignal): Promise<void> {
  return clock.sleepUntil(clock.now() + ms, signal);
}

/** A chat request the check can abandon: its status, chunks so far, and an abort. */
export interface OpenRequest {
  /** Resolves with the HTTP status once headers arrive (null when it failed before, or was aborted). */
  readonly headers: Promise<number | null>;
  /** Resolves when the response ends, is aborted or fails: its body text so far. */
  readonly done: Promise<{ status: number | null; body: string; error: string | null }>;
  /** Bytes of body received so far (0: no first byte yet). */
  bytes(): number;
  /** SSE `data:` events received so far. */
  events(): number;
  /** Whether the response has ended (finished, failed or aborted). */
  ended(): boolean;
  /** Drop the connection now. */
  abort(): void;
  /** What was sent. */
  readonly body: string;
}

/**
 * POST a chat request to `target` and keep hold of it.
 * @param body the request body (model is filled in)
 * @param timeoutMs give up (and drop the connection) after this long
 */
export function openChat(target: GateTarget, body: Record<string, unknown>, timeoutMs: number): OpenRequest {
  const ctl = new AbortController();
  const text = JSON.stringify({ model: target.model, ...body });
  let received = '';
  let bytes = 0;
  let events = 0;
  let over = false;
  let onHeaders: (s: number | null) => void = () => {};
  const headers = new Promise<number | null>((resolve) => {
    onHeaders = resolve;
  });
  // One controller with a plain timer, not AbortSignal.any over AbortSignal.timeout: the
  // timeout signal is held only weakly there, and on Node 20 a collected one never fires
  // (nodejs/node#57736), so a long answer ran to its end instead of timing out.
  const timer = setTimeout(() => ctl.abort(new DOMException('client timeout', 'TimeoutError')), timeoutMs);
  const signal = ctl.signal;
  const run = async () => {
    let status: number | null = null;
    try {
      const res = await request(chatUrl(target), {
        method: 'POST',
        headers: { ...targetHeaders(target.apiKey), 'content-type': 'application/json' },
        body: text,
        signal,
        dispatcher: target.dispatcher,
      });
      status = res.statusCode;
      onHeaders(status);
      for await (const chunk of res.body) {
        const s = (chunk as Buffer).toString('utf8');
        bytes += (chunk as Buffer).length;
        events += (s.match(/(^|\n)data:/g) ?? []).length;
        if (received.length < 1 << 20) received += s;
      }
      return { status, body: received, error: null };
    } catch (e) {
      onHeaders(status);
      return { status, body: received, error: (e as Error).name || 'error' };
    }
  };
  const done = run().finally(() => {
    clearTimeout(timer);
    over = true;
  });
  return {
    headers,
    done,
    bytes: () => bytes,
    events: () => events,
    ended: () => over,
    abort: () => ctl.abort(),
    body: text,
  };
}

/** Poll `cond` every `everyMs` until it holds or `withinMs` passes; resolves with the wait, or null. */
export async function waitFor(
  clock: RealClock,
  cond: () => Promise<boolean> | boolean,
  withinMs: number,
  everyMs = 50,
): Promise<number | null> {
  const t0 = clock.now();
  for (;;) {
    if (await cond()) return clock.now() - t0;
    if (clock.now() - t0 >= withinMs) return null;
    await pause(clock, everyMs);
  }
}

/**
 * A prompt of `words` words, unique to (`seed`, `tag`) from its first word, so no earlier request
 * shares a cached prefix with it.
 */
export function freshPrompt(seed: number, tag: string, words: number): string {
  const out = [`[gate ${tag} ${seed}]`];
  const vocab = [
    'river',
    'stone',
    'light',
    'paper',
    'garden',
    'window',
    'market',
    'signal',
    'orbit',
    'cloud',
  ];
  for (let i = 0; i < words; i++) out.push(vocab[(i * 7 + seed + tag.length) % vocab.length]);
  return `Continue this list: ${out.join(' ')}`;
}
