/**
 * @module test/monitor/maps
 * Each engine's fixture maps into the shared vocabulary with the values written in it, summed
 * or averaged across label sets; keys an engine lacks stay absent.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { counterIncrease, detectEngine, normalize, tokenRate } from '../../src/monitor/maps.js';
import { parsePrometheusText } from '../../src/monitor/prom-parse.js';

const samplesOf = (...files: string[]) =>
  parsePrometheusText(
    files.map((f) => readFileSync(new URL(`../fixtures/metrics/${f}`, import.meta.url), 'utf8')).join('\n'),
  ).samples;

describe('detectEngine + normalize', () => {
  it('vLLM v1: sums engines for counts, averages KV usage', () => {
    const s = samplesOf('vllm-v1.prom');
    assert.equal(detectEngine(s), 'vllm');
    assert.deepEqual(normalize(s), {
      running: 21,
      waiting: 3,
      kv_usage: 0.375,
      prefix_queries_total: 61440,
      prefix_hits_total: 20480,
      preemptions_total: 3,
      prompt_tokens_total: 61440,
      generation_tokens_total: 8000,
    });
  });

  it('vLLM v0: old KV and prefix-cache names', () => {
    const s = samplesOf('vllm-v0.prom');
    assert.equal(detectEngine(s), 'vllm-v0');
    assert.deepEqual(normalize(s), {
      running: 7,
      waiting: 2,
      kv_usage: 0.875,
      prefix_queries_total: 1024,
      prefix_hits_total: 256,
      preemptions_total: 4,
      prompt_tokens_total: 123456,
      generation_tokens_total: 65432,
    });
  });

  it('a vLLM build with both KV names is v1 and is not double counted', () => {
    const s = parsePrometheusText(
      'vllm:kv_cache_usage_perc{engine="0"} 0.5\nvllm:gpu_cache_usage_perc{engine="0"} 0.5\n',
    ).samples;
    assert.equal(detectEngine(s), 'vllm');
    assert.deepEqual(normalize(s), { kv_usage: 0.5 });
  });

  it('SGLang: queue, token usage, cached tokens as prefix hits, retractions as preemptions', () => {
    const s = samplesOf('sglang.prom');
    assert.equal(detectEngine(s), 'sglang');
    assert.deepEqual(normalize(s), {
      running: 24,
      waiting: 5,
      kv_usage: 0.62,
      prefix_queries_total: 812345,
      prefix_hits_total: 250000,
      preemptions_total: 6,
      prompt_tokens_total: 812345,
      generation_tokens_total: 234567,
    });
  });

  it('llama.cpp with its cached-prompt counter: cached tokens are added back and are the prefix hits', () => {
    // llamacpp:prompt_tokens_total counts only the prompt tokens it evaluated; the cached ones
    // are counted apart, so all prompt tokens = evaluated + cached, as vLLM's counter means.
    const text = `${readFileSync(new URL('../fixtures/metrics/llamacpp.prom', import.meta.url), 'utf8')}
# HELP llamacpp:prompt_tokens_cached_total Number of prompt tokens taken from the prompt cache.
# TYPE llamacpp:prompt_tokens_cached_total counter
llamacpp:prompt_tokens_cached_total 120000
`;
    const n = normalize(parsePrometheusText(text).samples);
    assert.equal(n.prompt_tokens_total, 40213 + 120000);
    assert.equal(n.prefix_queries_total, 40213 + 120000);
    assert.equal(n.prefix_hits_total, 120000);
  });

  it('llama.cpp without the cached counter: no prefix or preemption keys at all', () => {
    const s = samplesOf('llamacpp.prom');
    assert.equal(detectEngine(s), 'llamacpp');
    const n = normalize(s);
    assert.deepEqual(n, {
      running: 1,
      waiting: 2,
      kv_usage: 0.125,
      prompt_tokens_total: 40213,
      generation_tokens_total: 9120,
    });
    assert.equal('preemptions_total' in n, false);
  });

  it('DCGM alone and alongside an engine: MiB summed over GPUs, utilisation averaged', () => {
    const dcgm = samplesOf('dcgm.prom');
    assert.equal(detectEngine(dcgm), 'unknown');
    assert.deepEqual(normalize(dcgm), { gpu_memory_used_mib: 72837 + 72829, gpu_util_pct: 92 });
    const both = samplesOf('vllm-v1.prom', 'dcgm.prom');
    assert.equal(detectEngine(both), 'vllm');
    const n = normalize(both);
    assert.equal(n.gpu_memory_used_mib, 145666);
    assert.equal(n.kv_usage, 0.375);
  });

  it('the simulator (vLLM v1 names plus DCGM, with its marker) reads like vLLM', () => {
    const s = parsePrometheusText(
      [
        '# TYPE servelab_sim_info gauge',
        'servelab_sim_info{version="0.1.0"} 1',
        'vllm:num_requests_running{engine="0",model_name="sim"} 4',
        'vllm:kv_cache_usage_perc{engine="0",model_name="sim"} 0.2',
        'DCGM_FI_DEV_FB_USED{gpu="0"} 70000',
        'DCGM_FI_DEV_GPU_UTIL{gpu="0"} 55',
      ].join('\n'),
    ).samples;
    assert.equal(detectEngine(s), 'sim');
    assert.deepEqual(normalize(s), {
      running: 4,
      kv_usage: 0.2,
      gpu_memory_used_mib: 70000,
      gpu_util_pct: 55,
    });
  });

  it('the simulator impersonating SGLang or vLLM v0 reads by the names it exposes, not as vLLM v1', () => {
    const marker = ['# TYPE servelab_sim_info gauge', 'servelab_sim_info{version="0.1.0",engine="x"} 1'];
    const sglang = parsePrometheusText(
      [
        ...marker,
        'sglang:num_running_reqs{model_name="sim"} 3',
        'sglang:num_queue_reqs{model_name="sim"} 1',
        'sglang:token_usage{model_name="sim"} 0.25',
        'sglang:prompt_tokens_total{model_name="sim"} 900',
        'sglang:cached_tokens_total{model_name="sim"} 300',
      ].join('\n'),
    ).samples;
    assert.equal(detectEngine(sglang), 'sglang');
    assert.deepEqual(normalize(sglang), {
      running: 3,
      waiting: 1,
      kv_usage: 0.25,
      prompt_tokens_total: 900,
      prefix_queries_total: 900,
      prefix_hits_total: 300,
    });
    const v0 = parsePrometheusText(
      [
        ...marker,
        'vllm:num_requests_running{model_name="sim"} 2',
        'vllm:gpu_cache_usage_perc{model_name="sim"} 0.5',
      ].join('\n'),
    ).samples;
    assert.equal(detectEngine(v0), 'vllm-v0');
    assert.deepEqual(normalize(v0), { running: 2, kv_usage: 0.5 });
  });

  it('skips NaN gauges instead of poisoning the mean', () => {
    const s = parsePrometheusText(
      'vllm:kv_cache_usage_perc{engine="0"} NaN\nvllm:kv_cache_usage_perc{engine="1"} 0.4\n',
    ).samples;
    assert.deepEqual(normalize(s), { kv_usage: 0.4 });
  });
});

describe('counter math', () => {
  it('tokenRate is tokens per second and survives a reset', () => {
    assert.equal(tokenRate({ t_ms: 1000, value: 100 }, { t_ms: 3000, value: 500 }), 200);
    assert.equal(tokenRate({ t_ms: 1000, value: 100 }, { t_ms: 2000, value: 30 }), 30);
    assert.equal(tokenRate({ t_ms: 1000, value: 100 }, { t_ms: 1000, value: 200 }), null);
  });

  it('counterIncrease adds the new value after a reset', () => {
    assert.equal(counterIncrease([10, 15, 3, 8]), 5 + 3 + 5);
    assert.equal(counterIncrease([10]), null);
    assert.equal(counterIncrease([7, 7]), 0);
  });
});
