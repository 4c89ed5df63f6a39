/**
 * The engine profiles' scheduling mechanisms (`--engine`), asserted on engine steps and virtual
 * times: vLLM v0's prefill-first steps stall running decodes where v1's shared budget does not;
 * v0's multi-step groups release N tokens at a time; SGLang's lpm policy orders the queue by
 * radix-tree prefix match; the radix cache matches any prefix length and evicts unlocked leaves,
 * least recently used first.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { simServerOptions } from '../../src/exp/harness/targets.js';
import { parseExperiment } from '../../src/exp/schema.js';
import { Rng } from '../../src/runtime/rng.js';
import { simulateDetailed } from '../../src/sim/batch-driver.js';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import { createEngine } from '../../src/sim/engine/engine.js';
import { RadixCache } from '../../src/sim/engine/radix-cache.js';
import { EngineReq } from '../../src/sim/engine/request.js';
import type { SimEngine, StepResult } from '../../src/sim/engine/types.js';
import { resolveServerOptions } from '../../src/sim/server/options.js';
import type { EngineOptions } from '../../src/sim/settings.js';
import { makeRequests } from './helpers.js';

const SMALL: EngineOptions = { model: 'qwen3-0.6b', gpu: 'h100' };

function ids(n: number, seed: number): number[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => rng.int(0, 150_000));
}

function drain(e: SimEngine, t0 = 0, until = Number.POSITIVE_INFINITY): StepResult[] {
  const steps: StepResult[] = [];
  let t = t0;
  while (e.hasWork() && t < until) {
    const s = e.step(t);
    steps.push(s);
    t = s.endMs;
  }
  return steps;
}

/**
 * Four short requests decode; a 16,000-token prompt arrives once they are running. Returns the
 * longest gap between two tokens of a short request and the duration of the long prompt's first step.
 */
function longPrefillArrives(opts: Partial<EngineOptions>): { maxGapMs: number; prefillStepMs: number } {
  const e = createEngine(resolveEngineConfig({ ...SMALL, ...opts }));
  for (let i = 0; i < 4; i++)
    e.add({ id: `s${i}`, promptTokens: ids(64, i), maxTokens: 60, eosLen: 999, arrivalMs: 0 }, 0);
  const steps = drain(e, 0, 5);
  const t = steps.at(-1)!.endMs;
  e.add({ id: 'long', promptTokens: ids(16_000, 99), maxTokens: 4, eosLen: 999, arrivalMs: t }, t);
  steps.push(...drain(e, t));
  const tokenAt = new Map<string, number[]>();
  for (const s of steps)
    for (const tok of s.tokens) {
      const list = tokenAt.get(tok.reqId) ?? [];
      list.push(s.endMs);
      tokenAt.set(tok.reqId, list);
    }
  let maxGapMs = 0;
  for (let i = 0; i < 4; i++) {
    const at = tokenAt.get(`s${i}`)!;
    for (let k = 1; k < at.length; k++) maxGapMs = Math.max(maxGapMs, at[k] - at[k - 1]);
  }
  const first = steps.find((s) => s.scheduled.includes('long'))!;
  return { maxGapMs, prefillStepMs: first.endMs - first.startMs };
}

describe('vLLM v0 scheduling', () => {
  it('stalls running decodes for a whole long prefill without chunked prefill, where v1 does not', () => {
    const v0 = longPrefillArrives({ engine: 'vllm-v0' });
    const v1 = longPrefillArrives({ engine: 'vllm-v1' });
    // v0: the prefill step carries no decode, so a decode waits for all of it (and then its own step).
    assert.ok(v0.maxGapMs >= v0.prefillStepMs, `v0 gap ${v0.maxGapMs} vs prefill step ${v0.prefillStepMs}`);
    // v1: the prompt is chunked by max_num_batched_tokens and every chunk's step carries the decodes.
    assert.ok(v1.maxGapMs < v0.prefillStepMs, `v1 gap ${v1.maxGapMs} vs v0 prefill step ${v0.prefillStepMs}`);
    // v0 with chunked prefill behaves like v1 here.
    const v0c = longPrefillArrives({
      engine: 'vllm-v0',
      enableChunkedPrefill: true,
      maxNumBatchedTokens: 8192,
    });
    assert.ok(v0c.maxGapMs < v0.prefillStepMs, `v0 chunked gap ${v0c.maxGapMs}`);
  });

  it('a v0 step is either prefill or decode', () => {
    const e = createEngine(resolveEngineConfig({ ...SMALL, engine: 'vllm-v0' }));
    e.add({ id: 'a', promptTokens: ids(100, 1), maxTokens: 30, eosLen: 999, arrivalMs: 0 }, 0);
    const first = drain(e, 0, 3);
    const t = first.at(-1)!.endMs;
    e.add({ id: 'b', promptTokens: ids(100, 2), maxTokens: 30, eosLen: 999, arrivalMs: t }, t);
    const s = e.step(t);
    assert.deepEqual(s.scheduled, ['b']);
    assert.deepEqual(
      s.tokens.map((x) => x.reqId),
      ['b'],
      'the step that admits b decodes nothing for a',
    );
  });

  it('--num-scheduler-steps N releases decode tokens N at a time, at the same instant', () => {
    const cfg = resolveEngineConfig({ ...SMALL, engine: 'vllm-v0', numSchedulerSteps: 4 });
    const { records } = simulateDetailed(cfg, makeRequests(3, 200, 17), { kind: 'closed', concurrency: 3 });
    for (const r of records) {
      const bursts: number[] = [];
      let prev = Number.NaN;
      for (const t of r.chunk_times_ms) {
        if (t === prev) bursts[bursts.length - 1]++;
        else bursts.push(1);
        prev = t;
      }
      // The prefill's token, then four groups of four decodes.
      assert.deepEqual(bursts, [1, 4, 4, 4, 4], `request ${r.id}`);
    }
    // One step is one engine schedule: its stamps are shared by the group's tokens.
    const e = createEngine(cfg);
    e.add({ id: 'x', promptTokens: ids(50, 3), maxTokens: 9, eosLen: 999, arrivalMs: 0 }, 0);
    const steps = drain(e);
    assert.deepEqual(
      steps.map((s) => s.tokens.map((t) => t.index)),
      [[0], [1, 2, 3, 4], [5, 6, 7, 8]],
    );
    assert.equal(steps.at(-1)!.finished[0].reqId, 'x');
  });

  it('refuses a token budget below max_model_len without chunked prefill, as v0 does', () => {
    assert.throws(
      () =>
        resolveEngineConfig({ ...SMALL, engine: 'vllm-v0', maxNumBatchedTokens: 4096, maxModelLen: 8192 }),
      /smaller than max_model_len 8192/,
    );
    assert.equal(
      resolveEngineConfig({ ...SMALL, engine: 'vllm-v0', maxModelLen: 8192 }).maxNumBatchedTokens,
      8192,
    );
  });
});

describe('SGLang scheduling', () => {
  /** Cache prompt `p`, then queue `others` at once; returns the order they are admitted in. */
  function admissionOrder(policy: 'fcfs' | 'lpm'): string[] {
    const e = createEngine(
      resolveEngineConfig({
        ...SMALL,
        engine: 'sglang',
        schedulePolicy: policy,
        maxNumSeqs: 1,
        maxNumBatchedTokens: 1,
      }),
    );
    const p = ids(400, 7);
    e.add({ id: 'warm', promptTokens: p, maxTokens: 2, eosLen: 999, arrivalMs: 0 }, 0);
    const t = drain(e).at(-1)!.endMs;
    const q = [
      { id: 'none', tokens: ids(400, 8) },
      { id: 'half', tokens: [...p.slice(0, 200), ...ids(200, 9)] },
      { id: 'most', tokens: [...p.slice(0, 390), ...ids(10, 10)] },
    ];
    for (const x of q)
      e.add({ id: x.id, promptTokens: x.tokens, maxTokens: 2, eosLen: 999, arrivalMs: t }, t);
    return drain(e, t).flatMap((s) => s.scheduled);
  }

  it('lpm admits the waiting request with the longest cached prefix first; fcfs keeps arrival order', () => {
    assert.deepEqual(admissionOrder('fcfs'), ['none', 'half', 'most']);
    assert.deepEqual(admissionOrder('lpm'), ['most', 'half', 'none']);
  });

  it('prefills alone and chunks long prompts by --chunked-prefill-size', () => {
    const e = createEngine(resolveEngineConfig({ ...SMALL, engine: 'sglang', chunkedPrefillSize: 1000 }));
    e.add({ id: 'd', promptTokens: ids(50, 1), maxTokens: 40, eosLen: 999, arrivalMs: 0 }, 0);
    const t = drain(e, 0, 3).at(-1)!.endMs;
    e.add({ id: 'p', promptTokens: ids(3500, 2), maxTokens: 2, eosLen: 999, arrivalMs: t }, t);
    const steps = drain(e, t, t + 1e9).slice(0, 4);
    // Four prefill steps (1000, 1000, 1000, 500 tokens) with no decode of d in them.
    assert.deepEqual(
      steps.map((s) => [s.numBatchedTokens, s.tokens.map((x) => x.reqId).join()]),
      [
        [1000, ''],
        [1000, ''],
        [1000, ''],
        [500, 'p'],
      ],
    );
  });

  it('counts radix hits to the token, not to the block', () => {
    const e = createEngine(resolveEngineConfig({ ...SMALL, engine: 'sglang' }));
    const p = ids(333, 5);
    e.add({ id: 'a', promptTokens: p, maxTokens: 1, eosLen: 999, arrivalMs: 0 }, 0);
    const t = drain(e).at(-1)!.endMs;
    e.add(
      { id: 'b', promptTokens: [...p.slice(0, 301), ...ids(20, 6)], maxTokens: 1, eosLen: 999, arrivalMs: t },
      t,
    );
    drain(e, t);
    assert.equal(e.times('b')!.cachedTokens, 301);
  });
});

/** A request of the given token ids, for driving the radix cache directly. */
function req(id: string, tokens: number[]): EngineReq {
  return new EngineReq({ id, promptTokens: tokens, maxTokens: 1, eosLen: 1, arrivalMs: 0 }, 1_000_000);
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

/** Compute all of `r`'s prompt in the cache (allocate, prefill, insert), then release it. */
function cacheAndRelease(c: RadixCache, r: EngineReq): void {
  const hit = c.lookup(r);
  assert.ok(c.allocate(r, r.numTokens - hit, hit), `allocate ${r.id}`);
  r.numComputed = r.numTokens;
  c.cacheFull(r);
  c.freeReq(r);
}

describe('radix cache', () => {
  const cases: {
    name: string;
    /** Cached in this order (the last is the most recently used). */
    cached: [string, number[]][];
    /** Looked up after caching (refreshing their access time). */
    touch?: string[];
    /** Held by a running request during the allocation. */
    lock?: string;
    /** Tokens a new request then allocates. */
    allocate: number;
    survivors: string[];
  }[] = [
    {
      name: 'evicts the least recently cached leaf first',
      cached: [
        ['a', range(0, 30)],
        ['b', range(100, 30)],
        ['c', range(200, 30)],
      ],
      allocate: 30,
      survivors: ['b', 'c'],
    },
    {
      name: 'a lookup refreshes a leaf, so the next oldest goes',
      cached: [
        ['a', range(0, 30)],
        ['b', range(100, 30)],
        ['c', range(200, 30)],
      ],
      touch: ['a'],
      allocate: 30,
      survivors: ['a', 'c'],
    },
    {
      name: 'evicts as many leaves as the allocation needs',
      cached: [
        ['a', range(0, 30)],
        ['b', range(100, 30)],
        ['c', range(200, 30)],
      ],
      allocate: 55,
      survivors: ['c'],
    },
    {
      name: 'never evicts what a running request holds',
      cached: [
        ['a', range(0, 30)],
        ['b', range(100, 30)],
        ['c', range(200, 30)],
      ],
      lock: 'a',
      allocate: 30,
      survivors: ['a', 'c'],
    },
    {
      name: 'a shared prefix outlives its branches: leaves go before their parent',
      cached: [
        ['x', [...range(0, 20), ...range(500, 10)]],
        ['y', [...range(0, 20), ...range(600, 10)]],
        ['z', range(300, 30)],
      ],
      // 70 tokens cached (the prefix once): 45 more evict both branches, not the prefix they share.
      allocate: 45,
      survivors: ['z', 'prefix'],
    },
  ];

  for (const c of cases)
    it(c.name, () => {
      // 100 tokens: three 30-token prompts fill 90 of them.
      const cache = new RadixCache(100);
      const reqs = new Map(c.cached.map(([id, t]) => [id, req(id, t)]));
      for (const r of reqs.values()) cacheAndRelease(cache, r);
      for (const id of c.touch ?? [])
        cache.lookup(req(`${id}'`, [...((reqs.get(id) as EngineReq).prompt as number[]), 1]));
      if (c.lock) {
        const holder = req('holder', [...((reqs.get(c.lock) as EngineReq).prompt as number[]), 7]);
        const hit = cache.lookup(holder);
        assert.ok(cache.allocate(holder, 1, hit));
      }
      const fresh = req('fresh', range(10_000, c.allocate));
      assert.ok(cache.allocate(fresh, c.allocate, 0), 'the allocation fits after eviction');
      const alive = (tokens: number[]) =>
        cache.lookup(req('probe', [...tokens, 9_999_999])) === tokens.length;
      const expected = new Set(c.survivors);
      for (const [id, tokens] of c.cached)
        assert.equal(alive(tokens), expected.has(id), `${id} ${expected.has(id) ? 'kept' : 'evicted'}`);
      if (expected.has('prefix')) assert.ok(alive(range(0, 20)), 'the shared prefix is kept');
    });

  it('matches any prefix length, splitting a node, and leaves the last token to compute', () => {
    const cache = new RadixCache(1000);
    cacheAndRelease(cache, req('a', range(0, 50)));
    assert.equal(cache.lookup(req('b', [...range(0, 17), 999])), 17);
    // The whole prompt cached: the hit stops one short (the last token is recomputed).
    assert.equal(cache.lookup(req('c', range(0, 50))), 49);
    // Usage counts cached-but-unlocked tokens as free, as SGLang's token_usage does.
    assert.equal(cache.usage(), 0);
    assert.equal(cache.cachedTokens, 50);
    assert.equal(cache.reset(), true);
    assert.equal(cache.lookup(req('d', [...range(0, 17), 999])), 0);
  });

  it('frees the duplicate tokens of a prompt another request cached first', () => {
    const cache = new RadixCache(100);
    const a = req('a', range(0, 40));
    const b = req('b', range(0, 40));
    for (const r of [a, b]) assert.ok(cache.allocate(r, 40, 0));
    assert.equal(cache.numFree, 20);
    for (const r of [a, b]) {
      r.numComputed = 40;
      cache.cacheFull(r);
    }
    // Both hold the same 40 tokens in the tree once; b's copy was freed.
    assert.equal(cache.numFree, 60);
    cache.freeReq(a);
    cache.freeReq(b);
    assert.equal(cache.numFree, 100);
    assert.equal(cache.cachedTokens, 40);
  });
});

describe('the profile settings, in the one schema', () => {
  const file = (sim: string) =>
    `kind: baseline\nname: x\ntargets:\n  a:\n    sim: {model: qwen3-0.6b, gpu: h100, ${sim}}\n`;

  it("an experiment file's sim: section picks the engine and its knobs", () => {
    const spec = parseExperiment(
      file('engine: sglang, schedule_policy: lpm, chunked_prefill_size: 4096'),
      's.yaml',
    );
    const sim = spec.targets.a.sim;
    assert.ok(sim);
    const { engine } = resolveServerOptions(simServerOptions(sim));
    const cfg = resolveEngineConfig(engine);
    assert.deepEqual(
      [cfg.profile.engine, cfg.profile.schedulePolicy, cfg.profile.chunkedPrefillSize],
      ['sglang', 'lpm', 4096],
    );
  });

  it("refuses one engine's knob under another, in a file as on the command line", () => {
    try {
      parseExperiment(file('num_scheduler_steps: 4'), 's.yaml');
      assert.fail('expected a UsageError');
    } catch (e) {
      assert.ok(e instanceof UsageError);
      assert.equal(e.problems[0].path, 's.yaml: targets.a.sim.num_scheduler_steps');
      assert.match(e.problems[0].message, /multi-step scheduling is vLLM v0's; `engine` is vllm-v1/);
    }
    assert.throws(
      () => resolveEngineConfig({ ...SMALL, engine: 'vllm-v0', schedulePolicy: 'lpm' }),
      /the lpm schedule policy is SGLang's; --engine is vllm-v0/,
    );
  });

  it('leaves the default profile as the simulator always was: vLLM v1', () => {
    const cfg = resolveEngineConfig(SMALL);
    assert.deepEqual(cfg.profile, {
      engine: 'vllm-v1',
      enableChunkedPrefill: true,
      numSchedulerSteps: 1,
      schedulePolicy: 'fcfs',
      chunkedPrefillSize: 8192,
      llamacpp: null,
    });
    assert.equal(cfg.maxNumBatchedTokens, 8192);
  });
});
