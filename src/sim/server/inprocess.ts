/**
 * @module sim/server/inprocess
 * The simulator reached without a socket: an undici {@link Dispatcher} that hands each request
 * to the same handler `servelab sim` serves over HTTP ({@link createSimHandler}), and feeds the
 * bytes it writes back to the caller's undici handler. servelab's HTTP client, the scraper and
 * every probe work on it unchanged (they take a `dispatcher`), so a run against the in-process
 * simulator goes through exactly the code a run against a real engine does.
 *
 * With a {@link VirtualClock} this is how `plan` and virtual-clock experiments run: no timers
 * of the wall clock, no sockets, so the event loop only moves when the clock is driven
 * (`runtime/clock` `driveVirtual`) and a seed reproduces every byte.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Dispatcher } from 'undici';
import type { Clock } from '../../runtime/clock.js';
import type { EngineConfig } from '../engine/config.js';
import type { SimEngine } from '../engine/types.js';
import type { SimServerOptions } from '../settings.js';
import { createSimHandler, type SimHandler, type SimServerDeps } from './server.js';

/** The origin in-process URLs use; nothing ever resolves or connects to it. */
export const IN_PROCESS_ORIGIN = 'http://sim.in-process';

/** One simulator in this process, reachable through {@link InProcessSim.dispatcher}. */
export interface InProcessSim {
  /** Base URL (`http://sim.in-process`); the OpenAI API is under `/v1`. Only the dispatcher reaches it. */
  url: string;
  /** Pass as undici's `dispatcher` (the client's `dispatcher` option) to reach the simulator. */
  dispatcher: Dispatcher;
  engine: SimEngine;
  config: EngineConfig;
  modelId: string;
  clock: Clock;
  /**
   * The count `POST /tokenize {model, prompt}` answers, without the HTTP exchange (null: not the
   * served model). A workload counted with it is counted by the very tokenizer that serves it,
   * and each prompt is encoded once: serving it reuses the ids.
   */
  countTokens(text: string, model?: string): Promise<number | null>;
  /** Stop the driver and end every open response. */
  close(): Promise<void>;
}

/** Where the response's bytes go: the caller's undici handler, either handler style. */
interface Sink {
  start(status: number, headers: Record<string, string>): void;
  data(buf: Buffer): void;
  end(): void;
  error(err: Error): void;
}

/**
 * What the handler uses of node:http's ServerResponse, writing into a {@link Sink}. Headers go
 * out at the first write (or `flushHeaders`), the body in the order it is written; `destroy`
 * before `end` is what a reset socket looks like to the client.
 */
class InProcessResponse {
  statusCode = 200;
  headersSent = false;
  destroyed = false;
  private ended = false;
  private readonly headers: Record<string, string> = {};
  private readonly onClose: (() => void)[] = [];

  constructor(private readonly sink: Sink) {}

  setHeader(name: string, value: string | number): this {
    this.headers[name.toLowerCase()] = String(value);
    return this;
  }

  writeHead(status: number, headers?: Record<string, string | number>): this {
    this.statusCode = status;
    for (const [k, v] of Object.entries(headers ?? {})) this.setHeader(k, v);
    return this;
  }

  flushHeaders(): void {
    this.start();
  }

  write(chunk: string | Buffer): boolean {
    if (this.destroyed || this.ended) return false;
    this.start();
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (buf.length) this.sink.data(buf);
    return true;
  }

  end(chunk?: string | Buffer): this {
    if (this.destroyed || this.ended) return this;
    if (chunk !== undefined) this.write(chunk);
    this.start();
    this.ended = true;
    this.sink.end();
    this.close();
    return this;
  }

  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    if (!this.ended)
      this.sink.error(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    this.close();
    return this;
  }

  /** The client went away (its request was aborted): the handler sees `close` before `end`. */
  clientGone(): void {
    if (this.ended || this.destroyed) return;
    this.destroyed = true;
    this.close();
  }

  on(event: string, fn: () => void): this {
    if (event === 'close') this.onClose.push(fn);
    return this;
  }

  once(event: string, fn: () => void): this {
    return this.on(event, fn);
  }

  private start(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    this.sink.start(this.statusCode, this.headers);
  }

  private close(): void {
    for (const fn of this.onClose.splice(0)) fn();
  }
}

/** What the handler uses of node:http's IncomingMessage. */
function inProcessRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): IncomingMessage {
  return {
    method,
    url: path,
    headers,
    resume() {},
    async *[Symbol.asyncIterator]() {
      if (body.length) yield body;
    },
  } as unknown as IncomingMessage;
}

/** Request headers as a lower-cased record (undici passes an object, an array of pairs or a flat array). */
function headerRecord(h: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (Array.isArray(h)) {
    if (h.length && Array.isArray(h[0]))
      for (const [k, v] of h as [string, string][]) out[k.toLowerCase()] = String(v);
    else for (let i = 0; i + 1 < h.length; i += 2) out[String(h[i]).toLowerCase()] = String(h[i + 1]);
    return out;
  }
  for (const [k, v] of Object.entries(h as Record<string, unknown>))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
}

/**
 * The request body's bytes as sent. A buffer stays bytes: a multipart upload (an ASR request's
 * WAV file) is binary, and a round trip through a UTF-8 string would corrupt it.
 */
function bodyBytes(body: unknown): Buffer {
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('the in-process simulator takes string or buffer bodies');
}

/** Handler of either undici style: `onRequestStart/onResponse*` (v7) or `onConnect/onHeaders/onData/onComplete`. */
type AnyHandler = Dispatcher.DispatchHandler & {
  onConnect?: (abort: (err?: Error) => void, context?: unknown) => void;
  onHeaders?: (status: number, raw: string[], resume: () => void, text: string) => boolean;
  onData?: (chunk: Buffer) => boolean;
  onComplete?: (trailers: string[] | null) => void;
  onError?: (err: Error) => void;
};

class InProcessDispatcher extends Dispatcher {
  constructor(private readonly sim: SimHandler) {
    super();
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const h = handler as AnyHandler;
    let aborted = false;
    let res: InProcessResponse | null = null;
    const abort = (reason?: Error) => {
      if (aborted) return;
      aborted = true;
      res?.clientGone();
      const err = reason ?? new Error('aborted');
      if (h.onResponseError) h.onResponseError(controller, err);
      else h.onError?.(err);
    };
    const controller = {
      abort,
      pause() {},
      resume() {},
      get paused() {
        return false;
      },
      get aborted() {
        return aborted;
      },
      get reason() {
        return null;
      },
      rawHeaders: null,
      rawTrailers: null,
    } as unknown as Dispatcher.DispatchController;
    const modern = typeof h.onRequestStart === 'function' || typeof h.onResponseStart === 'function';
    const sink: Sink = {
      start: (status, headers) => {
        if (aborted) return;
        if (modern) h.onResponseStart?.(controller, status, headers, '');
        else h.onHeaders?.(status, Object.entries(headers).flat(), () => {}, '');
      },
      data: (buf) => {
        if (aborted) return;
        if (modern) h.onResponseData?.(controller, buf);
        else h.onData?.(buf);
      },
      end: () => {
        if (aborted) return;
        aborted = true;
        if (modern) h.onResponseEnd?.(controller, {});
        else h.onComplete?.([]);
      },
      error: (err) => {
        if (aborted) return;
        aborted = true;
        if (modern) h.onResponseError?.(controller, err);
        else h.onError?.(err);
      },
    };
    if (modern) h.onRequestStart?.(controller, {});
    else h.onConnect?.(abort, {});
    if (aborted) return true;
    let body: Buffer;
    try {
      body = bodyBytes(opts.body);
    } catch (err) {
      sink.error(err as Error);
      return true;
    }
    res = new InProcessResponse(sink);
    const req = inProcessRequest(opts.method ?? 'GET', opts.path, headerRecord(opts.headers), body);
    this.sim.handle(req, res as unknown as ServerResponse);
    return true;
  }

  override async close(): Promise<void> {}

  override async destroy(): Promise<void> {}
}

/**
 * Start a simulator in this process (no socket). On a `VirtualClock`, drive the clock while
 * awaiting anything that talks to it.
 *
 * @example
 * const clock = new VirtualClock();
 * const sim = await startInProcessSim({ model: 'qwen3-0.6b', gpu: 'h100' }, { clock });
 * const client = createHttpTarget({ baseUrl: `${sim.url}/v1`, dispatcher: sim.dispatcher, clock, … });
 */
export async function startInProcessSim(
  opts: SimServerOptions,
  deps: SimServerDeps & { clock: Clock },
): Promise<InProcessSim> {
  const { sim, config, engine } = await createSimHandler(opts, deps);
  return {
    url: IN_PROCESS_ORIGIN,
    dispatcher: new InProcessDispatcher(sim),
    engine,
    config,
    modelId: sim.modelId,
    clock: deps.clock,
    countTokens: (text, model) => sim.countPromptTokens(text, model),
    async close() {
      sim.abortAll();
    },
  };
}
