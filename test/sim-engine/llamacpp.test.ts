/**
 * @module test/sim-engine/llamacpp
 * The llama.cpp profile's engine (`--engine llamacpp`): slots (`-np`) bound the running requests
 * and defer the rest; a slot's context is `-c` split per slot, as llama.cpp sizes it; one
 * llama_decode holds at most `-b` tokens, decodes first; without continuous batching no prompt
 * is processed while a slot decodes; an idle server starts on its highest slot (LRU ties), a
 * repeat goes back to the slot that holds its prompt; the RAM prompt cache keeps one copy of a
 * prompt and drops the entries a new one contains.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import { createEngine } from '../../src/sim/engine/engine.js';
import { llamaCppSlotContext } from '../../src/sim/engine/profiles.js';
import { PromptRamCache } from '../../src/sim/engine/slot-pool.js';
import type { EngineRequest, SimEngine } from '../../src/sim/engine/types.js';

function engine(o: Record<string, unknown> = {}): SimEngine {
  return createEngine(
    resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100', engine: 'llamacpp', ...o } as never),
  );
}

const req = (id: string, n: number, from = 1, maxTokens = 4): EngineRequest => ({
  id,
  promptTokens: Array.from({ length: n }, (_, i) => from + i),
  maxTokens,
  eosLen: maxTokens,
  arrivalMs: 0,
});

/** Step until idle; the requests in finishing order. */
function drain(e: SimEngine): string[] {
  const done: string[] = [];
  let now = 0;
  while (e.hasWork()) {
    const s = e.step(now);
    now = s.endMs;
    for (const f of s.finished) done.push(f.reqId);
  }
  return done;
}

describe('sim engine --engine llamacpp', () => {
  it('sizes a slot as llama.cpp: -c padded to 256, split, each share padded, capped at n_ctx_train', () => {
    assert.equal(llamaCppSlotContext(8192, 4, 4096), 2048);
    assert.equal(llamaCppSlotContext(512, 4, 4096), 256);
    assert.equal(llamaCppSlotContext(32768, 1, 4096), 4096);
    const cfg = resolveEngineConfig({
      model: 'llama-3.1-8b',
      gpu: 'h100',
      engine: 'llamacpp',
      ctxSize: 512,
    } as never);
    assert.equal(cfg.maxModelLen, 256);
    assert.equal(cfg.profile.llamacpp?.nCtx, 1024);
    assert.equal(cfg.maxNumSeqs, 4);
  });

  it('runs at most -np requests; the rest are deferred until a slot is free', () => {
    const e = engine({ parallel: 2 });
    for (let i = 0; i < 3; i++) e.add(req(`r${i}`, 50, 1000 * i), 0);
    e.step(0);
    assert.deepEqual([e.stats().running, e.stats().waiting], [2, 1]);
    assert.equal(drain(e).length, 3);
  });

  it('an idle server starts on its highest slot, and a repeat returns to the slot holding its prompt', () => {
    const e = engine({ parallel: 3 });
    e.add(req('a', 40, 1), 0);
    drain(e);
    assert.deepEqual(
      e.slots().map((s) => s.task !== null),
      [false, false, true],
    );
    e.add(req('b', 40, 5000), 0);
    drain(e);
    assert.equal(e.slots()[1].promptTokens, 40, 'the next LRU slot');
    e.add(req('a2', 40, 1), 0);
    e.step(0);
    const s2 = e.slots()[2];
    assert.deepEqual([s2.processing, s2.cachedTokens], [true, 39]);
  });

  it('one llama_decode holds at most -b tokens, decodes first, prompts in slot order', () => {
    const e = engine({ parallel: 2, batchSize: 512 });
    e.add(req('long', 1000, 1, 8), 0);
    e.add(req('long2', 1000, 9000, 8), 0);
    let now = 0;
    while (e.hasWork()) {
      const s = e.step(now);
      assert.ok(s.numBatchedTokens <= 512, `${s.numBatchedTokens} tokens in one batch`);
      now = s.endMs;
    }
  });

  it('--no-cont-batching: no prompt is processed while a slot decodes', () => {
    const e = engine({ parallel: 2, contBatching: false });
    e.add(req('first', 30, 1, 20), 0);
    let s = e.step(0);
    s = e.step(s.endMs);
    assert.equal(s.tokens.length, 1, 'the first request decodes');
    e.add(req('second', 300, 7000, 4), s.endMs);
    const next = e.step(s.endMs);
    assert.equal(next.numBatchedTokens, 1, 'only the decode runs; the new prompt waits');
  });

  it('the RAM prompt cache keeps one copy and drops what a new prompt contains', () => {
    const c = new PromptRamCache(1e9, 1);
    c.save([1, 2, 3]);
    c.save([1, 2]);
    assert.equal(c.states.length, 1, 'contained in an entry: not saved');
    c.save([1, 2, 3, 4]);
    assert.deepEqual(c.states, [[1, 2, 3, 4]]);
    assert.deepEqual(c.load([9, 9], [1, 2, 3, 4, 5], 5), [1, 2, 3, 4]);
    assert.equal(c.states.length, 0, 'restored entries leave the cache');
    c.save([7, 7, 7, 7, 7, 7, 7, 7]);
    assert.equal(c.load([], [7, 8, 8, 8], 4), null, 'keeping under a quarter of an entry: not restored');
  });
});
