/**
 * Speculative decoding in the engine (`sim/engine/speculative`): the acceptance arithmetic, the
 * ngram statistics of a prompt, and, on the engine core itself, that every request still ends
 * with exactly its tokens, drafts roll back (no KV is left held), and the counters hold vLLM's
 * relations (accepted ≤ drafted; per-position counts fall with the position).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import { EngineCore } from '../../src/sim/engine/engine.js';
import {
  conditionalFromPerPosition,
  expectedRate,
  iidFromRate,
  NGRAM_SYNTHETIC_ACCEPTANCE,
  NGRAM_SYNTHETIC_MEAN_ACCEPTED,
  ngramPromptStats,
} from '../../src/sim/engine/speculative.js';
import '../helpers/node-warnings.js';

describe('speculative decoding: acceptance arithmetic', () => {
  it('solves the i.i.d. per-position rate for a draft acceptance rate, and back', () => {
    for (const [rate, k] of [
      [0.7, 3],
      [0.3, 5],
      [0.95, 1],
    ] as const) {
      const a = iidFromRate(rate, k);
      assert.equal(a.length, k);
      assert.ok(Math.abs(expectedRate(a[0], k) - rate) < 1e-9, `${rate} at k=${k}`);
    }
    // k = 1: the per-position rate is the acceptance rate itself.
    assert.ok(Math.abs(iidFromRate(0.6, 1)[0] - 0.6) < 1e-9);
  });

  it("turns vLLM's per-position rates into conditional ones", () => {
    const c = conditionalFromPerPosition([0.8, 0.4, 0.2], 4);
    assert.deepEqual(
      c.map((x) => Number(x.toFixed(6))),
      [0.8, 0.5, 0.5, 0.5],
    );
  });

  it('finds ngram matches in a prompt that repeats itself, and none in one that does not', () => {
    const phrase = [11, 12, 13, 14, 15, 16, 17, 18];
    const repeated = Array.from({ length: 200 }, (_, i) => phrase[i % phrase.length]);
    const rep = ngramPromptStats(repeated, 5, 5);
    assert.ok(rep.matchRate > 0.9, `repeating prompt: match rate ${rep.matchRate}`);
    assert.equal(rep.hitRate, 1);
    const distinct = Array.from({ length: 200 }, (_, i) => 1000 + i);
    const none = ngramPromptStats(distinct, 5, 5);
    assert.equal(none.matchRate, 0);
    assert.equal(none.hitRate, 0);
  });
});

/**
 * Run every request to the end on a bare engine core; returns the core. `synthetic`: the prompts
 * are declared synthetic words first (what `measureOn` does for the in-process simulator).
 */
function runAll(spec: unknown, n = 24, outLen = 200, synthetic = false): EngineCore {
  const cfg = resolveEngineConfig({
    model: 'llama-3.1-8b',
    gpu: 'h100',
    speculativeConfig: spec as never,
  });
  const core = new EngineCore(cfg);
  if (synthetic) core.spec?.assumeSyntheticPrompts();
  for (let i = 0; i < n; i++)
    core.add({
      id: `r${i}`,
      promptTokens: Array.from({ length: 64 + i }, (_, j) => (j * 7919 + i) % 30000),
      maxTokens: outLen,
      eosLen: outLen,
      arrivalMs: 0,
    });
  let now = 0;
  let guard = 0;
  while (core.hasWork() && guard++ < 100_000) now = core.stepRaw(now).endMs;
  return core;
}

describe('speculative decoding: the engine', () => {
  it("emits exactly each request's tokens, rolls the drafts back and frees all KV", () => {
    const core = runAll({ method: 'eagle', num_speculative_tokens: 4, acceptance_rate: 0.6 });
    const s = core.stats();
    assert.equal(s.generationTokens, 24 * 200, 'every request got exactly its 200 tokens');
    assert.equal(s.kvUsage, 0, 'no KV held after the last request finished');
    for (let i = 0; i < 24; i++) {
      const r = core.get(`r${i}`);
      assert.equal(r?.numOutput, 200);
      assert.equal(r?.status, 'finished');
    }
    const spec = s.spec;
    assert.ok(spec, 'counters present with --speculative-config');
    assert.ok(spec.drafts > 0 && spec.draftTokens > 0);
    assert.ok(spec.acceptedTokens <= spec.draftTokens);
    for (let i = 1; i < spec.acceptedPerPos.length; i++)
      assert.ok(
        spec.acceptedPerPos[i] <= spec.acceptedPerPos[i - 1],
        'a position is reached only through the earlier ones',
      );
    // Tokens per verify step: fewer steps than tokens.
    assert.ok(s.steps < 200 * 0.8, `${s.steps} steps for 200 tokens per request`);
    const rate = spec.acceptedTokens / spec.draftTokens;
    assert.ok(Math.abs(rate - 0.6) < 0.05, `acceptance ${rate}`);
  });

  it('takes fewer steps than plain decoding, and the same tokens', () => {
    const plain = runAll(undefined).stats();
    const spec = runAll({ method: 'mtp', num_speculative_tokens: 1 }).stats();
    assert.equal(spec.generationTokens, plain.generationTokens);
    assert.ok(spec.steps < plain.steps, `${spec.steps} < ${plain.steps}`);
    assert.equal(plain.spec, undefined, 'no counters without --speculative-config');
  });

  it('ngram measures a prompt that never repeats (nothing drafted), and drafts at the published prior on synthetic prompts', () => {
    const ngram = { method: 'ngram', num_speculative_tokens: 4 };
    const measured = runAll(ngram).stats();
    assert.equal(measured.spec?.draftTokens, 0, 'no repeated 5-gram, no draft');
    const core = runAll(ngram, 24, 200, true);
    const s = core.stats();
    assert.equal(s.generationTokens, 24 * 200, 'the same tokens');
    const rate = (s.spec?.acceptedTokens ?? 0) / (s.spec?.draftTokens ?? 1);
    const want = expectedRate(NGRAM_SYNTHETIC_ACCEPTANCE, 4);
    assert.ok(Math.abs(rate - want) < 0.03, `acceptance ${rate} vs ${want}`);
    assert.ok(s.steps < measured.steps, `${s.steps} < ${measured.steps}`);
  });

  it("the prior reproduces Spec-Bench's 1.73 mean accepted tokens at PLD's 10 drafts, and is only ever ngram's", () => {
    const mat = 1 + 10 * expectedRate(NGRAM_SYNTHETIC_ACCEPTANCE, 10);
    assert.ok(Math.abs(mat - NGRAM_SYNTHETIC_MEAN_ACCEPTED) < 0.01, `${mat}`);
    const prior = (spec: unknown) =>
      new EngineCore(
        resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100', speculativeConfig: spec as never }),
      ).spec?.assumeSyntheticPrompts() ?? null;
    assert.equal(prior({ method: 'ngram', num_speculative_tokens: 4 })?.acceptance_per_position, 0.42);
    assert.equal(
      prior({ method: 'ngram', num_speculative_tokens: 4, acceptance_rate: 0.3 }),
      null,
      'a set rate wins',
    );
    assert.equal(prior({ method: 'eagle', num_speculative_tokens: 3 }), null);
    assert.equal(prior(undefined), null);
  });

  it('refuses speculation on another engine profile and an unknown draft model, with a hint', () => {
    assert.throws(
      () =>
        resolveEngineConfig({
          model: 'llama-3.1-8b',
          gpu: 'h100',
          engine: 'sglang',
          speculativeConfig: { method: 'eagle', num_speculative_tokens: 2 } as never,
        }),
      /vllm-v1 only/,
    );
    assert.throws(
      () =>
        resolveEngineConfig({
          model: 'llama-3.1-8b',
          gpu: 'h100',
          speculativeConfig: { method: 'draft_model', model: 'nope', num_speculative_tokens: 2 } as never,
        }),
      /unknown draft model "nope"/,
    );
  });
});
