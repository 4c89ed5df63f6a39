/**
 * @module client/http
 * The OpenAI-compatible HTTP target: one undici `Agent` and, per request, one handler object
 * on `dispatch` (no `fetch`, no body stream, no per-chunk closures; `bench/naive-fetch.ts` measures
 * what `fetch` would cost). It builds
 * the request body and headers, times the response from `opts.clock`, applies the TTFT and
 * whole-request timeouts and the abort signal, and always resolves with exactly one record.
 */
import { Agent, type Dispatcher } from 'undici';
import { UsageError } from '../core/errors.js';
import { targetHeaders } from '../core/headers.js';
import { isSecretName, scrubSecrets } from '../core/redact.js';
import { emptyRecord, type RequestRecord } from '../record/types.js';
import { whenAborted } from '../runtime/abort.js';
import type { RequestSpec } from '../workload/types.js';
import { clip, errorMessageOf, ResponseAccumulator, type StreamInfo } from './stream.js';
import { newTraceparent } from './trace-context.js';
import type { ClientOptions, PreconnectReport, SendArgs, Target } from './types.js';
import { startWarmServer, warmRequests } from './warm.js';

/** Largest non-SSE body kept (bytes): a non-stream completion, or an error body. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const MAX_ERROR_BODY_BYTES = 16 * 1024;
/**
 * Once the outcome is decided (a non-2xx status, or an in-band error event), how long the rest
 * of the response may take, in ms. A server that then stalls must not hold the request (and its
 * concurrency slot) until --timeout, or forever without one.
 */
export const DECIDED_GRACE_MS = 2000;
/** The session header's default name (`--session-header`), as routers with session affinity read it. */
export const DEFAULT_SESSION_HEADER = 'x-session-id';

/** A record plus what the wire looked like (for `check`). */
export interface SendResult {
  record: RequestRecord;
  info: StreamInfo;
  /** Response headers (lower-case names), when a response started. */
  headers: Record<string, string | string[] | undefined> | null;
  /** With `capture`: the response text (up to {@link MAX_BODY_BYTES}). */
  raw?: string;
  /** With `capture`: a stream's data events in order, parsed (`[DONE]` as the string). */
  events?: unknown[];
}

/** An HTTP target that can also report wire details. */
export interface HttpTarget extends Target {
  /** Like `send`, with the stream's wire details and response headers. Never rejects. */
  sendDetailed(args: SendArgs): Promise<SendResult>;
}

/**
 * The request body for one spec: model, messages (chat) or prompt (completions),
 * `max_tokens` = spec.output_len ?? opts.maxTokens, temperature (default 0), top_p, stop,
 * `ignore_eos`, `stream` + `stream_options.include_usage`, then `extraBody` merged last.
 */
export function buildRequestBody(opts: ClientOptions, spec: RequestSpec): Record<string, unknown> {
  const body: Record<string, unknown> = { model: opts.model };
  if (opts.endpoint === 'chat') {
    body.messages =
      spec.messages && spec.messages.length > 0
        ? spec.messages
        : [{ role: 'user', content: spec.prompt ?? '' }];
  } else {
    body.prompt = spec.prompt ?? (spec.messages ?? []).map((m) => m.content).join('\n');
  }
  const maxTokens = spec.output_len ?? opts.maxTokens ?? null;
  if (maxTokens !== null) body.max_tokens = maxTokens;
  // undefined = the default (0, greedy: reproducible lengths); null = leave it to the server
  const temperature = opts.temperature === undefined ? 0 : opts.temperature;
  if (temperature !== null) body.temperature = temperature;
  if (opts.topP !== undefined && opts.topP !== null) body.top_p = opts.topP;
  if (opts.stop && opts.stop.length > 0) body.stop = opts.stop;
  if (opts.ignoreEos) body.ignore_eos = true;
  body.stream = opts.stream;
  if (opts.stream) body.stream_options = { include_usage: true };
  if (opts.extraBody) Object.assign(body, opts.extraBody);
  return body;
}

/** Retry-After in seconds (delta-seconds or an HTTP date against `nowUnixMs`), or null. */
export function parseRetryAfter(v: string | string[] | undefined, nowUnixMs: number): number | null {
  const s = Array.isArray(v) ? v[0] : v;
  if (s === undefined) return null;
  const t = s.trim();
  if (/^\d+(?:\.\d+)?$/.test(t)) return Number(t);
  const at = Date.parse(t);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.round((at - nowUnixMs) / 1000));
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' ? code : '';
}

/** Short, key-free text for a transport error (undici wraps the system error in `cause`). */
function transportMessage(err: unknown): string {
  const e = err as { message?: unknown; cause?: { message?: unknown } } | null;
  const code = errorCode(err);
  const msg = typeof e?.message === 'string' && e.message ? e.message : String(err);
  const cause = typeof e?.cause?.message === 'string' ? e.cause.message : '';
  const text = cause && !msg.includes(cause) ? `${msg} (${cause})` : msg;
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}

type Mode = 'sse' | 'json' | 'error';

/**
 * One request in flight. A class (not closures) so the per-chunk path allocates nothing of
 * its own; undici calls the `on*` methods.
 */
class RequestHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  /** Abort asked for before undici handed us a controller. */
  private pendingAbort: Error | null = null;
  private finished = false;
  private mode: Mode = 'sse';
  private bodyParts: Buffer[] = [];
  private bodyBytes = 0;
  private cancelled = false;
  private timedOut = false;
  private connectError = false;
  private responseStarted = false;
  private headers: Record<string, string | string[] | undefined> | null = null;
  /** With `capture`: every byte of the response, up to {@link MAX_BODY_BYTES}. */
  private rawParts: Buffer[] | null = null;
  private rawBytes = 0;
  private cancelTtft: (() => void) | null = null;
  private cancelTotal: (() => void) | null = null;
  private cancelGrace: (() => void) | null = null;
  private readonly acc: ResponseAccumulator;
  private stopWaiting: (() => void) | null = null;
  resolve!: (r: SendResult) => void;

  constructor(
    private readonly target: UndiciHttpTarget,
    private readonly args: SendArgs,
    rec: RequestRecord,
  ) {
    this.acc = new ResponseAccumulator(rec, args.onChunk);
    if (args.answer !== undefined) this.acc.answer = args.answer;
    if (args.capture) {
      this.rawParts = [];
      this.acc.events = [];
    }
  }

  /** Start timers and listen for the abort signal; called right before dispatch. */
  arm(): void {
    const { clock, timeoutMs, timeoutTtftMs } = this.target.opts;
    this.stopWaiting = whenAborted(this.args.signal, () => this.stop('cancelled'));
    if (timeoutTtftMs !== undefined && timeoutTtftMs !== null && timeoutTtftMs > 0)
      this.cancelTtft = clock.setTimer(() => this.stop('ttft'), timeoutTtftMs);
    if (timeoutMs !== undefined && timeoutMs !== null && timeoutMs > 0)
      this.cancelTotal = clock.setTimer(() => this.stop('total'), timeoutMs);
  }

  /** End the request early: cancelled by the signal, or a timeout. */
  private stop(why: 'cancelled' | 'ttft' | 'total'): void {
    if (this.finished) return;
    const rec = this.acc.rec;
    const opts = this.target.opts;
    if (why === 'cancelled') {
      this.cancelled = true;
      rec.error = 'cancelled';
    } else {
      this.timedOut = true;
      rec.error =
        why === 'ttft'
          ? `no first token within ${opts.timeoutTtftMs} ms (timeout-ttft)`
          : `request exceeded ${opts.timeoutMs} ms (timeout)`;
    }
    const reason = new Error(rec.error);
    this.complete(opts.clock.now());
    if (this.controller) this.controller.abort(reason);
    else this.pendingAbort = reason;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.pendingAbort) controller.abort(this.pendingAbort);
  }

  onResponseStart(
    _c: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (this.finished) return;
    const opts = this.target.opts;
    const rec = this.acc.rec;
    const now = opts.clock.now();
    this.responseStarted = true;
    this.headers = headers;
    rec.headers_at_ms = now;
    rec.http_status = statusCode;
    if (statusCode === 429 || statusCode === 503)
      rec.retry_after_s = parseRetryAfter(headers['retry-after'], opts.clock.originUnixMs + now);
    if (statusCode < 200 || statusCode > 299) {
      this.mode = 'error';
      this.startGrace();
      return;
    }
    const ct = headers['content-type'];
    const type = (Array.isArray(ct) ? ct[0] : (ct ?? '')).toLowerCase();
    // a server that ignores `stream` and answers JSON is parsed as JSON, not as an empty stream
    this.mode = type.includes('text/event-stream')
      ? 'sse'
      : type.includes('json')
        ? 'json'
        : opts.stream
          ? 'sse'
          : 'json';
    rec.stream = this.mode === 'sse';
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.finished) return;
    if (this.rawParts !== null && this.rawBytes < MAX_BODY_BYTES) {
      this.rawParts.push(chunk);
      this.rawBytes += chunk.length;
    }
    if (this.mode === 'sse') {
      const acc = this.acc;
      acc.feedSse(chunk, this.target.opts.clock.now());
      const rec = acc.rec;
      if (this.cancelTtft !== null && rec.chunk_times_ms.length > 0) {
        this.cancelTtft();
        this.cancelTtft = null;
      }
      if (acc.done) this.complete(rec.end_at_ms ?? this.target.opts.clock.now());
      else if (acc.streamError !== null) this.startGrace();
      return;
    }
    const limit = this.mode === 'error' ? MAX_ERROR_BODY_BYTES : MAX_BODY_BYTES;
    if (this.bodyBytes < limit) {
      this.bodyParts.push(chunk);
      this.bodyBytes += chunk.length;
    }
  }

  onResponseEnd(): void {
    if (this.finished) return;
    const now = this.target.opts.clock.now();
    const acc = this.acc;
    const rec = acc.rec;
    if (this.mode === 'sse') {
      acc.endSse(now);
      if (!acc.done && rec.finish_reason === null && acc.streamError === null)
        rec.error = 'stream ended without finish_reason';
    } else if (this.mode === 'json') {
      acc.applyJsonBody(Buffer.concat(this.bodyParts).toString('utf8'), now);
    } else this.errorBodyDone(now);
    this.bodyParts = [];
    this.complete(rec.end_at_ms ?? now);
  }

  /** The error message of a non-2xx response from the body received so far. */
  private errorBodyDone(now: number, note = ''): void {
    const rec = this.acc.rec;
    const text = Buffer.concat(this.bodyParts).toString('utf8');
    let msg = text;
    try {
      msg = errorMessageOf(JSON.parse(text));
    } catch {
      // plain-text (or cut-off) error body
    }
    rec.error = `HTTP ${rec.http_status}: ${msg || '(empty body)'}${note}`;
    rec.end_at_ms = now;
  }

  /** The outcome is decided: give the rest of the response {@link DECIDED_GRACE_MS}, then end it. */
  private startGrace(): void {
    if (this.cancelGrace !== null || this.finished) return;
    this.cancelGrace = this.target.opts.clock.setTimer(() => {
      if (this.finished) return;
      const now = this.target.opts.clock.now();
      if (this.mode === 'error') this.errorBodyDone(now, ` (body cut after ${DECIDED_GRACE_MS} ms)`);
      else this.acc.endSse(now);
      const reason = new Error('response stalled after its outcome was decided');
      this.complete(now);
      if (this.controller) this.controller.abort(reason);
      else this.pendingAbort = reason;
    }, DECIDED_GRACE_MS);
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    if (this.finished) return;
    const rec = this.acc.rec;
    const now = this.target.opts.clock.now();
    if (!this.responseStarted) {
      this.connectError = true;
      rec.error = transportMessage(err);
    } else {
      if (this.mode === 'sse') this.acc.endSse(now);
      rec.error = `stream broken: ${transportMessage(err)}`;
    }
    this.complete(now);
  }

  /** Finish exactly once: classify, scrub, clear timers, resolve. */
  private complete(atMs: number): void {
    if (this.finished) return;
    this.finished = true;
    this.cancelTtft?.();
    this.cancelTotal?.();
    this.cancelGrace?.();
    this.stopWaiting?.();
    const rec = this.acc.rec;
    rec.end_at_ms ??= atMs;
    this.acc.finish({
      cancelled: this.cancelled,
      connectError: this.connectError,
      httpError: this.acc.rec.http_status !== null && this.mode === 'error',
      timedOut: this.timedOut,
    });
    if (rec.error !== null) rec.error = clip(scrubSecrets(rec.error, this.target.secrets));
    const out: SendResult = { record: rec, info: this.acc.info, headers: this.headers };
    if (this.rawParts !== null) {
      out.raw = Buffer.concat(this.rawParts).toString('utf8');
      out.events = this.acc.events ?? [];
      this.rawParts = null;
    }
    this.resolve(out);
  }

  /** The request could not even be dispatched (bad URL, closed agent). */
  failDispatch(err: unknown): void {
    if (this.finished) return;
    this.connectError = true;
    this.acc.rec.error = transportMessage(err);
    this.complete(this.target.opts.clock.now());
  }
}

class UndiciHttpTarget implements HttpTarget {
  readonly opts: ClientOptions;
  readonly secrets: string[];
  /** Our own Agent, or the caller's dispatcher (not ours to close). */
  private readonly agent: Pick<Dispatcher, 'dispatch'>;
  private readonly ownAgent: Agent | null;
  private readonly origin: string;
  private readonly path: string;
  private readonly baseHeaders: Record<string, string>;
  readonly sessionHeader: string;
  /** Requests built in this tick, waiting for {@link flush} (see {@link enqueue}). */
  private queued: (() => void)[] = [];

  constructor(opts: ClientOptions) {
    this.sessionHeader = (opts.sessionHeader ?? DEFAULT_SESSION_HEADER).toLowerCase();
    this.opts = opts;
    this.secrets = opts.apiKey ? [opts.apiKey] : [];
    // a credential passed as a plain --header must not leak through an echoed error either
    for (const [k, v] of Object.entries(opts.headers ?? {}))
      if (isSecretName(k)) this.secrets.push(v, v.replace(/^\s*bearer\s+/i, ''));
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new UsageError([
        { path: '--url', message: `not a URL: ${opts.baseUrl}`, hint: 'e.g. --url http://127.0.0.1:8000/v1' },
      ]);
    }
    this.origin = url.origin;
    const base = url.pathname.replace(/\/+$/, '');
    this.path = base + (opts.endpoint === 'chat' ? '/chat/completions' : '/completions');
    this.baseHeaders = {
      'content-type': 'application/json',
      accept: opts.stream ? 'text/event-stream' : 'application/json',
      ...targetHeaders(opts.apiKey, opts.headers),
    };
    this.ownAgent = opts.dispatcher ? null : newAgent();
    this.agent = opts.dispatcher ?? (this.ownAgent as Agent);
  }

  async send(args: SendArgs): Promise<RequestRecord> {
    return (await this.sendDetailed(args)).record;
  }

  sendDetailed(args: SendArgs): Promise<SendResult> {
    return this.sendVia(this.agent, args);
  }

  /** One request through `agent` to `origin`: the server, or the warm-up's loopback one (`client/warm`). */
  private sendVia(
    agent: Pick<Dispatcher, 'dispatch'>,
    args: SendArgs,
    origin = this.origin,
  ): Promise<SendResult> {
    const rec = emptyRecord({
      id: args.id,
      planned_id: args.planned_id,
      attempt: args.attempt,
      phase: args.phase,
      index: args.spec.index,
    });
    rec.planned_at_ms = args.planned_at_ms;
    // What was asked for; the response's content type settles it once it arrives.
    rec.stream = this.opts.stream;
    rec.input_len = args.spec.input_len;
    if (args.spec.session_id !== undefined) {
      rec.session_id = args.spec.session_id;
      rec.turn = args.spec.turn ?? null;
    }
    const body = buildRequestBody(this.opts, args.spec);
    // The expected length is the workload's, when it went out as max_tokens; with ignore_eos the
    // request is told to run to max_tokens, so that is its length too. A plain --max-tokens cap
    // (or an extra_body override) is a limit, not a length the run asked for.
    const asked = args.spec.output_len ?? (body.ignore_eos === true ? (this.opts.maxTokens ?? null) : null);
    rec.output_len = asked !== null && body.max_tokens === asked ? asked : null;
    const handler = new RequestHandler(this, args, rec);
    return new Promise<SendResult>((resolve) => {
      handler.resolve = resolve;
      const notSent = () => {
        // never sent: cancelled with sent_at_ms null
        rec.outcome = 'cancelled';
        rec.error = 'cancelled before send';
        resolve({ record: rec, info: new ResponseAccumulator(rec).info, headers: null });
      };
      if (args.signal.aborted) return notSent();
      let dispatchOpts: Dispatcher.DispatchOptions;
      try {
        const headers: Record<string, string> = { ...this.baseHeaders, 'x-request-id': args.id };
        if (args.spec.session_id !== undefined) headers[this.sessionHeader] = args.spec.session_id;
        if (this.opts.traceparent) {
          const tp = newTraceparent();
          headers.traceparent = tp.header;
          rec.trace_id = tp.traceId;
        }
        const payload = JSON.stringify(body);
        dispatchOpts = { origin, path: this.path, method: 'POST', headers, body: payload };
      } catch (err) {
        // send() never rejects: even a body that cannot be serialised ends as one record
        handler.failDispatch(err);
        return;
      }
      this.enqueue(() => {
        if (args.signal.aborted) return notSent();
        rec.sent_at_ms = this.opts.clock.now();
        handler.arm();
        try {
          agent.dispatch(dispatchOpts, handler);
        } catch (err) {
          handler.failDispatch(err);
        }
      });
    });
  }

  /**
   * Dispatch `go` (stamp `sent_at_ms`, hand the request to undici) once every request built in
   * this tick is built. undici writes a request on a reused keep-alive connection only in the
   * next check phase (it first lets pending bytes on the idle socket be read:
   * `scheduleIdleSocketValidation`, nodejs/undici lib/dispatcher/client-h1.js, v7.30.2,
   * GHSA-35p6-xmwp-9g52), so a request's time from `sent_at_ms` to the wire holds whatever runs
   * after its dispatch in the same tick. A closed loop starts its c users in one tick: stamped as
   * each was built, the first of them carried the building of all the others (c = 100, cold:
   * ~14 ms of runner, body and header work; docs/bench.md "first wave"). Queued to one
   * microtask, the tick's requests are all built first and then stamped and dispatched back to
   * back; a request built alone (each later one of a closed loop) goes out one microtask later,
   * in the same turn.
   */
  private enqueue(go: () => void): void {
    if (this.queued.push(go) === 1) queueMicrotask(this.flush);
  }

  private readonly flush = (): void => {
    const q = this.queued;
    this.queued = [];
    for (const go of q) go();
  };

  /**
   * Get the client ready for a window of `n` concurrent requests, so that its first wave pays
   * nothing the later ones do not:
   *  - {@link warmRequests}(n) synthetic requests through this target's own code and undici to a
   *    loopback server in this process (`client/warm`): none reaches the server under test, no
   *    records.
   *  - `n` concurrent `GET …/models` requests (every OpenAI-compatible server answers the route,
   *    and any answer, 404 included, leaves its keep-alive connection open): with one request
   *    per connection (`pipelining: 1`), concurrent requests each get their own, and the pool
   *    keeps them idle for the measured requests. Errors are ignored: the measured requests
   *    will say.
   *  - one turn of the event loop: undici hands a finished keep-alive connection back to its
   *    pool on the next check phase (`setImmediate(client[kResume])` for `pipelining: 1`,
   *    nodejs/undici lib/dispatcher/client-h1.js, v7.30.2); without it, the connections whose
   *    GET ended in the same read as the last one still read busy, and the first wave opened
   *    new ones (17 of 100 in bench/first-wave).
   */
  async preconnect(n: number): Promise<PreconnectReport | null> {
    const agent = this.ownAgent;
    // A dispatcher handed in (the in-process simulator, tests, a shared pool) is the caller's
    // to manage, and has no connections to open nor wall time to lose to a cold client.
    if (!agent) return null;
    const path = `${this.path.replace(/\/(chat\/)?completions$/, '')}/models`;
    let connections = 0;
    const one = async () => {
      // Bounded: a server that answers /models slowly, or with a stream that never ends (a
      // misbehaving proxy), must not hold the run before its window opens.
      const signal = AbortSignal.timeout(PRECONNECT_TIMEOUT_MS);
      try {
        const res = await agent.request({
          origin: this.origin,
          path,
          method: 'GET',
          headers: this.baseHeaders,
          signal,
        });
        connections++;
        await res.body.dump({ limit: 1 << 20, signal });
      } catch {
        // an unreachable server shows in the measured requests
      }
    };
    // Warm first: the connections are opened last, so that none idles through the warm-up
    // (undici closes a connection idle for 4 s by default; uvicorn, vLLM's HTTP server, after
    // `timeout_keep_alive`, 5 s unless VLLM_HTTP_TIMEOUT_KEEP_ALIVE says otherwise).
    const warmed = await this.warm(warmRequests(n));
    await Promise.all(Array.from({ length: n }, one));
    await new Promise<void>((resolve) => setImmediate(resolve));
    return { connections, warm_requests: warmed };
  }

  /**
   * `total` synthetic requests through {@link sendVia} and a fresh agent of the same
   * kind to an in-process loopback server (`client/warm`), in waves of 100: the body build,
   * undici's dispatch, write and response parsing, and the record's classification all run
   * compiled in the window. The server under test sees none of them, and nothing is recorded.
   * Returns how many were sent (0 when the loopback server could not listen; fewer when the
   * hang guard cut it short).
   */
  private async warm(total: number): Promise<number> {
    if (total <= 0) return 0;
    const srv = await startWarmServer(this.opts.endpoint, this.opts.stream);
    if (!srv) return 0;
    const agent = newAgent();
    // A hang guard only (our own server answers at once): a warm-up cut short just warms less.
    const signal = AbortSignal.timeout(WARM_TIMEOUT_MS);
    const spec = { index: 0, prompt: 'warm-up', input_len: null, output_len: 4 };
    let sent = 0;
    try {
      for (let done = 0; done < total; ) {
        const wave: Promise<SendResult>[] = [];
        for (const end = Math.min(total, done + 100); done < end; done++) {
          const id = `warm-${done}`;
          const args = {
            id,
            planned_id: id,
            attempt: 1,
            phase: 'warmup' as const,
            spec,
            planned_at_ms: null,
            signal,
          };
          wave.push(this.sendVia(agent, args, srv.origin));
        }
        for (const r of await Promise.all(wave)) if (r.record.sent_at_ms !== null) sent++;
      }
    } finally {
      await agent.destroy();
      await srv.close();
    }
    return sent;
  }

  async close(): Promise<void> {
    // every send has resolved by now; a stream left open after [DONE] must not hold the process
    await this.ownAgent?.destroy();
  }
}

/** Our own connection pool: one connection per stream; no undici timeouts (ours are per request and clock-driven). */
function newAgent(): Agent {
  return new Agent({ connections: null, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 });
}

/** The longest the warm-up may take before the run goes on without the rest of it, ms. */
const WARM_TIMEOUT_MS = 30_000;

/** The longest one pre-opening request may take before the run goes on without it, ms. */
const PRECONNECT_TIMEOUT_MS = 2000;

/**
 * A {@link Target} for an OpenAI-compatible server at `opts.baseUrl` (ending in /v1):
 * POST `/chat/completions` or `/completions`, streaming or not.
 *
 * @example
 * const t = createHttpTarget({ baseUrl: 'http://127.0.0.1:8000/v1', endpoint: 'chat', model: 'm', stream: true, clock });
 * const rec = await t.send({ id: 'r1', planned_id: 'r1', attempt: 1, phase: 'measure', spec, planned_at_ms: null, signal });
 */
export function createHttpTarget(opts: ClientOptions): HttpTarget {
  return new UndiciHttpTarget(opts);
}
