/**
 * Helpers for the simulator-server tests: start a server on port 0 with a fast time scale,
 * POST JSON over real loopback HTTP (node:http), and read SSE streams with eventsource-parser.
 */
import { request } from 'node:http';
import { after } from 'node:test';
import { createParser } from 'eventsource-parser';
import { type SimServer, type SimServerOptions, startSimServer } from '../../src/sim/server/index.js';

/**
 * Start a simulator, closed in `after()` of the test context `t` (or of the file when called at
 * top level). Log lines are collected in `logs`.
 */
export async function startSim(
  opts: Partial<SimServerOptions> = {},
  t?: { after(fn: () => unknown): void },
): Promise<SimServer & { logs: string[] }> {
  const logs: string[] = [];
  const sim = await startSimServer(
    { model: 'llama-3.1-8b', gpu: 'h100', timeScale: 50, ...opts },
    { log: (l) => logs.push(l) },
  );
  if (t) t.after(() => sim.close());
  else after(() => sim.close());
  return Object.assign(sim, { logs });
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON body, when it parses. */
  json?: unknown;
}

/** Send a request and read the whole response. */
export function http(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = request(
      url,
      { method, headers: { 'content-type': 'application/json', ...headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export const post = (url: string, body: unknown, headers?: Record<string, string>) =>
  http(url, 'POST', body, headers);
export const get = (url: string) => http(url, 'GET');

/** A chunk as the tests look at it. */
// biome-ignore lint/suspicious/noExplicitAny: test code reads arbitrary JSON chunks
export type Chunk = any;

export interface StreamResult {
  status: number;
  /** Raw `data:` payloads in order (including `[DONE]`). */
  data: string[];
  /** Parsed JSON chunks (everything but `[DONE]`). */
  chunks: Chunk[];
  /** True when the socket ended without an error. */
  ended: boolean;
  /** Set when the connection failed (e.g. reset). */
  error?: Error;
}

/**
 * POST a streaming request and collect its SSE events. With `stopAfter`, the client destroys
 * the connection after that many events (a client that goes away mid-stream).
 */
export function stream(url: string, body: unknown, opts: { stopAfter?: number } = {}): Promise<StreamResult> {
  return openStream(url, body, opts).done;
}

/** A stream the test controls: wait for `n` events, then close it whenever it likes. */
export interface OpenStream {
  /** Resolves once `n` events have arrived (or the stream is over). */
  events(n: number): Promise<void>;
  /** The client goes away. */
  close(): void;
  /** What has arrived so far. */
  snapshot(): StreamResult;
  done: Promise<StreamResult>;
}

export function openStream(url: string, body: unknown, opts: { stopAfter?: number } = {}): OpenStream {
  let req: ReturnType<typeof request> | undefined;
  const waiters: { n: number; resolve: () => void }[] = [];
  let count = 0;
  let over = false;
  const out: StreamResult = { status: 0, data: [], chunks: [], ended: false };
  const wake = () => {
    for (let i = waiters.length - 1; i >= 0; i--)
      if (over || count >= waiters[i].n) {
        waiters[i].resolve();
        waiters.splice(i, 1);
      }
  };
  const done = new Promise<StreamResult>((resolve) => {
    let settled = false;
    const settle = () => {
      over = true;
      wake();
      if (!settled) {
        settled = true;
        resolve(out);
      }
    };
    req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false },
      (res) => {
        out.status = res.statusCode ?? 0;
        const parser = createParser({
          onEvent(ev) {
            out.data.push(ev.data);
            if (ev.data !== '[DONE]') out.chunks.push(JSON.parse(ev.data));
            count++;
            wake();
            if (opts.stopAfter !== undefined && out.data.length >= opts.stopAfter) {
              req?.destroy();
              settle();
            }
          },
        });
        res.setEncoding('utf8');
        res.on('data', (c: string) => parser.feed(c));
        res.on('end', () => {
          out.ended = true;
          settle();
        });
        res.on('error', (e) => {
          out.error = e;
          settle();
        });
        res.on('close', settle);
      },
    );
    req.on('error', (e) => {
      out.error = e;
      settle();
    });
    req.end(JSON.stringify(body));
  });
  return {
    done,
    events: (n) =>
      new Promise<void>((resolve) => {
        waiters.push({ n, resolve });
        wake();
      }),
    close: () => req?.destroy(),
    snapshot: () => out,
  };
}

/** Value of an unlabelled-or-labelled sample in Prometheus text, by exact series prefix. */
export function metricValue(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(series)) {
      const rest = line.slice(series.length);
      if (rest.startsWith(' ')) return Number(rest.trim());
    }
  }
  return undefined;
}

/** The text of a chat stream's content deltas, and of its reasoning deltas. */
export function streamText(chunks: Chunk[], field = 'content'): string {
  let s = '';
  for (const c of chunks)
    for (const ch of c.choices ?? []) if (typeof ch.delta?.[field] === 'string') s += ch.delta[field];
  return s;
}
