/**
 * Scheduler and KV-cache invariants over random workloads (fast-check), under every engine
 * profile: budgets and limits are never exceeded, every request completes with exactly its
 * tokens, and all blocks come back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import { createEngine } from '../../src/sim/engine/engine.js';

const workload = fc.record({
  /** The engine profile, and v0's knobs (chunked prefill, multi-step). */
  engine: fc.constantFrom('vllm-v1', 'vllm-v0', 'sglang'),
  chunked: fc.boolean(),
  steps: fc.integer({ min: 1, max: 4 }),
  blocks: fc.integer({ min: 24, max: 200 }),
  maxNumSeqs: fc.integer({ min: 1, max: 16 }),
  budget: fc.integer({ min: 16, max: 600 }),
  prefixCaching: fc.boolean(),
  reqs: fc.array(
    fc.record({
      prompt: fc.integer({ min: 1, max: 300 }),
      shared: fc.integer({ min: 0, max: 3 }),
      out: fc.integer({ min: 1, max: 60 }),
      eos: fc.integer({ min: 1, max: 80 }),
      at: fc.integer({ min: 0, max: 200 }),
      abortAfterSteps: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 25 },
  ),
});

describe('engine invariants', () => {
  it('holds limits, finishes every request with its own tokens and frees every block', () => {
    fc.assert(
      fc.property(workload, (w) => {
        const budget = Math.max(w.budget, w.maxNumSeqs);
        // v0 without chunked prefill runs with its own budget (a whole prompt per step).
        const v0Whole = w.engine === 'vllm-v0' && !w.chunked;
        const cfg = resolveEngineConfig({
          model: 'qwen3-0.6b',
          gpu: 'l4',
          numGpuBlocksOverride: w.blocks,
          maxNumSeqs: w.maxNumSeqs,
          maxNumBatchedTokens: v0Whole ? undefined : budget,
          enablePrefixCaching: w.prefixCaching,
          engine: w.engine,
          ...(w.engine === 'vllm-v0' ? { enableChunkedPrefill: w.chunked, numSchedulerSteps: w.steps } : {}),
          ...(w.engine === 'sglang' ? { chunkedPrefillSize: budget } : {}),
        });
        // SGLang's budget bounds a prefill step; a decode step takes one token per running request.
        const stepCap = w.engine === 'sglang' ? Math.max(budget, w.maxNumSeqs) : cfg.maxNumBatchedTokens;
        const e = createEngine(cfg);
        // Prompts share one of four prefixes so that prefix hits and shared blocks happen.
        const prefixes = [0, 1, 2, 3].map((p) => Array.from({ length: 300 }, (_, i) => p * 1000 + i));
        const reqs = w.reqs
          .map((r, i) => ({ ...r, id: `r${i}` }))
          .map((r) => {
            const prompt = prefixes[r.shared].slice(0, r.prompt);
            const stop = Math.min(r.out, Math.max(1, r.eos), cfg.maxModelLen - prompt.length);
            return { ...r, promptTokens: prompt, stop };
          })
          .filter((r) => r.promptTokens.length < cfg.maxModelLen)
          .sort((a, b) => a.at - b.at);
        const produced = new Map<string, number>();
        const finished = new Map<string, string>();
        const aborted = new Set<string>();
        let t = 0;
        let next = 0;
        let steps = 0;
        while (next < reqs.length || e.hasWork()) {
          while (next < reqs.length && reqs[next].at <= t) {
            const r = reqs[next++];
            e.add(
              { id: r.id, promptTokens: r.promptTokens, maxTokens: r.out, eosLen: r.eos, arrivalMs: r.at },
              t,
            );
          }
          if (!e.hasWork()) {
            t = reqs[next].at;
            continue;
          }
          const s = e.step(t);
          steps++;
          assert.ok(s.numBatchedTokens > 0, 'progress');
          assert.ok(s.numBatchedTokens <= stepCap);
          assert.ok(s.endMs > s.startMs);
          const st = e.stats();
          assert.ok(st.running <= cfg.maxNumSeqs);
          assert.ok(st.kvUsage >= 0 && st.kvUsage <= 1);
          for (const tok of s.tokens) {
            assert.equal(tok.index, produced.get(tok.reqId) ?? 0, 'token indices are consecutive');
            produced.set(tok.reqId, tok.index + 1);
          }
          for (const f of s.finished) finished.set(f.reqId, f.reason);
          t = s.endMs;
          for (const r of reqs.slice(0, next)) {
            if (r.abortAfterSteps === steps && !finished.has(r.id)) {
              e.abort(r.id, t);
              aborted.add(r.id);
            }
          }
          assert.ok(steps < 100_000, 'terminates');
        }
        for (const r of reqs) {
          if (aborted.has(r.id)) continue;
          assert.equal(produced.get(r.id), r.stop, `${r.id} tokens`);
          assert.equal(
            finished.get(r.id),
            Math.max(1, r.eos) >= Math.min(r.out, cfg.maxModelLen - r.prompt) ? 'length' : 'stop',
          );
          assert.deepEqual(e.times(r.id)!.tokenSteps.length, r.stop);
        }
        const st = e.stats();
        assert.equal(st.kvUsage, 0);
        assert.equal(st.running + st.waiting, 0);
        assert.ok(st.prefixHits <= st.prefixQueries);
        if (!w.prefixCaching) assert.equal(st.prefixHits, 0);
      }),
      { numRuns: 150, seed: 42 },
    );
  });

  it('counts tokens', () => {
    const e = createEngine(resolveEngineConfig({ model: 'qwen3-0.6b', gpu: 'h100' }));
    e.add({ id: 'a', promptTokens: [1, 2, 3, 4, 5], maxTokens: 3, eosLen: 9, arrivalMs: 0 }, 0);
    let t = 0;
    while (e.hasWork()) t = e.step(t).endMs;
    e.add({ id: 'b', promptTokens: [1, 2, 3, 4, 5], maxTokens: 1, eosLen: 1, arrivalMs: t }, t);
    while (e.hasWork()) t = e.step(t).endMs;
    const st = e.stats();
    assert.equal(st.promptTokens, 10);
    assert.equal(st.generationTokens, 4);
  });
});
