/**
 * @module sim/engine/cost
 * The executor's cost model: how long one engine iteration (one forward pass over a flat
 * batch of prefill chunks and decodes) takes on the simulated GPU. A roofline per step
 * (after BLIS `inference-sim/inference-sim:sim/latency/roofline.go` and Vidur, arXiv 2405.05465):
 *
 * ```
 * T_mem     = [W/tp + (Σ ctx_i + T_tok)·KV_tok/tp] / (BW·η_bw)
 * T_compute = [2·P_layers·T_tok·(1+δ_deq)/F_w + 2·V·h·S/F_bf16 + 4·L·nh·d·Σ n_i·(ctx_i + n_i/2)/F_bf16] / (tp·η_c)
 * T_step    = max(T_compute, T_mem) + t_step + t_layer·L + t_req·B + T_allreduce
 * T_allreduce = 2·L·[2·(tp−1)/tp · T_tok·h·2 B / link_BW + latency]   (tp > 1 only)
 * ```
 * W = bytes of the weights read every step (decoder layers + LM head), ctx_i = tokens already in
 * request i's KV cache, n_i its new tokens this step, T_tok = Σ n_i, S = requests that sample a
 * token (vLLM computes logits only at sampled positions), B = scheduled requests, δ_deq = the
 * dequantisation overhead of weight-only quantisation, F_w the tensor throughput the decoder
 * layers run at (FP8 units for fp8 on Hopper/Ada/CDNA3, else BF16).
 */
import {
  activeLayerParams,
  layerParams as decoderLayerParams,
  layerWeightBytesReadPerStep,
} from '../catalogue/params.js';
import type { GpuSpec, ModelSpec } from '../catalogue/types.js';

/** Weight precisions the cost model knows (`int4`: AWQ/GPTQ-style weight-only). */
export const WEIGHT_DTYPES = ['bf16', 'fp16', 'fp8', 'int4'] as const;
export type WeightDtype = (typeof WEIGHT_DTYPES)[number];
/** KV cache precisions: `auto` is the 16-bit cache. */
export const KV_CACHE_DTYPES = ['auto', 'fp8'] as const;
export type KvCacheDtype = (typeof KV_CACHE_DTYPES)[number];

/**
 * Achieved fraction of peak memory bandwidth. 0.8 reproduces measured vLLM decode (Llama-3.1-8B:
 * 6.48 ms/token on H100, ~13.3 ms on A100-40GB) once the overheads below are added (public vLLM
 * sweeps: yobitelcomm.github.io/bench "concurrency sweep", vLLM 0.21; johnmusgrave.com "vLLM
 * throughput-latency sweep on NVIDIA A100", vLLM 0.23).
 */
export const ETA_BW = 0.8;
/**
 * Achieved fraction of peak tensor throughput for large GEMMs: Vidur's profiles give 0.67 (A100,
 * Llama-3-8B linears at 8192 tokens) and 0.64 (H100, Llama-2-7B at 4096)
 * (`microsoft/vidur:data/profiling/compute/{a100,h100}/<model>/mlp.csv`).
 */
export const ETA_COMPUTE = 0.6;
/** Fixed cost per step (launch, sampling, scheduling), ms: BLIS trained default ≈ 126 µs. */
export const T_STEP_MS = 0.13;
/** Fixed cost per layer per step, ms: BLIS trained default ≈ 32 µs. */
export const T_LAYER_MS = 0.032;
/** Fixed cost per scheduled request per step, ms: BLIS trained default ≈ 4 µs. */
export const T_REQ_MS = 0.004;

/**
 * Bytes per quantised decoder-layer weight. int4 (AWQ/GPTQ, group size 128): 4 bits plus one
 * fp16 scale and one packed 4-bit zero point per 128 weights ≈ 0.52 B. Embeddings and the LM head
 * stay 16-bit in these formats (and in vLLM's fp8), so they are counted at 2 B.
 */
export const BYTES_PER_WEIGHT: Record<WeightDtype, number> = { bf16: 2, fp16: 2, fp8: 1, int4: 0.52 };

/**
 * Extra compute of weight-only quantisation, as a fraction of the layer GEMM time: the kernel
 * dequantises each weight tile once per block of activation rows, so the cost grows with the batch.
 * Assumed values, chosen so that, as Marlin/AWQ benchmarks report, int4 is faster than bf16 while
 * memory-bound (small batches) and slower once compute-bound (large batches).
 */
export const DEQUANT_OVERHEAD: Record<'int4' | 'fp8WeightOnly', number> = { int4: 0.35, fp8WeightOnly: 0.25 };

/** Activation bytes per element moved by a TP all-reduce (bf16). */
const ACT_BYTES = 2;

/** Parameter and byte counts of a model at a precision (whole model, all GPUs together). */
export interface ModelAccounting {
  /** Parameters of all decoder layers (attention q/k/v/o + SwiGLU MLP). */
  layerParams: number;
  /** LM-head parameters (V·h). */
  lmHeadParams: number;
  /** Embedding-table parameters (0 extra when tied to the LM head). */
  embeddingParams: number;
  totalParams: number;
  /** Bytes of all weights resident in GPU memory. */
  weightBytes: number;
  /** Bytes read from memory by one forward step (decoder layers + LM head). */
  stepReadBytes: number;
  /** KV-cache bytes per token for the whole model: 2·L·nkv·d·b_kv. */
  kvBytesPerToken: number;
}

/** Count parameters and bytes from the model's Hugging Face config.json fields. */
export function modelAccounting(
  model: ModelSpec,
  dtype: WeightDtype,
  kvCacheDtype: KvCacheDtype,
): ModelAccounting {
  const h = model.hidden_size;
  const d = model.head_dim;
  // Every expert of an MoE model is resident (sim/catalogue/params).
  const layerParams = decoderLayerParams(model);
  const lmHeadParams = model.vocab_size * h;
  const embeddingParams = model.tie_word_embeddings ? 0 : model.vocab_size * h;
  const layerBytes = layerParams * BYTES_PER_WEIGHT[dtype];
  const headBytes = lmHeadParams * 2;
  // 'auto' stores KV in the activation dtype (16-bit) whatever the weights' precision.
  const kvB = kvCacheDtype === 'fp8' ? 1 : 2;
  return {
    layerParams,
    lmHeadParams,
    embeddingParams,
    totalParams: layerParams + lmHeadParams + embeddingParams,
    weightBytes: layerBytes + headBytes + embeddingParams * 2,
    stepReadBytes: layerBytes + headBytes,
    kvBytesPerToken: 2 * model.num_hidden_layers * model.num_key_value_heads * d * kvB,
  };
}

/** What one step does, summed over its scheduled requests. */
export interface StepShape {
  /** Σ n_i: new tokens processed (prefill chunks + decodes). */
  numTokens: number;
  /** Σ ctx_i: tokens already in KV that the step's attention reads. */
  ctxTokens: number;
  /** Σ n_i·(ctx_i + n_i/2): causal attention token pairs. */
  attnPairs: number;
  /** Requests that sample a token this step. */
  numSampled: number;
  /** Requests scheduled this step. */
  numReqs: number;
}

/** Breakdown of one step's time, ms. */
export interface StepCost {
  computeMs: number;
  memoryMs: number;
  overheadMs: number;
  allReduceMs: number;
  totalMs: number;
}

/** Precomputed per-configuration coefficients; {@link CostModel.stepMs} is allocation-free. */
export class CostModel {
  /** ms per new token for the decoder-layer GEMMs. */
  private readonly layerMsPerToken: number;
  /** ms per sampled token for the LM head. */
  private readonly headMsPerSample: number;
  /** ms per attention token pair. */
  private readonly attnMsPerPair: number;
  /** ms to read the weights a step over this many new tokens touches (for MoE, only the routed experts). */
  private readonly weightsMs: (numTokens: number) => number;
  /** ms per KV token read or written. */
  private readonly kvMsPerToken: number;
  private readonly fixedMs: number;
  /** ms per new token for the all-reduce payload, and fixed ms for the all-reduce calls. */
  private readonly arMsPerToken: number;
  private readonly arFixedMs: number;

  constructor(model: ModelSpec, gpu: GpuSpec, tp: number, dtype: WeightDtype, kvCacheDtype: KvCacheDtype) {
    const acc = modelAccounting(model, dtype, kvCacheDtype);
    const L = model.num_hidden_layers;
    const h = model.hidden_size;
    const bf16 = gpu.bf16Tflops * 1e12 * ETA_COMPUTE;
    let layerFlopsPerS = bf16;
    let deq = 0;
    if (dtype === 'fp8') {
      if (gpu.fp8Units && gpu.fp8Tflops) layerFlopsPerS = gpu.fp8Tflops * 1e12 * ETA_COMPUTE;
      else deq = DEQUANT_OVERHEAD.fp8WeightOnly;
    } else if (dtype === 'int4') {
      deq = DEQUANT_OVERHEAD.int4;
    }
    this.layerMsPerToken = ((2 * activeLayerParams(model) * (1 + deq)) / layerFlopsPerS / tp) * 1e3;
    this.headMsPerSample = ((2 * acc.lmHeadParams) / bf16 / tp) * 1e3;
    this.attnMsPerPair = ((4 * L * model.num_attention_heads * model.head_dim) / bf16 / tp) * 1e3;
    const bw = gpu.bandwidthTBps * 1e12 * ETA_BW;
    const headBytes = acc.lmHeadParams * 2; // the LM head stays 16-bit, as in modelAccounting
    this.weightsMs = (n) =>
      ((layerWeightBytesReadPerStep(model, BYTES_PER_WEIGHT[dtype], n) + headBytes) / tp / bw) * 1e3;
    // vLLM replicates KV heads when tp > num_key_value_heads, so each GPU holds at least one.
    const kvHeadsPerGpu = Math.max(1, model.num_key_value_heads / tp);
    const kvPerTokenPerGpu = (acc.kvBytesPerToken / model.num_key_value_heads) * kvHeadsPerGpu;
    this.kvMsPerToken = (kvPerTokenPerGpu / bw) * 1e3;
    this.fixedMs = T_STEP_MS + T_LAYER_MS * L;
    if (tp > 1) {
      const link = gpu.interconnect.bandwidthGBps * 1e9;
      const ring = (2 * (tp - 1)) / tp;
      this.arMsPerToken = ((2 * L * ring * h * ACT_BYTES) / link) * 1e3;
      this.arFixedMs = 2 * L * gpu.interconnect.latencyUs * 1e-3;
    } else {
      this.arMsPerToken = 0;
      this.arFixedMs = 0;
    }
  }

  /** Duration of one step, ms. */
  stepMs(s: StepShape): number {
    if (s.numReqs === 0) return 0;
    const compute =
      s.numTokens * this.layerMsPerToken +
      s.numSampled * this.headMsPerSample +
      s.attnPairs * this.attnMsPerPair;
    const memory = this.weightsMs(s.numTokens) + (s.ctxTokens + s.numTokens) * this.kvMsPerToken;
    const ar = this.arFixedMs + s.numTokens * this.arMsPerToken;
    return Math.max(compute, memory) + this.fixedMs + T_REQ_MS * s.numReqs + ar;
  }

  /** Same as {@link stepMs} with its parts, for docs and diagnostics. */
  breakdown(s: StepShape): StepCost {
    const computeMs =
      s.numTokens * this.layerMsPerToken +
      s.numSampled * this.headMsPerSample +
      s.attnPairs * this.attnMsPerPair;
    const memoryMs = this.weightsMs(s.numTokens) + (s.ctxTokens + s.numTokens) * this.kvMsPerToken;
    const allReduceMs = this.arFixedMs + s.numTokens * this.arMsPerToken;
    const overheadMs = this.fixedMs + T_REQ_MS * s.numReqs;
    return { computeMs, memoryMs, overheadMs, allReduceMs, totalMs: this.stepMs(s) };
  }
}
