/**
 * The first wave pays no connection set-up inside the measured window: the HTTP target opens `n`
 * keep-alive connections on request (`preconnect`), the next `n` concurrent requests reuse them,
 * and the runner asks for the window's concurrency before the window opens.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { createHttpTarget } from '../../src/client/http.js';
import { runLoad } from '../../src/runner/loops.js';
import { RealClock, VirtualClock } from '../../src/runtime/clock.js';
import { drive, VirtualTarget } from '../runner/virtual-target.js';

describe('preconnect', () => {
  it('opens n connections that the next n concurrent requests reuse', async () => {
    let connections = 0;
    const paths: string[] = [];
    const srv = createServer((req, res) => {
      paths.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => {
        if (req.method === 'GET') {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end('{}');
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
      await target.preconnect?.(16);
      assert.equal(connections, 16);
      assert.deepEqual(new Set(paths), new Set(['GET /v1/models']));
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
      // Without preconnect these 16 would have opened 16 more.
      assert.ok(connections <= 18, `${connections} connections for 16 + 16 requests`);
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
      [8],
    );
    assert.ok(asked[0].at <= res.window.start_ms);
  });
});
