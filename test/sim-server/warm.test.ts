/**
 * The serving path is warmed before a wall-clock simulator is ready (issue 26 item 6,
 * `sim/server/warm`): on a throwaway simulator of its own, once per process for each engine
 * profile and tokenizer, whatever options would refuse a request, and without touching the
 * real server's engine, counters or tokenizer memo.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSimHandler } from '../../src/sim/server/server.js';
import { warmServePath } from '../../src/sim/server/warm.js';
import type { SimServerOptions } from '../../src/sim/settings.js';
import { http, startSim } from './helpers.js';

describe('serving-path warm-up', () => {
  it('serves a streamed chat and a completion on a throwaway simulator, once per profile and tokenizer', async () => {
    // Options that would refuse or divert the warm-up requests on the real server.
    const opts: SimServerOptions = {
      model: 'llama-3.1-8b',
      gpu: 'h100',
      engine: 'sglang',
      apiKey: 'secret',
      faultRate: 1,
      faults: 'http500',
      maxWaiting: 1,
    };
    let made = 0;
    const make = (o: SimServerOptions) => {
      made++;
      return createSimHandler(o);
    };
    assert.equal(await warmServePath(opts, make), true);
    assert.equal(await warmServePath({ ...opts, seed: 7, timeScale: 3 }, make), false, 'warm already');
    assert.equal(made, 1);
    assert.equal(await warmServePath({ ...opts, engine: 'llamacpp' }, make), true, 'another profile');
    assert.equal(made, 2);
  });

  it('a warm-up that cannot start leaves the start as it was', async () => {
    const failing = () => Promise.reject(new Error('no simulator'));
    assert.equal(
      await warmServePath({ model: 'llama-3.1-8b', gpu: 'a100', engine: 'vllm-v0' }, failing),
      false,
    );
  });

  it('the real server starts as one that served nothing', async (t) => {
    const sim = await startSim({ model: 'llama-3.1-8b', gpu: 'h100' }, t);
    const make = () => Promise.reject(new Error('not called'));
    assert.equal(
      await warmServePath({ model: 'llama-3.1-8b', gpu: 'h100' }, make),
      false,
      'warmed by the start',
    );
    assert.equal(sim.driverStats().steps, 0);
    const s = sim.engine.stats();
    assert.deepEqual([s.steps, s.prefixQueries, s.promptTokens, s.generationTokens], [0, 0, 0, 0]);
    const m = await http(`${sim.url}/metrics`, 'GET');
    assert.doesNotMatch(m.text, /^vllm:request_success_total\{[^}]*\} [1-9]/m);
    assert.doesNotMatch(m.text, /^vllm:prompt_tokens_total\{[^}]*\} [1-9]/m);
  });
});
