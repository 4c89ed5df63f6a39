/**
 * The client and `check` against the built-in simulator over loopback (time-scaled so the
 * test is fast): every request one record, outcomes, usage and reasoning as the sim sends them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatCheck, runCheck } from '../../src/client/check.js';
import { createHttpTarget } from '../../src/client/http.js';
import { RealClock } from '../../src/runtime/clock.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';

const KEY = 'sk-sim-SECRET-000111222333';
let sim: SimServer;

before(async () => {
  sim = await startSimServer({
    model: 'llama-3.1-8b',
    gpu: 'h100',
    apiKey: KEY,
    timeScale: 50,
    seed: 1,
    exposeTimings: true,
  });
});
after(async () => {
  await sim?.close();
});

describe('client against the simulator', () => {
  it('check: ok, engine servelab-sim, key accepted', async () => {
    const r = await runCheck({ baseUrl: `${sim.url}/v1`, apiKey: KEY, clock: new RealClock() });
    assert.equal(r.ok, true, formatCheck(r));
    assert.equal(r.engine, 'servelab-sim');
    assert.equal(r.key_accepted, true);
    assert.equal(r.done_seen, true);
    assert.equal(r.usage_present, true);
    assert.ok(!formatCheck(r).includes(KEY));
  });

  it('check without the key: 401 with the hint', async () => {
    const r = await runCheck({ baseUrl: `${sim.url}/v1`, clock: new RealClock() });
    assert.equal(r.ok, false);
    assert.equal(r.key_accepted, false);
  });

  it('20 concurrent streams: 20 records, usage from the server, length with ignore_eos', async () => {
    const t = createHttpTarget({
      baseUrl: `${sim.url}/v1`,
      endpoint: 'chat',
      model: sim.modelId,
      stream: true,
      apiKey: KEY,
      ignoreEos: true,
      clock: new RealClock(),
    });
    const recs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.send({
          id: `s${i}`,
          planned_id: `s${i}`,
          attempt: 1,
          phase: 'measure',
          spec: { index: i, prompt: 'Tell me a story about a cat.', input_len: null, output_len: 12 },
          planned_at_ms: null,
          signal: new AbortController().signal,
        }),
      ),
    );
    await t.close();
    assert.equal(recs.length, 20);
    for (const r of recs) {
      // finish_reason length at the asked 12 tokens: complete.
      assert.equal(r.outcome, 'ok', JSON.stringify(r));
      assert.equal(r.finish_reason, 'length');
      assert.equal(r.usage?.completion_tokens, 12);
      assert.equal(r.done, true);
      assert.ok(r.chunk_times_ms.length > 0);
    }
    assert.ok(!JSON.stringify(recs).includes(KEY));
  });
});
