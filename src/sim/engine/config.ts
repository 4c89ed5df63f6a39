/**
 * @module sim/engine/config
 * Engine configuration: vLLM's flags (camelCase) resolved against the catalogue into a
 * validated {@link EngineConfig}, including vLLM's memory sizing of the KV cache
 * (`vllm-project/vllm:vllm/v1/core/kv_cache_utils.py`):
 *
 * ```
 * kv_GiB     = memory_GiB × gpu_memory_utilization − weights_GiB/tp − activation − non_torch
 * num_blocks = ⌊kv_GiB·2³⁰ / (block_size × KV bytes per token per GPU)⌋
 * ```
 */
import { UsageError } from '../../core/errors.js';
import type { CalibrationProfile } from '../calibrate/calibration-file.js';
import { defaultCatalogue } from '../catalogue/index.js';
import type { GpuSpec, ModelSpec } from '../catalogue/types.js';
import type { KvCacheDtype, WeightDtype } from '../config/vocab.js';
import { checkSimOptions, type EngineOptions, type SimLayerValues } from '../settings.js';
import { BYTES_PER_WEIGHT, modelAccounting } from './cost.js';
import { type ProfileConfig, resolveProfile } from './profiles.js';
import { resolveSpeculative, type SpeculativeSpec } from './speculative.js';

const GIB = 1024 ** 3;

/**
 * Activation memory outside the KV cache, per GPU, as vLLM's profiling run measures it: before
 * sizing the KV cache, vLLM runs one dummy forward pass over `max_num_batched_tokens` tokens and
 * a dummy sampler pass over `max_num_seqs` requests, and takes the peak of torch memory above
 * the weights as the activation reserve (`vllm-project/vllm:vllm/v1/worker/gpu_model_runner.py`
 * `profile_run`, `_dummy_run`, `_dummy_sampler_run`; `vllm/v1/worker/gpu_worker.py`
 * `determine_available_memory`). The peak of a decoder layer is its MLP (gate_up output 2·I/tp
 * plus the SiluAndMul output I/tp, 16-bit) alongside a few hidden-size tensors (residual, input,
 * attention output, normed input: 4·h) and the qkv projection output; the sampler's peak is the
 * fp32 logits plus their softmax, full vocabulary on every rank (`LogitsProcessor` gathers):
 *
 * ```
 * activation = T·2 B·(3·I/tp + 4·h + (nh + 2·nkv)·d/tp) + S·V·4 B·2 + ACTIVATION_FIXED_GIB
 * ```
 * T = max_num_batched_tokens, S = max_num_seqs.
 */
export function activationFor(
  model: ModelSpec,
  tp: number,
  maxNumBatchedTokens: number,
  maxNumSeqs: number,
): number {
  const h = model.hidden_size;
  const perToken =
    2 *
    ((3 * model.intermediate_size) / tp +
      4 * h +
      ((model.num_attention_heads + 2 * model.num_key_value_heads) * model.head_dim) / tp);
  const sampler = maxNumSeqs * model.vocab_size * 4 * 2;
  return (maxNumBatchedTokens * perToken + sampler) / GIB + ACTIVATION_FIXED_GIB;
}
/**
 * Memory the profiling run's peak leaves out but the engine still takes, GiB: the CUDA-graph pool
 * vLLM captures after profiling (it logs "Graph capturing finished … took 0.3–0.6 GiB" for 8B
 * models) and allocator fragmentation. 0.5 is our assumption inside that range.
 */
export const ACTIVATION_FIXED_GIB = 0.5;
/** Non-torch memory (CUDA context, NCCL buffers), GiB: BLIS 0.15 at tp=1, 0.6 at tp>1. */
export const NON_TORCH_GIB_TP1 = 0.15;
export const NON_TORCH_GIB_TP = 0.6;

/** How the simulated GPU memory is split (per GPU, GiB). */
export interface MemoryPlan {
  totalGiB: number;
  /** Weights resident on each GPU. */
  weightsGiB: number;
  activationGiB: number;
  nonTorchGiB: number;
  /** Memory given to the KV cache. */
  kvCacheGiB: number;
  /** KV bytes per token on one GPU. */
  kvBytesPerTokenPerGpu: number;
  numGpuBlocks: number;
  /** numGpuBlocks × blockSize: vLLM's "GPU KV cache size: N tokens". */
  kvCapacityTokens: number;
}

/**
 * A validated, fully resolved engine configuration: the engine settings that are used as given
 * (their types are the schema's, `sim/settings`), and what is resolved against the catalogue and
 * the GPU (the model and GPU, the batch limits and context length vLLM defaults from them, the
 * memory plan, the profile's scheduling settings).
 */
export interface EngineConfig
  extends Pick<
    SimLayerValues<'engine'>,
    | 'tp'
    | 'dtype'
    | 'kvCacheDtype'
    | 'blockSize'
    | 'gpuMemoryUtilization'
    | 'enablePrefixCaching'
    | 'coldStartMs'
    | 'apiServerCount'
    | 'recordSteps'
  > {
  model: ModelSpec;
  gpu: GpuSpec;
  /** `--max-num-seqs`, or vLLM's default for the GPU ({@link vllmBatchDefaults}). */
  maxNumSeqs: number;
  /**
   * The step token budget: `--max-num-batched-tokens` or vLLM's default for the GPU, as the
   * profile resolves it (vLLM v0 without chunked prefill: at least the context).
   */
  maxNumBatchedTokens: number;
  /** `--max-model-len`, or the model's context length capped by the KV cache's capacity. */
  maxModelLen: number;
  memory: MemoryPlan;
  /** The engine impersonated (`--engine`) and its scheduling settings. */
  profile: ProfileConfig;
  /** The calibration profile whose constants replace the cost model's defaults (`--profile`), or null. */
  calibration: CalibrationProfile | null;
  /** `--speculative-config`, resolved (`sim/engine/speculative`), or null when off. */
  speculative: SpeculativeSpec | null;
}

/** vLLM's batch defaults (`EngineArgs.get_batch_defaults`, API-server column). */
export function vllmBatchDefaults(gpu: GpuSpec): { maxNumSeqs: number; maxNumBatchedTokens: number } {
  const big = gpu.memoryGiB >= 70 && !gpu.deviceName.toLowerCase().includes('a100');
  return big
    ? { maxNumSeqs: 1024, maxNumBatchedTokens: 8192 }
    : { maxNumSeqs: 256, maxNumBatchedTokens: 2048 };
}

/**
 * Validate engine flags and resolve them into an {@link EngineConfig}. Throws a
 * {@link UsageError} listing every problem, each with a hint (unknown names list the valid ones;
 * a model that does not fit suggests `--tp` or `--dtype fp8`). Each flag's own range is the
 * setting's (`sim/settings`); what depends on the model and GPU is checked here.
 */
export function resolveEngineConfig(opts: EngineOptions): EngineConfig {
  const cat = opts.catalogue ?? defaultCatalogue();
  const { values: v, problems } = checkSimOptions(opts, 'engine');
  const model = cat.models[v.model?.toLowerCase() ?? ''];
  const gpu = cat.gpus[v.gpu?.toLowerCase() ?? ''];
  if (!model && v.model !== undefined) {
    problems.push({
      path: '--model',
      message: `unknown model "${v.model}"`,
      hint: `one of: ${Object.keys(cat.models).join(', ')} (or add it with a catalogue file)`,
    });
  }
  if (!gpu && v.gpu !== undefined) {
    problems.push({
      path: '--gpu',
      message: `unknown GPU "${v.gpu}"`,
      hint: `one of: ${Object.keys(cat.gpus).join(', ')} (or add it with a catalogue file)`,
    });
  }
  const tp = v.tp;
  if (tp !== undefined && model && model.num_attention_heads % tp !== 0) {
    problems.push({
      path: '--tp',
      message: `${model.num_attention_heads} attention heads are not divisible by ${tp}`,
      hint: 'use a tensor-parallel size that divides the number of heads (1, 2, 4, 8)',
    });
  }
  const defaults = gpu ? vllmBatchDefaults(gpu) : { maxNumSeqs: 256, maxNumBatchedTokens: 2048 };
  const maxNumSeqs = v.max_num_seqs ?? defaults.maxNumSeqs;
  const maxNumBatchedTokens = v.max_num_batched_tokens ?? defaults.maxNumBatchedTokens;
  const badFlags = new Set(problems.map((p) => p.path));
  if (
    !badFlags.has('--max-num-seqs') &&
    !badFlags.has('--max-num-batched-tokens') &&
    maxNumBatchedTokens < maxNumSeqs
  ) {
    // vLLM's SchedulerConfig rejects this too: a step could not give every running sequence a token.
    problems.push({
      path: '--max-num-batched-tokens',
      message: `${maxNumBatchedTokens} is smaller than --max-num-seqs ${maxNumSeqs}`,
      hint: `raise it to at least ${maxNumSeqs} or lower --max-num-seqs`,
    });
  }
  if (
    opts.numGpuBlocksOverride !== undefined &&
    !(Number.isInteger(opts.numGpuBlocksOverride) && opts.numGpuBlocksOverride > 0)
  ) {
    problems.push({
      path: '--num-gpu-blocks-override',
      message: `must be a positive integer, got ${opts.numGpuBlocksOverride}`,
      hint: 'e.g. 1000',
    });
  }
  if (model && v.max_model_len !== undefined && v.max_model_len > model.max_position_embeddings) {
    problems.push({
      path: '--max-model-len',
      message: `${v.max_model_len} exceeds the model's max_position_embeddings (${model.max_position_embeddings})`,
      hint: `use at most ${model.max_position_embeddings}`,
    });
  }
  const { dtype, kv_cache_dtype: kvCacheDtype, block_size: blockSize, gpu_memory_utilization: util } = v;
  const { cold_start_ms: coldStartMs, enable_prefix_caching: enablePrefixCaching } = v;
  const apiServerCount = v.api_server_count ?? 1;
  if (
    problems.length ||
    !model ||
    !gpu ||
    tp === undefined ||
    dtype === undefined ||
    kvCacheDtype === undefined ||
    blockSize === undefined ||
    util === undefined ||
    coldStartMs === undefined ||
    enablePrefixCaching === undefined
  )
    throw new UsageError(problems);

  const batch = { maxNumBatchedTokens, maxNumSeqs };
  const memory = planMemory(
    model,
    gpu,
    tp,
    dtype,
    kvCacheDtype,
    util,
    blockSize,
    opts.numGpuBlocksOverride,
    batch,
  );
  if (memory.numGpuBlocks < 1) {
    // Suggest only changes that make it fit: the smallest larger tp, then lighter weights.
    const fits = (t: number, d: WeightDtype) =>
      model.num_attention_heads % t === 0 &&
      planMemory(model, gpu, t, d, kvCacheDtype, util, blockSize, undefined, batch).numGpuBlocks > 0;
    const hints: string[] = [];
    const tpFix = [2, 4, 8].find((t) => t > tp && fits(t, dtype));
    if (tpFix) hints.push(`--tp ${tpFix}`);
    const dtFix = (['fp8', 'int4'] as const).find(
      (d) => BYTES_PER_WEIGHT[d] < BYTES_PER_WEIGHT[dtype] && fits(tp, d),
    );
    if (dtFix) hints.push(`--dtype ${dtFix}`);
    if (
      util < 0.95 &&
      planMemory(model, gpu, tp, dtype, kvCacheDtype, 0.95, blockSize, undefined, batch).numGpuBlocks > 0
    )
      hints.push('--gpu-memory-utilization 0.95');
    throw new UsageError([
      {
        path: '--model',
        message:
          `${model.name} does not fit on ${tp}× ${gpu.name}: ${memory.totalGiB.toFixed(1)} GiB × ${util} leaves ` +
          `${memory.kvCacheGiB.toFixed(1)} GiB for the KV cache after ${memory.weightsGiB.toFixed(1)} GiB of weights ` +
          `and ${(memory.activationGiB + memory.nonTorchGiB).toFixed(1)} GiB of activations`,
        hint: hints.length
          ? `try ${hints.join(' or ')}`
          : 'no setting of --tp (up to 8) or --dtype fits it: choose a GPU with more memory',
      },
    ]);
  }
  let maxModelLen = v.max_model_len ?? Math.min(model.max_position_embeddings, memory.kvCapacityTokens);
  if (v.max_model_len !== undefined && v.max_model_len > memory.kvCapacityTokens) {
    throw new UsageError([
      {
        path: '--max-model-len',
        message: `${v.max_model_len} tokens need more KV cache than the ${memory.kvCapacityTokens} tokens available`,
        hint: `use --max-model-len ${memory.kvCapacityTokens} or less, or raise --gpu-memory-utilization / --tp`,
      },
    ]);
  }
  maxModelLen = Math.max(1, maxModelLen);
  const { profile, maxNumBatchedTokens: budget } = resolveProfile(
    v,
    gpu,
    maxModelLen,
    maxNumBatchedTokens,
    model.max_position_embeddings,
  );
  // llama.cpp: a request's context is its slot's, and the slots are the batch's limit.
  if (profile.llamacpp) maxModelLen = profile.llamacpp.nCtxSlot;
  const speculative = resolveSpeculative(v.speculative_config, model, cat, profile.engine);
  return {
    model,
    gpu,
    tp,
    dtype,
    kvCacheDtype,
    maxNumSeqs: profile.llamacpp?.parallel ?? maxNumSeqs,
    maxNumBatchedTokens: budget,
    blockSize,
    gpuMemoryUtilization: util,
    maxModelLen,
    enablePrefixCaching,
    coldStartMs,
    apiServerCount,
    recordSteps: v.record_steps ?? false,
    memory,
    profile,
    calibration: opts.calibration ?? null,
    speculative,
  };
}

/** vLLM's KV-cache sizing for one GPU of the tensor-parallel group. */
export function planMemory(
  model: ModelSpec,
  gpu: GpuSpec,
  tp: number,
  dtype: WeightDtype,
  kvCacheDtype: KvCacheDtype,
  gpuMemoryUtilization: number,
  blockSize: number,
  numGpuBlocksOverride?: number,
  batch: { maxNumBatchedTokens: number; maxNumSeqs: number } = {
    maxNumBatchedTokens: 8192,
    maxNumSeqs: 1024,
  },
): MemoryPlan {
  const acc = modelAccounting(model, dtype, kvCacheDtype);
  const weightsGiB = acc.weightBytes / tp / GIB;
  const nonTorchGiB = tp > 1 ? NON_TORCH_GIB_TP : NON_TORCH_GIB_TP1;
  const activationGiB = activationFor(model, tp, batch.maxNumBatchedTokens, batch.maxNumSeqs);
  const kvCacheGiB = gpu.memoryGiB * gpuMemoryUtilization - weightsGiB - activationGiB - nonTorchGiB;
  const kvHeadsPerGpu = Math.max(1, model.num_key_value_heads / tp);
  const kvBytesPerTokenPerGpu = (acc.kvBytesPerToken / model.num_key_value_heads) * kvHeadsPerGpu;
  const numGpuBlocks =
    numGpuBlocksOverride ?? Math.max(0, Math.floor((kvCacheGiB * GIB) / (blockSize * kvBytesPerTokenPerGpu)));
  return {
    totalGiB: gpu.memoryGiB,
    weightsGiB,
    activationGiB,
    nonTorchGiB,
    kvCacheGiB: numGpuBlocksOverride ? (numGpuBlocks * blockSize * kvBytesPerTokenPerGpu) / GIB : kvCacheGiB,
    kvBytesPerTokenPerGpu,
    numGpuBlocks,
    kvCapacityTokens: numGpuBlocks * blockSize,
  };
}

/**
 * vLLM's start-up lines about memory, for `servelab sim` logs and `plan` summaries, e.g.
 * `GPU KV cache size: 418,400 tokens` and `Maximum concurrency for 131,072 tokens per request: 3.19x`.
 */
export function describeEngine(cfg: EngineConfig): string[] {
  const m = cfg.memory;
  const n = (x: number) => x.toLocaleString('en-US');
  return [
    `${cfg.model.name} (${cfg.model.hf_id}) on ${cfg.tp}× ${cfg.gpu.name}, dtype ${cfg.dtype}, kv-cache-dtype ${cfg.kvCacheDtype}`,
    `Model weights take ${m.weightsGiB.toFixed(2)} GiB per GPU; activation reserve ${m.activationGiB.toFixed(2)} GiB; ` +
      `KV cache ${m.kvCacheGiB.toFixed(2)} GiB (gpu_memory_utilization ${cfg.gpuMemoryUtilization})`,
    `GPU KV cache size: ${n(m.kvCapacityTokens)} tokens (${n(m.numGpuBlocks)} blocks of ${cfg.blockSize})`,
    `Maximum concurrency for ${n(cfg.maxModelLen)} tokens per request: ${(m.kvCapacityTokens / cfg.maxModelLen).toFixed(2)}x`,
    `max_num_seqs ${cfg.maxNumSeqs}, max_num_batched_tokens ${cfg.maxNumBatchedTokens}, ` +
      `prefix caching ${cfg.enablePrefixCaching ? 'on' : 'off'}`,
    ...profileLines(cfg),
    ...(cfg.speculative ? [speculativeLine(cfg.speculative)] : []),
  ];
}

/** The speculative-decoding line: method, k, and the acceptance simulated (accepted / drafted). */
function speculativeLine(s: SpeculativeSpec): string {
  const a = s.conditional;
  const rate = a
    ? `acceptance ${(a.reduce((acc, _, i) => acc + a.slice(0, i + 1).reduce((p, x) => p * x, 1), 0) / a.length).toFixed(2)} of drafted tokens`
    : `acceptance from each prompt's repeated ${s.lookupMin === s.lookupMax ? s.lookupMin : `${s.lookupMin}-${s.lookupMax}`}-grams (prompts of synthetic words: a published prior per position)`;
  const draft = s.draftModel && s.method === 'draft_model' ? `, draft model ${s.draftModel.name}` : '';
  return `speculative decoding: ${s.method}, ${s.k} draft tokens per step${draft}, ${rate}`;
}

/** The scheduling line of a profile other than the default vllm-v1 (whose lines are unchanged). */
function profileLines(cfg: EngineConfig): string[] {
  const p = cfg.profile;
  if (p.engine === 'vllm-v0')
    return [
      `engine vllm-v0: chunked prefill ${p.enableChunkedPrefill ? 'on' : 'off'}, num_scheduler_steps ${p.numSchedulerSteps}`,
    ];
  if (p.engine === 'sglang')
    return [
      `engine sglang: schedule_policy ${p.schedulePolicy}, chunked_prefill_size ${p.chunkedPrefillSize} (max_num_batched_tokens is not read), radix cache ${cfg.enablePrefixCaching ? 'on' : 'off'}`,
    ];
  if (p.llamacpp) {
    const l = p.llamacpp;
    return [
      `engine llamacpp: ${l.parallel} slots (-np) of ${l.nCtxSlot} tokens (-c ${l.nCtx}), batch ${l.batchSize} (-b), ` +
        `cache-ram ${l.cacheRamMiB} MiB, continuous batching ${l.contBatching ? 'on' : 'off'}`,
    ];
  }
  return [];
}
