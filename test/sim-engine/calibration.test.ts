/**
 * Calibration targets of the cost model, measured through `plan` (measured vLLM figures:
 * yobitelcomm.github.io/bench "concurrency sweep", vLLM 0.21; johnmusgrave.com, vLLM 0.23).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { simulateDetailed } from '../../src/sim/batch-driver.js';
import { describeEngine, resolveEngineConfig } from '../../src/sim/engine/config.js';
import { makeRequests, mean, tpotMs } from './helpers.js';

function decodeTpotMs(gpu: string): number {
  const cfg = resolveEngineConfig({ model: 'llama-3.1-8b', gpu });
  const res = simulateDetailed(cfg, makeRequests(4, 512, 256), { kind: 'closed', concurrency: 1 });
  return mean(res.records.map(tpotMs));
}

describe('cost-model calibration (Llama-3.1-8B bf16, concurrency 1)', () => {
  it('decodes at ~6.5 ms/token on H100 (±15%)', () => {
    const tpot = decodeTpotMs('h100');
    assert.ok(tpot > 6.5 * 0.85 && tpot < 6.5 * 1.15, `tpot ${tpot}`);
  });

  it('decodes at ~13.3 ms/token on A100-40GB (±15%)', () => {
    const tpot = decodeTpotMs('a100-40gb');
    assert.ok(tpot > 13.3 * 0.85 && tpot < 13.3 * 1.15, `tpot ${tpot}`);
  });

  it('has ~430k tokens of KV cache on an 80 GB H100 at 0.9 (±10%)', () => {
    const cfg = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100', gpuMemoryUtilization: 0.9 });
    const res = simulateDetailed(cfg, makeRequests(1, 64, 4), { kind: 'closed', concurrency: 1 });
    const tokens = res.stats.totalBlocks * res.stats.blockSize;
    assert.equal(tokens, cfg.memory.kvCapacityTokens);
    assert.ok(tokens > 430_000 * 0.9 && tokens < 430_000 * 1.1, `kv tokens ${tokens}`);
    // 16-token blocks of 128 KiB/token = 2 MiB each (vLLM's default block_size 16 on CUDA).
    assert.equal(cfg.memory.kvBytesPerTokenPerGpu * cfg.blockSize, 2 * 1024 * 1024);
  });

  it('describes its memory the way vLLM logs it', () => {
    const lines = describeEngine(resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100' }));
    assert.ok(lines.includes('GPU KV cache size: 443,152 tokens (27,697 blocks of 16)'), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('Maximum concurrency for 131,072 tokens per request: 3.38x')));
  });

  it('applies vLLM batch defaults by GPU', () => {
    const h100 = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100' });
    assert.deepEqual([h100.maxNumBatchedTokens, h100.maxNumSeqs], [8192, 1024]);
    const a100 = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'a100-80gb' });
    assert.deepEqual([a100.maxNumBatchedTokens, a100.maxNumSeqs], [2048, 256]);
    const l40s = resolveEngineConfig({ model: 'qwen3-8b', gpu: 'l40s' });
    assert.deepEqual([l40s.maxNumBatchedTokens, l40s.maxNumSeqs], [2048, 256]);
  });
});
