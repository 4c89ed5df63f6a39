/**
 * servelab's own client streams from the simulator (the simulator must serve servelab as a real
 * server would), and
 * `servelab check` recognises it as servelab-sim with a clean bill of health.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runCheck } from '../../src/client/check.js';
import { createHttpTarget } from '../../src/client/http.js';
import { RealClock } from '../../src/runtime/clock.js';
import { startSim } from './helpers.js';

const sim = await startSim({ model: 'qwen3-0.6b', gpu: 'h100', timeScale: 50, exposeTimings: true });

describe("servelab's own client against the simulator", () => {
  test('a streamed chat request ends ok, with usage, [DONE] and server timings', async () => {
    const clock = new RealClock();
    const target = createHttpTarget({
      baseUrl: `${sim.url}/v1`,
      endpoint: 'chat',
      model: 'qwen3-0.6b',
      stream: true,
      maxTokens: 40,
      ignoreEos: true,
      clock,
    });
    try {
      const rec = await target.send({
        id: 'req-1',
        planned_id: 'req-1',
        attempt: 1,
        phase: 'measure',
        spec: { index: 0, prompt: 'Hello simulator', input_len: null, output_len: 40 },
        planned_at_ms: null,
        signal: new AbortController().signal,
      });
      // It asked for 40 tokens (output_len) and got them: complete, not truncated.
      assert.equal(rec.outcome, 'ok');
      assert.equal(rec.finish_reason, 'length');
      assert.equal(rec.done, true);
      assert.equal(rec.http_status, 200);
      assert.equal(rec.usage?.completion_tokens, 40);
      assert.equal(rec.chunk_times_ms.length, 40, 'one token-carrying chunk per token');
      assert.ok(rec.chunk_kinds.includes('r') && rec.chunk_kinds.includes('c'), 'reasoning, then content');
      assert.equal(rec.usage?.reasoning_tokens, rec.chunk_kinds.filter((k) => k === 'r').length);
      assert.ok(rec.timings, 'llama.cpp-style timings reach the record');
      assert.equal((rec.timings as { predicted_n: number }).predicted_n, 40);
      assert.ok(
        sim.logs.some((l) => l.includes('x_request_id=req-1')),
        'the X-Request-Id reaches the log',
      );
    } finally {
      await target.close();
    }
  });

  test('servelab check identifies servelab-sim and finds no problems', async () => {
    const r = await runCheck({ baseUrl: `${sim.url}/v1`, clock: new RealClock(), timeoutMs: 30_000 });
    assert.equal(r.engine, 'servelab-sim');
    assert.deepEqual(r.problems, []);
    assert.equal(r.ok, true);
    assert.equal(r.done_seen, true);
    assert.equal(r.include_usage_honoured, true);
    assert.equal(r.reasoning_field, 'reasoning_content');
    assert.equal(r.capabilities.metrics, true);
    assert.equal(r.capabilities.tokenize, true);
    assert.equal(r.capabilities.timings, true);
  });
});
