/**
 * @module sim/engine/profiles
 * The engines the simulator can impersonate (`--engine`) and the scheduling settings each one
 * reads. A profile picks the scheduler policy (`policies/`), the prefix cache (vLLM's hashed
 * blocks or SGLang's radix tree), and on the server side the `/metrics` names, routes and wire
 * format. `vllm-v1` is the default and is what the simulator always was.
 */
import { UsageError } from '../../core/errors.js';
import type { GpuSpec } from '../catalogue/types.js';
import type { EngineProfile, SchedulePolicyName } from '../config/vocab.js';

/** The resolved scheduling settings of a profile (part of `EngineConfig`). */
export interface ProfileConfig {
  engine: EngineProfile;
  /** vllm-v0 only: chunked prefill (v1 always chunks; SGLang chunks by `chunkedPrefillSize`). */
  enableChunkedPrefill: boolean;
  /** vllm-v0 only: decode steps per schedule (`--num-scheduler-steps`); 1 elsewhere. */
  numSchedulerSteps: number;
  /** sglang only: waiting-queue order. */
  schedulePolicy: SchedulePolicyName;
  /** sglang only: most prompt tokens per prefill step. */
  chunkedPrefillSize: number;
  /** llamacpp only: the server's slots and their context ({@link LlamaCppSlots}); null elsewhere. */
  llamacpp: LlamaCppSlots | null;
}

/** llama.cpp's slot settings, resolved (`-np`, `-c`, `-b`, `--cache-ram`, `--cont-batching`). */
export interface LlamaCppSlots {
  /** `-np`: slots, the most requests running at once. */
  parallel: number;
  /** `-c` as the server runs it: `nCtxSlot × parallel`. */
  nCtx: number;
  /** Tokens one slot holds (prompt and output): `n_ctx_seq`, capped at the model's training context. */
  nCtxSlot: number;
  /** `-b`: most tokens of one llama_decode. */
  batchSize: number;
  /** `--cache-ram` MiB (0: no RAM prompt cache). */
  cacheRamMiB: number;
  contBatching: boolean;
  /** `--slot-prompt-similarity` (llama.cpp's default 0.1, not a setting here). */
  slotPromptSimilarity: number;
}

/** llama.cpp's default `-np` (auto: 4 slots). */
export const LLAMACPP_DEFAULT_PARALLEL = 4;

const pad256 = (n: number) => Math.ceil(n / 256) * 256;

/**
 * A slot's context as llama.cpp sizes it without a unified KV cache
 * (ggml-org/llama.cpp `src/llama-context.cpp`, `llama_context` constructor): `n_ctx` is padded to
 * a multiple of 256, split between the slots, and each slot's share padded to 256 again
 * (`-c 8192 -np 4` → 2048 per slot; `-c 512 -np 4` → 256, and `n_ctx` becomes 1024); the server
 * then caps a slot at the model's training context (`tools/server/server-context.cpp`
 * `n_ctx_slot`).
 */
export function llamaCppSlotContext(ctxSize: number, parallel: number, nCtxTrain: number): number {
  return Math.min(pad256(pad256(ctxSize) / parallel), nCtxTrain);
}

/**
 * SGLang's default `--chunked-prefill-size` for a GPU
 * (`sgl-project/sglang:python/sglang/srt/server_args.py`): 2048 under 35 GB, 8192 under 160 GB,
 * else 16384.
 */
export function sglangChunkedPrefillSize(gpu: GpuSpec): number {
  const gb = (gpu.memoryGiB * 1024 ** 3) / 1e9;
  return gb < 35 ? 2048 : gb < 160 ? 8192 : 16384;
}

/**
 * vLLM v0's default `max_num_batched_tokens` without chunked prefill
 * (`vllm-project/vllm:vllm/config.py` `SchedulerConfig`, v0.10): a whole prompt must fit one
 * step, so max(max_model_len, 2048).
 */
export function vllmV0BatchedTokens(maxModelLen: number): number {
  return Math.max(maxModelLen, 2048);
}

/** The settings `resolveProfile` reads (snake_case, as validated by `sim/settings`). */
export interface ProfileSettings {
  engine?: EngineProfile;
  enable_chunked_prefill?: boolean;
  num_scheduler_steps?: number;
  schedule_policy?: SchedulePolicyName;
  chunked_prefill_size?: number;
  max_num_batched_tokens?: number;
  parallel?: number;
  ctx_size?: number;
  batch_size?: number;
  cache_ram?: number;
  cont_batching?: boolean;
}

/**
 * A profile's scheduling settings, and the step token budget it runs with: vLLM v0 without
 * chunked prefill must fit a whole prompt in one step, so its default budget is
 * max(max_model_len, 2048) and a smaller one is refused, as v0's `SchedulerConfig` does.
 * @throws UsageError for a budget v0 cannot run with.
 */
export function resolveProfile(
  v: ProfileSettings,
  gpu: GpuSpec,
  maxModelLen: number,
  maxNumBatchedTokens: number,
  nCtxTrain = maxModelLen,
): { profile: ProfileConfig; maxNumBatchedTokens: number } {
  const engine = v.engine ?? 'vllm-v1';
  const chunked = v.enable_chunked_prefill ?? false;
  const profile: ProfileConfig = {
    engine,
    enableChunkedPrefill: engine === 'vllm-v1' || (engine === 'vllm-v0' && chunked),
    numSchedulerSteps: engine === 'vllm-v0' ? (v.num_scheduler_steps ?? 1) : 1,
    schedulePolicy: v.schedule_policy ?? 'fcfs',
    chunkedPrefillSize: v.chunked_prefill_size ?? sglangChunkedPrefillSize(gpu),
    llamacpp: null,
  };
  if (engine === 'llamacpp') {
    const parallel = v.parallel ?? LLAMACPP_DEFAULT_PARALLEL;
    const nCtxSlot = llamaCppSlotContext(v.ctx_size ?? nCtxTrain, parallel, nCtxTrain);
    profile.llamacpp = {
      parallel,
      nCtx: nCtxSlot * parallel,
      nCtxSlot,
      batchSize: v.batch_size ?? 2048,
      cacheRamMiB: v.cache_ram ?? 8192,
      contBatching: v.cont_batching ?? true,
      slotPromptSimilarity: 0.1,
    };
    return { profile, maxNumBatchedTokens: profile.llamacpp.batchSize };
  }
  let budget = maxNumBatchedTokens;
  if (engine === 'vllm-v0' && !chunked) {
    if (v.max_num_batched_tokens === undefined) budget = vllmV0BatchedTokens(maxModelLen);
    else if (v.max_num_batched_tokens < maxModelLen)
      throw new UsageError([
        {
          path: '--max-num-batched-tokens',
          message: `${v.max_num_batched_tokens} is smaller than max_model_len ${maxModelLen}: without chunked prefill vLLM v0 prefills a whole prompt in one step`,
          hint: `add --enable-chunked-prefill, or raise it to ${maxModelLen}, or lower --max-model-len`,
        },
      ]);
  }
  return { profile, maxNumBatchedTokens: budget };
}
