/**
 * Catalogue lookup, catalogue files and engine-flag validation: every problem reported at once,
 * each with a hint.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { defaultCatalogue, loadCatalogueFile } from '../../src/sim/catalogue/index.js';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import { modelAccounting } from '../../src/sim/engine/cost.js';
import type { EngineOptions } from '../../src/sim/settings.js';

function usageProblems(fn: () => unknown): UsageError['problems'] {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof UsageError, `expected UsageError, got ${e}`);
    return e.problems;
  }
  assert.fail('expected a UsageError');
}

describe('catalogue', () => {
  it('holds the issue-3 and issue-5 GPUs and models', () => {
    const cat = defaultCatalogue();
    assert.deepEqual(Object.keys(cat.gpus).sort(), [
      'a100-40gb',
      'a100-80gb',
      'b200',
      'h100',
      'h200',
      'l4',
      'l40s',
      'mi300x',
      'rtx4090',
    ]);
    // …and issue 26's fit-data models (../shared/fit-data).
    assert.deepEqual(Object.keys(cat.models).sort(), [
      'deepseek-r1-distill-llama-8b',
      'llama-2-7b',
      'llama-3.1-70b',
      'llama-3.1-8b',
      'llama-3.3-70b',
      'llama-4-scout-17b-16e',
      'mistral-nemo-12b',
      'qwen2.5-7b',
      'qwen3-0.6b',
      'qwen3-14b',
      'qwen3-30b-a3b',
      'qwen3-32b',
      'qwen3-8b',
      'yi-34b',
    ]);
  });

  it('counts parameters as the model cards do', () => {
    const cat = defaultCatalogue();
    const billions = (m: string) => modelAccounting(cat.models[m], 'bf16', 'auto').totalParams / 1e9;
    assert.ok(Math.abs(billions('llama-3.1-8b') - 8.03) < 0.02);
    assert.ok(Math.abs(billions('llama-3.1-70b') - 70.6) < 0.1);
    assert.ok(Math.abs(billions('qwen3-0.6b') - 0.6) < 0.02);
    assert.ok(Math.abs(billions('qwen3-8b') - 8.19) < 0.02);
    assert.ok(Math.abs(billions('qwen3-32b') - 32.8) < 0.2);
    // KV per token, 2·L·nkv·d·2 B from the HF config.json: Llama-3.1-8B 128 KiB, Qwen3-0.6B 112 KiB.
    assert.equal(modelAccounting(cat.models['llama-3.1-8b'], 'bf16', 'auto').kvBytesPerToken, 128 * 1024);
    assert.equal(modelAccounting(cat.models['qwen3-0.6b'], 'bf16', 'auto').kvBytesPerToken, 112 * 1024);
  });

  describe('files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'servelab-cat-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('adds GPUs and models from YAML, ignoring extra config.json fields', () => {
      const path = join(dir, 'cat.yaml');
      writeFileSync(
        path,
        [
          'gpus:',
          '  b200:',
          '    memoryGiB: 178',
          '    bandwidthTBps: 8',
          '    bf16Tflops: 2250',
          '    fp8Tflops: 4500',
          '    interconnect: { kind: nvlink, bandwidthGBps: 900 }',
          'models:',
          '  mistral-7b:',
          '    architectures: [MistralForCausalLM]',
          '    num_hidden_layers: 32',
          '    hidden_size: 4096',
          '    num_attention_heads: 32',
          '    num_key_value_heads: 8',
          '    intermediate_size: 14336',
          '    vocab_size: 32768',
          '    max_position_embeddings: 32768',
        ].join('\n'),
      );
      const cat = loadCatalogueFile(path);
      assert.equal(cat.gpus.b200.fp8Units, true);
      assert.equal(cat.gpus.b200.interconnect.latencyUs, 20);
      assert.equal(cat.models['mistral-7b'].head_dim, 128);
      assert.ok(cat.gpus.h100, 'built-ins stay');
      const cfg = resolveEngineConfig({ model: 'mistral-7b', gpu: 'b200', catalogue: cat });
      assert.equal(cfg.maxNumBatchedTokens, 8192);
      assert.ok(cfg.memory.kvCapacityTokens > 100_000);
    });

    it('lists every problem in a bad file', () => {
      const path = join(dir, 'bad.json');
      writeFileSync(
        path,
        JSON.stringify({
          gpus: { x1: { memoryGiB: -1, bandwidthTBps: 1 } },
          models: { m: { num_hidden_layers: 2, hidden_size: 64 } },
        }),
      );
      const problems = usageProblems(() => loadCatalogueFile(path));
      const where = problems.map((p) => p.path);
      for (const field of [
        'gpus.x1.memoryGiB',
        'gpus.x1.bf16Tflops',
        'models.m.num_attention_heads',
        'models.m.vocab_size',
      ]) {
        assert.ok(
          where.some((w) => w?.endsWith(field)),
          `${field} in ${where.join(', ')}`,
        );
      }
      assert.ok(problems.every((p) => p.hint));
    });

    it('reports a missing file as a usage error', () => {
      const problems = usageProblems(() => loadCatalogueFile(join(dir, 'nope.yaml')));
      assert.match(problems[0].message, /ENOENT/);
    });
  });
});

describe('resolveEngineConfig', () => {
  it('lists unknown GPU and model together, with the valid names', () => {
    const problems = usageProblems(() => resolveEngineConfig({ model: 'gpt-5', gpu: 'tpu' }));
    assert.equal(problems.length, 2);
    assert.match(problems[0].hint!, /llama-3\.1-8b/);
    assert.match(problems[1].hint!, /h100/);
  });

  it('rejects bad flag values all at once', () => {
    const opts: EngineOptions = {
      model: 'qwen3-8b',
      gpu: 'h100',
      tp: 3,
      blockSize: 10,
      gpuMemoryUtilization: 1.5,
      maxNumSeqs: 512,
      maxNumBatchedTokens: 256,
      dtype: 'fp4' as never,
    };
    const where = usageProblems(() => resolveEngineConfig(opts)).map((p) => p.path);
    assert.deepEqual(where.sort(), [
      '--block-size',
      '--dtype',
      '--gpu-memory-utilization',
      '--max-num-batched-tokens',
      '--tp',
    ]);
  });

  it('suggests only the --tp / --dtype changes that make a model fit', () => {
    const [p] = usageProblems(() => resolveEngineConfig({ model: 'qwen3-32b', gpu: 'l40s' }));
    assert.match(p.message, /does not fit/);
    assert.match(p.hint!, /--tp 2/);
    assert.match(p.hint!, /--dtype fp8/);
    assert.ok(resolveEngineConfig({ model: 'qwen3-32b', gpu: 'l40s', tp: 2 }).memory.numGpuBlocks > 0);
    assert.ok(resolveEngineConfig({ model: 'qwen3-32b', gpu: 'l40s', dtype: 'fp8' }).memory.numGpuBlocks > 0);
    // 70B in fp8 (~65.7 GiB) plus its profiled activations (~2.5 GiB) fits 0.9 × 80 GB with a
    // small KV cache, as vLLM serves it on one H100.
    const [big] = usageProblems(() => resolveEngineConfig({ model: 'llama-3.1-70b', gpu: 'h100' }));
    assert.match(big.hint!, /--tp 2 or --dtype fp8/);
    assert.ok(
      resolveEngineConfig({ model: 'llama-3.1-70b', gpu: 'h100', dtype: 'fp8' }).memory.numGpuBlocks > 0,
    );
    // On 24 GB cards only tp 8 holds 70B.
    const [l4] = usageProblems(() => resolveEngineConfig({ model: 'llama-3.1-70b', gpu: 'l4' }));
    assert.equal(l4.hint, 'try --tp 8');
  });

  it('lowers the default max_model_len to the KV capacity but rejects an explicit one above it', () => {
    const cfg = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'l4' });
    assert.equal(cfg.maxModelLen, cfg.memory.kvCapacityTokens);
    assert.ok(cfg.maxModelLen < 131072);
    const [p] = usageProblems(() =>
      resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'l4', maxModelLen: 131072 }),
    );
    assert.equal(p.path, '--max-model-len');
    assert.equal(resolveEngineConfig({ model: 'qwen3-8b', gpu: 'h100' }).maxModelLen, 40960);
  });
});

describe('activation memory (vLLM profile_run)', () => {
  it('grows with max_num_batched_tokens and leaves less KV cache', () => {
    const resolve = resolveEngineConfig;
    const small = resolve({ model: 'llama-3.1-8b', gpu: 'h100', maxNumBatchedTokens: 2048 });
    const big = resolve({ model: 'llama-3.1-8b', gpu: 'h100', maxNumBatchedTokens: 32768 });
    assert.ok(big.memory.activationGiB > small.memory.activationGiB);
    assert.ok(big.memory.kvCapacityTokens < small.memory.kvCapacityTokens);
  });
});
