/**
 * @module sim/settings
 * Every setting of the simulator, declared once: its key (snake_case, as an experiment file's
 * `sim:` section writes it), type and range (a zod schema), default, unit and a one-sentence
 * description. Derived from it:
 *
 * - the `servelab sim` and `servelab plan` flags (the key in kebab-case: `--max-num-seqs`) and
 *   their `--help` ({@link simFlags}), and their validation ({@link parseSimSettings});
 * - the `sim:` section of an experiment file ({@link simSettingsSchema}`('file')`);
 * - the camelCase options of `startSimServer` / `resolveEngineConfig` ({@link SimLayerOptions},
 *   {@link EngineOptions}, {@link SimServerOptions}, {@link toSimServerOptions}), their
 *   validation ({@link checkSimOptions}) and the server's resolved options
 *   ({@link ResolvedServerOptions}, from {@link SimLayerValues});
 * - the settings table of docs/sim.md ({@link simSettingsTable}).
 *
 * The value lists and the fault grammar the settings use come from `sim/config/`, which sits
 * below this table; the engine and the server import this module, never the reverse.
 *
 * Names follow vLLM's engine arguments where vLLM has the setting
 * (https://docs.vllm.ai/en/latest/configuration/engine_args.html).
 */
import { z } from 'zod';
import { type Problem, UsageError } from '../core/errors.js';
import { bool, err, fraction, nonNegInt, nonNegNum, oneOf, posInt, posNum, str } from '../core/fields.js';
import { type T as Translate, translator } from '../i18n/index.js';
import { type CalibrationProfile, loadCalibrationProfile } from './calibrate/calibration-file.js';
import { BUILTIN_GPUS, BUILTIN_MODELS } from './catalogue/builtin.js';
import { defaultCatalogue, loadCatalogueFile, loadModelConfig } from './catalogue/index.js';
import type { Catalogue } from './catalogue/types.js';
import { FAULT_FORMS, FAULT_PROFILES, type FaultSpec, parseFaults } from './config/faults.js';
import {
  ASR_GPU_MODES,
  BLOCK_SIZES,
  CONTEXT_ERROR_SHAPES,
  DEFAULT_MAX_BODY_BYTES,
  ENGINE_PROFILES,
  KV_CACHE_DTYPES,
  REASONING_FIELDS,
  SCHEDULE_POLICIES,
  WEIGHT_DTYPES,
} from './config/vocab.js';

/** English, for callers (and the file schema) that have no command translator. */
const EN = translator('en');

/** Where a setting is written: the `servelab sim` flags, the `servelab plan` flags, an experiment file's `sim:`. */
export type SimSurface = 'sim' | 'plan' | 'file';
/** Which part of the simulator reads a setting: the engine (`resolveEngineConfig`) or the HTTP server around it. */
export type SimLayer = 'engine' | 'server';
/** A set of settings: those of a surface, or of a layer (the programmatic options). */
export type SimScope = SimSurface | SimLayer;

interface SettingInfo<S extends readonly SimSurface[], L extends SimLayer> {
  surfaces: S;
  layer: L;
  /** One sentence, for `--help`, the docs table and the templates. */
  description: string;
  unit?: string;
  /** The default in words, where it is not one fixed value. */
  defaultText?: string;
  /** A value for templates, where there is no fixed default. */
  example?: string;
  /** The flag's argument, `--tp <n>`; switches (booleans) have none. */
  arg?: string;
  /** The flag when it is not the key in kebab-case. */
  flag?: string;
  /** Another key an experiment file accepts for it (with a warning). */
  alias?: string;
  /** Required in an experiment file, which records what it simulates (the flags have a default). */
  fileRequired?: boolean;
  /** The values in words, where the type does not say them. */
  valueText?: string;
  /** The programmatic option made from the value, where it is not the value itself. */
  toOption?: (value: never) => unknown;
  /**
   * The programmatic options made from the value when it sets others, not an option of its own
   * (`model_config` → `catalogue` and `model`): given the value, the settings (snake_case) and the
   * options made so far. Such a setting has no programmatic option of its own.
   */
  toOptions?: (value: never, settings: Record<string, unknown>, options: Record<string, unknown>) => object;
  /** Settings that, when set, stand in for this one's default (and a file need not write it). */
  defaultFrom?: readonly string[];
}

function setting<T extends z.ZodType, const I extends SettingInfo<readonly SimSurface[], SimLayer>>(
  schema: T,
  info: I,
): I & { schema: T } {
  return { ...info, schema };
}

const EVERYWHERE = ['sim', 'plan', 'file'] as const;
/** The HTTP server's settings: `servelab plan` has no server. */
const SERVED = ['sim', 'file'] as const;

const MODELS = Object.keys(BUILTIN_MODELS);
const GPUS = Object.keys(BUILTIN_GPUS);
const UTILIZATION = 'expected a number in (0, 1]';
const PORT = 'expected an integer from 0 to 65535';

/** A fault list: a YAML list, one fault, or comma-separated (the flag); the grammar is `parseFaults`'. */
const faultList = () =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : v === undefined || v === null || Array.isArray(v)
          ? v
          : [v],
    z.array(str(), err('expected a list')).superRefine((items, ctx) => {
      items.forEach((item, i) => {
        try {
          parseFaults([item]);
        } catch (e) {
          if (!(e instanceof UsageError)) throw e;
          for (const p of e.problems)
            ctx.addIssue({ code: 'custom', path: [i], message: p.message, params: { hint: p.hint } });
        }
      });
    }),
  );

/** vLLM's speculative methods the simulator models (`vllm/config/speculative.py`, `SpeculativeConfig.method`). */
export const SPEC_METHODS = ['ngram', 'eagle', 'eagle3', 'draft_model', 'mtp'] as const;
const SPEC_JSON = 'expected a JSON object, e.g. {"method":"ngram","num_speculative_tokens":4}';

/**
 * `--speculative-config`: vLLM's JSON (a string on the command line, a mapping in a file) with
 * the keys the simulator reads; `acceptance_rate` is servelab's own. vLLM infers `method` from
 * `model` when it is left out ("ngram", else a draft model), and so does this.
 */
const speculativeConfig = () =>
  z.preprocess(
    (v) => {
      if (typeof v !== 'string') return v;
      try {
        return JSON.parse(v);
      } catch {
        return v;
      }
    },
    z
      .strictObject(
        {
          method: oneOf(SPEC_METHODS).optional(),
          num_speculative_tokens: posInt().max(16, err('expected at most 16')),
          model: str().optional(),
          prompt_lookup_min: posInt().optional(),
          prompt_lookup_max: posInt().optional(),
          acceptance_rate: z
            .union(
              [fraction(), z.array(fraction()).min(1)],
              err('expected a number between 0 and 1, or a list of them (one per position)'),
            )
            .optional(),
        },
        err(SPEC_JSON),
      )
      .transform((c) => ({
        ...c,
        method:
          c.method ??
          (c.model === 'ngram' ? ('ngram' as const) : c.model ? ('draft_model' as const) : undefined),
      }))
      .refine(
        (c) => c.method !== undefined,
        err('expected a method (ngram, eagle, eagle3, draft_model, mtp) or a draft model'),
      )
      .refine(
        (c) => c.method !== 'draft_model' || (c.model !== undefined && c.model !== 'ngram'),
        err('method draft_model needs "model": a catalogue model name'),
      )
      .refine(
        (c) =>
          c.prompt_lookup_min === undefined ||
          c.prompt_lookup_max === undefined ||
          c.prompt_lookup_min <= c.prompt_lookup_max,
        err('expected prompt_lookup_min ≤ prompt_lookup_max'),
      ),
  );

/** What a profile selects, by setting key, with the option each becomes. */
const PROFILE_SELECTS = [
  ['model', 'model'],
  ['gpu', 'gpu'],
  ['engine', 'engine'],
  ['dtype', 'dtype'],
  ['tp', 'tp'],
  ['kv_cache_dtype', 'kvCacheDtype'],
  ['api_server_count', 'apiServerCount'],
] as const;

/**
 * A calibration profile (`--profile`) → the options it selects and its constants. A setting
 * written beside it that differs from what it was fitted for is refused: its constants describe
 * that configuration only.
 */
function profileOptions(path: string, settings: Record<string, unknown>): object {
  const p = loadCalibrationProfile(path);
  const out: Record<string, unknown> = { calibration: p };
  const problems: Problem[] = [];
  for (const [key, option] of PROFILE_SELECTS) {
    const fitted = p.fittedFor[key];
    const given = settings[key];
    if (given !== undefined && String(given).toLowerCase() !== String(fitted).toLowerCase())
      problems.push({
        path: key,
        message: `${given} differs from the ${fitted} the profile ${path} was fitted for`,
        hint: `leave ${key} out to simulate what the profile was fitted for, or calibrate for ${given} (servelab calibrate)`,
      });
    out[option] = fitted;
  }
  if (problems.length) throw new UsageError(problems);
  return out;
}

/** The settings, in the order `--help` and the docs list them. */
export const SIM_SETTINGS = {
  model: setting(str().default('qwen3-8b'), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'name',
    fileRequired: true,
    defaultFrom: ['model_config', 'profile'],
    valueText: 'a catalogue model name',
    description: `Model to simulate: one of the built-in catalogue (${MODELS.join(', ')}) or of the catalogue file; with a model config, the name to give its model.`,
  }),
  gpu: setting(str().default('h100'), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'name',
    fileRequired: true,
    defaultFrom: ['profile'],
    valueText: 'a catalogue GPU name',
    description: `GPU to simulate: one of the built-in catalogue (${GPUS.join(', ')}) or of the catalogue file.`,
  }),
  tp: setting(posInt().max(8, err('expected at most 8')).default(1), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    defaultFrom: ['profile'],
    arg: 'n',
    unit: 'GPUs',
    description: 'Tensor-parallel size: the number of GPUs the model is split across.',
  }),
  dtype: setting(oneOf(WEIGHT_DTYPES).default('bf16'), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    defaultFrom: ['profile'],
    arg: 't',
    description: 'Weight precision; int4 is AWQ/GPTQ-style weight-only quantisation.',
  }),
  kv_cache_dtype: setting(oneOf(KV_CACHE_DTYPES).default('auto'), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    defaultFrom: ['profile'],
    arg: 't',
    description: 'KV cache precision; auto is 16-bit.',
  }),
  max_num_seqs: setting(posInt().optional(), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'n',
    unit: 'requests',
    example: '256',
    defaultText: "vLLM's default for the GPU: 1024 on GPUs of 70 GiB or more other than the A100s, else 256",
    description: 'Most requests running in one batch.',
  }),
  max_num_batched_tokens: setting(posInt().optional(), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'n',
    unit: 'tokens',
    example: '8192',
    defaultText: "vLLM's default for the GPU: 8192 where max_num_seqs defaults to 1024, else 2048",
    description: 'Token budget of one engine step; longer prefills are split into chunks.',
  }),
  block_size: setting(
    posInt()
      .refine((v) => BLOCK_SIZES.includes(v), err(`expected one of ${BLOCK_SIZES.join(', ')}`))
      .default(16),
    {
      surfaces: EVERYWHERE,
      layer: 'engine',
      arg: 'n',
      unit: 'tokens',
      valueText: `one of ${BLOCK_SIZES.join(', ')}`,
      description: 'Tokens per KV cache block.',
    },
  ),
  gpu_memory_utilization: setting(
    z.number(err(UTILIZATION)).gt(0, err(UTILIZATION)).max(1, err(UTILIZATION)).default(0.9),
    {
      surfaces: EVERYWHERE,
      layer: 'engine',
      arg: 'f',
      description: 'Fraction of GPU memory the engine may take for weights, activations and the KV cache.',
    },
  ),
  max_model_len: setting(posInt().optional(), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'n',
    unit: 'tokens',
    example: '8192',
    defaultText: "the model's max_position_embeddings, lowered to what the KV cache holds",
    description: 'Context length: the most prompt and output tokens of one request.',
  }),
  enable_prefix_caching: setting(bool().default(true), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    description: 'Reuse the KV cache blocks of a prompt prefix computed before (automatic prefix caching).',
  }),
  engine: setting(oneOf(ENGINE_PROFILES).default('vllm-v1'), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    defaultFrom: ['profile'],
    arg: 'name',
    description:
      "Engine to impersonate: its scheduler, prefix cache, /metrics names, routes and wire format (vllm-v1, vllm-v0 or sglang; docs/sim.md's profile sections).",
  }),
  enable_chunked_prefill: setting(bool().default(false), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    description:
      'vllm-v0: split long prompts into chunks that share steps with decodes (vLLM v1 always does; without it a v0 step is all prefill or all decode).',
  }),
  num_scheduler_steps: setting(posInt().max(64, err('expected at most 64')).default(1), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'n',
    unit: 'steps',
    description:
      "vllm-v0 multi-step scheduling: run this many decode steps per schedule, streaming each request's tokens that many at a time.",
  }),
  schedule_policy: setting(oneOf(SCHEDULE_POLICIES).default('fcfs'), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'name',
    description:
      'sglang: order of the waiting queue, first come first served (fcfs) or longest prefix match first (lpm).',
  }),
  chunked_prefill_size: setting(posInt().optional(), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'n',
    unit: 'tokens',
    example: '8192',
    defaultText: "sglang's default for the GPU: 2048 under 35 GB, 8192 under 160 GB, else 16384",
    description: 'sglang: most prompt tokens of one prefill step; longer prompts are prefilled in chunks.',
  }),
  parallel: setting(posInt().max(256, err('expected at most 256')).optional(), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'n',
    unit: 'slots',
    example: '4',
    defaultText: "4, as llama.cpp's -np auto (each slot gets ctx_size / 4)",
    description:
      "llamacpp: server slots (llama.cpp's -np/--parallel): the most requests running at once; the rest wait (deferred).",
  }),
  ctx_size: setting(posInt().optional(), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'n',
    unit: 'tokens',
    example: '8192',
    defaultText: "the model's max_position_embeddings (llama.cpp's -c 0: from the model)",
    description:
      "llamacpp: total context (llama.cpp's -c/--ctx-size), split between the slots: each slot holds ctx_size / parallel tokens, rounded up to a multiple of 256.",
  }),
  batch_size: setting(posInt().default(2048), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'n',
    unit: 'tokens',
    description:
      "llamacpp: most tokens of one llama_decode (llama.cpp's -b/--batch-size): decodes first, then prompt tokens of the slots in order.",
  }),
  cache_ram: setting(nonNegInt().default(8192), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'mib',
    unit: 'MiB',
    description:
      "llamacpp: size of the RAM prompt cache (llama.cpp's --cache-ram; 0 turns it off): a slot's prompt is saved there before the slot is reused, and a later request restores the one sharing its longest prefix.",
  }),
  cont_batching: setting(bool().default(true), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    description:
      "llamacpp: continuous batching (llama.cpp's --cont-batching); off, prompts are processed only in steps with no decoding slot.",
  }),
  speculative_config: setting(speculativeConfig().optional(), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'json',
    example: '{"method": "eagle", "num_speculative_tokens": 3, "acceptance_rate": 0.7}',
    defaultText: 'off (no speculative decoding)',
    valueText: `vLLM's JSON: method (${SPEC_METHODS.join(', ')}), num_speculative_tokens, model (draft_model: a catalogue model), prompt_lookup_min/max (ngram); plus servelab's own acceptance_rate (one rate, or one per position)`,
    description:
      "vllm-v1: speculative decoding as vLLM's --speculative-config: each step proposes num_speculative_tokens per decoding request, verifies them in one pass and keeps the accepted prefix plus one token (docs/sim.md, \"Speculative decoding\"). acceptance_rate is servelab's, not vLLM's: the acceptance to simulate in vLLM's reported units, one number for accepted / drafted tokens or a list for each position's accepted / drafts (default by method; ngram: from the prompt's own repetition, or a published prior when the prompts are synthetic words).",
  }),
  cold_start_ms: setting(nonNegNum().default(0), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'ms',
    unit: 'ms',
    description: 'Extra time on the first engine step, as a cold engine takes.',
  }),
  record_steps: setting(bool().default(false), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    description:
      'Record every engine step (its start and duration, the decodes, the prefill chunks with their tokens, KV blocks in use, preemptions): served on GET /servelab/steps, stored with the run as steps.jsonl, drawn by report as the step timeline.',
  }),
  api_server_count: setting(posInt().max(64, err('expected at most 64')).default(1), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    defaultFrom: ['profile'],
    arg: 'n',
    unit: 'processes',
    description:
      "API server processes that share the streaming work (vLLM's --api-server-count); each detokenises and writes the chunks of its own streams.",
  }),
  catalogue: setting(str().optional(), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'file',
    alias: 'catalog',
    example: 'my-gpus.yaml',
    valueText: 'a file path',
    toOption: (path: string) => loadCatalogueFile(path),
    description: 'YAML/JSON file with extra GPUs and models, in Hugging Face config.json terms.',
  }),
  model_config: setting(str().optional(), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'file',
    example: 'Qwen3-30B-A3B/config.json',
    valueText: 'a file path',
    // One loader (sim/catalogue loadModelConfig, over loadCatalogueFile): the model joins the
    // catalogue, on top of --catalogue's, and becomes the model simulated.
    toOptions: (path: string, settings, options) =>
      loadModelConfig(
        path,
        (options.catalogue as Catalogue | undefined) ?? defaultCatalogue(),
        settings.model as string | undefined,
      ),
    description:
      "A model's Hugging Face config.json to simulate, named after its directory unless --model names it.",
  }),
  profile: setting(str().optional(), {
    surfaces: EVERYWHERE,
    layer: 'engine',
    arg: 'file',
    example: 'profile.yaml',
    valueText: 'a file path',
    // The profile names what it was fitted for (model, GPU, engine, dtype, tp, KV dtype, API
    // servers), so it alone selects them; a setting written beside it must agree.
    toOptions: (path: string, settings) => profileOptions(path, settings),
    description:
      'A calibration profile written by servelab calibrate: simulate the model, GPU and engine it was fitted for with its fitted cost-model constants.',
  }),
  seed: setting(nonNegInt().default(0), {
    surfaces: EVERYWHERE,
    layer: 'server',
    arg: 'n',
    // `--seed` seeds the workload (prompts, lengths, arrivals) on the same command lines.
    flag: 'sim-seed',
    description: 'Seed of the simulated output lengths, text, ids and faults.',
  }),
  time_scale: setting(posNum().default(1), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'x',
    description:
      'Run the clock this many times faster than real time (demos, tests); engine times stay simulated ms.',
  }),
  host: setting(str().default('127.0.0.1'), {
    surfaces: ['sim'],
    layer: 'server',
    arg: 'addr',
    valueText: 'an address',
    description: 'Address to listen on.',
  }),
  port: setting(z.number(err(PORT)).int(err(PORT)).min(0, err(PORT)).max(65535, err(PORT)).default(8000), {
    surfaces: ['sim'],
    layer: 'server',
    arg: 'p',
    description: 'TCP port to listen on; 0 picks a free one.',
  }),
  served_model_name: setting(str().regex(/\S/, err('expected a non-empty name')).optional(), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'name',
    example: 'my-model',
    valueText: 'a name',
    defaultText: 'the catalogue model name',
    description: 'Model id served on /v1/models and accepted in requests.',
  }),
  api_key: setting(str().optional(), {
    surfaces: ['sim'],
    layer: 'server',
    arg: 'key',
    valueText: 'a token',
    description: 'Bearer token that requests to /v1/* must carry; it is never logged.',
  }),
  otlp_endpoint: setting(
    str()
      .regex(/^https?:\/\/[^\s/]+/, err('expected an http:// or https:// URL'))
      .optional(),
    {
      surfaces: ['sim'],
      layer: 'server',
      arg: 'url',
      valueText: 'an http(s) URL',
      description:
        "Export one OpenTelemetry span per request to this OTLP/HTTP traces URL (protobuf; no path: /v1/traces), as vLLM's --otlp-traces-endpoint does: its llm_request span, child of the request's traceparent, latencies in wall seconds.",
    },
  ),
  max_waiting: setting(posInt().optional(), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'n',
    unit: 'requests',
    example: '64',
    defaultText: 'unbounded',
    description:
      'Answer 429 to a request arriving while this many already wait (each waits for its first step, so ≥ 1).',
  }),
  reasoning_field: setting(oneOf(REASONING_FIELDS).default('reasoning_content'), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'name',
    description:
      'Name of the reasoning delta field: reasoning_content (SGLang, older vLLM) or reasoning (newer vLLM).',
  }),
  context_error: setting(oneOf(CONTEXT_ERROR_SHAPES).default('vllm'), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'shape',
    description:
      "Context-length errors as vLLM answers them (400, max_tokens that do not fit refused) or as llama.cpp's server does (400 exceed_context_size_error with n_prompt_tokens and n_ctx; max_tokens clamped to the context).",
  }),
  enable_prompt_tokens_details: setting(bool().default(true), {
    surfaces: SERVED,
    layer: 'server',
    description: 'Report the cached prompt tokens in usage.prompt_tokens_details.',
  }),
  expose_timings: setting(bool().default(false), {
    surfaces: SERVED,
    layer: 'server',
    description: "Stamp every chunk with the server's emit time and step, and end with a timings object.",
  }),
  fault_rate: setting(fraction().default(0), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'p',
    description: 'Probability that a request gets one of the faults.',
  }),
  faults: setting(faultList().optional(), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'list',
    example: '[garble]',
    valueText: `a list of ${FAULT_FORMS.join(', ')} (comma-separated on the command line)`,
    description: 'Faults to draw from; stall:MS pauses the stream for MS ms of engine time.',
  }),
  fault_profile: setting(oneOf(FAULT_PROFILES).optional(), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'name',
    defaultText: 'none',
    description:
      'Reproduce an engine-upgrade bug (docs/sim.md, "Fault profiles"): reasoning-renamed, ignore-json-schema, empty-tool-args, abort-as-success.',
  }),
  answer_accuracy: setting(fraction().optional(), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'p',
    example: '0.9',
    defaultText: 'off (the usual pseudo-text)',
    description:
      "Answer the upgrade gate's fixed questions (src/workload/questions.ts) from their known answers, right with this probability (seeded per question), instead of pseudo-text.",
  }),
  max_body_bytes: setting(posInt().default(DEFAULT_MAX_BODY_BYTES), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'n',
    unit: 'bytes',
    description:
      'Answer 413 to a request body larger than this, before reading it, and close the connection.',
  }),
  sentence_words: setting(nonNegInt().default(0), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'n',
    unit: 'words',
    defaultText: '0 (off: no punctuation)',
    description:
      'End a sentence of the pseudo-text with "." every N words on average (seeded), so a voice client has sentence boundaries to chunk at.',
  }),
  asr_fixed_ms: setting(nonNegNum().default(40), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'ms',
    unit: 'ms',
    description:
      "/v1/audio/transcriptions: the fixed part of one transcription's GPU time (engine ms), whatever the audio length.",
  }),
  asr_rtf: setting(nonNegNum().default(0.03), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'x',
    description:
      '/v1/audio/transcriptions: real-time factor, GPU ms per ms of audio; a transcription costs asr_fixed_ms + asr_rtf × audio ms.',
  }),
  asr_gpu: setting(oneOf(ASR_GPU_MODES).default('colocated'), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'where',
    description:
      "Where transcriptions run: on the LLM's simulated GPU (colocated: they queue between engine steps and the next step waits for them) or on a GPU of their own (separate: they queue only behind each other).",
  }),
  tts_first_byte_ms: setting(nonNegNum().default(80), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'ms',
    unit: 'ms',
    description: '/v1/audio/speech: engine ms from the request to the first audio bytes.',
  }),
  tts_rtf: setting(nonNegNum().default(0.1), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'x',
    description:
      '/v1/audio/speech: real-time factor after the first bytes, engine ms of synthesis per ms of audio (each speech stream on its own).',
  }),
  tts_chunk_ms: setting(posInt().default(100), {
    surfaces: SERVED,
    layer: 'server',
    arg: 'ms',
    unit: 'ms',
    description: '/v1/audio/speech: milliseconds of audio in each streamed chunk.',
  }),
  drain_timeout: setting(nonNegNum().default(30), {
    surfaces: SERVED,
    layer: 'server',
    arg: 's',
    unit: 's',
    description:
      'On SIGTERM, wait this long (wall seconds) for requests in flight to finish while new ones get 503; then stop.',
  }),
};

type Defs = typeof SIM_SETTINGS;
export type SimSettingKey = keyof Defs;
type AnyDef = SettingInfo<readonly SimSurface[], SimLayer> & { schema: z.ZodType };
const DEFS = SIM_SETTINGS as Record<SimSettingKey, AnyDef>;
const KEYS = Object.keys(SIM_SETTINGS) as SimSettingKey[];

type InScope<K extends SimSettingKey, Sc extends SimScope> = Sc extends SimLayer
  ? Defs[K]['layer'] extends Sc
    ? K
    : never
  : Sc extends Defs[K]['surfaces'][number]
    ? K
    : never;
/** The keys of the settings of a surface or layer. */
export type SimSettingKeys<Sc extends SimScope> = { [K in SimSettingKey]: InScope<K, Sc> }[SimSettingKey];
type Undefaulted<S> = S extends z.ZodDefault<infer I> ? z.ZodOptional<I> : S;
/** A file keeps what it writes (defaults are filled in when the simulator starts); it must name what it simulates. */
type FieldOf<K extends SimSettingKey, Sc extends SimScope> = Sc extends 'file'
  ? Defs[K] extends { fileRequired: true }
    ? Defs[K]['schema']
    : Undefaulted<Defs[K]['schema']>
  : Defs[K]['schema'];
type ShapeOf<Sc extends SimScope> = { [K in SimSettingKeys<Sc>]: FieldOf<K, Sc> };
/** Validated settings of a surface or layer (snake_case, defaults filled in). */
export type SimSettings<Sc extends SimScope> = { [K in SimSettingKeys<Sc>]: z.output<Defs[K]['schema']> };

type CamelCase<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S;
/** The programmatic options of a layer: each setting in camelCase, optional (unset: its default). */
export type SimLayerOptions<L extends SimLayer> = {
  [K in SimSettingKeys<L> as Defs[K] extends { toOptions: unknown } ? never : CamelCase<K>]?: z.output<
    Defs[K]['schema']
  >;
};

/** `T` with the keys whose value may be undefined made optional. */
type OptionalWhereUndefined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: T[K];
};
/**
 * The validated settings of a layer as options: each in camelCase, its default filled in; an
 * unset optional one is absent.
 */
export type SimLayerValues<L extends SimLayer> = OptionalWhereUndefined<{
  [K in SimSettingKeys<L> as Defs[K] extends { toOptions: unknown } ? never : CamelCase<K>]: z.output<
    Defs[K]['schema']
  >;
}>;

/**
 * Engine flags with vLLM's names in camelCase (what `resolveEngineConfig` takes): the engine
 * layer's settings, unset fields taking their defaults, and what only the engine API has.
 */
export interface EngineOptions extends Omit<SimLayerOptions<'engine'>, 'model' | 'gpu' | 'catalogue'> {
  /** Catalogue model name, e.g. `llama-3.1-8b`. */
  model: string;
  /** Catalogue GPU name, e.g. `h100`. */
  gpu: string;
  /** Catalogue to resolve names in (default: built-in). */
  catalogue?: Catalogue;
  /** `--num-gpu-blocks-override`: fix the KV block count instead of sizing it from memory (engine API only). */
  numGpuBlocksOverride?: number;
  /** A calibration profile's constants (`--profile`, loaded): the cost model and API server use them. */
  calibration?: CalibrationProfile;
}

/**
 * Options of the simulated server, in camelCase (what `startSimServer` takes): the engine's
 * (model, gpu, tp, maxNumSeqs, …) and the server's (host, port, maxWaiting, faults, timeScale,
 * seed, …), each a setting above (docs/sim.md lists them). One default differs: `port` is 0
 * here (a free port, so in-process servers never collide), 8000 for `servelab sim`.
 */
export interface SimServerOptions extends EngineOptions, Omit<SimLayerOptions<'server'>, 'faults'> {
  /** Faults to draw from: a list, or comma-separated (`http500,stall:2000,garble`). */
  faults?: string | readonly string[];
  /**
   * Accept `response_format: json_schema` and ignore it (the structured-output code reads it);
   * also set by `faultProfile: 'ignore-json-schema'`. Not a setting of its own: a fault profile.
   */
  ignoreJsonSchema?: boolean;
  /**
   * Send tool calls with empty arguments (the tool-call code reads it); also set by
   * `faultProfile: 'empty-tool-args'`. Not a setting of its own: a fault profile.
   */
  emptyToolArgs?: boolean;
  /**
   * With `exposeTimings`: keep the `timings` object at the end of each response but leave out the
   * per-chunk `servelab` stamps. `plan` and virtual-clock experiments read only the timings (the
   * record's server-side queue and prefill); a stamp formats two fractional numbers per token,
   * which was about a quarter of `plan`'s CPU on a long run (docs/bench.md, plan-fit). Not a
   * setting of its own: what the in-process callers ask for.
   */
  unstampedChunks?: boolean;
}

/**
 * The server's options after validation (`resolveServerOptions`): its layer's settings with
 * defaults applied, the fault list parsed, and the switches a fault profile sets.
 */
export interface ResolvedServerOptions extends Omit<SimLayerValues<'server'>, 'faults'> {
  faults: FaultSpec[];
  /** See {@link SimServerOptions.ignoreJsonSchema}. */
  ignoreJsonSchema: boolean;
  /** See {@link SimServerOptions.emptyToolArgs}. */
  emptyToolArgs: boolean;
  /** `exposeTimings` without {@link SimServerOptions.unstampedChunks}: every chunk carries its `servelab` stamp. */
  stampChunks: boolean;
  /** `abort-as-success`: a seeded share of streams is aborted by the engine and ends with finish_reason "abort" + [DONE]. */
  abortAsSuccess: boolean;
}

const camelCase = (s: string) => s.replace(/[_-]([a-z])/g, (_, c: string) => c.toUpperCase());
const inScope = (d: AnyDef, scope: SimScope) =>
  scope === 'engine' || scope === 'server' ? d.layer === scope : d.surfaces.includes(scope);
const keysIn = (scope: SimScope) => KEYS.filter((k) => inScope(DEFS[k], scope));

/** The flag of a setting, without its dashes: the key in kebab-case unless the setting names another. */
export function simFlagName(key: SimSettingKey): string {
  return DEFS[key].flag ?? key.replace(/_/g, '-');
}

/** How a problem names a setting: `` `key` `` in a file, its flag elsewhere (programmatic options too). */
function ref(key: SimSettingKey, scope: SimScope): string {
  return scope === 'file' ? `\`${key}\`` : `--${simFlagName(key)}`;
}

/** A setting with a value, as `scope` writes it: `fault_rate: 0.1` or `--fault-rate 0.1`. */
function written(key: SimSettingKey, value: string, scope: SimScope): string {
  return scope === 'file' ? `${key}: ${value}` : `--${simFlagName(key)} ${value}`;
}

/**
 * The schema of one setting in `scope`. A file keeps what it writes, so that a record (and an
 * A/B's switch) shows what was set; its defaults are filled in when the simulator starts
 * ({@link withSimDefaults}). It must name what it simulates.
 */
function fieldSchema(key: SimSettingKey, scope: SimScope): z.ZodType {
  const d = DEFS[key];
  if (scope !== 'file' || !(d.schema instanceof z.ZodDefault)) return d.schema;
  const inner = d.schema.unwrap() as z.ZodType;
  // A setting another one can stand in for is required by a rule instead (crossRules).
  return d.fileRequired && !d.defaultFrom ? inner : inner.optional();
}

/** Whether `key` is unset but another setting stands in for it (`model` with `model_config`). */
function suppliedElsewhere(key: SimSettingKey, settings: Record<string, unknown>): boolean {
  const from = DEFS[key].defaultFrom ?? [];
  return settings[key] === undefined && from.some((f) => settings[f] !== undefined);
}

/**
 * The rules between settings. They run on whatever parsed, so they are reported together with
 * the problems of other fields; each reads only values of the right type.
 */
function crossRules(
  s: Record<string, unknown>,
  scope: SimScope,
  add: (p: RuleIssue) => void,
  t: Translate = EN,
): void {
  const keys = keysIn(scope);
  if (keys.includes('fault_rate') && keys.includes('faults')) {
    const rate = s.fault_rate;
    const faults = Array.isArray(s.faults) ? s.faults : [];
    // A list that did not parse (`stall:abc`) has its own problem; this rule is for no list.
    const unparsed = s.faults !== undefined && !Array.isArray(s.faults);
    if (typeof rate === 'number' && rate > 0 && faults.length === 0 && !unparsed)
      add({
        key: 'fault_rate',
        message: t('sim.rule.fault_rate_needs_faults'),
        hint: t('sim.rule.fault_rate_needs_faults_hint', {
          example: written(
            'faults',
            scope === 'file' ? '[http500, disconnect, garble]' : 'http500,disconnect,garble',
            scope,
          ),
        }),
      });
    // Unset (a file keeps what it writes) or 0: no request would get a fault.
    if (faults.length > 0 && (rate === undefined || rate === 0))
      add({
        key: 'fault_rate',
        message: t(rate === undefined ? 'sim.rule.faults_without_rate' : 'sim.rule.faults_rate_zero', {
          faults: ref('faults', scope),
          rate: ref('fault_rate', scope),
        }),
        hint: t('sim.rule.faults_rate_hint', { example: written('fault_rate', '0.1', scope) }),
      });
  }
  if (scope === 'file')
    for (const key of keys) {
      const from = (DEFS[key].defaultFrom ?? []) as SimSettingKey[];
      if (
        DEFS[key].fileRequired &&
        from.length &&
        s[key] === undefined &&
        from.every((f) => s[f] === undefined)
      )
        add({
          key,
          message: t('sim.rule.file_must_name', { key }),
          hint: t('sim.rule.file_must_name_hint', {
            options: [
              written(key, String(fixedDefault(key)), scope),
              ...from.map((f) => written(f, 'FILE', scope)),
            ].join(t('sim.rule.or')),
          }),
        });
    }
  // Each profile's own knobs: refused under another profile rather than silently ignored.
  if (keys.includes('engine')) {
    const engine = typeof s.engine === 'string' ? s.engine : 'vllm-v1';
    const steps = s.num_scheduler_steps;
    if (typeof steps === 'number' && steps > 1 && engine !== 'vllm-v0')
      add({
        key: 'num_scheduler_steps',
        message: t('sim.rule.multi_step', { engine_ref: ref('engine', scope), engine }),
        hint: t('sim.rule.add_or_drop', {
          add: written('engine', 'vllm-v0', scope),
          drop: ref('num_scheduler_steps', scope),
        }),
      });
    if (s.schedule_policy === 'lpm' && engine !== 'sglang')
      add({
        key: 'schedule_policy',
        message: t('sim.rule.lpm', { engine_ref: ref('engine', scope), engine }),
        hint: t('sim.rule.add_or_drop', {
          add: written('engine', 'sglang', scope),
          drop: ref('schedule_policy', scope),
        }),
      });
    for (const key of ['parallel', 'ctx_size'] as const)
      if (s[key] !== undefined && engine !== 'llamacpp')
        add({
          key,
          message: t('sim.rule.llamacpp_only', {
            setting: ref(key, scope),
            engine_ref: ref('engine', scope),
            engine,
          }),
          hint: t('sim.rule.add_or_drop', {
            add: written('engine', 'llamacpp', scope),
            drop: ref(key, scope),
          }),
        });
    if (s.chunked_prefill_size !== undefined && engine !== 'sglang')
      add({
        key: 'chunked_prefill_size',
        message: t('sim.rule.chunked_prefill', {
          setting: ref('chunked_prefill_size', scope),
          engine_ref: ref('engine', scope),
          engine,
        }),
        hint: t('sim.rule.chunked_prefill_hint', {
          setting: ref('max_num_batched_tokens', scope),
          add: written('engine', 'sglang', scope),
        }),
      });
  }
  // A file is checked before anything starts; elsewhere the engine checks the names against the
  // catalogue it is given. A model config may add GPUs as well as its model.
  if (scope === 'file' && s.catalogue === undefined && s.model_config === undefined) {
    if (typeof s.model === 'string' && !Object.hasOwn(BUILTIN_MODELS, s.model))
      add({
        key: 'model',
        message: t('sim.rule.unknown_model', { model: s.model }),
        hint: t('sim.rule.unknown_model_hint', {
          models: MODELS.join(', '),
          add: written('catalogue', 'FILE', scope),
        }),
      });
    if (typeof s.gpu === 'string' && !Object.hasOwn(BUILTIN_GPUS, s.gpu))
      add({
        key: 'gpu',
        message: t('sim.rule.unknown_gpu', { gpu: s.gpu }),
        hint: t('sim.rule.unknown_gpu_hint', {
          gpus: GPUS.join(', '),
          add: written('catalogue', 'FILE', scope),
        }),
      });
  }
}
interface RuleIssue {
  key: SimSettingKey;
  message: string;
  hint: string;
}

const schemas = new Map<SimScope, z.ZodType>();

/**
 * The settings of a surface or layer as one strict zod object (defaults filled in), with the
 * rules between them. `simSettingsSchema('file')` is an experiment file's `sim:` section.
 */
export function simSettingsSchema<Sc extends SimScope>(scope: Sc): z.ZodObject<ShapeOf<Sc>, z.core.$strict> {
  let s = schemas.get(scope);
  if (!s) {
    const shape = Object.fromEntries(keysIn(scope).map((k) => [k, fieldSchema(k, scope)]));
    s = z.strictObject(shape).superRefine(
      (v, ctx) =>
        crossRules(v, scope, (p) =>
          ctx.addIssue({ code: 'custom', path: [p.key], message: p.message, params: { hint: p.hint } }),
        ),
      // Run even when a field failed, so that every problem is reported at once.
      { when: () => true },
    );
    schemas.set(scope, s);
  }
  return s as z.ZodObject<ShapeOf<Sc>, z.core.$strict>;
}

// ---- describing a setting ------------------------------------------------------------------

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  default?: unknown;
}

const jsonSchema = (key: SimSettingKey) =>
  z.toJSONSchema(DEFS[key].schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/** The values a setting takes, in words: `an integer from 1 to 8`, `one of auto, fp8`. */
export function simSettingValues(key: SimSettingKey): string {
  const d = DEFS[key];
  if (d.valueText) return d.valueText;
  const j = jsonSchema(key);
  if (j.enum) return `one of ${j.enum.join(', ')}`;
  if (j.type === 'boolean') return 'true or false';
  if (j.type === 'integer' || j.type === 'number') {
    const int = j.type === 'integer';
    // zod bounds every integer to the safe range; that is no range worth naming.
    const safe = (x: number | undefined) =>
      x !== undefined && Math.abs(x) < Number.MAX_SAFE_INTEGER ? x : undefined;
    const lo =
      safe(j.minimum) ?? (int && j.exclusiveMinimum !== undefined ? j.exclusiveMinimum + 1 : undefined);
    const hi = safe(j.maximum);
    if (int)
      return lo !== undefined && hi !== undefined
        ? `an integer from ${lo} to ${hi}`
        : lo !== undefined
          ? `an integer ≥ ${lo}`
          : 'an integer';
    const open = j.exclusiveMinimum !== undefined;
    const from = open ? j.exclusiveMinimum : lo;
    if (from !== undefined && hi !== undefined) return `a number in ${open ? '(' : '['}${from}, ${hi}]`;
    if (from !== undefined) return `a number ${open ? '>' : '≥'} ${from}`;
    return 'a number';
  }
  return 'text';
}

/** `settings` (a file's `sim:`, which keeps what it writes) with every unset setting at its fixed default. */
export function withSimDefaults<T extends object>(settings: T): T & SimSettings<'file'> {
  const out: Record<string, unknown> = {};
  for (const key of keysIn('file')) {
    const d = fixedDefault(key);
    if (d !== undefined && !suppliedElsewhere(key, settings as Record<string, unknown>)) out[key] = d;
  }
  for (const [k, v] of Object.entries(settings)) if (v !== undefined) out[k] = v;
  return out as T & SimSettings<'file'>;
}

/** The fixed default of a setting, or undefined. */
function fixedDefault(key: SimSettingKey): unknown {
  return jsonSchema(key).default;
}

/** The default of a setting in words (`1`, `vLLM's default for the GPU…`), or null when there is none. */
export function simSettingDefault(key: SimSettingKey): string | null {
  const d = fixedDefault(key);
  if (d !== undefined) return String(d);
  return DEFS[key].defaultText ?? null;
}

/** The hint for a bad value: what the setting takes, and its default. */
export function simSettingHint(key: SimSettingKey, t: Translate = EN): string {
  const unit = DEFS[key].unit;
  const dflt = simSettingDefault(key);
  const values = `${simSettingValues(key)}${unit ? ` (${unit})` : ''}`;
  return dflt !== null ? t('sim.setting.default', { values, default: dflt }) : values;
}

/** Whether an experiment file must write the setting (it names what it simulates). */
export function simSettingRequiredInFile(key: SimSettingKey): boolean {
  return DEFS[key].fileRequired === true;
}

/** The description of a setting. */
export function simSettingDescription(key: SimSettingKey): string {
  return DEFS[key].description;
}

/** A value for a template line: the default, else the setting's example. */
export function simSettingExample(key: SimSettingKey): string | undefined {
  const d = fixedDefault(key);
  return d !== undefined ? String(d) : DEFS[key].example;
}

/** The settings of a surface or layer, in order. */
export function simSettingKeys<Sc extends SimScope>(scope: Sc): SimSettingKeys<Sc>[] {
  return keysIn(scope) as SimSettingKeys<Sc>[];
}

// ---- flags ---------------------------------------------------------------------------------

/** One command-line flag of a setting, for commander. */
export interface SimFlag {
  key: SimSettingKey;
  /** `--tp <n>`, `--no-enable-prefix-caching`, `--expose-timings`. */
  flags: string;
  help: string;
  /** The property commander puts the value in (`maxNumSeqs`). */
  attribute: string;
}

/** The flags of `servelab sim` or `servelab plan`, in order. */
export function simFlags(surface: 'sim' | 'plan'): SimFlag[] {
  return keysIn(surface).map((key) => {
    const d = DEFS[key];
    const name = simFlagName(key);
    const dflt = fixedDefault(key);
    if (d.arg === undefined) {
      // A switch: `--no-NAME` turns off one that is on by default.
      const on = dflt === true;
      return {
        key,
        flags: on ? `--no-${name}` : `--${name}`,
        help: `${d.description}${on ? ' (on by default; this flag turns it off)' : ''}`,
        attribute: camelCase(name),
      };
    }
    const dtext = simSettingDefault(key);
    return {
      key,
      flags: `--${name} <${d.arg}>`,
      help: `${d.description}${dtext !== null ? ` (default: ${dtext})` : ''}`,
      attribute: camelCase(name),
    };
  });
}

// ---- validating values given outside a file ------------------------------------------------

/**
 * Validate each setting of `scope` in `input` (snake_case keys), then the rules between them.
 * Returns the values that are valid (defaults filled in) and a problem on the flag of each one
 * that is not (`--tp: expected at most 8, got 9`), with a hint.
 */
function checkFields<Sc extends SimScope>(
  input: Record<string, unknown>,
  scope: Sc,
  t: Translate = EN,
): { values: Partial<SimSettings<Sc>>; problems: Problem[] } {
  const values: Record<string, unknown> = {};
  const problems: Problem[] = [];
  for (const key of keysIn(scope)) {
    if (suppliedElsewhere(key, input)) continue;
    const r = fieldSchema(key, scope).safeParse(input[key]);
    if (r.success) {
      if (r.data !== undefined) values[key] = r.data;
      continue;
    }
    for (const issue of r.error.issues) {
      const given = input[key];
      const message = issue.message.replace(/^Invalid input: /, '');
      problems.push({
        path: `--${simFlagName(key)}`,
        // An issue inside the value (a list item) names what it is about.
        message:
          issue.path.length || given === undefined ? message : `${message}, got ${JSON.stringify(given)}`,
        hint: (issue as { params?: { hint?: string } }).params?.hint ?? simSettingHint(key, t),
      });
    }
  }
  crossRules(
    { ...input, ...values },
    scope,
    (p) => problems.push({ path: `--${simFlagName(p.key)}`, message: p.message, hint: p.hint }),
    t,
  );
  return { values: values as Partial<SimSettings<Sc>>, problems };
}

/**
 * Command-line values (commander's, by {@link SimFlag.attribute}: strings, switches as booleans)
 * → the valid settings of `surface` (defaults filled in) and a problem on each bad flag.
 * Numbers are read from their text.
 */
export function parseSimSettings<S extends 'sim' | 'plan'>(
  raw: Record<string, unknown>,
  surface: S,
  t: Translate = EN,
): { values: Partial<SimSettings<S>>; problems: Problem[] } {
  const input: Record<string, unknown> = {};
  for (const f of simFlags(surface)) {
    let v = raw[f.attribute];
    const type = jsonSchema(f.key).type;
    if (typeof v === 'string' && (type === 'integer' || type === 'number') && v.trim() !== '') {
      const n = Number(v);
      if (Number.isFinite(n)) v = n;
    }
    input[f.key] = v;
  }
  return checkFields(input, surface, t);
}

/**
 * Validate the programmatic options of a layer (camelCase, as `startSimServer` takes them):
 * the valid values with defaults filled in, and a problem on the flag of each bad one.
 * Settings whose option is not their value (`catalogue`: a loaded catalogue, not a path) are the
 * caller's to check.
 */
export function checkSimOptions<L extends SimLayer>(
  opts: object,
  layer: L,
): { values: Partial<SimSettings<L>>; problems: Problem[] } {
  const o = opts as Record<string, unknown>;
  const input: Record<string, unknown> = {};
  const converted = (key: SimSettingKey) => DEFS[key].toOption || DEFS[key].toOptions;
  for (const key of keysIn(layer)) if (!converted(key)) input[key] = o[camelCase(key)];
  const { values, problems } = checkFields(input, layer);
  for (const key of keysIn(layer)) if (converted(key)) delete (values as Record<string, unknown>)[key];
  return { values, problems };
}

/** The camelCase option names of a layer's settings. */
export function simOptionNames(layer: SimLayer): string[] {
  return keysIn(layer).map(camelCase);
}

/**
 * Settings (snake_case, from a file or the flags) → the options of `startSimServer` (camelCase),
 * generically: each key in camelCase, and the catalogue file loaded. Keys that are not settings
 * (an experiment's `clock`) are left out.
 * @throws UsageError when the catalogue file cannot be read or is invalid.
 */
export function toSimServerOptions(settings: object): SimServerOptions {
  const out: Record<string, unknown> = {};
  const s = settings as Record<string, unknown>;
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined || !Object.hasOwn(DEFS, key)) continue;
    const d = DEFS[key as SimSettingKey];
    if (d.toOptions) continue;
    out[camelCase(key)] = d.toOption ? (d.toOption as (v: unknown) => unknown)(value) : value;
  }
  // Then the settings that set other options (a model config joins the loaded catalogue).
  for (const key of KEYS) {
    const d = DEFS[key];
    if (d.toOptions && s[key] !== undefined)
      Object.assign(
        out,
        (d.toOptions as (v: unknown, ...r: Record<string, unknown>[]) => object)(s[key], s, out),
      );
  }
  return out as unknown as SimServerOptions;
}

// ---- aliases -------------------------------------------------------------------------------

const ALIASES = new Map(KEYS.flatMap((k) => (DEFS[k].alias ? [[DEFS[k].alias as string, k] as const] : [])));

/** The aliases a file's `sim:` map uses, as `[alias, key]`. */
export function simAliasesIn(sim: unknown): [string, SimSettingKey][] {
  if (!sim || typeof sim !== 'object' || Array.isArray(sim)) return [];
  return Object.keys(sim).flatMap((k) => {
    const key = ALIASES.get(k);
    return key ? [[k, key] as [string, SimSettingKey]] : [];
  });
}

/** A file's `sim:` map with each alias renamed to its key (left as is when both are written). */
export function canonicalSimKeys(sim: unknown): unknown {
  const used = simAliasesIn(sim);
  if (!used.length) return sim;
  const out: Record<string, unknown> = { ...(sim as Record<string, unknown>) };
  for (const [alias, key] of used) {
    if (key in out) continue;
    out[key] = out[alias];
    delete out[alias];
  }
  return out;
}

// ---- docs ----------------------------------------------------------------------------------

/** The settings table of docs/sim.md (Markdown), generated from the schema. */
export function simSettingsTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const flags = new Map([...simFlags('plan'), ...simFlags('sim')].map((f) => [f.key, f.flags]));
  const rows = KEYS.map((key) => {
    const d = DEFS[key];
    const flag = flags.get(key);
    const where = (['sim', 'plan', 'file'] as const).filter((s) => d.surfaces.includes(s)).join(', ');
    const fixed = fixedDefault(key);
    const dflt =
      fixed !== undefined
        ? `\`${fixed}\`${d.fileRequired ? ' (required in a file)' : ''}`
        : (d.defaultText ?? '—');
    const name = d.alias ? `\`${key}\` (alias \`${d.alias}\`)` : `\`${key}\``;
    const values = `${simSettingValues(key)}${d.unit ? ` (${d.unit})` : ''}`;
    return `| ${name} | ${flag ? `\`${flag}\`` : '—'} | ${where} | ${cell(values)} | ${cell(dflt)} | ${cell(d.description)} |`;
  });
  return [
    '| setting (file `sim:` key) | flag | in | value | default | meaning |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
