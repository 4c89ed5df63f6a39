/**
 * @module sim/config/vocab
 * The simulator's configuration vocabularies: the values a setting may take where they are a
 * fixed list (weight and KV cache dtypes, engine profiles, schedule policies, block sizes, the
 * reasoning field's names, the error shapes, where transcriptions run) and the server's default
 * limits. They sit below everything that reads them: `sim/settings` declares the settings with
 * them, and the engine, the server and the calibration profiles name the same lists, so a new
 * value is added in one place.
 */

/** Weight precisions the cost model knows (`int4`: AWQ/GPTQ-style weight-only). */
export const WEIGHT_DTYPES = ['bf16', 'fp16', 'fp8', 'int4'] as const;
export type WeightDtype = (typeof WEIGHT_DTYPES)[number];
/** KV cache precisions: `auto` is the 16-bit cache. */
export const KV_CACHE_DTYPES = ['auto', 'fp8'] as const;
export type KvCacheDtype = (typeof KV_CACHE_DTYPES)[number];

/** `--engine` values. */
export const ENGINE_PROFILES = ['vllm-v1', 'vllm-v0', 'sglang', 'llamacpp'] as const;
export type EngineProfile = (typeof ENGINE_PROFILES)[number];

/** SGLang's `--schedule-policy` values that the simulator models. */
export const SCHEDULE_POLICIES = ['fcfs', 'lpm'] as const;
export type SchedulePolicyName = (typeof SCHEDULE_POLICIES)[number];

/** vLLM's block sizes (`--block-size`). */
export const BLOCK_SIZES: readonly number[] = [1, 8, 16, 32, 64, 128];
/** Names of the reasoning delta field: SGLang's and older vLLM's, and newer vLLM's. */
export const REASONING_FIELDS = ['reasoning_content', 'reasoning'] as const;
/** Whose context-length errors the simulator answers with (`--context-error`). */
export const CONTEXT_ERROR_SHAPES = ['vllm', 'llamacpp'] as const;
/** Where the simulator's transcriptions run (`--asr-gpu`): on the LLM's GPU, or on one of their own. */
export const ASR_GPU_MODES = ['colocated', 'separate'] as const;

/**
 * Largest request body by default: 10 MiB. A prompt that fills a 128k-token context is about
 * 0.5 MB of text, so 10 MiB leaves room for token-id prompts and long chat histories while a
 * runaway client is refused at once. (nginx, often put in front of vLLM, is stricter:
 * `client_max_body_size` defaults to 1 MiB; vLLM's uvicorn sets no limit.)
 */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
