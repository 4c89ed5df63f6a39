/**
 * @module sim/engine/cost
 * The executor's cost model: how long one engine iteration (one forward pass over a flat
 * batch of prefill chunks and decodes) takes on the simulated GPU. A roofline per kernel group
 * (after BLIS `inference-sim/inference-sim:sim/latency/roofline.go` and Vidur, arXiv 2405.05465),
 * each group's compute and memory times combined by a p-norm near the knee, and the groups
 * summed, because they run one after another (cost model v2; docs/sim.md "Cost model"):
 *
 * ```
 * M          = CUDA-graph size of T_tok (1,2,4,8,16,…; T_tok itself beyond the largest)
 * T_gemm     = ‖ 2·(P_layers·⌈M⌉₁₆·(1+δ) + V·h·⌈S⌉₁₆)/(F·η_gemm) , W/(BW·η_bw) ‖₃
 * T_act      = M·L·2 B·(8h + 6I)/(BW·η_bw)
 * T_attn_pre = ‖ 4·L·nh·d·pairs_pre/(F·η_attn) , (ctx_pre + n_pre)·KV_tok/(BW·η_bw) ‖₃
 * T_attn_dec = ‖ 4·L·nh·d·pairs_dec/(F·η_attn) , (ctx_dec + n_dec)·KV_tok/(BW·η_dec) ‖₃
 * T_ovh      = t_step + t_layer·L + t_moe·L_moe + t_sample + t_req·B + t_sample_req·S
 * T_ar       = 2·L·[2·(tp−1)/tp · M·h·2 B / link_BW + latency]          (tp > 1 only)
 * T_step     = T_gemm + T_act + T_attn_pre + T_attn_dec + T_ovh + T_ar   (all per GPU: ÷ tp)
 * ```
 * The fitted step-time model (issue 26; docs/sim.md "Fitted step-time model") scales each
 * roofline basis by a coefficient fitted on public vLLM measurements (`engine/fitted`): k_compute
 * every FLOP term (the GEMMs' and attention's compute), k_weights the dense weight reads,
 * k_moe the routed-expert reads (W splits into both), k_kv the decode attention's KV reads, k_tp
 * T_ar; t_step, t_layer, t_req and t_moe (per MoE layer L_moe) are fitted too.
 * ‖a, b‖₃ = (a³ + b³)^(1/3); ⌈x⌉₁₆ rounds up to the GEMM tile. W = bytes of the weights read every
 * step (decoder layers + LM head), ctx_i = tokens already in request i's KV cache, n_i its new
 * tokens this step, S = requests that sample a token (vLLM computes logits only at sampled
 * positions), B = scheduled requests, δ = the dequantisation overhead of weight-only
 * quantisation, F the tensor throughput the decoder layers run at (FP8 units for fp8 on
 * Hopper/Ada/CDNA3, else BF16).
 */
import {
  activeLayerParams,
  layerParams as decoderLayerParams,
  expertWeightBytesReadPerStep,
  layerWeightBytesReadPerStep,
  sparseLayerCount,
} from '../catalogue/params.js';
import type { GpuSpec, ModelSpec } from '../catalogue/types.js';
import type { KvCacheDtype, WeightDtype } from '../config/vocab.js';
import { FITTED } from './fitted.js';

/**
 * Achieved fraction of peak memory bandwidth. 0.8 reproduces measured vLLM decode (Llama-3.1-8B:
 * 6.48 ms/token on H100, ~13.3 ms on A100-40GB) once the overheads below are added (public vLLM
 * sweeps: yobitelcomm.github.io/bench "concurrency sweep", vLLM 0.21; johnmusgrave.com "vLLM
 * throughput-latency sweep on NVIDIA A100", vLLM 0.23).
 */
export const ETA_BW = 0.8;

/**
 * Achieved fraction of peak dense tensor throughput for large, well-shaped GEMMs, by GPU family
 * (matched on the catalogue entry's `deviceName`). Sources: A100 0.67 from Vidur's profiles
 * (`microsoft/vidur:data/profiling/compute/a100/meta-llama/Meta-Llama-3-8B/mlp.csv`, linears at
 * 8192 tokens); H100/H200 0.64 from the same profiles for H100 (Llama-2-7B at 4096 tokens);
 * MI300X 0.45: its BF16 GEMMs reach about half the 1307 TFLOPS peak
 * (SemiAnalysis, "MI300X vs H100 vs H200 Benchmark Part 1: Training", 2024-12, GEMM section); Ada (L40S, L4, RTX 4090) 0.55 is
 * an assumption (power-limited boards that run below boost clock under sustained tensor load).
 * Any other GPU gets {@link ETA_GEMM_DEFAULT}.
 */
export const ETA_GEMM_BY_FAMILY: readonly { match: RegExp; eta: number }[] = [
  { match: /h100|h200|h800|h20\b/i, eta: 0.64 },
  { match: /a100|a800/i, eta: 0.67 },
  { match: /mi300|mi325/i, eta: 0.45 },
  { match: /l40|l4\b|4090|ada/i, eta: 0.55 },
];
export const ETA_GEMM_DEFAULT = 0.6;
/**
 * GEMM row tile, tokens: tensor-core GEMMs compute whole tiles of rows, so a GEMM over M tokens
 * costs the compute of ⌈M/16⌉·16 rows ("tile quantization", NVIDIA Deep Learning Performance
 * Guide, "Matrix Multiplication Background", docs.nvidia.com/deeplearning/performance). 16 is
 * the row count of the `mma.m16n8k16` instruction (PTX ISA), the smallest tile the small-batch
 * kernels vLLM uses (cuBLAS small-M, Marlin for int4/fp8) run at.
 */
export const GEMM_TILE_TOKENS = 16;
/**
 * Exponent p of the p-norm that combines a kernel's compute and memory time,
 * T = (T_c^p + T_m^p)^(1/p). p = ∞ is the pure roofline max(); real kernels at the knee pay for
 * both. Vidur (arXiv 2405.05465, §2/§5) reports the max() roofline optimistic by 20–30% for
 * batches around the ridge point (~256 tokens), where T_c ≈ T_m: 2^(1/p) = 1.26 gives p = 3.
 */
export const KNEE_P = 3;
/**
 * Achieved fraction of peak BF16 throughput for prefill attention (FlashAttention-2/3 forward):
 * FA2 reaches 50–73% of peak on A100 (Dao, arXiv 2307.08691, abstract), FA3 up to 75% on H100
 * (Shah et al., arXiv 2407.08608, abstract), both at long sequences; both papers' plots fall
 * well below that for the 512–2k sequences of chat prefills, so 0.45.
 */
export const ETA_ATTN_PREFILL = 0.45;
/**
 * Achieved fraction of peak bandwidth for decode attention reading paged KV: FlashInfer's
 * evaluation reports its paged decode kernels at roughly 60–80% of peak bandwidth (Ye et al.,
 * arXiv 2501.01005); 0.7.
 */
export const ETA_BW_ATTN_DECODE = 0.7;
/**
 * Activation traffic of the memory-bound kernels between the GEMMs (RMSNorm with fused residual
 * add, rotary embedding, SiluAndMul), bytes per token per layer per element of hidden size
 * (`h`) and of intermediate size (`I`), 16-bit. Counted from vLLM's `LlamaDecoderLayer`
 * (`vllm/model_executor/models/llama.py`): two fused add+norms read and write h twice each, the
 * attention output and o_proj output h each (8·h); SiluAndMul reads 2·I and writes I, down_proj
 * reads I (4·I, the gate_up output written by its GEMM is counted there: 6·I in total).
 */
export const ACT_TRAFFIC_H = 8;
export const ACT_TRAFFIC_I = 6;

/**
 * vLLM's CUDA-graph capture sizes: a batch of up to the largest size is padded to the next
 * captured size (`vllm-project/vllm:vllm/config/vllm.py`, `_set_cudagraph_sizes`: [1, 2, 4] +
 * range(8, 256, 8) + range(256, max_cudagraph_capture_size + 1, 16); `vllm/config/compilation.py`
 * `max_cudagraph_capture_size` defaults to min(2·max_num_seqs, 512)). V1 pads both uniform decode
 * batches (full graphs) and mixed batches (piecewise graphs) by their token count.
 */
export function cudagraphCaptureSizes(maxNumSeqs: number): number[] {
  const max = Math.min(2 * maxNumSeqs, 512);
  const sizes = [1, 2, 4];
  for (let s = 8; s < 256; s += 8) sizes.push(s);
  for (let s = 256; s <= max; s += 16) sizes.push(s);
  return sizes.filter((s) => s <= max);
}

/**
 * Fixed cost per step, ms: scheduling, input preparation and the host–device round trip of
 * vLLM V1's engine core. BLIS's trained default is ≈ 126 µs
 * (`inference-sim/inference-sim:sim/latency/roofline.go`). Fitted (`engine/fitted`).
 */
export const T_STEP_MS = FITTED.t_step_ms;
/**
 * Fixed cost per layer per step, ms (kernel launches and the host work each layer's kernels
 * need; BLIS's trained default ≈ 32 µs). Fitted (`engine/fitted`).
 */
export const T_LAYER_MS = FITTED.t_layer_ms;
/**
 * Fixed cost per scheduled request per step (input preparation: block tables, positions,
 * slot mapping), ms: BLIS trained default ≈ 4 µs. Fitted (`engine/fitted`).
 */
export const T_REQ_MS = FITTED.t_req_ms;
/**
 * Fixed cost per MoE layer per step, ms: the router's top-k, the token permutation before the
 * grouped expert GEMM and the un-permute after it, kernels a dense layer does not launch. Fitted.
 */
export const T_MOE_LAYER_MS = FITTED.t_moe_layer_ms;
/**
 * Multipliers of the roofline bases, fitted on public vLLM measurements (`engine/fitted`;
 * docs/sim.md): what the efficiencies above do not capture on their own.
 */
export const K_COMPUTE = FITTED.k_compute;
export const K_WEIGHTS = FITTED.k_weights;
export const K_MOE_EXPERTS = FITTED.k_moe_experts;
export const K_KV_DECODE = FITTED.k_kv_decode;
export const K_TP_COMM = FITTED.k_tp_comm;
/**
 * Sampling, ms: a fixed part (logits gather, softmax, top-p/top-k kernels) plus a part per sampled
 * request (sampling metadata, output copy). An assumption (no public per-kernel profile found):
 * 0.05 ms + 3 µs per request, checked against the low-load rows of docs/fidelity.md.
 */
export const T_SAMPLE_MS = 0.05;
export const T_SAMPLE_REQ_MS = 0.003;

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
  /** Requests with one new token (decodes); the rest are prefill chunks. */
  numDecodes: number;
  /** Σ ctx_i over the decodes: the KV that decode attention reads. */
  decodeCtxTokens: number;
}

/** A step shape of nothing (reset per step by its owner, the engine or the drafter). */
export function emptyStepShape(): StepShape {
  return {
    numTokens: 0,
    ctxTokens: 0,
    attnPairs: 0,
    numSampled: 0,
    numReqs: 0,
    numDecodes: 0,
    decodeCtxTokens: 0,
  };
}

/** Breakdown of one step's time, ms. */
export interface StepCost {
  /** Decoder-layer and LM-head GEMMs: compute and weight reads combined by the p-norm. */
  gemmMs: number;
  /** Of which: compute time alone (padded tokens, efficiency applied), and weight-read time alone. */
  gemmComputeMs: number;
  weightsMs: number;
  /** Memory-bound kernels between the GEMMs (norms, rotary, activation). */
  activationMs: number;
  /** Attention of the prefill chunks (compute and KV reads combined). */
  prefillAttnMs: number;
  /** Attention of the decodes (KV reads, compute combined). */
  decodeAttnMs: number;
  /** Per step, per layer, per request and sampling overheads. */
  overheadMs: number;
  allReduceMs: number;
  /** Tokens the GEMMs ran on after CUDA-graph padding. */
  paddedTokens: number;
  totalMs: number;
}

/** Optional engine settings the cost model reads. */
export interface CostOptions {
  /** max_num_seqs: sets vLLM's largest CUDA-graph capture size (default 256). */
  maxNumSeqs?: number;
}

/**
 * Constants of the cost model to use instead of the defaults above, each named after its
 * constant (a calibration profile's fitted values, `sim/calibrate`); unset ones keep their
 * default, so an empty object is the default model exactly.
 */
export interface CostOverrides {
  /** {@link ETA_BW}. */
  etaBw?: number;
  /** The GPU's large-GEMM efficiency, instead of {@link ETA_GEMM_BY_FAMILY}'s entry. */
  etaGemm?: number;
  /** {@link ETA_ATTN_PREFILL}. */
  etaAttnPrefill?: number;
  /** {@link ETA_BW_ATTN_DECODE}. */
  etaBwAttnDecode?: number;
  /** {@link T_STEP_MS}, {@link T_LAYER_MS}, {@link T_REQ_MS}, {@link T_SAMPLE_MS}, {@link T_SAMPLE_REQ_MS}. */
  tStepMs?: number;
  tLayerMs?: number;
  tReqMs?: number;
  tSampleMs?: number;
  tSampleReqMs?: number;
  /** {@link T_MOE_LAYER_MS}. */
  tMoeLayerMs?: number;
  /** {@link K_COMPUTE}, {@link K_WEIGHTS}, {@link K_MOE_EXPERTS}, {@link K_KV_DECODE}, {@link K_TP_COMM}. */
  kCompute?: number;
  kWeights?: number;
  kMoeExperts?: number;
  kKvDecode?: number;
  kTpComm?: number;
}

/**
 * Overrides that make the cost model `factor` times slower on every term: each efficiency
 * divided by it, each fixed time multiplied by it (so every step takes `factor` times as long).
 * For a test, or a what-if, that needs "the same engine, slower": an engine upgrade with a
 * latency regression. `gpu` gives the GEMM efficiency to slow down.
 * @example new CostModel(model, gpu, 1, 'bf16', 'auto', {}, slowerCostModel(1.5, gpu))
 */
export function slowerCostModel(factor: number, gpu: GpuSpec): CostOverrides {
  return {
    etaBw: ETA_BW / factor,
    etaGemm: gemmEfficiency(gpu) / factor,
    etaAttnPrefill: ETA_ATTN_PREFILL / factor,
    etaBwAttnDecode: ETA_BW_ATTN_DECODE / factor,
    tStepMs: T_STEP_MS * factor,
    tLayerMs: T_LAYER_MS * factor,
    tReqMs: T_REQ_MS * factor,
    tSampleMs: T_SAMPLE_MS * factor,
    tSampleReqMs: T_SAMPLE_REQ_MS * factor,
    tMoeLayerMs: T_MOE_LAYER_MS * factor,
  };
}

/** Large-GEMM efficiency of a GPU, from {@link ETA_GEMM_BY_FAMILY}. */
export function gemmEfficiency(gpu: GpuSpec): number {
  const id = `${gpu.name} ${gpu.deviceName}`;
  return ETA_GEMM_BY_FAMILY.find((f) => f.match.test(id))?.eta ?? ETA_GEMM_DEFAULT;
}

/** p-norm of two non-negative times (see {@link KNEE_P}). */
function knee(a: number, b: number): number {
  if (a === 0) return b;
  if (b === 0) return a;
  const m = Math.max(a, b);
  const x = a / m;
  const y = b / m;
  return m * Math.cbrt(x * x * x + y * y * y);
}

/** Precomputed per-configuration coefficients; {@link CostModel.stepMs} is allocation-free. */
export class CostModel {
  /** ms per new token for the decoder-layer GEMMs (at the large-GEMM efficiency). */
  private readonly layerMsPerToken: number;
  /** ms per sampled token for the LM head. */
  private readonly headMsPerSample: number;
  /** ms per prefill attention token pair. */
  private readonly attnMsPerPair: number;
  /** ms to read the weights a step over this many new tokens touches (for MoE, only the routed experts). */
  private readonly weightsMs: (numTokens: number) => number;
  /** ms per token of activation traffic between the GEMMs. */
  private readonly actMsPerToken: number;
  /** ms per KV token read or written by prefill attention / by decode attention. */
  private readonly kvMsPerTokenPrefill: number;
  private readonly kvMsPerTokenDecode: number;
  private readonly fixedMs: number;
  private readonly reqMs: number;
  private readonly sampleReqMs: number;
  /** ms per new token for the all-reduce payload, and fixed ms for the all-reduce calls. */
  private readonly arMsPerToken: number;
  private readonly arFixedMs: number;
  /** pad[n] = CUDA-graph size a batch of n tokens runs at (n ≤ max capture size). */
  private readonly pad: Int32Array;

  constructor(
    model: ModelSpec,
    gpu: GpuSpec,
    tp: number,
    dtype: WeightDtype,
    kvCacheDtype: KvCacheDtype,
    opts: CostOptions = {},
    overrides: CostOverrides = {},
  ) {
    const acc = modelAccounting(model, dtype, kvCacheDtype);
    const L = model.num_hidden_layers;
    const h = model.hidden_size;
    const eta = overrides.etaGemm ?? gemmEfficiency(gpu);
    const kCompute = overrides.kCompute ?? K_COMPUTE;
    const kWeights = overrides.kWeights ?? K_WEIGHTS;
    const kMoe = overrides.kMoeExperts ?? K_MOE_EXPERTS;
    const kTp = overrides.kTpComm ?? K_TP_COMM;
    const bf16 = gpu.bf16Tflops * 1e12 * eta;
    let layerFlopsPerS = bf16;
    let deq = 0;
    if (dtype === 'fp8') {
      if (gpu.fp8Units && gpu.fp8Tflops) layerFlopsPerS = gpu.fp8Tflops * 1e12 * eta;
      else deq = DEQUANT_OVERHEAD.fp8WeightOnly;
    } else if (dtype === 'int4') {
      deq = DEQUANT_OVERHEAD.int4;
    }
    this.layerMsPerToken =
      ((kCompute * 2 * activeLayerParams(model) * (1 + deq)) / layerFlopsPerS / tp) * 1e3;
    this.headMsPerSample = ((kCompute * 2 * acc.lmHeadParams) / bf16 / tp) * 1e3;
    const attnFlops = gpu.bf16Tflops * 1e12 * (overrides.etaAttnPrefill ?? ETA_ATTN_PREFILL);
    this.attnMsPerPair =
      ((kCompute * 4 * L * model.num_attention_heads * model.head_dim) / attnFlops / tp) * 1e3;
    const bw = gpu.bandwidthTBps * 1e12 * (overrides.etaBw ?? ETA_BW);
    const headBytes = acc.lmHeadParams * 2; // the LM head stays 16-bit, as in modelAccounting
    const bpw = BYTES_PER_WEIGHT[dtype];
    this.weightsMs = (n) => {
      const experts = expertWeightBytesReadPerStep(model, bpw, n);
      const dense = layerWeightBytesReadPerStep(model, bpw, n) - experts + headBytes;
      return ((kWeights * dense + kMoe * experts) / tp / bw) * 1e3;
    };
    const actBytes = L * 2 * (ACT_TRAFFIC_H * h + ACT_TRAFFIC_I * model.intermediate_size);
    this.actMsPerToken = (actBytes / tp / bw) * 1e3;
    // vLLM replicates KV heads when tp > num_key_value_heads, so each GPU holds at least one.
    const kvHeadsPerGpu = Math.max(1, model.num_key_value_heads / tp);
    const kvPerTokenPerGpu = (acc.kvBytesPerToken / model.num_key_value_heads) * kvHeadsPerGpu;
    this.kvMsPerTokenPrefill = (kvPerTokenPerGpu / bw) * 1e3;
    const etaDec = overrides.etaBwAttnDecode ?? ETA_BW_ATTN_DECODE;
    this.kvMsPerTokenDecode =
      (((overrides.kKvDecode ?? K_KV_DECODE) * kvPerTokenPerGpu) / (gpu.bandwidthTBps * 1e12 * etaDec)) * 1e3;
    this.fixedMs =
      (overrides.tStepMs ?? T_STEP_MS) +
      (overrides.tLayerMs ?? T_LAYER_MS) * L +
      (overrides.tMoeLayerMs ?? T_MOE_LAYER_MS) * sparseLayerCount(model) +
      (overrides.tSampleMs ?? T_SAMPLE_MS);
    this.reqMs = overrides.tReqMs ?? T_REQ_MS;
    this.sampleReqMs = overrides.tSampleReqMs ?? T_SAMPLE_REQ_MS;
    if (tp > 1) {
      const link = gpu.interconnect.bandwidthGBps * 1e9;
      const ring = (2 * (tp - 1)) / tp;
      this.arMsPerToken = ((kTp * 2 * L * ring * h * ACT_BYTES) / link) * 1e3;
      this.arFixedMs = kTp * 2 * L * gpu.interconnect.latencyUs * 1e-3;
    } else {
      this.arMsPerToken = 0;
      this.arFixedMs = 0;
    }
    const sizes = cudagraphCaptureSizes(opts.maxNumSeqs ?? 256);
    const max = sizes[sizes.length - 1];
    this.pad = new Int32Array(max + 1);
    let k = 0;
    for (let n = 1; n <= max; n++) {
      while (sizes[k] < n) k++;
      this.pad[n] = sizes[k];
    }
  }

  /** Tokens a batch of `n` runs at: its CUDA-graph size, else itself. */
  paddedTokens(n: number): number {
    return n < this.pad.length ? this.pad[n] : n;
  }

  /** Duration of one step, ms. */
  stepMs(s: StepShape): number {
    if (s.numReqs === 0) return 0;
    return this.parts(s, null);
  }

  /** Same as {@link stepMs} with its parts, for docs and diagnostics. */
  breakdown(s: StepShape): StepCost {
    const out: StepCost = {
      gemmMs: 0,
      gemmComputeMs: 0,
      weightsMs: 0,
      activationMs: 0,
      prefillAttnMs: 0,
      decodeAttnMs: 0,
      overheadMs: 0,
      allReduceMs: 0,
      paddedTokens: 0,
      totalMs: 0,
    };
    if (s.numReqs === 0) return out;
    out.totalMs = this.parts(s, out);
    return out;
  }

  /**
   * The cost model: every kernel group runs one after another, so their times add; within a
   * group, compute and memory time combine by the p-norm {@link KNEE_P}.
   */
  private parts(s: StepShape, out: StepCost | null): number {
    const padded = this.paddedTokens(s.numTokens);
    // Tile quantisation: a GEMM over M rows costs ⌈M/16⌉·16 rows of compute.
    const rows = Math.ceil(padded / GEMM_TILE_TOKENS) * GEMM_TILE_TOKENS;
    const headRows = Math.ceil(s.numSampled / GEMM_TILE_TOKENS) * GEMM_TILE_TOKENS;
    const gemmC = rows * this.layerMsPerToken + headRows * this.headMsPerSample;
    const weightsMs = this.weightsMs(s.numTokens);
    const gemm = knee(gemmC, weightsMs);
    const act = padded * this.actMsPerToken;
    const prefillTokens = s.numTokens - s.numDecodes;
    const prefillCtx = s.ctxTokens - s.decodeCtxTokens;
    const decodePairs = s.decodeCtxTokens + s.numDecodes / 2;
    const prefillAttn =
      prefillTokens > 0
        ? knee(
            (s.attnPairs - decodePairs) * this.attnMsPerPair,
            (prefillCtx + prefillTokens) * this.kvMsPerTokenPrefill,
          )
        : 0;
    const decodeAttn =
      s.numDecodes > 0
        ? knee(decodePairs * this.attnMsPerPair, (s.decodeCtxTokens + s.numDecodes) * this.kvMsPerTokenDecode)
        : 0;
    const overhead = this.fixedMs + this.reqMs * s.numReqs + this.sampleReqMs * s.numSampled;
    const ar = this.arFixedMs + padded * this.arMsPerToken;
    const total = gemm + act + prefillAttn + decodeAttn + overhead + ar;
    if (out) {
      out.gemmMs = gemm;
      out.gemmComputeMs = gemmC;
      out.weightsMs = weightsMs;
      out.activationMs = act;
      out.prefillAttnMs = prefillAttn;
      out.decodeAttnMs = decodeAttn;
      out.overheadMs = overhead;
      out.allReduceMs = ar;
      out.paddedTokens = padded;
    }
    return total;
  }
}
