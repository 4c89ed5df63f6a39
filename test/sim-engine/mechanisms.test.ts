/**
 * The mechanisms the simulated engine must reproduce (continuous batching, prefix caching, KV
 * exhaustion and preemption, the planner, parallelism and precision), asserted on virtual times
 * and engine counters, through `createEngine` and `simulate`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { searchMaxLevel } from '../../src/analysis/capacity.js';
import { describe as describeStats } from '../../src/analysis/stats.js';
import { Rng } from '../../src/runtime/rng.js';
import { simulate, simulateDetailed } from '../../src/sim/batch-driver.js';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import { createEngine } from '../../src/sim/engine/engine.js';
import type { SimEngine, StepResult } from '../../src/sim/engine/types.js';
import { FRONTEND_OVERHEAD_MS } from '../../src/sim/frontend.js';
import type { EngineOptions } from '../../src/sim/settings.js';
import { makeRequests, mean, tpotMs, ttftMs } from './helpers.js';

const SMALL: EngineOptions = { model: 'qwen3-0.6b', gpu: 'h100' };

function ids(n: number, seed: number): number[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => rng.int(0, 150_000));
}

/** Step the engine until idle; returns every step result. */
function drain(e: SimEngine, t0 = 0): { steps: StepResult[]; endMs: number } {
  const steps: StepResult[] = [];
  let t = t0;
  while (e.hasWork()) {
    const s = e.step(t);
    steps.push(s);
    t = s.endMs;
  }
  return { steps, endMs: t };
}

describe('continuous batching', () => {
  it('stamps the tokens of all running requests in one step with the same step', () => {
    const e = createEngine(resolveEngineConfig(SMALL));
    for (let i = 0; i < 4; i++)
      e.add(
        { id: `r${i}`, promptTokens: ids(100 + i * 50, i), maxTokens: 20 + i, eosLen: 999, arrivalMs: 0 },
        0,
      );
    const { steps } = drain(e);
    // All four prefills fit in one step, so every step emits one token per live request at its end.
    assert.equal(steps[0].tokens.length, 4);
    const times = [0, 1, 2, 3].map((i) => e.times(`r${i}`)!);
    for (let k = 0; k < 20; k++) {
      const stamps = new Set(times.map((t) => t.tokenSteps[k]));
      assert.equal(stamps.size, 1, `token ${k} has stamps ${[...stamps]}`);
    }
    for (const s of steps)
      for (const tok of s.tokens) assert.equal(e.times(tok.reqId)!.tokenSteps[tok.index], s.step);
    assert.deepEqual(
      steps.map((s) => s.step),
      steps.map((_, i) => i + 1),
    );
    assert.equal(times[3].tokenSteps.length, 23);
    assert.equal(steps.at(-1)!.finished[0].reason, 'length');
  });

  it('splits a long prompt into chunks of max_num_batched_tokens and samples on the last one', () => {
    const e = createEngine(resolveEngineConfig({ ...SMALL, maxNumBatchedTokens: 2048, maxNumSeqs: 64 }));
    e.add({ id: 'long', promptTokens: ids(10_000, 7), maxTokens: 3, eosLen: 3, arrivalMs: 0 }, 0);
    const { steps } = drain(e);
    assert.deepEqual(
      steps.slice(0, 5).map((s) => s.numBatchedTokens),
      [2048, 2048, 2048, 2048, 1808],
    );
    assert.deepEqual(e.times('long')!.tokenSteps, [5, 6, 7]);
    assert.equal(steps[4].tokens.length, 1);
    assert.equal(steps[3].tokens.length, 0);
  });

  it('never runs more than max_num_seqs requests at once', () => {
    const e = createEngine(resolveEngineConfig({ ...SMALL, maxNumSeqs: 3, maxNumBatchedTokens: 4096 }));
    for (let i = 0; i < 10; i++)
      e.add({ id: `r${i}`, promptTokens: ids(64, i), maxTokens: 8, eosLen: 8, arrivalMs: 0 }, 0);
    let t = 0;
    let peak = 0;
    while (e.hasWork()) {
      t = e.step(t).endMs;
      peak = Math.max(peak, e.stats().running);
    }
    assert.equal(peak, 3);
    assert.equal(e.stats().generationTokens, 80);
  });

  it('raises TPOT with concurrency when prefills interleave with decodes', () => {
    const cfg = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100' });
    const tpotAt = (c: number) =>
      mean(simulate(cfg, makeRequests(4 * c, 2048, 128), { kind: 'closed', concurrency: c }).map(tpotMs));
    const t1 = tpotAt(1);
    const t16 = tpotAt(16);
    const t64 = tpotAt(64);
    assert.ok(t16 > t1 * 1.5, `c=1 ${t1} c=16 ${t16}`);
    assert.ok(t64 > t16, `c=16 ${t16} c=64 ${t64}`);
  });
});

describe('prefix caching', () => {
  it('a prefix hit lowers TTFT and shows in the counters and cached_tokens', () => {
    const cfg = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'a100-80gb' });
    const shared = ids(2000, 3);
    const reqs = makeRequests(2, 2100, 16, { prefix: shared });
    const res = simulateDetailed(cfg, reqs, { kind: 'closed', concurrency: 1 });
    const [cold, warm] = res.records;
    assert.equal(res.server[0].cached_tokens, 0);
    // 2000 shared tokens = 125 full blocks of 16.
    assert.equal(res.server[1].cached_tokens, 2000);
    assert.equal(warm.usage!.cached_tokens, 2000);
    assert.equal(res.stats.prefixHits, 2000);
    assert.equal(res.stats.prefixQueries, 4200);
    assert.ok(ttftMs(warm) < ttftMs(cold) * 0.5, `cold ${ttftMs(cold)} warm ${ttftMs(warm)}`);
  });

  it('caps a full hit at num_tokens − 1 so the last token is recomputed', () => {
    const cfg = resolveEngineConfig(SMALL);
    const res = simulateDetailed(cfg, makeRequests(2, 64, 4, { samePrompt: true }), {
      kind: 'closed',
      concurrency: 1,
    });
    assert.equal(res.server[1].cached_tokens, 48);
  });

  it('resetPrefixCache makes the next request cold again, and refuses while blocks are in use', () => {
    const e = createEngine(resolveEngineConfig(SMALL));
    const prompt = ids(1000, 5);
    const run = (id: string, t0: number) => {
      e.add({ id, promptTokens: prompt, maxTokens: 2, eosLen: 2, arrivalMs: t0 }, t0);
      return drain(e, t0).endMs;
    };
    let t = run('a', 0);
    t = run('b', t);
    assert.equal(e.times('b')!.cachedTokens, 992);
    e.add({ id: 'busy', promptTokens: ids(40, 9), maxTokens: 50, eosLen: 50, arrivalMs: t }, t);
    t = e.step(t).endMs;
    assert.equal(e.resetPrefixCache(), false);
    t = drain(e, t).endMs;
    assert.equal(e.resetPrefixCache(), true);
    const before = e.stats().prefixHits;
    run('c', t);
    assert.equal(e.times('c')!.cachedTokens, 0);
    assert.equal(e.stats().prefixHits, before);
    const prefill = (id: string) => e.times(id)!.firstTokenMs! - e.times(id)!.firstScheduledMs!;
    assert.ok(prefill('c') > prefill('b'));
    assert.ok(Math.abs(prefill('c') - prefill('a')) < 1e-9);
  });
});

describe('KV exhaustion', () => {
  it('preempts the newest running request when blocks run out, and every request still completes', () => {
    // 0.23 × 79.6 GiB leaves ~0.7 GiB of KV (~6k tokens) after weights and activations.
    const cfg = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100', gpuMemoryUtilization: 0.23 });
    assert.ok(cfg.memory.kvCapacityTokens < 10_000, `${cfg.memory.kvCapacityTokens}`);
    const reqs = makeRequests(32, 512, 256);
    const res = simulateDetailed(cfg, reqs, { kind: 'closed', concurrency: 32 });
    assert.ok(res.stats.preemptions > 0);
    assert.equal(
      res.server.reduce((s, x) => s + x.preemptions, 0),
      res.stats.preemptions,
    );
    for (const r of res.records) {
      // Every request reaches the 256 tokens it asked for, preempted or not.
      assert.equal(r.outcome, 'ok');
      assert.equal(r.finish_reason, 'length');
      assert.equal(r.usage!.completion_tokens, 256);
      assert.equal(r.chunk_times_ms.length, 256);
    }
    assert.equal(res.stats.kvUsage, 0);
    // A preempted request's decode (or prefill) time absorbs the stall.
    const preempted = res.server.filter((s) => s.preemptions > 0);
    const clean = res.server.filter((s) => s.preemptions === 0);
    assert.ok(
      mean(preempted.map((s) => s.decode_ms + s.prefill_ms)) >
        mean(clean.map((s) => s.decode_ms + s.prefill_ms)),
    );
  });

  it('a resumed request hits its own freed blocks in the prefix cache', () => {
    // 40 blocks of 16: both prompts fit (19 blocks each) but not both decodes, so `new` is
    // preempted; `old` then takes only 3 of its freed blocks before finishing.
    const e = createEngine(resolveEngineConfig({ ...SMALL, numGpuBlocksOverride: 40 }));
    e.add({ id: 'old', promptTokens: ids(300, 1), maxTokens: 60, eosLen: 60, arrivalMs: 0 }, 0);
    e.add({ id: 'new', promptTokens: ids(300, 2), maxTokens: 200, eosLen: 200, arrivalMs: 0 }, 0);
    let t = 0;
    let preempted: string | undefined;
    while (e.hasWork() && !preempted) {
      const s = e.step(t);
      t = s.endMs;
      preempted = s.preempted[0];
    }
    assert.equal(preempted, 'new');
    const hitsBefore = e.stats().prefixHits;
    drain(e, t);
    // Its first 17 blocks survived (the blocks evicted first are its last ones).
    assert.equal(e.stats().prefixHits - hitsBefore, 17 * 16);
    assert.equal(e.times('new')!.tokenSteps.length, 200);
    assert.equal(e.times('new')!.preemptions, 1);
    assert.equal(e.stats().kvUsage, 0);
  });

  it('returns KV usage to 0 after clients disconnect', () => {
    const e = createEngine(resolveEngineConfig(SMALL));
    for (let i = 0; i < 8; i++)
      e.add({ id: `r${i}`, promptTokens: ids(600, i), maxTokens: 500, eosLen: 500, arrivalMs: 0 }, 0);
    let t = 0;
    for (let k = 0; k < 5; k++) t = e.step(t).endMs;
    const mid = e.stats();
    assert.ok(mid.kvUsage > 0 && mid.running === 8);
    assert.ok(mid.gpuMemoryUsedGiB > 0 && mid.gpuMemoryUsedGiB < mid.gpuMemoryTotalGiB);
    for (let i = 0; i < 8; i++) e.abort(`r${i}`, t);
    const after = e.stats();
    assert.equal(after.kvUsage, 0);
    assert.equal(after.running + after.waiting, 0);
    assert.equal(e.hasWork(), false);
  });
});

describe('planner', () => {
  const cfg = resolveEngineConfig({ model: 'qwen3-8b', gpu: 'l40s' });

  it('gives identical records for identical inputs', () => {
    const rng = new Rng(11);
    let at = 0;
    const arrivalsMs = Array.from({ length: 60 }, () => (at += rng.exponential(80)));
    const reqs = () => makeRequests(60, 300, 200, { seed: 4, eosLen: 120 });
    const a = simulateDetailed(cfg, reqs(), { kind: 'open', arrivalsMs });
    const b = simulateDetailed(cfg, reqs(), { kind: 'open', arrivalsMs });
    assert.equal(JSON.stringify(a), JSON.stringify(b));
  });

  it('hands a burst to the engine one request after another (the API server input path)', () => {
    const recs = simulate(cfg, makeRequests(4, 200, 16, { eosLen: 16 }), {
      kind: 'open',
      arrivalsMs: [0, 0, 0, 0],
    });
    assert.deepEqual(
      recs.map((r) => r.headers_at_ms),
      [1, 2, 3, 4].map((k) => k * FRONTEND_OVERHEAD_MS),
    );
    // Each reached the engine after the one before, so none gets its first token earlier.
    for (let i = 1; i < 4; i++)
      assert.ok((recs[i].first_token_at_ms ?? 0) >= (recs[i - 1].first_token_at_ms ?? 0));
  });

  it('fills complete records in virtual ms', () => {
    const [r] = simulate(cfg, makeRequests(1, 200, 64, { eosLen: 40 }), { kind: 'closed', concurrency: 1 });
    assert.equal(r.planned_at_ms, 0);
    assert.equal(r.sent_at_ms, 0);
    assert.equal(r.headers_at_ms, FRONTEND_OVERHEAD_MS);
    assert.equal(r.outcome, 'ok');
    assert.equal(r.finish_reason, 'stop');
    assert.equal(r.done, true);
    assert.deepEqual(r.usage, {
      prompt_tokens: 200,
      completion_tokens: 40,
      total_tokens: 240,
      cached_tokens: 0,
    });
    assert.equal(r.chunk_times_ms.length, 40);
    assert.deepEqual(new Set(r.chunk_kinds), new Set(['c']));
    assert.equal(r.first_token_at_ms, r.chunk_times_ms[0]);
    assert.equal(r.end_at_ms, r.chunk_times_ms[39]);
    for (let i = 1; i < 40; i++) assert.ok(r.chunk_times_ms[i] > r.chunk_times_ms[i - 1]);
  });

  it('closed loop starts each next request when one finishes', () => {
    const recs = simulate(cfg, makeRequests(6, 100, 20), { kind: 'closed', concurrency: 2 });
    assert.deepEqual(
      recs.slice(0, 2).map((r) => r.planned_at_ms),
      [0, 0],
    );
    const ends = recs.map((r) => r.end_at_ms!).sort((x, y) => x - y);
    for (const r of recs.slice(2)) assert.ok(ends.includes(r.planned_at_ms!), `${r.planned_at_ms}`);
  });

  it('open loop with maxConcurrency holds requests back without sliding their planned time', () => {
    const arrivalsMs = Array.from({ length: 10 }, () => 0);
    const res = simulateDetailed(cfg, makeRequests(10, 100, 30), {
      kind: 'open',
      arrivalsMs,
      maxConcurrency: 3,
    });
    for (const r of res.records) assert.equal(r.planned_at_ms, 0);
    const late = res.records.filter((r) => r.sent_at_ms! > 0);
    assert.equal(late.length, 7);
    // At any send time, at most 3 requests are in flight.
    for (const r of res.records) {
      const t = r.sent_at_ms!;
      const inflight = res.records.filter((o) => o.sent_at_ms! <= t && o.end_at_ms! > t).length;
      assert.ok(inflight <= 3, `inflight ${inflight} at ${t}`);
    }
  });

  it('makes the first requests slow with coldStartMs', () => {
    const warm = simulate(cfg, makeRequests(4, 100, 10), { kind: 'closed', concurrency: 1 });
    const cold = simulate(
      resolveEngineConfig({ model: 'qwen3-8b', gpu: 'l40s', coldStartMs: 2000 }),
      makeRequests(4, 100, 10),
      {
        kind: 'closed',
        concurrency: 1,
      },
    );
    assert.ok(Math.abs(ttftMs(cold[0]) - ttftMs(warm[0]) - 2000) < 1e-6);
    assert.ok(Math.abs(ttftMs(cold[3]) - ttftMs(warm[3])) < 1e-6);
  });
});

describe('parallelism and precision', () => {
  const decode = (o: EngineOptions, c = 1) =>
    mean(
      simulate(resolveEngineConfig(o), makeRequests(2 * c, 256, 128), { kind: 'closed', concurrency: c }).map(
        tpotMs,
      ),
    );

  it('tensor parallel over PCIe is slower than one GPU for a small model', () => {
    const one = decode({ model: 'qwen3-0.6b', gpu: 'l40s', tp: 1 });
    const two = decode({ model: 'qwen3-0.6b', gpu: 'l40s', tp: 2 });
    assert.ok(two > one, `tp1 ${one} tp2 ${two}`);
  });

  it('tensor parallel over NVLink speeds up a bandwidth-bound 8B decode', () => {
    const one = decode({ model: 'llama-3.1-8b', gpu: 'h100', tp: 1 });
    const two = decode({ model: 'llama-3.1-8b', gpu: 'h100', tp: 2 });
    assert.ok(two < one * 0.85, `tp1 ${one} tp2 ${two}`);
  });

  it('int4 is faster than bf16 at batch 1 and slower at a large batch', () => {
    const base = { model: 'llama-3.1-8b', gpu: 'a100-80gb' } as const;
    assert.ok(decode({ ...base, dtype: 'int4' }) < decode({ ...base, dtype: 'bf16' }) * 0.6);
    const span = (dtype: 'bf16' | 'int4') => {
      const res = simulateDetailed(resolveEngineConfig({ ...base, dtype }), makeRequests(256, 1024, 32), {
        kind: 'closed',
        concurrency: 128,
      });
      return res.durationMs;
    };
    const bf16 = span('bf16');
    const int4 = span('int4');
    assert.ok(int4 > bf16, `bf16 ${bf16} int4 ${int4}`);
  });

  it('fp8 KV doubles the KV capacity', () => {
    const auto = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100' }).memory;
    const fp8 = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100', kvCacheDtype: 'fp8' }).memory;
    assert.ok(Math.abs(fp8.numGpuBlocks - 2 * auto.numGpuBlocks) <= 1);
  });
});

describe('searchMaxLevel over concurrency (the capacity search plan runs, over engine runs)', () => {
  const cfg = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100' });
  const make = (c: number) => makeRequests(3 * c, 1024, 64);
  const p90 = (xs: number[]) => describeStats(xs).p90 as number;
  const meets = (c: number) =>
    p90(simulateDetailed(cfg, make(c), { kind: 'closed', concurrency: c }).records.map(ttftMs)) <= 300;

  it('finds the largest concurrency that meets a TTFT SLO, and the next one fails it', async () => {
    const found = await searchMaxLevel(async (c) => ({ ok: meets(c), attainment: null }), { max: 256 });
    assert.ok(found.level > 1 && found.level < 256, `${found.level}`);
    assert.ok(meets(found.level));
    assert.equal(meets(found.level + 1), false);
    assert.ok(found.probes.length < 20);
  });

  it('returns 0 when even one user misses the SLO', async () => {
    const found = await searchMaxLevel(async () => ({ ok: false, attainment: 0 }), { max: 256 });
    assert.equal(found.level, 0);
    assert.deepEqual(found.probes, [{ level: 1, ok: false, attainment: 0 }]);
  });
});
