/**
 * @module gate/http
 * How checks talk to a target. Generation requests go through servelab's measurement client
 * (`client/http`, with `capture` on), so the SSE parse, the outcome classification, the timeouts
 * and the key scrubbing are the ones `run` uses; {@link exchange} hands back the record, every
 * parsed data event and the response text. Plain requests (a body that is not JSON on purpose,
 * `/metrics`, `/health`) go through {@link call}, and the models list through
 * {@link listModelsCall}, both `client/engine-api` requests on the target's dispatcher; only
 * {@link postLarge} writes its body by hand (`node:http`).
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type ApiAnswer, apiRequest, type EngineApiOptions, getModels } from '../client/engine-api.js';
import { createHttpTarget, type SendResult } from '../client/http.js';
import { targetHeaders } from '../core/headers.js';
import { scrubSecrets } from '../core/redact.js';
import { serverRoot } from '../core/url.js';
import { whenAborted } from '../runtime/abort.js';
import { type Clock, RealClock } from '../runtime/clock.js';
import { type CheckContext, type Evidence, type GateTarget, trimEvidence } from './types.js';

let seq = 0;
const REAL = new RealClock();

/** The context's clock, else the real one. */
export function clockOf(ctx: CheckContext): Clock {
  return ctx.clock ?? REAL;
}

/** A signal aborted after `ms` on the context's clock, or with the context's own signal. */
function timeoutSignal(ctx: CheckContext, ms: number): { signal: AbortSignal; cancel: () => void } {
  const ac = new AbortController();
  const stop = clockOf(ctx).setTimer(() => ac.abort(new Error(`no answer within ${ms} ms`)), ms);
  // The gate's own signal is forwarded by hand rather than with AbortSignal.any, whose result
  // Node 20 holds only weakly (nodejs/node#57736).
  // One listener per signal however many requests are in flight (runtime/abort).
  const onAbort = () => ac.abort(ctx.signal.reason);
  let stopWaiting = () => {};
  if (ctx.signal.aborted) onAbort();
  else stopWaiting = whenAborted(ctx.signal, onAbort);
  const cancel = () => {
    stop();
    stopWaiting();
  };
  return { signal: ac.signal, cancel };
}

/** A fresh request id for a gate request (sent as `X-Request-Id`, shown in evidence). */
export function gateRequestId(target: GateTarget): string {
  return `servelab-gate-${target.role}-${++seq}`;
}

/** One generation request and what came back. */
export interface Exchange {
  id: string;
  /** The body sent. */
  body: Record<string, unknown>;
  result: SendResult;
  /** The response text (SSE or JSON). */
  raw: string;
  /** A stream's parsed data events (`[DONE]` as the string); empty for a JSON body. */
  events: unknown[];
  /** A non-stream body, parsed; null for a stream or a body that is not JSON. */
  json: Record<string, unknown> | null;
  status: number | null;
  /** Milliseconds from send to the end. */
  ms: number | null;
}

/**
 * POST one chat (or completions) request whose body is `body` exactly (plus `model` and, for a
 * stream, `stream_options.include_usage`, unless the body sets them) and keep everything that
 * came back.
 */
export async function exchange(
  target: GateTarget,
  ctx: CheckContext,
  body: Record<string, unknown>,
  opts: { endpoint?: 'chat' | 'completions'; timeoutMs?: number } = {},
): Promise<Exchange> {
  const stream = body.stream === true;
  const client = createHttpTarget({
    baseUrl: target.baseUrl,
    endpoint: opts.endpoint ?? 'chat',
    model: target.model,
    stream,
    temperature: null,
    apiKey: target.apiKey,
    timeoutMs: opts.timeoutMs ?? ctx.timeoutMs,
    clock: clockOf(ctx),
    dispatcher: target.dispatcher,
    extraBody: body,
  });
  const id = gateRequestId(target);
  try {
    const result = await client.sendDetailed({
      id,
      planned_id: id,
      attempt: 1,
      phase: 'measure',
      // the messages or prompt come from the body (extraBody wins)
      spec: { index: 0, prompt: '', input_len: null, output_len: null },
      planned_at_ms: null,
      signal: ctx.signal,
      capture: true,
    });
    const raw = scrubSecrets(result.raw ?? '', target.apiKey ? [target.apiKey] : []);
    let json: Record<string, unknown> | null = null;
    if (!result.record.stream || (result.events ?? []).length === 0) json = parseObject(raw);
    const r = result.record;
    const sent: Record<string, unknown> = { model: target.model, ...body };
    if (stream && sent.stream_options === undefined) sent.stream_options = { include_usage: true };
    return {
      id,
      body: sent,
      result,
      raw,
      events: result.events ?? [],
      json,
      status: r.http_status,
      ms: r.sent_at_ms !== null && r.end_at_ms !== null ? r.end_at_ms - r.sent_at_ms : null,
    };
  } finally {
    await client.close();
  }
}

/** What {@link call} got back; `status` null when nothing answered (`error` says why). */
export interface CallResult {
  id: string;
  status: number | null;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
  error: string | null;
  ms: number;
}

/**
 * One plain request: `path` under the base URL (`/models`) or, with `root`, under the server
 * root (`/metrics`, `/health`). A string body is sent as it is (malformed JSON on purpose).
 */
export function call(
  target: GateTarget,
  ctx: CheckContext,
  method: 'GET' | 'POST',
  path: string,
  opts: { body?: string | Record<string, unknown>; root?: boolean; timeoutMs?: number } = {},
): Promise<CallResult> {
  const base = opts.root ? serverRoot(target.baseUrl) : target.baseUrl.replace(/\/+$/, '');
  const body =
    opts.body === undefined
      ? undefined
      : typeof opts.body === 'string'
        ? opts.body
        : JSON.stringify(opts.body);
  return sendVia(target, ctx, opts.timeoutMs, (o) => apiRequest(`${base}${path}`, method, o, body));
}

/** `GET /v1/models` (the models list under the base URL), as `client/engine-api` asks for it. */
export function listModelsCall(target: GateTarget, ctx: CheckContext): Promise<CallResult> {
  return sendVia(target, ctx, undefined, (o) => getModels(target.baseUrl, o));
}

/**
 * A request of `client/engine-api` as a gate request: its own `X-Request-Id`, the target's key,
 * no undici timeouts but the context's (on its clock) and its abort signal, the answer scrubbed
 * of the key; never throws.
 */
async function sendVia(
  target: GateTarget,
  ctx: CheckContext,
  timeoutMs: number | undefined,
  send: (o: EngineApiOptions) => Promise<ApiAnswer>,
): Promise<CallResult> {
  const id = gateRequestId(target);
  const clock = clockOf(ctx);
  const started = clock.now();
  const timeout = timeoutSignal(ctx, timeoutMs ?? ctx.timeoutMs);
  try {
    const res = await send({
      apiKey: target.apiKey,
      headers: { 'x-request-id': id },
      dispatcher: target.dispatcher,
      signal: timeout.signal,
      timeoutMs: 0,
    });
    const text = scrubSecrets(res.text, target.apiKey ? [target.apiKey] : []);
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return {
      id,
      status: res.status,
      headers: res.headers,
      text,
      json,
      error: null,
      ms: clock.now() - started,
    };
  } catch (err) {
    const e = err as { message?: string; code?: string; cause?: { message?: string } };
    const msg = e.cause?.message ?? e.message ?? String(err);
    return {
      id,
      status: null,
      headers: {},
      text: '',
      json: null,
      error: scrubSecrets(`${e.code ? `${e.code}: ` : ''}${msg}`, target.apiKey ? [target.apiKey] : []),
      ms: clock.now() - started,
    };
  } finally {
    timeout.cancel();
  }
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Evidence of an exchange: its id, what was sent and what came back, trimmed to 2 KB each. */
export function evidenceOf(x: Exchange | CallResult, note: string, sent?: unknown): Evidence {
  const body = 'body' in x && typeof x.body === 'object' ? x.body : sent;
  const received = 'raw' in x ? x.raw || x.result.record.error || '' : x.text || x.error || '';
  return {
    request_id: x.id,
    note,
    sent:
      body === undefined ? undefined : trimEvidence(typeof body === 'string' ? body : JSON.stringify(body)),
    received: trimEvidence(`${x.status === null ? '' : `HTTP ${x.status}\n`}${received}`),
  };
}

/**
 * POST a large JSON body: the headers (with its Content-Length) first, then, unless the server
 * has answered within {@link EARLY_ANSWER_MS}, the body in 64 KiB writes, stopping as soon as it
 * answers. A server that refuses it early and closes the connection is read as its answer, not as
 * the EPIPE of writes still under way.
 * Through an in-process dispatcher (tests) it is {@link call}.
 */
export function postLarge(
  target: GateTarget,
  ctx: CheckContext,
  path: string,
  body: string,
  timeoutMs: number,
): Promise<CallResult> {
  if (target.dispatcher) return call(target, ctx, 'POST', path, { body, timeoutMs });
  const id = gateRequestId(target);
  const url = new URL(`${target.baseUrl.replace(/\/+$/, '')}${path}`);
  const payload = Buffer.from(body, 'utf8');
  const clock = clockOf(ctx);
  const started = clock.now();
  return new Promise<CallResult>((resolve) => {
    let settled = false;
    let cancelWait: () => void = () => {};
    const done = (r: Omit<CallResult, 'id' | 'ms'>) => {
      if (settled) return;
      settled = true;
      cancelTimer();
      cancelWait();
      resolve({ id, ms: clock.now() - started, ...r });
      req.destroy();
    };
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      headers: {
        ...targetHeaders(target.apiKey, {}),
        'x-request-id': id,
        'content-type': 'application/json',
        'content-length': payload.length,
      },
      signal: ctx.signal,
    });
    const cancelTimer = clock.setTimer(
      () =>
        done({ status: null, headers: {}, text: '', json: null, error: `no answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      const end = () => {
        const text = Buffer.concat(parts).toString('utf8');
        let json: unknown = null;
        try {
          json = JSON.parse(text);
        } catch {
          json = null;
        }
        done({ status: res.statusCode ?? null, headers: res.headers, text, json, error: null });
      };
      res.on('end', end);
      res.on('error', end);
      res.on('close', end);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // the answer may still be on its way after a write failed; give it a moment
      clock.setTimer(
        () =>
          done({
            status: null,
            headers: {},
            text: '',
            json: null,
            error: `${err.code ?? ''} ${err.message}`.trim(),
          }),
        200,
      );
    });
    const CHUNK = 64 * 1024;
    let at = 0;
    const pump = () => {
      while (!settled && at < payload.length) {
        const ok = req.write(payload.subarray(at, at + CHUNK));
        at += CHUNK;
        if (!ok) {
          req.once('drain', pump);
          return;
        }
      }
      if (!settled && at >= payload.length) req.end();
    };
    // Headers first: a server that refuses by Content-Length answers before any body byte, and
    // its close then carries no unread data (which would reset the connection under the answer).
    req.flushHeaders();
    cancelWait = clock.setTimer(pump, EARLY_ANSWER_MS);
    req.on('response', () => cancelWait());
  });
}

/** How long {@link postLarge} waits for an answer to the headers alone before sending the body. */
const EARLY_ANSWER_MS = 1000;
