/**
 * The first wave pays no set-up inside the measured window: the HTTP target opens `n` keep-alive
 * connections on request (`preconnect`), the next `n` concurrent requests reuse them (even when
 * every opening request ended in the same read), its warm-up sends nothing and leaves no record,
 * and the runner asks for the window's concurrency before the window opens and reports what
 * was done.
 */
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { createHttpTarget } from '../../src/client/http.js';
import { startWarmServer, WARM_REQUESTS, warmRequests } from '../../src/client/warm.js';
import type { RequestRecord } from '../../src/record/types.js';
import { runLoad } from '../../src/runner/loops.js';
import { RealClock, VirtualClock } from '../../src/runtime/clock.js';
import { drive, VirtualTarget } from '../runner/virtual-target.js';

describe('preconnect', () => {
  it('opens n connections that the next n concurrent requests reuse, however the openings end', async () => {
    let connections = 0;
    const paths: string[] = [];
    // The GETs are answered all at once, once every one has arrived: their answers reach the
    // client in one read, the case in which undici had not yet handed the connections back
    // to its pool when the measured requests went out (they opened new ones).
    const held: ServerResponse[] = [];
    const srv = createServer((req, res) => {
      paths.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => {
        if (req.method === 'GET') {
          held.push(res);
          if (held.length === 16)
            for (const r of held.splice(0)) {
              r.writeHead(404, { 'content-type': 'application/json' });
              r.end('{}');
            }
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        setTimeout(() => {
          res.write('data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}\n\n');
          res.end('data: [DONE]\n\n');
        }, 20);
      });
    });
    srv.on('connection', () => connections++);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as AddressInfo).port;
    const target = createHttpTarget({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      endpoint: 'chat',
      model: 'm',
      stream: true,
      clock: new RealClock(),
    });
    try {
      const report = await target.preconnect?.(16);
      assert.deepEqual(report, { connections: 16, warm_requests: 32 });
      assert.equal(connections, 16);
      // the warm-up went to a loopback server of its own: the server saw the 16 GETs and nothing else
      assert.deepEqual(paths, Array(16).fill('GET /v1/models'));
      const ac = new AbortController();
      const recs = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          target.send({
            id: `r${i}`,
            planned_id: `r${i}`,
            attempt: 1,
            phase: 'measure',
            spec: { index: i, prompt: 'hi', input_len: null, output_len: 1 },
            planned_at_ms: null,
            signal: ac.signal,
          }),
        ),
      );
      assert.ok(recs.every((r) => r.outcome === 'ok'));
      assert.equal(connections, 16, 'the first wave opened connections of its own');
    } finally {
      await target.close();
      srv.close();
    }
  });

  it('warms the client on canned answers it reads as successes, for every endpoint and mode', async () => {
    // A canned answer the client read as an error would warm the error path, not the measured one.
    for (const endpoint of ['chat', 'completions'] as const)
      for (const stream of [true, false]) {
        const srv = await startWarmServer(endpoint, stream);
        assert.ok(srv, 'the loopback warm-up server did not listen');
        const target = createHttpTarget({
          baseUrl: `${srv.origin}/v1`,
          endpoint,
          model: 'm',
          stream,
          clock: new RealClock(),
        });
        try {
          const rec = await target.send({
            id: 'w',
            planned_id: 'w',
            attempt: 1,
            phase: 'warmup',
            spec: { index: 0, prompt: 'warm-up', input_len: null, output_len: 4 },
            planned_at_ms: null,
            signal: new AbortController().signal,
          });
          assert.equal(rec.outcome, 'ok', `${endpoint} stream=${stream}: ${rec.error}`);
          assert.equal(rec.usage?.completion_tokens, 4);
          assert.equal(rec.stream, stream);
          if (stream) assert.equal(rec.chunk_times_ms.length, 4);
        } finally {
          await target.close();
          await srv.close();
        }
      }
  });

  it('a closed loop over real HTTP records exactly its planned requests and reports the set-up', async () => {
    const posts: string[] = [];
    let connections = 0;
    const srv = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.method !== 'POST') {
          res.writeHead(404).end();
          return;
        }
        posts.push(String(req.headers['x-request-id']));
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}\n\n');
        res.end('data: [DONE]\n\n');
      });
    });
    srv.on('connection', () => connections++);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as AddressInfo).port;
    const clock = new RealClock();
    const target = createHttpTarget({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      endpoint: 'chat',
      model: 'm',
      stream: true,
      clock,
    });
    try {
      const res = await runLoad(
        {
          load: { kind: 'closed', concurrency: 8, requests: 20 },
          specs: [{ index: 0, prompt: 'p', input_len: null, output_len: 1 }],
        },
        { target, clock },
      );
      assert.equal(res.records.length, 20);
      assert.ok(res.records.every((r) => r.phase === 'measure' && r.outcome === 'ok'));
      assert.deepEqual(new Set(res.records.map((r) => r.id)), new Set(posts));
      assert.equal(posts.length, 20);
      // Twice the concurrency: a worker's next request takes a spare while undici still holds
      // the connection of the stream that just ended, so none is opened inside the window.
      assert.deepEqual(res.client_health.prepared, { connections: 16, warm_requests: 32 });
      assert.equal(connections, 16, 'a request opened a connection inside the measured window');
    } finally {
      await target.close();
      srv.close();
    }
  });

  it("the runner opens the closed loop's connections before the measured window", async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const asked: { n: number; at: number }[] = [];
    const inner = new VirtualTarget(clock, () => ({ kind: 'ok', latencyMs: 10 }));
    const target = {
      send: (a: Parameters<VirtualTarget['send']>[0]) => inner.send(a),
      close: () => inner.close(),
      preconnect: async (n: number) => {
        asked.push({ n, at: clock.now() });
        return { connections: n, warm_requests: 0 };
      },
    };
    const res = await drive(
      clock,
      runLoad(
        {
          load: { kind: 'closed', concurrency: 8, requests: 20 },
          specs: [{ index: 0, prompt: 'p', input_len: 1, output_len: 1 }],
        },
        { target, clock },
      ),
    );
    assert.deepEqual(
      asked.map((a) => a.n),
      [16],
    );
    assert.ok(asked[0].at <= res.window.start_ms);
    assert.deepEqual(res.client_health.prepared, { connections: 16, warm_requests: 0 });
  });
});

describe('first wave', () => {
  it('warms twice the connections it opens, up to three waves of 100', () => {
    assert.equal(warmRequests(16), 32);
    assert.equal(warmRequests(200), WARM_REQUESTS);
    assert.equal(WARM_REQUESTS, 300);
    assert.equal(warmRequests(0), 0);
  });

  it('builds every request of a tick before it stamps and dispatches the first of them', async () => {
    // undici writes a request on a reused connection only in the next check phase: a request
    // stamped before the rest of its tick was built would carry their building in its TTFT.
    const srv = await startWarmServer('chat', true);
    assert.ok(srv, 'the loopback server did not listen');
    const target = createHttpTarget({
      baseUrl: `${srv.origin}/v1`,
      endpoint: 'chat',
      model: 'm',
      stream: true,
      clock: new RealClock(),
    });
    let built = 0;
    const seen: number[] = [];
    const onCreate = () => seen.push(built);
    subscribe('undici:request:create', onCreate);
    try {
      const send = (i: number, signal: AbortSignal) =>
        target.send({
          id: `r${i}`,
          planned_id: `r${i}`,
          attempt: 1,
          phase: 'measure',
          spec: { index: i, prompt: 'hi', input_len: null, output_len: 4 },
          planned_at_ms: null,
          signal,
        });
      const pending: Promise<RequestRecord>[] = [];
      for (let i = 0; i < 8; i++) {
        pending.push(send(i, new AbortController().signal));
        built++;
      }
      // cancelled after it was built, before its tick ended: never dispatched, never sent
      const ac = new AbortController();
      pending.push(send(8, ac.signal));
      built++;
      ac.abort();
      const recs = await Promise.all(pending);
      assert.deepEqual(seen, Array(8).fill(9));
      assert.ok(recs.slice(0, 8).every((r) => r.outcome === 'ok' && r.sent_at_ms !== null));
      assert.equal(recs[8].outcome, 'cancelled');
      assert.equal(recs[8].sent_at_ms, null);
      assert.equal(recs[8].error, 'cancelled before send');
    } finally {
      unsubscribe('undici:request:create', onCreate);
      await target.close();
      await srv.close();
    }
  });
});
