/**
 * The catalogue's parameter arithmetic (sim/catalogue/params): total versus active parameters,
 * the experts a batch touches and the weight bytes a step reads, from hand-computed tables; the
 * cost model and memory plan that call it; and the datasheet figures of the GPUs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUILTIN_GPUS, BUILTIN_MODELS } from '../../src/sim/catalogue/builtin.js';
import {
  activeLayerParams,
  expectedExpertsTouched,
  layerParams,
  layerWeightBytesReadPerStep,
  paramCounts,
} from '../../src/sim/catalogue/params.js';
import { planMemory } from '../../src/sim/engine/config.js';
import { CostModel, gemmEfficiency } from '../../src/sim/engine/cost.js';

const near = (actual: number, expected: number, tol: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} vs ${expected} ± ${tol}`);

const moe = BUILTIN_MODELS['qwen3-30b-a3b'];

describe('parameter counts', () => {
  // Hand-computed from each config.json; the model cards quote 30.5B total / 3.3B activated for
  // Qwen3-30B-A3B, 14.8B for Qwen3-14B, 8.03B for the Llama-3.1-8B shapes, 70.6B for Llama-3.3-70B.
  const table: [string, number, number][] = [
    // Qwen3-30B-A3B: 48 × (attention 18,874,368 + router 262,144 + 128 experts × 4,718,592)
    // = 29,909,581,824, plus embedding and LM head 2 × 311,164,928.
    ['qwen3-30b-a3b', 30_531_911_680, 3_352_821_760],
    ['qwen3-14b', 14_767_882_240, 14_767_882_240],
    ['deepseek-r1-distill-llama-8b', 8_029_995_008, 8_029_995_008],
    ['llama-3.3-70b', 70_552_387_584, 70_552_387_584],
    // The fit-data models (norms excluded, as above): cards say Llama-2-7B 6.74B, Qwen2.5-7B
    // 7.61B, Mistral-Nemo 12.2B, Yi-34B 34.4B, Llama-4-Scout 109B / 17B (with its vision tower).
    ['llama-2-7b', 6_738_149_376, 6_738_149_376],
    ['qwen2.5-7b', 7_615_283_200, 7_615_283_200],
    ['mistral-nemo-12b', 12_247_367_680, 12_247_367_680],
    ['yi-34b', 34_388_049_920, 34_388_049_920],
    // 48 × (attention 52,428,800 + router 81,920 + 17 experts × 125,829,120) + 2 × 1,034,485,760.
    ['llama-4-scout-17b-16e', 107_769_610_240, 17_172_643_840],
  ];
  for (const [name, total, active] of table)
    it(`${name}: ${(total / 1e9).toFixed(2)}B total, ${(active / 1e9).toFixed(2)}B active`, () => {
      const c = paramCounts(BUILTIN_MODELS[name]);
      assert.equal(c.total, total);
      assert.equal(c.active, active);
    });

  it('gives dense models the same count for compute and memory', () => {
    for (const m of Object.values(BUILTIN_MODELS).filter((m) => !m.num_experts))
      assert.equal(activeLayerParams(m), layerParams(m), m.name);
    assert.equal(layerParams(BUILTIN_MODELS['llama-3.1-8b']), 6_979_321_856);
  });

  it('honours decoder_sparse_step, mlp_only_layers and a shared expert', () => {
    // Every second layer sparse, layer 1 kept dense: of 4 layers only layer 3 is sparse.
    const m = { ...moe, num_hidden_layers: 4, decoder_sparse_step: 2, mlp_only_layers: [1] };
    const attn = 18_874_368;
    const dense = 3 * 2048 * 6144;
    const sparse = 262_144 + 128 * 4_718_592;
    assert.equal(layerParams(m), 4 * attn + 3 * dense + sparse);
    assert.equal(activeLayerParams(m), 4 * attn + 3 * dense + 262_144 + 8 * 4_718_592);
    // A Qwen2-MoE-style shared expert of 1024: 3·h·1024 plus its 1-output gate, run by every token.
    const s = { ...moe, num_hidden_layers: 1, shared_expert_intermediate_size: 1024 };
    const shared = 3 * 2048 * 1024 + 2048;
    assert.equal(activeLayerParams(s), attn + 262_144 + 8 * 4_718_592 + shared);
  });
});

describe('experts touched per layer, E·(1 − (1 − k/E)^T)', () => {
  const table: [number, number, number, number][] = [
    // E, k, tokens, expected distinct experts
    [128, 8, 0, 0],
    [128, 8, 1, 8], // one token: exactly its k
    [128, 8, 2, 15.5], // 8 + 8 × 120/128
    [8, 2, 2, 3.5], // 2 + 2 × 6/8
    [128, 8, 16, 82.4225], // 128 × (1 − 0.9375^16)
    [128, 8, 8192, 128], // a prefill chunk touches every expert
    [8, 8, 3, 8], // k = E: all of them
  ];
  for (const [E, k, T, want] of table)
    it(`E=${E} k=${k} T=${T} → ${want}`, () => near(expectedExpertsTouched(E, k, T), want, 1e-4, 'touched'));
});

describe('weight bytes read per step', () => {
  const table: [string, number, number, number][] = [
    // model, bytes per weight, tokens, decoder-layer bytes read
    ['llama-3.1-8b', 2, 1, 13_958_643_712], // dense: every weight, whatever the batch
    ['llama-3.1-8b', 2, 4096, 13_958_643_712],
    ['llama-3.1-8b', 1, 7, 6_979_321_856],
    // MoE, bf16: no token reads only attention and router (48 × 19,136,512 × 2 B) …
    ['qwen3-30b-a3b', 2, 0, 1_837_105_152],
    // … one token also its 8 experts per layer: the active layer parameters × 2 B …
    ['qwen3-30b-a3b', 2, 1, 5_460_983_808],
    // … and a long prefill chunk every expert: all 29,909,581,824 parameters.
    ['qwen3-30b-a3b', 2, 8192, 59_819_163_648],
  ];
  for (const [name, b, T, want] of table)
    it(`${name} at ${b} B/weight, ${T} tokens → ${(want / 1e9).toFixed(3)} GB`, () =>
      near(layerWeightBytesReadPerStep(BUILTIN_MODELS[name], b, T), want, 1, 'bytes'));

  it('grows with the batch and saturates at all the weights', () => {
    let prev = -1;
    for (const T of [0, 1, 2, 4, 16, 64, 256, 1024, 8192]) {
      const b = layerWeightBytesReadPerStep(moe, 2, T);
      assert.ok(b >= prev && b <= layerParams(moe) * 2 + 1, `T=${T}`);
      prev = b;
    }
  });
});

describe('cost model and memory plan use the catalogue', () => {
  it('reads only the routed experts on a small decode step', () => {
    // The roofline basis itself: the fitted multipliers (engine/fitted) at 1.
    const cost = new CostModel(
      moe,
      BUILTIN_GPUS.h100,
      1,
      'bf16',
      'auto',
      {},
      { kWeights: 1, kMoeExperts: 1, kCompute: 1 },
    );
    const shape = (n: number, attnPairs: number, numSampled: number, numReqs: number) => ({
      numTokens: n,
      ctxTokens: 0,
      attnPairs,
      numSampled,
      numReqs,
      numDecodes: 0,
      decodeCtxTokens: 0,
    });
    const step = (n: number) => cost.breakdown(shape(n, n / 2, n, n));
    // (5,460,983,808 layer + 622,329,856 LM head) B / (3.35 TB/s × ETA_BW 0.8) = 2.270 ms,
    // a tenth of reading all 60.4 GB of weights.
    near(step(1).weightsMs, 2.27, 0.001, 'weightsMs at 1 token');
    assert.ok(step(256).weightsMs > 8 * step(1).weightsMs);
    // Compute counts active parameters: 2 × 2,730,491,904 FLOPs per token at 989 TFLOPS × the
    // H100's GEMM efficiency (ETA_GEMM_BY_FAMILY). 512 and 1024 tokens need no graph padding and
    // are whole GEMM tiles, so the difference is 512 tokens' compute.
    const gemm = (n: number) => cost.breakdown(shape(n, 0, 0, 1)).gemmComputeMs;
    const perToken = (gemm(1024) - gemm(512)) / 512;
    near(
      perToken,
      ((2 * 2_730_491_904) / (989e12 * gemmEfficiency(BUILTIN_GPUS.h100))) * 1e3,
      2e-6,
      'layer ms per token',
    );
  });

  it('keeps every expert in memory', () => {
    // (29,909,581,824 + 2 × 311,164,928) × 2 B = 56.87 GiB.
    const plan = planMemory(moe, BUILTIN_GPUS.h100, 1, 'bf16', 'auto', 0.9, 16);
    near(plan.weightsGiB, 56.87, 0.01, 'weightsGiB');
    assert.equal(plan.kvBytesPerTokenPerGpu, 2 * 48 * 4 * 128 * 2);
  });
});

describe('GPU datasheet figures (dense, per GPU)', () => {
  const table: [string, number, number, number | null, number][] = [
    // name, TB/s, BF16 TFLOPS, FP8 TFLOPS, NVLink/IF GB/s per direction
    ['b200', 8, 2250, 4500, 900],
    ['h100', 3.35, 989, 1979, 450],
    ['h200', 4.8, 989, 1979, 450],
    ['a100-80gb', 2.039, 312, null, 300],
    ['l40s', 0.864, 362, 733, 32],
    ['l4', 0.3, 121, 242.5, 32],
    ['rtx4090', 1.008, 165, 330, 32],
    ['mi300x', 5.3, 1307, 2615, 448],
  ];
  for (const [name, bw, bf16, fp8, link] of table)
    it(name, () => {
      const g = BUILTIN_GPUS[name];
      assert.deepEqual(
        [g.bandwidthTBps, g.bf16Tflops, g.fp8Tflops, g.interconnect.bandwidthGBps],
        [bw, bf16, fp8, link],
      );
    });
});
