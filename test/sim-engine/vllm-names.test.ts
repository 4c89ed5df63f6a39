/**
 * The parts of the engine that follow vLLM by name (docs/learn-vllm-with-sim.md): a preempted
 * request's status is PREEMPTED until it is admitted again, prefix-cache statistics count per
 * admission rather than per lookup, and the prefix cache's hash table agrees with a Map.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import { EngineCore } from '../../src/sim/engine/engine.js';
import { BlockHashTable } from '../../src/sim/engine/kv-cache.js';
import type { ReqStatus } from '../../src/sim/engine/request.js';
import type { EngineOptions } from '../../src/sim/settings.js';

const SMALL: EngineOptions = { model: 'qwen3-0.6b', gpu: 'h100' };

function ids(n: number, seed: number): number[] {
  return Array.from({ length: n }, (_, i) => 1 + ((i * 7919 + seed * 104729) % 50_000));
}

describe('vLLM-named engine states', () => {
  it('a preempted request is PREEMPTED until it is admitted again, then RUNNING, then finished', () => {
    // 40 blocks of 16: both prompts fit (19 blocks each) but not both decodes, so `new` is preempted.
    const core = new EngineCore(resolveEngineConfig({ ...SMALL, numGpuBlocksOverride: 40 }));
    core.add({ id: 'old', promptTokens: ids(300, 1), maxTokens: 60, eosLen: 60, arrivalMs: 0 });
    core.add({ id: 'new', promptTokens: ids(300, 2), maxTokens: 200, eosLen: 200, arrivalMs: 0 });
    const seen: ReqStatus[] = [];
    let t = 0;
    while (core.hasWork()) {
      const raw = core.stepRaw(t);
      t = raw.endMs;
      const s = (core.get('new') as NonNullable<ReturnType<typeof core.get>>).status;
      if (seen[seen.length - 1] !== s) seen.push(s);
      if (raw.preempted.length) assert.equal(raw.preempted.at(0).id, 'new');
    }
    assert.deepEqual(seen, ['running', 'preempted', 'running', 'finished']);
    assert.equal(core.times('new')?.preemptions, 1);
  });

  it('counts prefix-cache queries once per admission, not once per lookup of a blocked request', () => {
    // `b` (400 tokens, 25 blocks) cannot be admitted while `a` holds its 19–23 blocks of 40, so it
    // is looked up on every step of a's decode; it is admitted once, when `a` finishes.
    const core = new EngineCore(resolveEngineConfig({ ...SMALL, numGpuBlocksOverride: 40 }));
    core.add({ id: 'a', promptTokens: ids(300, 3), maxTokens: 60, eosLen: 60, arrivalMs: 0 });
    core.add({ id: 'b', promptTokens: ids(400, 4), maxTokens: 5, eosLen: 5, arrivalMs: 0 });
    let t = 0;
    let stepsWaiting = 0;
    while (core.hasWork()) {
      t = core.stepRaw(t).endMs;
      if (core.get('b')?.status === 'waiting') stepsWaiting++;
    }
    assert.ok(stepsWaiting > 10, `b waited ${stepsWaiting} steps`);
    assert.equal(core.stats().prefixQueries, 300 + 400);
    assert.equal(core.stats().preemptions, 0);
  });
});

describe('BlockHashTable', () => {
  it('agrees with a Map under inserts, block-checked deletes and lookups (collisions included)', () => {
    // 16 slots: a pool of 40 keys collides and wraps around; three block ids, so deletes often match.
    const MAX = 8;
    const key = fc.integer({ min: 0, max: 39 }).map((k) => (k * 2_654_435_761 * 2 ** 19 + k) % 2 ** 53);
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), h: key, b: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant('delete' as const), h: key, b: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant('get' as const), h: key }),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 50, maxLength: 300 }), (ops) => {
        const table = new BlockHashTable(MAX);
        const model = new Map<number, number>();
        for (const o of ops) {
          if (o.kind === 'add') {
            if (model.size >= MAX && !model.has(o.h)) continue;
            assert.equal(table.add(o.h, o.b), !model.has(o.h));
            if (!model.has(o.h)) model.set(o.h, o.b);
          } else if (o.kind === 'delete') {
            table.deleteBlock(o.h, o.b);
            if (model.get(o.h) === o.b) model.delete(o.h);
          }
          for (const [h, b] of model) assert.equal(table.get(h), b);
          if (o.kind === 'get') assert.equal(table.get(o.h), model.get(o.h) ?? -1);
        }
      }),
    );
  });
});
