/**
 * @module exp/schema
 * The experiment file format (YAML): its zod schema, the cross-field rules zod cannot express,
 * and {@link loadExperimentFile}, which turns a file into a validated {@link ExperimentFile} or
 * a {@link UsageError} listing *every* problem at once, each with its path in the file
 * (`s.yaml: load.concurrency[2]: expected a positive integer (line 14)`) and a hint.
 *
 * Every field is documented in the templates (`exp/templates`) and in docs/experiments.md.
 * Units are in the names: `*_ms` milliseconds, `*_s` seconds, `*_tokens`/`*_len` tokens, rates
 * in requests per second.
 */
import { readFileSync } from 'node:fs';
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { type Problem, UsageError } from '../core/errors.js';
import { LENGTH_FORMS_HINT, parseLengthDist } from '../workload/index.js';

export const EXPERIMENT_KINDS = [
  'baseline',
  'prefix-cache',
  'concurrency-sweep',
  'rate-sweep',
  'mixed-input',
  'ab',
  'matrix',
] as const;
export type ExperimentKind = (typeof EXPERIMENT_KINDS)[number];

/** GPU names of the simulator's built-in catalogue. */
export const SIM_GPUS = [
  'h100',
  'h200',
  'a100-80gb',
  'a100-40gb',
  'l40s',
  'l4',
  'rtx4090',
  'mi300x',
] as const;
/** Model names of the simulator's built-in catalogue. */
export const SIM_MODELS = ['qwen3-0.6b', 'qwen3-8b', 'qwen3-32b', 'llama-3.1-8b', 'llama-3.1-70b'] as const;
/** Fault kinds of `servelab sim --faults` (`stall:MS` takes a duration). */
export const SIM_FAULTS = [
  'http500',
  'http429',
  'inband_error',
  'disconnect',
  'stall:MS',
  'truncate',
  'garble',
] as const;
/** Phases of the prefix-cache experiment, in the order they run. */
export const PREFIX_CACHE_PHASES = ['cold', 'exact-repeat', 'new-question', 'scattered'] as const;
export const MIXED_INPUT_ORDERS = ['short-first', 'long-first', 'interleaved'] as const;
/** Metrics an A/B compares (per-request values; see docs/metrics.md). */
export const AB_METRICS = ['ttft_ms', 'tpot_ms', 'e2e_ms', 'itl_ms', 'output_tokens_per_s'] as const;

// ---- defaults (documented in docs/experiments.md) -------------------------------------------

/** Sweep stop rules: stop once the error rate passes this fraction… */
export const DEFAULT_STOP_ERROR_RATE = 0.05;
/** …or p99 TTFT exceeds this multiple of the first level's p99 TTFT… */
export const DEFAULT_STOP_TTFT_P99_FACTOR = 10;
/** …or p99 E2E exceeds this multiple of the first level's p99 E2E. */
export const DEFAULT_STOP_E2E_P99_FACTOR = 10;
export const DEFAULT_SWEEP_CONCURRENCY = [1, 2, 4, 8, 16, 32, 64];
export const DEFAULT_CAPACITY_FRACTIONS = [0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.25];
/** A/B: a difference is significant only when Holm-adjusted p < alpha and |delta| ≥ this percentage. */
export const DEFAULT_AB_MIN_EFFECT_PCT = 5;
export const DEFAULT_AB_ALPHA = 0.05;
export const DEFAULT_AB_RESAMPLES = 2000;
export const DEFAULT_MATRIX_CELLS = [
  { name: 'short-in-short-out', input_len: '128', output_len: '32' },
  { name: 'long-in-short-out', input_len: '2048', output_len: '32' },
  { name: 'long-in-long-out', input_len: '2048', output_len: '256' },
];
export const DEFAULT_MATRIX_CONCURRENCY = [1, 8];

// ---- field builders with plain-language errors ----------------------------------------------

const err = (message: string) => ({ error: message });
const POS_INT = 'expected a positive integer';
const NONNEG_INT = 'expected an integer ≥ 0';
const POS_NUM = 'expected a positive number';
const FRACTION = 'expected a number between 0 and 1';

const posInt = () => z.number(err(POS_INT)).int(err(POS_INT)).positive(err(POS_INT));
const nonNegInt = () => z.number(err(NONNEG_INT)).int(err(NONNEG_INT)).min(0, err(NONNEG_INT));
const posNum = () => z.number(err(POS_NUM)).positive(err(POS_NUM));
const nonNegNum = () => z.number(err('expected a number ≥ 0')).min(0, err('expected a number ≥ 0'));
const fraction = () => z.number(err(FRACTION)).min(0, err(FRACTION)).max(1, err(FRACTION));
const str = () => z.string(err('expected a string'));
const bool = () => z.boolean(err('expected true or false'));
const oneOf = <T extends readonly [string, ...string[]]>(vals: T) =>
  z.enum(vals, err(`expected one of ${vals.join(', ')}`));
/** A list, or a single value standing for a one-element list. */
const listOf = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (v) => (v === undefined || v === null || Array.isArray(v) ? v : [v]),
    z.array(item, err('expected a list')),
  );

/**
 * A section that may be written empty: in YAML, `generation:` followed only by commented-out
 * lines is null, which means "all defaults" here, not a type error.
 */
const section = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === null ? undefined : v), schema);

/** One grammar for lengths: workload's, re-exported because `exp/index` has always offered it. */
export { type LengthDist, parseLengthDist } from '../workload/index.js';

/**
 * A length distribution, kept as its canonical string (what `--input-len` takes). The grammar
 * is workload's ({@link parseLengthDist}), so a file accepts what `run` accepts; spaces
 * around `:`, `-` and `,` are forgiven first, since YAML writers put them there
 * (`normal:512, 64`).
 */
const lengthDist = () =>
  z.union([z.number(), z.string()], err('expected a length')).transform((v, ctx) => {
    const r = parseLengthDist(
      String(v)
        .trim()
        .replace(/\s*([:,-])\s*/g, '$1'),
    );
    if (!r.ok) {
      ctx.addIssue({ code: 'custom', message: r.problem.message, params: { hint: r.problem.hint } });
      return z.NEVER;
    }
    return r.dist.toString();
  });

const FAULT_RE = /^(http500|http429|inband_error|disconnect|truncate|garble|stall:\d+)$/;
const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const THRESHOLD_RE = /^[A-Za-z0-9_.]+\s*(<=|>=|<|>|==)\s*[+-]?\d+(\.\d+)?%?$/;
const TARGET_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

// ---- sections -------------------------------------------------------------------------------

/** Simulator options (the `servelab sim` flags, in snake_case) plus the clock it runs on. */
export const simSchema = z.strictObject({
  model: str(),
  gpu: str(),
  tp: posInt().default(1),
  /** Weights (the simulator's `--dtype`): bf16 (default), fp16, fp8, int4 (AWQ/GPTQ-style weight-only). */
  dtype: oneOf(['bf16', 'fp16', 'fp8', 'int4']).optional(),
  /** KV cache: auto (= 16-bit, default) or fp8. */
  kv_cache_dtype: oneOf(['auto', 'fp8']).optional(),
  max_num_seqs: posInt().optional(),
  max_num_batched_tokens: posInt().optional(),
  max_model_len: posInt().optional(),
  block_size: posInt().optional(),
  gpu_memory_utilization: fraction().optional(),
  enable_prefix_caching: bool().optional(),
  max_waiting: posInt().optional(),
  time_scale: posNum().default(1),
  seed: nonNegInt().optional(),
  fault_rate: fraction().optional(),
  faults: listOf(str().regex(FAULT_RE, `expected a fault: ${SIM_FAULTS.join(', ')}`)).optional(),
  cold_start_ms: nonNegNum().optional(),
  expose_timings: bool().optional(),
  reasoning_field: oneOf(['reasoning_content', 'reasoning']).optional(),
  served_model_name: str().optional(),
  /** Path of a YAML/JSON catalogue extension (extra GPUs or models). */
  catalog: str().optional(),
  clock: oneOf(['real', 'virtual']).default('real'),
});
export type SimOptions = z.output<typeof simSchema>;

export const generationSchema = z.strictObject({
  /** Reasoning phase on or off (`chat_template_kwargs.enable_thinking`); unset = the engine's default. */
  thinking: bool().optional(),
  temperature: z
    .number(err('expected a number between 0 and 2'))
    .min(0, err('expected a number between 0 and 2'))
    .max(2, err('expected a number between 0 and 2'))
    .optional(),
  top_p: z
    .number(err(FRACTION))
    .gt(0, err('expected a number in (0, 1]'))
    .max(1, err('expected a number in (0, 1]'))
    .optional(),
  max_tokens: posInt().optional(),
  stop: listOf(str()).optional(),
  ignore_eos: bool().optional(),
  stream: bool().default(true),
  seed: nonNegInt().optional(),
});
export type Generation = z.output<typeof generationSchema>;

/** Facts about a target that cannot be probed, declared by the user (recorded as `declared`). */
export const declaredSchema = z.strictObject({
  engine: str().optional(),
  engine_version: str().optional(),
  image: str().optional(),
  model_revision: str().optional(),
  gpu: str().optional(),
  gpu_count: posInt().optional(),
  gpu_memory_gib: posNum().optional(),
  interconnect: str().optional(),
  driver: str().optional(),
  cuda: str().optional(),
  rocm: str().optional(),
  kernel_backend: str().optional(),
  weights_dtype: str().optional(),
  activations_dtype: str().optional(),
  kv_cache_dtype: str().optional(),
  max_model_len: posInt().optional(),
  max_num_seqs: posInt().optional(),
  max_num_batched_tokens: posInt().optional(),
  chat_template: str().optional(),
  routing: str().optional(),
});
export type Declared = z.output<typeof declaredSchema>;

export const targetSchema = z.strictObject({
  /** Base URL ending in /v1. */
  url: str()
    .regex(/^https?:\/\/[^\s/]+/, 'expected an http:// or https:// URL')
    .optional(),
  /** Name of the environment variable holding this target's API key (never the key itself). */
  api_key_env: str().regex(ENV_NAME_RE, 'expected an environment variable name like MY_API_KEY').optional(),
  headers: section(z.record(str(), str(), err('expected a map of header names to values')).optional()),
  sim: section(simSchema.optional()),
  /** Served model id for this target (defaults to the top-level `model`, or the sim model). */
  model: str().optional(),
  endpoint: oneOf(['chat', 'completions']).optional(),
  /** The server runs on this machine (GPU probed with nvidia-smi); default: the URL's host is loopback. */
  local: bool().optional(),
  /** Prometheus endpoint to scrape; default `<server root>/metrics`. */
  metrics_url: str()
    .regex(/^https?:\/\//, 'expected an http:// or https:// URL')
    .optional(),
  /** Per-target generation overrides (an A/B switch such as thinking on/off). */
  generation: section(generationSchema.partial().optional()),
  /** Merged into every request body (engine-specific fields). */
  extra_body: section(z.record(z.string(), z.unknown(), err('expected a map')).optional()),
  declared: section(declaredSchema.optional()),
});
export type TargetSpec = z.output<typeof targetSchema>;

export const workloadSchema = z.strictObject({
  input_len: lengthDist().default('512'),
  output_len: lengthDist().default('128'),
  /** A file of prompts instead of synthetic ones. */
  dataset: z
    .strictObject({
      format: oneOf(['sharegpt', 'prompts']),
      path: str(),
    })
    .optional(),
  /** Each synthetic prompt starts with one of `groups` shared prefixes of `tokens` tokens. */
  shared_prefix: z.strictObject({ tokens: posInt(), groups: posInt().default(1) }).optional(),
  seed: nonNegInt().optional(),
  /**
   * Send the same prompts at every level of a sweep or matrix. Off by default: each level gets
   * its own prompts (seeded from the experiment seed and the level), so an engine with a prefix
   * cache does not run the later levels warm.
   */
  reuse_prompts: z.boolean().default(false),
});
export type Workload = z.output<typeof workloadSchema>;

export const loadSchema = z.strictObject({
  /** closed: a fixed number of requests in flight; open: arrivals at a rate. Default: from the fields given. */
  mode: oneOf(['closed', 'open']).optional(),
  concurrency: listOf(posInt()).optional(),
  /** Arrival rates, requests per second. */
  rates: listOf(posNum()).optional(),
  arrival: oneOf(['constant', 'poisson', 'gamma']).default('poisson'),
  /** Gamma shape for `arrival: gamma` (1 = Poisson, < 1 burstier). */
  burstiness: posNum().optional(),
  /** Cap on requests in flight in open loop. */
  max_concurrency: posInt().optional(),
  /** Measured requests per level. */
  requests: posInt().optional(),
  duration_s: posNum().optional(),
  timeout_s: posNum().optional(),
  timeout_ttft_s: posNum().optional(),
});
export type Load = z.output<typeof loadSchema>;

export const cacheSchema = z.strictObject({
  /** cold: reset the prefix cache before measuring; warm: warm it with the workload first; as-is: touch nothing. */
  policy: oneOf(['cold', 'warm', 'as-is']).default('as-is'),
  /** How to reset: auto tries vLLM's /reset_prefix_cache then SGLang's /flush_cache. */
  reset: oneOf(['auto', 'vllm', 'sglang', 'none']).default('auto'),
  /** Free-text description of how requests are routed to replicas (recorded as declared). */
  routing: str().optional(),
});

export const sloSchema = z.strictObject({
  ttft_ms: posNum().optional(),
  tpot_ms: posNum().optional(),
  e2e_ms: posNum().optional(),
  itl_ms: posNum().optional(),
});

const stopSchema = z.strictObject({
  error_rate: fraction().default(DEFAULT_STOP_ERROR_RATE),
  ttft_p99_factor: posNum().default(DEFAULT_STOP_TTFT_P99_FACTOR),
  e2e_p99_factor: posNum().default(DEFAULT_STOP_E2E_P99_FACTOR),
});

export const sweepSchema = z.strictObject({
  stop: stopSchema.default({
    error_rate: DEFAULT_STOP_ERROR_RATE,
    ttft_p99_factor: DEFAULT_STOP_TTFT_P99_FACTOR,
    e2e_p99_factor: DEFAULT_STOP_E2E_P99_FACTOR,
  }),
  /** concurrency-sweep: search for the largest concurrency meeting `slo` (as `servelab plan --find-max-concurrency`). */
  find_max_concurrency: bool().default(false),
  /** rate-sweep without `load.rates`: rates as fractions of the measured capacity. */
  capacity_fractions: listOf(posNum()).optional(),
});

export const baselineSchema = z.strictObject({
  /** Sequential requests per target; the first is reported apart as the cold one. */
  requests: posInt().default(5),
});

export const prefixCacheSchema = z.strictObject({
  document_tokens: posInt().default(2048),
  /** Documents rotated in the scattered phase (consecutive requests share no prefix). */
  documents: posInt().default(4),
  question_tokens: posInt().default(32),
  requests_per_phase: posInt().default(4),
  phases: listOf(oneOf(PREFIX_CACHE_PHASES)).default([...PREFIX_CACHE_PHASES]),
  /** A text file used as the shared document instead of generated text. */
  document_file: str().optional(),
});

const mixedClassSchema = z.strictObject({
  input_len: lengthDist(),
  output_len: lengthDist(),
  count: posInt(),
});
export const mixedInputSchema = z.strictObject({
  long: mixedClassSchema.default({ input_len: '4096', output_len: '32', count: 4 }),
  short: mixedClassSchema.default({ input_len: '128', output_len: '128', count: 16 }),
  orders: listOf(oneOf(MIXED_INPUT_ORDERS)).default([...MIXED_INPUT_ORDERS]),
  /** Gap between consecutive arrivals, ms. */
  spacing_ms: nonNegNum().default(50),
});

export const qualitySchema = z.strictObject({
  /** Size of the fixed sample set sent to both sides. */
  samples: posInt().default(8),
  /** Exact match against side A's output, or against an expected-answers JSONL file (`{"answer": …}` per line). */
  expected: z
    .union([z.literal('side-a'), z.strictObject({ file: str() })], err('expected side-a or {file: PATH}'))
    .optional(),
  /** Every output must match this regular expression. */
  regex: str().optional(),
  /** Every output must be JSON valid against this schema (inline object, or a path to a .json file). */
  json_schema: z
    .union([str(), z.record(z.string(), z.unknown())], err('expected a JSON schema object or a file path'))
    .optional(),
});

export const abSchema = z.strictObject({
  a: str(),
  b: str(),
  /** The one factor that differs between a and b (free text, recorded). */
  switch: str().optional(),
  metrics: listOf(oneOf(AB_METRICS)).default([...AB_METRICS]),
  alpha: z
    .number(err(FRACTION))
    .gt(0, err('expected a number in (0, 1)'))
    .lt(1, err('expected a number in (0, 1)'))
    .default(DEFAULT_AB_ALPHA),
  min_effect_pct: nonNegNum().default(DEFAULT_AB_MIN_EFFECT_PCT),
  bootstrap_resamples: posInt().default(DEFAULT_AB_RESAMPLES),
  quality: section(qualitySchema.optional()),
});

export const matrixSchema = z.strictObject({
  cells: z
    .array(
      z.strictObject({ name: str().optional(), input_len: lengthDist(), output_len: lengthDist() }),
      err('expected a list'),
    )
    .default(DEFAULT_MATRIX_CELLS.map((c) => ({ ...c }))),
  concurrency: listOf(posInt()).default([...DEFAULT_MATRIX_CONCURRENCY]),
});

/** The kind-specific section each kind reads (key in the file). */
export const KIND_SECTIONS = {
  baseline: 'baseline',
  'prefix-cache': 'prefix_cache',
  'concurrency-sweep': 'sweep',
  'rate-sweep': 'sweep',
  'mixed-input': 'mixed_input',
  ab: 'ab',
  matrix: 'matrix',
} as const satisfies Record<ExperimentKind, string>;

export const experimentSchema = z.strictObject({
  kind: z.enum(
    EXPERIMENT_KINDS,
    err(`unknown experiment kind; expected one of ${EXPERIMENT_KINDS.join(', ')}`),
  ),
  name: str().min(1, err('expected a non-empty name')),
  description: str().optional(),
  /** Seed for synthetic prompts, lengths and arrivals: the same seed gives the same requests. */
  seed: nonNegInt().default(1),
  targets: z.record(str(), targetSchema, err('expected a map of target names to targets')),
  model: str().optional(),
  endpoint: oneOf(['chat', 'completions']).default('chat'),
  generation: section(generationSchema.default({ stream: true })),
  workload: section(workloadSchema.default({ input_len: '512', output_len: '128', reuse_prompts: false })),
  load: section(loadSchema.default({ arrival: 'poisson' })),
  cache: section(cacheSchema.default({ policy: 'as-is', reset: 'auto' })),
  repeats: posInt().default(1),
  /** Warm-up requests before each measured level (recorded, left out of metrics). */
  warmup: nonNegInt().default(0),
  slo: section(sloSchema.optional()),
  /** Checks on the summary, e.g. `ttft_ms.p99<500` or `error_rate<0.01`; exit code 2 when one fails. */
  thresholds: listOf(
    str().regex(THRESHOLD_RE, 'expected PATH<NUMBER, e.g. ttft_ms.p99<500 or error_rate<0.01'),
  ).default([]),
  baseline: section(baselineSchema.optional()),
  prefix_cache: section(prefixCacheSchema.optional()),
  sweep: section(sweepSchema.optional()),
  mixed_input: section(mixedInputSchema.optional()),
  ab: section(abSchema.optional()),
  matrix: section(matrixSchema.optional()),
});

/** A validated experiment file (defaults filled in). */
export type ExperimentFile = z.output<typeof experimentSchema>;

// ---- cross-field rules ----------------------------------------------------------------------

type Raw = Record<string, unknown>;
const isObj = (v: unknown): v is Raw => !!v && typeof v === 'object' && !Array.isArray(v);
const at = (v: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), v);
const asList = (v: unknown): unknown[] | undefined =>
  v === undefined || v === null ? undefined : Array.isArray(v) ? v : [v];

interface PathProblem {
  path: (string | number)[];
  message: string;
  hint?: string;
}

/**
 * Rules that relate fields to each other, checked on the raw document so that they are reported
 * together with type errors elsewhere. Each rule only fires when the fields it reads have the
 * right shape (type errors are zod's to report).
 */
function crossFieldProblems(raw: Raw): PathProblem[] {
  const out: PathProblem[] = [];
  const kind =
    typeof raw.kind === 'string' && (EXPERIMENT_KINDS as readonly string[]).includes(raw.kind)
      ? (raw.kind as ExperimentKind)
      : undefined;
  const targets = isObj(raw.targets) ? raw.targets : undefined;
  const names = targets ? Object.keys(targets) : [];

  if (raw.targets !== undefined && targets && names.length === 0)
    out.push({
      path: ['targets'],
      message: 'no targets',
      hint: 'add at least one, e.g. `sim: {model: qwen3-0.6b, gpu: h100}`',
    });
  for (const name of names) {
    const t = targets?.[name];
    if (!TARGET_NAME_RE.test(name))
      out.push({
        path: ['targets', name],
        message: 'target names may hold letters, digits, `_`, `.` and `-`',
        hint: 'rename it, e.g. vllm-a',
      });
    if (!isObj(t)) continue;
    const hasUrl = t.url !== undefined;
    const hasSim = t.sim !== undefined;
    if (hasUrl === hasSim)
      out.push({
        path: ['targets', name],
        message: hasUrl ? 'a target is either `url` or `sim`, not both' : 'a target needs `url` or `sim`',
        hint: 'url: http://HOST:PORT/v1 for a running server; sim: {model, gpu} for the built-in simulator',
      });
    if (hasSim) {
      for (const k of ['api_key_env', 'headers', 'metrics_url'] as const)
        if (t[k] !== undefined)
          out.push({
            path: ['targets', name, k],
            message: `\`${k}\` applies to url targets only`,
            hint: 'servelab starts the simulator itself',
          });
      const sim = t.sim;
      if (isObj(sim) && sim.catalog === undefined) {
        if (typeof sim.model === 'string' && !(SIM_MODELS as readonly string[]).includes(sim.model))
          out.push({
            path: ['targets', name, 'sim', 'model'],
            message: `unknown simulator model ${sim.model}`,
            hint: `built-in models: ${SIM_MODELS.join(', ')}; or add one with sim.catalog`,
          });
        if (typeof sim.gpu === 'string' && !(SIM_GPUS as readonly string[]).includes(sim.gpu))
          out.push({
            path: ['targets', name, 'sim', 'gpu'],
            message: `unknown simulator GPU ${sim.gpu}`,
            hint: `built-in GPUs: ${SIM_GPUS.join(', ')}; or add one with sim.catalog`,
          });
      }
      if (isObj(sim) && sim.faults !== undefined && sim.fault_rate === undefined)
        out.push({
          path: ['targets', name, 'sim', 'fault_rate'],
          message: '`faults` is set but `fault_rate` is not',
          hint: 'set the fraction of requests to fault, e.g. fault_rate: 0.1',
        });
    }
    if (hasUrl && t.model === undefined && raw.model === undefined)
      out.push({
        path: ['targets', name, 'model'],
        message: 'no model for this url target',
        hint: 'set the top-level `model:` (or `model:` on the target) to the served model id',
      });
    if (isObj(t.headers))
      for (const h of Object.keys(t.headers))
        if (/^authorization$/i.test(h))
          out.push({
            path: ['targets', name, 'headers', h],
            message: 'do not put credentials in the file',
            hint: 'use api_key_env: NAME and export NAME=… in the environment',
          });
  }

  const load = isObj(raw.load) ? raw.load : {};
  const conc = asList(load.concurrency);
  const rates = asList(load.rates);
  if (conc && rates && load.mode === undefined)
    out.push({
      path: ['load'],
      message: 'both `concurrency` and `rates` are set',
      hint: 'closed loop takes concurrency, open loop takes rates (cap in-flight requests with max_concurrency)',
    });
  if (load.mode === 'closed' && rates)
    out.push({
      path: ['load', 'rates'],
      message: 'rates are for open loop',
      hint: 'remove them, or set mode: open',
    });
  if (load.mode === 'open' && conc)
    out.push({
      path: ['load', 'concurrency'],
      message: 'concurrency levels are for closed loop',
      hint: 'use max_concurrency to cap an open loop',
    });
  if (load.requests !== undefined && load.duration_s !== undefined)
    out.push({
      path: ['load'],
      message: 'both `requests` and `duration_s` are set',
      hint: 'keep one of them',
    });
  if (load.burstiness !== undefined && load.arrival !== 'gamma')
    out.push({
      path: ['load', 'burstiness'],
      message: 'burstiness applies to arrival: gamma only',
      hint: 'set arrival: gamma, or remove burstiness',
    });
  if (load.max_concurrency !== undefined && (load.mode === 'closed' || (conc && !rates)))
    out.push({
      path: ['load', 'max_concurrency'],
      message: 'max_concurrency caps an open loop',
      hint: 'a closed loop is capped by its concurrency levels',
    });

  const workload = isObj(raw.workload) ? raw.workload : {};
  if (workload.dataset !== undefined && workload.shared_prefix !== undefined)
    out.push({
      path: ['workload'],
      message: 'a dataset and a shared-prefix generator cannot be combined',
      hint: 'keep one of them',
    });

  if (!kind) return out;

  // Sections of other kinds are a sign of a wrong `kind` or a copy-paste slip.
  const own = KIND_SECTIONS[kind];
  for (const [k, section] of Object.entries(KIND_SECTIONS)) {
    if (section !== own && raw[section] !== undefined && !out.some((p) => p.path[0] === section)) {
      const readers = Object.entries(KIND_SECTIONS)
        .filter(([, s]) => s === section)
        .map(([kk]) => kk);
      out.push({
        path: [section],
        message: `section \`${section}\` is read by kind ${readers.join(' and ')}, not ${kind}`,
        hint: `remove it, or set kind: ${k}`,
      });
    }
  }

  // Only judged when every level is a number; a non-number is zod's problem to report.
  const increasing = (xs: unknown[]) =>
    !xs.every((x) => typeof x === 'number') ||
    xs.every((x, i) => i === 0 || (x as number) > (xs[i - 1] as number));
  switch (kind) {
    case 'baseline': {
      if (rates || conc?.some((c) => c !== 1))
        out.push({
          path: ['load'],
          message: 'a baseline sends one request at a time',
          hint: 'remove load.concurrency/rates; use kind concurrency-sweep for load',
        });
      // Same generation settings for every target, thinking included: a mismatch is refused.
      const gens = names
        .map((n) => [n, at(targets, n, 'generation')] as const)
        .filter(([, g]) => g !== undefined);
      for (const [n] of gens)
        out.push({
          path: ['targets', n, 'generation'],
          message: 'a baseline uses the same generation settings for every target',
          hint: 'move the settings to the top-level `generation:`',
        });
      break;
    }
    case 'concurrency-sweep': {
      if (rates)
        out.push({
          path: ['load', 'rates'],
          message: 'a concurrency sweep is closed loop',
          hint: 'use kind rate-sweep for rates',
        });
      if (conc && conc.length < 2)
        out.push({
          path: ['load', 'concurrency'],
          message: 'a sweep needs at least two levels',
          hint: 'e.g. [1, 2, 4, 8, 16]',
        });
      else if (conc && !increasing(conc))
        out.push({
          path: ['load', 'concurrency'],
          message: 'levels must increase',
          hint: 'e.g. [1, 2, 4, 8, 16]',
        });
      if (at(raw, 'sweep', 'find_max_concurrency') === true && raw.slo === undefined)
        out.push({
          path: ['sweep', 'find_max_concurrency'],
          message: 'needs an `slo` to meet',
          hint: 'add e.g. slo: {ttft_ms: 1000, tpot_ms: 50}',
        });
      if (at(raw, 'sweep', 'capacity_fractions') !== undefined)
        out.push({
          path: ['sweep', 'capacity_fractions'],
          message: 'capacity_fractions applies to rate-sweep',
          hint: 'remove it',
        });
      break;
    }
    case 'rate-sweep': {
      if (conc)
        out.push({
          path: ['load', 'concurrency'],
          message: 'a rate sweep is open loop',
          hint: 'use load.rates (and max_concurrency to cap in-flight requests)',
        });
      if (rates && rates.length < 2)
        out.push({
          path: ['load', 'rates'],
          message: 'a sweep needs at least two rates',
          hint: 'or leave rates out to derive them from the measured capacity',
        });
      else if (rates && !increasing(rates))
        out.push({ path: ['load', 'rates'], message: 'rates must increase', hint: 'e.g. [1, 2, 4, 8]' });
      if (rates && at(raw, 'sweep', 'capacity_fractions') !== undefined)
        out.push({
          path: ['sweep', 'capacity_fractions'],
          message: 'both load.rates and capacity_fractions are set',
          hint: 'keep one of them',
        });
      if (at(raw, 'sweep', 'find_max_concurrency') === true)
        out.push({
          path: ['sweep', 'find_max_concurrency'],
          message: 'find_max_concurrency applies to concurrency-sweep',
          hint: 'remove it',
        });
      break;
    }
    case 'mixed-input':
    case 'prefix-cache': {
      if (rates)
        out.push({
          path: ['load', 'rates'],
          message: `${kind} sets its own arrivals`,
          hint: `configure the ${own} section instead`,
        });
      break;
    }
    case 'ab': {
      const ab = raw.ab;
      if (ab === undefined) {
        out.push({
          path: ['ab'],
          message: 'an A/B needs an `ab` section naming its two sides',
          hint: 'ab: {a: TARGET, b: TARGET}',
        });
        break;
      }
      if (!isObj(ab)) break;
      for (const side of ['a', 'b'] as const)
        if (typeof ab[side] === 'string' && targets && !names.includes(ab[side] as string))
          out.push({
            path: ['ab', side],
            message: `no target named ${ab[side]}`,
            hint: `targets here: ${names.join(', ') || '(none)'}`,
          });
      if (typeof ab.a === 'string' && ab.a === ab.b)
        out.push({
          path: ['ab', 'b'],
          message: 'a and b are the same target',
          hint: 'define two targets, even if identical (an A/A check)',
        });
      if (
        typeof ab.a === 'string' &&
        typeof ab.b === 'string' &&
        targets &&
        names.includes(ab.a) &&
        names.includes(ab.b)
      ) {
        const diff = switchesBetween(targets[ab.a], targets[ab.b]);
        if (diff.length > 1)
          out.push({
            path: ['ab'],
            message: `an A/B changes exactly one factor; ${ab.a} and ${ab.b} differ in ${diff.join(', ')}`,
            hint: 'make the targets identical except for the one switch under test',
          });
      }
      const q = ab.quality;
      if (isObj(q) && q.expected === undefined && q.regex === undefined && q.json_schema === undefined)
        out.push({
          path: ['ab', 'quality'],
          message: 'a quality check needs expected, regex or json_schema',
          hint: 'e.g. expected: side-a',
        });
      if (isObj(q) && typeof q.regex === 'string') {
        try {
          new RegExp(q.regex);
        } catch (e) {
          out.push({
            path: ['ab', 'quality', 'regex'],
            message: `invalid regular expression: ${(e as Error).message}`,
            hint: 'JavaScript RegExp syntax',
          });
        }
      }
      break;
    }
    case 'matrix': {
      if (conc)
        out.push({
          path: ['load', 'concurrency'],
          message: 'the matrix takes its levels from matrix.concurrency',
          hint: 'move them there',
        });
      if (rates)
        out.push({
          path: ['load', 'rates'],
          message: 'the matrix is closed loop',
          hint: 'remove load.rates',
        });
      const cells = at(raw, 'matrix', 'cells');
      if (Array.isArray(cells) && cells.length < 3)
        out.push({
          path: ['matrix', 'cells'],
          message: 'the matrix needs at least three input/output cells',
          hint: 'e.g. short/short, long/short, long/long (the default)',
        });
      const mc = asList(at(raw, 'matrix', 'concurrency'));
      if (mc && mc.length < 2)
        out.push({
          path: ['matrix', 'concurrency'],
          message: 'the matrix needs at least two concurrency levels',
          hint: 'e.g. [1, 8]',
        });
      break;
    }
  }
  return out;
}

/** Fields in which two target definitions differ (sim options, model, endpoint, generation). */
export function switchesBetween(a: unknown, b: unknown): string[] {
  const out: string[] = [];
  if (!isObj(a) || !isObj(b)) return out;
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  // Two servers always differ in `url`; that is where they run, not a switch.
  for (const k of ['model', 'endpoint', 'extra_body']) if (!same(a[k], b[k])) out.push(k);
  for (const group of ['sim', 'generation'] as const) {
    const ga = isObj(a[group]) ? a[group] : {};
    const gb = isObj(b[group]) ? b[group] : {};
    for (const k of new Set([...Object.keys(ga), ...Object.keys(gb)]))
      if (!same(ga[k], gb[k])) out.push(`${group}.${k}`);
  }
  // Fault injection is one switch, whichever of its knobs (rate, kinds) differ.
  const faults: string[] = out.filter((k) => k === 'sim.fault_rate' || k === 'sim.faults');
  if (faults.length > 1) return [...out.filter((k) => !faults.includes(k)), 'sim.faults'];
  return out;
}

// ---- turning issues into problems -----------------------------------------------------------

/** `load.concurrency[2]`, `targets["my target"].url`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let s = '';
  for (const k of path) {
    if (typeof k === 'number') s += `[${k}]`;
    else if (typeof k === 'string' && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(k)) s += s ? `.${k}` : k;
    else s += `[${JSON.stringify(String(k))}]`;
  }
  return s || '(top level)';
}

interface Def {
  type: string;
  shape?: Record<string, { _zod: { def: Def } }>;
  innerType?: { _zod: { def: Def } };
  in?: { _zod: { def: Def } };
  out?: { _zod: { def: Def } };
  valueType?: { _zod: { def: Def } };
  element?: { _zod: { def: Def } };
  options?: { _zod: { def: Def } }[];
}

/** The keys an object schema accepts at `path`, for "unknown field" hints. */
function keysAt(path: readonly PropertyKey[]): string[] {
  const unwrap = (d: Def | undefined): Def | undefined => {
    for (let i = 0; d && i < 10; i++) {
      if (d.innerType) d = d.innerType._zod.def;
      else if (d.type === 'pipe')
        d = d.out?._zod.def.type === 'transform' ? d.in?._zod.def : (d.out?._zod.def ?? d.in?._zod.def);
      else if (d.type === 'union') d = d.options?.map((o) => o._zod.def).find((o) => o.type === 'object');
      else break;
    }
    return d;
  };
  let d = unwrap((experimentSchema as unknown as { _zod: { def: Def } })._zod.def);
  for (const k of path) {
    if (!d) return [];
    if (d.type === 'object') d = unwrap(d.shape?.[String(k)]?._zod.def);
    else if (d.type === 'record') d = unwrap(d.valueType?._zod.def);
    else if (d.type === 'array') d = unwrap(d.element?._zod.def);
    else return [];
  }
  return d?.type === 'object' && d.shape ? Object.keys(d.shape) : [];
}

const FIELD_HINTS: Record<string, string> = {
  kind: `valid kinds: ${EXPERIMENT_KINDS.join(', ')}; \`servelab exp init KIND\` prints a template`,
  concurrency: 'a list of positive integers, e.g. [1, 2, 4, 8]',
  rates: 'a list of positive request rates per second, e.g. [0.5, 1, 2]',
  input_len: LENGTH_FORMS_HINT,
  output_len: LENGTH_FORMS_HINT,
  gpu_memory_utilization: 'a fraction of GPU memory, e.g. 0.9',
  targets: 'targets: {NAME: {url: http://HOST:PORT/v1}} or {NAME: {sim: {model: qwen3-0.6b, gpu: h100}}}',
  thresholds: "e.g. ['ttft_ms.p99<500', 'error_rate<0.01']",
  faults: `one of ${SIM_FAULTS.join(', ')}`,
};

function hintFor(issue: z.core.$ZodIssue, raw: unknown): string {
  const p = (issue as { params?: { hint?: string } }).params;
  if (p?.hint) return p.hint;
  if (issue.code === 'unrecognized_keys') {
    const keys = keysAt(issue.path);
    return keys.length ? `valid fields here: ${keys.join(', ')}` : 'remove it';
  }
  if (issue.path.length === 1 && issue.path[0] === 'kind') return FIELD_HINTS.kind;
  if (issue.code === 'invalid_value') return `valid values: ${issue.values.map(String).join(', ')}`;
  const last = [...issue.path].reverse().find((k) => typeof k === 'string');
  if (typeof last === 'string' && FIELD_HINTS[last]) return FIELD_HINTS[last];
  if (
    issue.code === 'invalid_type' &&
    typeof valueAt(raw, issue.path) === 'string' &&
    issue.expected === 'number'
  )
    return 'write the number without quotes';
  return '`servelab exp init KIND` prints a template that documents every field';
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const k of path) {
    if (Array.isArray(v) && typeof k === 'number') v = v[k];
    else if (isObj(v)) v = v[String(k)];
    else return undefined;
  }
  return v;
}

function hasPath(raw: unknown, path: readonly PropertyKey[]): boolean {
  let v = raw;
  for (const k of path) {
    if (Array.isArray(v) && typeof k === 'number' && k < v.length) v = v[k];
    else if (isObj(v) && Object.hasOwn(v, String(k))) v = v[String(k)];
    else return false;
  }
  return true;
}

function issueProblems(issue: z.core.$ZodIssue, raw: unknown): PathProblem[] {
  const path = issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k));
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((k) => ({
      path: [...path, k],
      message: 'unknown field',
      hint: hintFor(issue, raw),
    }));
  if (issue.code === 'invalid_type' && !hasPath(raw, issue.path))
    return [{ path, message: 'missing required field', hint: hintFor(issue, raw) }];
  let message = issue.message;
  if (issue.code === 'invalid_value' && path.length === 1 && path[0] === 'kind') {
    const v = valueAt(raw, path);
    message = `unknown experiment kind ${JSON.stringify(v)}`;
  } else if (message.startsWith('Invalid input: expected')) message = message.slice('Invalid input: '.length);
  return [{ path, message, hint: hintFor(issue, raw) }];
}

// ---- entry points ---------------------------------------------------------------------------

/**
 * Validate experiment YAML text. `label` names the file in problems (e.g. `s.yaml`).
 * @throws UsageError listing every problem found, each `label: field.path` with a line and a hint.
 */
export function parseExperiment(text: string, label = 'experiment.yaml'): ExperimentFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const problems: Problem[] = [];
  for (const e of doc.errors) {
    const pos = e.linePos?.[0] ?? (e.pos ? lines.linePos(e.pos[0]) : undefined);
    problems.push({
      path: label,
      message: `YAML syntax: ${e.message.split('\n')[0]}${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}`,
      hint: 'indent with spaces and quote values that contain `: ` or `#`',
    });
  }
  if (problems.length) throw new UsageError(problems);
  const raw: unknown = doc.toJS();
  if (raw === null || raw === undefined)
    throw new UsageError([
      {
        path: label,
        message: 'the file is empty',
        hint: '`servelab exp init KIND > FILE.yaml` writes a template',
      },
    ]);
  if (!isObj(raw))
    throw new UsageError([
      { path: label, message: 'expected a map of fields at the top level', hint: 'start with `kind: …`' },
    ]);

  const lineOf = (path: readonly (string | number)[]): number | undefined => {
    // The deepest node on the path that exists (a missing field points at its parent).
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n), true) as unknown;
      const range = isScalar(node) || isMap(node) || isSeq(node) ? node.range : undefined;
      if (range) return lines.linePos(range[0]).line;
      if (n > 0 && isMap(doc.getIn(path.slice(0, n - 1), true))) {
        const parent = doc.getIn(path.slice(0, n - 1), true);
        if (isMap(parent)) {
          const pair = parent.items.find(
            (it) => isScalar(it.key) && String(it.key.value) === String(path[n - 1]),
          );
          const kr = pair && isScalar(pair.key) ? pair.key.range : undefined;
          if (kr) return lines.linePos(kr[0]).line;
        }
      }
    }
    return undefined;
  };

  const found: PathProblem[] = [];
  const res = experimentSchema.safeParse(raw);
  if (!res.success) for (const issue of res.error.issues) found.push(...issueProblems(issue, raw));
  found.push(...crossFieldProblems(raw));

  if (found.length) {
    const seen = new Set<string>();
    for (const p of found) {
      const key = `${formatPath(p.path)}|${p.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const line = lineOf(p.path);
      problems.push({
        path: `${label}: ${formatPath(p.path)}`,
        message: line ? `${p.message} (line ${line})` : p.message,
        hint: p.hint,
      });
    }
    throw new UsageError(problems);
  }
  if (!res.success) throw new Error('unreachable: zod failed without issues');
  return applyKindDefaults(res.data);
}

/**
 * Fill in what a kind implies when the file leaves it out, so executors read one place: the
 * kind's own section (with its defaults), sweep levels, and concurrency 1 for the sequential kinds.
 */
export function applyKindDefaults(spec: ExperimentFile): ExperimentFile {
  const s: ExperimentFile = { ...spec, load: { ...spec.load } };
  switch (s.kind) {
    case 'baseline':
      s.baseline ??= baselineSchema.parse({});
      s.load.concurrency ??= [1];
      break;
    case 'prefix-cache':
      s.prefix_cache ??= prefixCacheSchema.parse({});
      s.load.concurrency ??= [1];
      break;
    case 'concurrency-sweep':
      s.sweep ??= sweepSchema.parse({});
      s.load.concurrency ??= [...DEFAULT_SWEEP_CONCURRENCY];
      break;
    case 'rate-sweep':
      s.sweep ??= sweepSchema.parse({});
      if (!s.load.rates && !s.sweep.capacity_fractions)
        s.sweep = { ...s.sweep, capacity_fractions: [...DEFAULT_CAPACITY_FRACTIONS] };
      break;
    case 'mixed-input':
      s.mixed_input ??= mixedInputSchema.parse({});
      break;
    case 'matrix':
      s.matrix ??= matrixSchema.parse({});
      break;
    case 'ab':
      break;
  }
  return s;
}

/**
 * Read and validate an experiment file.
 * @throws UsageError when the file cannot be read or is invalid (every problem at once).
 */
export function loadExperimentFile(path: string): ExperimentFile {
  return readExperimentFile(path).spec;
}

/** Like {@link loadExperimentFile}, also returning the text as read (stored with the experiment). */
export function readExperimentFile(path: string): { path: string; text: string; spec: ExperimentFile } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError([
      {
        path,
        message:
          code === 'ENOENT' ? 'no such file' : `cannot read the file (${code ?? (e as Error).message})`,
        hint: '`servelab exp init KIND FILE.yaml` writes a template',
      },
    ]);
  }
  return { path, text, spec: parseExperiment(text, path) };
}

/** The target names of a validated experiment, in file order. */
export function targetNames(spec: ExperimentFile): string[] {
  return Object.keys(spec.targets);
}
