/**
 * @module test/diagnose/engine-terms
 * The diagnosis speaks the run's engine: a table of the names each engine's advice uses, the
 * engine read from a run (scrape, experiment record, llama.cpp's `timings`), and the truncation
 * rule telling a context-window cut from a max_tokens one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { engineFamily, runEngine, termsOf } from '../../src/analysis/diagnose/engine-terms.js';
import { diagnose } from '../../src/analysis/diagnose/index.js';
import { validityReasons } from '../../src/analysis/validity.js';
import { CATALOGUES, LANGS, translator } from '../../src/i18n/index.js';
import { VLLM_ONLY_KNOBS as VLLM_ONLY } from '../helpers/llama-server.js';
import { handRecord, handRun } from './helpers.js';

const ENGINES = ['vllm', 'sglang', 'llamacpp'] as const;

describe('engine terms', () => {
  it('reads the engine family from every name servelab writes', () => {
    const table: [string | undefined, string][] = [
      ['vllm', 'vllm'],
      ['vllm-v0', 'vllm'],
      ['sim', 'vllm'],
      [undefined, 'vllm'],
      ['sglang', 'sglang'],
      ['SGLang', 'sglang'],
      ['llamacpp', 'llamacpp'],
      ['llama.cpp', 'llamacpp'],
    ];
    for (const [name, family] of table) assert.equal(engineFamily(name), family, String(name));
  });

  it("names each engine's own knobs", () => {
    const table = {
      vllm: { maxSeqs: 'max_num_seqs', batchTokens: 'max_num_batched_tokens', contextLimit: 'max_model_len' },
      sglang: {
        maxSeqs: '--max-running-requests',
        batchTokens: '--chunked-prefill-size',
        contextLimit: '--context-length',
      },
      llamacpp: {
        maxSeqs: '-np/--parallel',
        batchTokens: '-b/-ub (--batch-size/--ubatch-size)',
        contextLimit: '-c/--ctx-size',
      },
    };
    for (const e of ENGINES) {
      const terms = termsOf(e);
      assert.equal(terms.engine, e);
      for (const [k, v] of Object.entries(table[e]))
        assert.equal(terms[k as keyof typeof terms], v, `${e} ${k}`);
    }
  });

  it("never names a vLLM-only setting in llama.cpp's or SGLang's terms, in either language", () => {
    for (const lang of LANGS) {
      for (const e of ['sglang', 'llamacpp'] as const) {
        const terms = termsOf(e, translator(lang));
        const text = [
          terms.maxSeqs,
          terms.batchTokens,
          terms.kvFp8,
          terms.contextLimit,
          terms.prefillInterference,
          terms.queueFull,
          terms.kvCapacity,
          terms.contextWindow('128'),
        ].join('\n');
        for (const knob of VLLM_ONLY) assert.ok(!text.includes(knob), `${lang} ${e} names ${knob}:\n${text}`);
      }
      const lc = termsOf('llamacpp', translator(lang));
      assert.match(lc.contextWindow('128'), /-c\/--ctx-size/);
      assert.match(lc.contextWindow('128'), /-np\/--parallel/);
      assert.match(lc.contextWindow('128'), /128/);
      assert.match(lc.kvCapacity, /--cache-type-k q8_0/);
      assert.match(lc.prefillInterference, /--cont-batching/);
    }
  });

  it('writes every llama.cpp-only sentence of the diagnosis without a vLLM-only setting', () => {
    for (const lang of LANGS) {
      const keys = Object.keys(CATALOGUES[lang]).filter(
        (k) => k.startsWith('diagnose.') && k.endsWith('_llamacpp'),
      );
      assert.ok(keys.length >= 5, `${lang}: ${keys.join(', ')}`);
      for (const k of keys) {
        const text = String(CATALOGUES[lang][k as keyof (typeof CATALOGUES)[typeof lang]]);
        for (const knob of VLLM_ONLY) assert.ok(!text.includes(knob), `${lang} ${k} names ${knob}`);
      }
    }
  });

  it("reads llama.cpp from its responses' timings when nothing else names the engine", () => {
    const r = handRecord('r0', 0, 10, 5, 2);
    assert.equal(runEngine(handRun('plain', [r])), undefined);
    r.timings = { prompt_n: 100, predicted_n: 5, cache_n: 0 };
    assert.equal(runEngine(handRun('lc', [r])), 'llamacpp');
    assert.equal(runEngine(handRun('named', [r], {}, { engine: 'sglang' })), 'sglang');
  });
});

/** `n` requests cut with finish_reason length: prompt `p` + output `c` tokens each. */
function cutRun(label: string, p: number, c: number, n: number, extra: Parameters<typeof handRun>[3] = {}) {
  const recs = Array.from({ length: n }, (_, i) => {
    const r = handRecord(`r${i}`, i * 100, 10, c, 2, p);
    Object.assign(r, { finish_reason: 'length', outcome: 'length', output_len: null });
    r.timings = { prompt_n: p, predicted_n: c, cache_n: 0 };
    return r;
  });
  return handRun(label, recs, {}, { config: { generation: { maxTokens: 200 } }, ...extra });
}

describe('truncation: the context window or max_tokens', () => {
  it('calls a llama.cpp run whose prompt plus output filled the slot a context cut, in its terms', () => {
    for (const lang of LANGS) {
      const d = diagnose([cutRun('ctx', 418, 94, 8)], { t: translator(lang) });
      const f = d.findings.find((x) => x.rule === 'truncation');
      assert.ok(f, 'a truncation finding');
      const text = [f.mechanism, f.next.change, ...f.evidence].join('\n');
      assert.match(text, /-c\/--ctx-size/);
      assert.match(text, /512/);
      assert.match(f.mechanism, /n_ctx_slot/);
      assert.doesNotMatch(f.next.change, /^(raise max_tokens|调高 max_tokens)/);
      assert.doesNotMatch(f.mechanism, /^(truncation by max_tokens|被 max_tokens 截断)/);
      for (const knob of VLLM_ONLY) assert.ok(!text.includes(knob), `${lang}: ${knob} in\n${text}`);
    }
  });

  it("names vLLM's max_model_len for the same cut on vLLM", () => {
    const d = diagnose([cutRun('ctx', 418, 94, 8, { engine: 'vllm' })]);
    const f = d.findings.find((x) => x.rule === 'truncation');
    assert.ok(f);
    assert.match(f.next.change, /max_model_len/);
  });

  it('keeps max_tokens truncation when the outputs reached the cap they asked for', () => {
    const d = diagnose([cutRun('cap', 100, 200, 8)]);
    const f = d.findings.find((x) => x.rule === 'truncation');
    assert.ok(f);
    assert.match(f.mechanism, /^truncation by max_tokens/);
    assert.match(f.next.change, /^raise max_tokens/);
  });
});

describe('cache hits in a cold run on llama.cpp', () => {
  it('names the RAM prompt cache and how to turn it off, not a vLLM setting', () => {
    const recs = Array.from({ length: 8 }, (_, i) => handRecord(`r${i}`, i * 100, 10, 5, 2, 100));
    // 800 prompt tokens sent, 600 of them served from the prompt cache.
    const series = [
      { t_ms: 0, source: 's', name: 'prefix_queries_total', value: 0 },
      { t_ms: 0, source: 's', name: 'prefix_hits_total', value: 0 },
      { t_ms: 900, source: 's', name: 'prefix_queries_total', value: 800 },
      { t_ms: 900, source: 's', name: 'prefix_hits_total', value: 600 },
    ];
    for (const lang of LANGS) {
      const run = handRun('cold', recs, {}, { engine: 'llamacpp', config: { prompts: 'fresh' }, series });
      const why = validityReasons(run, {}, translator(lang)).find((r) => r.code === 'cache_hits');
      assert.ok(why, `${lang}: a cache_hits reason`);
      assert.match(why.message, /--cache-ram 0/);
      assert.match(why.message, /cache_prompt: false/);
      assert.match(why.message, /75\.0%/);
      for (const knob of VLLM_ONLY) assert.ok(!why.message.includes(knob), `${lang}: ${knob}`);
    }
  });
});
