/**
 * How a request ends at each stage of its life, over real loopback: aborted while connecting,
 * while waiting for headers, after headers but before the first token; timed out before any
 * header; a stream left open after `[DONE]`. Each ends as exactly one record with the right
 * times, and leaves no socket behind (asserted on the server's side of the connection).
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHttpTarget, type HttpTarget } from '../../src/client/http.js';
import type { ClientOptions, SendArgs } from '../../src/client/types.js';
import type { RequestRecord } from '../../src/record/types.js';
import { type Clock, RealClock } from '../../src/runtime/clock.js';
import type { RequestSpec } from '../../src/workload/types.js';
import {
  chatChunk,
  DONE,
  misbehaviours,
  type Script,
  sse,
  startSseServer,
  USAGE,
  usageChunk,
} from '../helpers/misbehaving.js';

const spec: RequestSpec = { index: 0, prompt: 'hi', input_len: 1, output_len: null };
const targets: HttpTarget[] = [];
const closers: (() => Promise<void>)[] = [];

after(async () => {
  await Promise.all(targets.map((t) => t.close()));
  await Promise.all(closers.map((c) => c()));
});

/** A TCP server that accepts and reads, but never answers: a request stuck before its headers. */
async function silentServer(): Promise<{ baseUrl: string; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('data', () => {});
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  const port = (server.address() as { port: number }).port;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, server, sockets };
}

function target(baseUrl: string, over: Partial<ClientOptions> = {}): HttpTarget {
  const t = createHttpTarget({
    baseUrl,
    endpoint: 'chat',
    model: 'm',
    stream: true,
    maxTokens: 8,
    clock: new RealClock(),
    ...over,
  });
  targets.push(t);
  return t;
}

function args(signal: AbortSignal, id = 'a'): SendArgs {
  return { id, planned_id: id, attempt: 1, phase: 'measure', spec, planned_at_ms: 0, signal };
}

/** Wait (bounded, as hang protection, not a timing assertion) until `cond` holds. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await sleep(5);
  assert.ok(cond(), `never happened: ${what}`);
}

function assertEndedBeforeHeaders(r: RequestRecord): void {
  assert.ok(r.sent_at_ms !== null, 'it was sent');
  assert.ok(r.end_at_ms !== null && r.end_at_ms >= r.sent_at_ms);
  assert.equal(r.headers_at_ms, null);
  assert.equal(r.http_status, null);
  assert.equal(r.first_chunk_at_ms, null);
  assert.deepEqual(r.chunk_times_ms, []);
}

describe('a request that ends before its headers', () => {
  it('aborted right after send, while still connecting: cancelled, and the socket is closed', async () => {
    const srv = await silentServer();
    let connected = 0;
    srv.server.on('connection', () => connected++);
    const ac = new AbortController();
    const p = target(srv.baseUrl).send(args(ac.signal));
    // The request goes to undici at the end of its tick (a microtask); connecting takes an I/O
    // turn. Aborted in between: dispatched, still connecting. (Aborted in the same tick it was
    // never sent: test/client/preconnect.test.ts "first wave".)
    await Promise.resolve();
    ac.abort();
    const r = await p;
    assert.equal(r.outcome, 'cancelled');
    assertEndedBeforeHeaders(r);
    // the connection undici was opening must not linger once it opens
    await until(() => connected > 0 && srv.sockets.size === 0, 'the late connection was closed');
  });

  it('aborted while waiting for headers: cancelled, and the socket is closed', async () => {
    const srv = await silentServer();
    const ac = new AbortController();
    const p = target(srv.baseUrl).send(args(ac.signal));
    await until(() => srv.sockets.size === 1, 'the request reached the server');
    ac.abort();
    const r = await p;
    assert.equal(r.outcome, 'cancelled');
    assertEndedBeforeHeaders(r);
    await until(() => srv.sockets.size === 0, 'the client closed its socket');
  });

  it('TTFT timeout with no header at all: timeout, not connect_error, and the socket is closed', async () => {
    const srv = await silentServer();
    const r = await target(srv.baseUrl, { timeoutTtftMs: 50 }).send(args(new AbortController().signal));
    assert.equal(r.outcome, 'timeout');
    assert.match(r.error ?? '', /timeout-ttft/);
    assertEndedBeforeHeaders(r);
    await until(() => srv.sockets.size === 0, 'the client closed its socket');
  });

  it('whole-request timeout with no header at all: timeout', async () => {
    const srv = await silentServer();
    const r = await target(srv.baseUrl, { timeoutMs: 50 }).send(args(new AbortController().signal));
    assert.equal(r.outcome, 'timeout');
    assert.match(r.error ?? '', /exceeded 50 ms/);
    assertEndedBeforeHeaders(r);
  });
});

describe('a request aborted after its headers', () => {
  it('before the first token: cancelled, status and headers time kept, no token times', async () => {
    const srv = await startSseServer(misbehaviours.stallBeforeFirstToken());
    closers.push(() => srv.close());
    const ac = new AbortController();
    // abort as soon as the client has read the headers: the client reads the clock twice
    // before the body (sent_at_ms, then headers_at_ms), so the second read marks that moment
    const real = new RealClock();
    let reads = 0;
    const clock: Clock = {
      originUnixMs: real.originUnixMs,
      now: () => {
        if (++reads === 2) queueMicrotask(() => ac.abort());
        return real.now();
      },
      sleepUntil: (at, s) => real.sleepUntil(at, s),
      setTimer: (fn, ms) => real.setTimer(fn, ms),
    };
    const r = await target(srv.baseUrl, { clock }).send(args(ac.signal));
    assert.equal(r.outcome, 'cancelled');
    assert.equal(r.http_status, 200);
    assert.ok(r.headers_at_ms !== null && r.sent_at_ms !== null && r.headers_at_ms >= r.sent_at_ms);
    assert.ok(r.end_at_ms !== null && r.end_at_ms >= r.headers_at_ms);
    assert.equal(r.first_token_at_ms, null);
    assert.deepEqual(r.chunk_times_ms, []);
  });

  it('after the finish chunk, before [DONE]: cancelled wins, E2E still ends at the finish chunk', async () => {
    const script: Script = {
      steps: [
        sse(chatChunk({ content: 'a' })),
        sse(chatChunk({ content: 'b', finish_reason: 'stop' })),
        { stall: true },
      ],
    };
    const srv = await startSseServer(script);
    closers.push(() => srv.close());
    const ac = new AbortController();
    const r = await target(srv.baseUrl).send({
      ...args(ac.signal),
      onChunk: (rec) => {
        if (rec.chunk_times_ms.length === 2) queueMicrotask(() => ac.abort());
      },
    });
    assert.equal(r.outcome, 'cancelled');
    assert.equal(r.finish_reason, 'stop');
    assert.equal(r.done, false);
    assert.equal(r.end_at_ms, r.chunk_times_ms[1], 'E2E ends at the finish chunk');
  });
});

describe('a stream the server leaves open after [DONE]', () => {
  it('the record ends at [DONE]; close() releases the connection', async () => {
    // its own server, so the test sees the socket close from the client's side
    let open = 0;
    const server = createHttpServer((req, res) => {
      open++;
      req.socket.on('close', () => open--);
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(sse(chatChunk({ content: 'a', finish_reason: 'stop' })));
        res.write(sse(usageChunk(USAGE)));
        res.write(DONE); // and never res.end()
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(
      () =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    );
    const port = (server.address() as { port: number }).port;
    const t = createHttpTarget({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      endpoint: 'chat',
      model: 'm',
      stream: true,
      clock: new RealClock(),
    });
    const r = await t.send(args(new AbortController().signal));
    assert.equal(r.outcome, 'ok');
    assert.equal(r.done, true);
    assert.equal(r.end_at_ms, r.chunk_times_ms[0]);
    assert.equal(open, 1, 'the server still holds the stream open');
    await t.close();
    await until(() => open === 0, 'the client let go of the connection');
  });
});

describe('a request cancelled from inside a chunk callback', () => {
  it('the record is final once classified: later events of the same read change nothing', async () => {
    // the whole answer in one write, so the rest of it is parsed in the same read as the cancel
    const script: Script = {
      steps: [
        sse(chatChunk({ content: 'a' })) +
          sse(chatChunk({ content: 'b' })) +
          sse(chatChunk({ content: 'c', finish_reason: 'stop' })) +
          sse(usageChunk(USAGE)) +
          DONE,
      ],
    };
    const srv = await startSseServer(script);
    closers.push(() => srv.close());
    const ac = new AbortController();
    let calls = 0;
    const { record: r } = await target(srv.baseUrl).sendDetailed({
      ...args(ac.signal),
      onChunk: () => {
        calls++;
        ac.abort(); // synchronously, as a run observer that interrupts the run does
      },
    });
    assert.equal(calls, 1, 'no chunk reaches an observer after its request was cancelled');
    assert.equal(r.outcome, 'cancelled');
    assert.equal(r.chunk_times_ms.length, 1);
    assert.equal(r.finish_reason, null);
    assert.equal(r.usage, null);
    assert.equal(r.done, false);
  });
});

describe('end_at_ms: the finish chunk, else when the request ended', () => {
  async function one(script: Script): Promise<RequestRecord> {
    const srv = await startSseServer(script);
    closers.push(() => srv.close());
    return target(srv.baseUrl).send(args(new AbortController().signal));
  }

  it('finish, then EOF without [DONE]: ends at the finish chunk, keeps its class, done false', async () => {
    const r = await one(misbehaviours.noDoneAfterFinish());
    assert.equal(r.outcome, 'ok');
    assert.equal(r.done, false);
    assert.equal(r.end_at_ms, r.chunk_times_ms[r.chunk_times_ms.length - 1]);
  });

  it('in-band error, then [DONE]: stream_error, ends when [DONE] came, after the last token', async () => {
    const r = await one(misbehaviours.inBandError());
    assert.equal(r.outcome, 'stream_error');
    assert.equal(r.done, true);
    assert.equal(r.finish_reason, null);
    assert.ok(r.end_at_ms !== null && r.end_at_ms >= (r.last_token_at_ms as number));
    assert.equal(r.first_token_at_ms, r.chunk_times_ms[0]);
  });
});

describe('a response that stalls after its outcome is decided', () => {
  // No --timeout here: without the grace period these requests would never end.
  it('a non-2xx status whose body never finishes ends as http_error with the body received', async () => {
    const srv = await startSseServer({
      status: 500,
      headers: { 'content-type': 'application/json' },
      steps: ['{"error":{"message":"engine overloaded"', { stall: true }],
    });
    closers.push(() => srv.close());
    const r = await target(srv.baseUrl).send(args(new AbortController().signal));
    assert.equal(r.outcome, 'http_error');
    assert.equal(r.http_status, 500);
    assert.match(r.error ?? '', /^HTTP 500: .*engine overloaded.*body cut after \d+ ms/);
  });

  it('an in-band error never followed by [DONE] ends as stream_error', async () => {
    const srv = await startSseServer({
      headers: { 'content-type': 'text/event-stream' },
      steps: [
        sse(chatChunk({ content: 'a' })),
        sse({ error: { message: 'boom', code: 500 } }),
        { stall: true },
      ],
    });
    closers.push(() => srv.close());
    const r = await target(srv.baseUrl).send(args(new AbortController().signal));
    assert.equal(r.outcome, 'stream_error');
    assert.equal(r.done, false);
    assert.equal(r.chunk_times_ms.length, 1);
  });
});
