/**
 * @module exp/fields
 * The fields every experiment kind shares (targets, load, generation, workload, slo,
 * thresholds, cache, seed, repeats …), the cross-field rules on them, and the builders a kind
 * module makes its file format with ({@link kindFile}, {@link withRules}). The kinds' own
 * sections live with the kinds (`exp/kinds/`); `exp/schema` joins them into the file format.
 *
 * Units are in the names: `*_ms` milliseconds, `*_s` seconds, `*_tokens`/`*_len` tokens, rates
 * in requests per second.
 */
import { z } from 'zod';
import { STREAM_SLO_METRICS } from '../analysis/index.js';
import { fileField, fileShape, runSetting, settingsNeeding, spellings } from '../config/run-settings.js';
import { UsageError } from '../core/errors.js';
import { bool, err, oneOf, posInt, posNum, section, str } from '../core/fields.js';
import { isSecretName, looksLikeCredential } from '../core/redact.js';
import { translator } from '../i18n/index.js';
import { parseStages } from '../schedule/stages.js';
import { canonicalSimKeys, simSettingsSchema } from '../sim/settings.js';
import { LESSON_NAMES } from './lesson-names.js';

const EN = translator('en');
const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TARGET_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

// ---- sections -------------------------------------------------------------------------------

/**
 * A sim target's options: the simulator's settings as a file writes them (`sim/settings`, the
 * one declaration of every setting), plus the clock it runs on.
 */
export const simSchema = simSettingsSchema('file').safeExtend({
  /** real: an HTTP server in real time; virtual: the same server in this process, in virtual time (as `servelab plan`). */
  clock: oneOf(['real', 'virtual']).default('real'),
});
export type SimOptions = z.output<typeof simSchema>;

/** `generation:`: the request body's settings, as declared in `config/run-settings`. */
export const generationSchema = z.strictObject(fileShape('generation'));
export type Generation = z.output<typeof generationSchema>;

/** `generation:` with every field optional and no defaults filled in (a target's overrides). */
function generationOverrides() {
  const shape = Object.fromEntries(
    Object.entries(generationSchema.shape).map(([k, f]) => [
      k,
      (f instanceof z.ZodDefault ? f.removeDefault() : f).optional(),
    ]),
  );
  return z.strictObject(shape) as unknown as ReturnType<typeof generationSchema.partial>;
}

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
  /** The settings' aliases (`catalog`) are read as their keys; `exp/schema` notes each use. */
  sim: z.preprocess((v) => canonicalSimKeys(v === null ? undefined : v), simSchema.optional()),
  /** Served model id for this target (defaults to the top-level `model`, or the sim model). */
  model: str().optional(),
  endpoint: oneOf(['chat', 'completions']).optional(),
  /** The server runs on this machine (GPU probed with nvidia-smi); default: the URL's host is loopback. */
  local: bool().optional(),
  /** Prometheus endpoint to scrape; default `<server root>/metrics`. */
  metrics_url: str()
    .regex(/^https?:\/\//, 'expected an http:// or https:// URL')
    .optional(),
  /**
   * Per-target generation overrides (an A/B switch such as thinking on/off): only what the
   * target writes, so the top-level section's values and defaults stand for the rest.
   */
  generation: section(generationOverrides().optional()),
  /** Merged into every request body (engine-specific fields). */
  extra_body: section(z.record(z.string(), z.unknown(), err('expected a map')).optional()),
  declared: section(declaredSchema.optional()),
});
export type TargetSpec = z.output<typeof targetSchema>;

/**
 * `workload:`, as declared in `config/run-settings`: lengths, a dataset, a shared prefix
 * (each synthetic prompt starts with one of `groups` prefixes of `tokens` tokens), the sessions'
 * documents (`count` documents of `tokens` tokens; each session picks one by `popularity`),
 * and whether a sweep's levels reuse one set of prompts.
 */
export const workloadSchema = z.strictObject({
  ...fileShape('workload'),
  shared_prefix: z.strictObject(fileShape('workload.shared_prefix')).optional(),
  documents: z.strictObject(fileShape('workload.documents')).optional(),
});
export type WorkloadSection = z.output<typeof workloadSchema>;

/**
 * `load:`, as declared in `config/run-settings`: closed loop (`concurrency` levels), open loop
 * (`rates` levels, requests per second), sessions (`users` levels, docs/sessions.md), and how
 * long each level runs.
 */
export const loadSchema = z.strictObject(fileShape('load'));
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

/** The top-level fields of every kind's file, in the order problems are reported. */
export const SHARED_FIELDS = {
  name: str().min(1, err('expected a non-empty name')),
  description: str().optional(),
  /** The course lesson the file is (`exp init lesson-…`): its answer states the lesson's effect and mechanism. */
  lesson: oneOf(LESSON_NAMES).optional(),
  /** Seed for synthetic prompts, lengths and arrivals: the same seed gives the same requests. */
  seed: fileField('seed'),
  targets: z.record(str(), targetSchema, err('expected a map of target names to targets')),
  model: fileField('model'),
  endpoint: oneOf(['chat', 'completions']).default('chat'),
  // A section left out is the section written empty: its fields' own defaults, declared once.
  generation: section(generationSchema.default(() => generationSchema.parse({}))),
  workload: section(workloadSchema.default(() => workloadSchema.parse({}))),
  load: section(loadSchema.default(() => loadSchema.parse({}))),
  cache: section(cacheSchema.default(() => cacheSchema.parse({}))),
  repeats: posInt().default(1),
  /** Warm-up requests before each measured level (recorded, left out of metrics). */
  warmup: fileField('warmup'),
  slo: section(sloSchema.optional()),
  /** Checks on the summary, e.g. `ttft_ms.p99<500` or `error_rate<0.01`; exit code 2 when one fails. */
  thresholds: fileField('threshold').default([]),
};
/** The shared fields of a validated file. */
export type SharedFile = z.output<z.ZodObject<typeof SHARED_FIELDS>>;

// ---- a kind's file format -------------------------------------------------------------------

type Section<S extends z.ZodType> = z.ZodPipe<z.ZodTransform<unknown, unknown>, z.ZodOptional<S>>;

/** One kind's file: `kind`, the shared fields and the kind's own section (optional; its defaults fill it). */
export function kindFile<K extends string, N extends string, S extends z.ZodType>(
  kind: K,
  name: N,
  sectionSchema: S,
) {
  const own = { [name]: section(sectionSchema.optional()) } as { [P in N]: Section<S> };
  return z.strictObject({ kind: z.literal(kind), ...SHARED_FIELDS, ...own });
}

/** Where a rule reports: a path in the file, what is wrong, what to do. */
export type RuleReport = (path: (string | number)[], message: string, hint: string) => void;

/**
 * `schema` with cross-field rules as a zod `superRefine` on the parsed file. The rules run even
 * when a field failed, so that they are reported together with every other problem; a field
 * that failed keeps the value written, so each rule checks the type of what it reads.
 */
export function withRules<T extends z.ZodObject>(
  schema: T,
  ...rules: ((file: z.output<T>, report: RuleReport) => void)[]
): T {
  return schema.superRefine(
    (file, ctx) => {
      const report: RuleReport = (path, message, hint) =>
        ctx.addIssue({ code: 'custom', path, message, params: { hint } });
      for (const rule of rules) rule(file, report);
    },
    { when: () => true },
  );
}

// ---- shared cross-field rules ---------------------------------------------------------------

/** A map, as rules read values that may have failed their type. */
export const isObj = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);
/** A list value (`listOf` has made a single value one), or undefined. */
export const listAt = (v: unknown): unknown[] | undefined => (Array.isArray(v) ? v : undefined);

/** The load levels as written: `concurrency` and `rates`, each a list or undefined. */
export function loadLevels(f: { load?: unknown }): { conc?: unknown[]; rates?: unknown[] } {
  const load: Record<string, unknown> = isObj(f.load) ? f.load : {};
  return { conc: listAt(load.concurrency), rates: listAt(load.rates) };
}

/** The rule of kinds that schedule their own arrivals: `load.rates` has no place in their file. */
export function refuseRates(f: { load?: unknown }, report: RuleReport, kind: string, section: string): void {
  if (loadLevels(f).rates)
    report(['load', 'rates'], `${kind} sets its own arrivals`, `configure the ${section} section instead`);
}

/**
 * The rule of closed-loop kinds that set their own concurrency levels in their section
 * (`matrix.concurrency`, `calibration.saturation.concurrency`): `load.concurrency` and
 * `load.rates` have no place in their file.
 */
export function refuseLoadLevels(
  f: { load?: unknown },
  report: RuleReport,
  kind: string,
  levelsAt: string,
): void {
  const { conc, rates } = loadLevels(f);
  if (conc) report(['load', 'concurrency'], `${kind} takes its levels from ${levelsAt}`, 'move them there');
  if (rates) report(['load', 'rates'], `${kind} is closed loop`, 'remove load.rates');
}

/** The targets as written, by name (only those that are maps). */
export function targetsOf(f: { targets?: unknown }): Record<string, Record<string, unknown>> {
  return isObj(f.targets)
    ? Object.fromEntries(
        Object.entries(f.targets).filter((e): e is [string, Record<string, unknown>] => isObj(e[1])),
      )
    : {};
}

/** The rules on the shared fields (targets, load shapes, workload sources), on the file as parsed. */
export function sharedRules(
  f: { [field: string]: unknown },
  report: RuleReport,
  kind: { loadStages?: boolean } = {},
): void {
  const all = isObj(f.targets) ? f.targets : undefined;
  const names = all ? Object.keys(all) : [];
  if (all && names.length === 0)
    report(['targets'], 'no targets', 'add at least one, e.g. `sim: {model: qwen3-0.6b, gpu: h100}`');
  for (const name of names) {
    const t = all?.[name];
    if (!TARGET_NAME_RE.test(name))
      report(
        ['targets', name],
        'target names may hold letters, digits, `_`, `.` and `-`',
        'rename it, e.g. vllm-a',
      );
    if (!isObj(t)) continue;
    const hasUrl = t.url !== undefined;
    const hasSim = t.sim !== undefined;
    if (hasUrl === hasSim)
      report(
        ['targets', name],
        hasUrl ? 'a target is either `url` or `sim`, not both' : 'a target needs `url` or `sim`',
        'url: http://HOST:PORT/v1 for a running server; sim: {model, gpu} for the built-in simulator',
      );
    if (hasSim)
      for (const k of ['api_key_env', 'headers', 'metrics_url'] as const)
        if (t[k] !== undefined)
          report(
            ['targets', name, k],
            `\`${k}\` applies to url targets only`,
            'servelab starts the simulator itself',
          );
    if (hasUrl && t.model === undefined && f.model === undefined)
      report(
        ['targets', name, 'model'],
        'no model for this url target',
        'set the top-level `model:` (or `model:` on the target) to the served model id',
      );
    if (isObj(t.headers))
      for (const [h, v] of Object.entries(t.headers))
        if (isSecretName(h) || (typeof v === 'string' && looksLikeCredential(v)))
          report(
            ['targets', name, 'headers', h],
            'do not put credentials in the file',
            'use api_key_env: NAME and export NAME=… in the environment',
          );
  }

  const load: Record<string, unknown> = isObj(f.load) ? f.load : {};
  const { conc, rates } = loadLevels(f);
  if (conc && rates && load.mode === undefined)
    report(
      ['load'],
      'both `concurrency` and `rates` are set',
      'closed loop takes concurrency, open loop takes rates (cap in-flight requests with max_concurrency)',
    );
  if (load.mode === 'closed' && rates)
    report(['load', 'rates'], 'rates are for open loop', 'remove them, or set mode: open');
  if (load.mode === 'open' && conc)
    report(
      ['load', 'concurrency'],
      'concurrency levels are for closed loop',
      'use max_concurrency to cap an open loop',
    );
  if (load.requests !== undefined && load.duration_s !== undefined)
    report(['load'], 'both `requests` and `duration_s` are set', 'keep one of them');
  if (load.burstiness !== undefined && load.arrival !== 'gamma')
    report(
      ['load', 'burstiness'],
      'burstiness applies to arrival: gamma only',
      'set arrival: gamma, or remove burstiness',
    );
  if (load.max_concurrency !== undefined && (load.mode === 'closed' || (conc && !rates)))
    report(
      ['load', 'max_concurrency'],
      'max_concurrency caps an open loop',
      'a closed loop is capped by its concurrency levels',
    );

  stagesRules(f, kind.loadStages, load, report);

  // The sessions' settings of `load:` (declared as needing users), as written.
  const sessionKeys = settingsNeeding('users')
    .map((key) => runSetting(key).file ?? '')
    .filter((path) => path.startsWith('load.'))
    .map((path) => path.slice('load.'.length))
    .filter((k) => load[k] !== undefined);
  const workload: Record<string, unknown> = isObj(f.workload) ? f.workload : {};
  if (load.users === undefined && (sessionKeys.length || workload.documents !== undefined))
    report(
      ['load', 'users'],
      EN('sessions.flags.needs_users', {
        ...spellings('file'),
        flag: [...sessionKeys, ...(workload.documents ? ['workload.documents'] : [])].join(', '),
      }),
      'add load.users (e.g. users: [8, 16, 32]) with turns and think_time_s',
    );
  if (load.users !== undefined) {
    const clash = ['concurrency', 'rates', 'requests', 'duration_s', 'mode'].filter(
      (k) => load[k] !== undefined,
    );
    if (clash.length)
      report(
        ['load', 'users'],
        EN('sessions.flags.clash', { ...spellings('file'), flags: clash.join(', ') }),
        EN('sessions.flags.clash_hint', spellings('file')),
      );
    if (load.ramp_up_s !== undefined && load.session_rate !== undefined)
      report(
        ['load', 'session_rate'],
        EN('sessions.flags.start_both', spellings('file')),
        'keep one of them',
      );
    if (workload.dataset !== undefined || workload.shared_prefix !== undefined)
      report(['workload'], EN('sessions.source.synthetic'), EN('sessions.source.prefix_hint'));
  }
  if (workload.dataset !== undefined && workload.shared_prefix !== undefined)
    report(['workload'], 'a dataset and a shared-prefix generator cannot be combined', 'keep one of them');

  // Per-token objectives cannot be met or missed without a stream (`run --no-stream` refuses them too).
  const generation: Record<string, unknown> = isObj(f.generation) ? f.generation : {};
  const slo: Record<string, unknown> = isObj(f.slo) ? f.slo : {};
  if (generation.stream === false)
    for (const k of [...STREAM_SLO_METRICS, 'itl_ms'])
      if (slo[k] !== undefined)
        report(
          ['slo', k],
          `${k} needs per-token times, and generation.stream: false gives none: the responses arrive whole`,
          'set generation.stream: true, or bound the whole request with slo.e2e_ms',
        );
}

/**
 * `load.stages` (inference-perf's load stages, `schedule/stages`): a rate-sweep's, in the
 * grammar of `--stages`, alone among the load's levels and counts; `stage_pause_s` only with it.
 */
function stagesRules(
  f: { kind?: unknown },
  loadStages: boolean | undefined,
  load: Record<string, unknown>,
  report: RuleReport,
): void {
  if (load.stages === undefined) {
    if (load.stage_pause_s !== undefined)
      report(
        ['load', 'stage_pause_s'],
        EN('schedule.stage_pause.needs'),
        EN('schedule.stage_pause.needs_hint'),
      );
    return;
  }
  // Whether the kind takes stages is the kind's own declaration (`KindSpec.loadStages`); unknown
  // before the kind is (the any-kind schema), so not judged there.
  if (loadStages === false)
    report(
      ['load', 'stages'],
      EN('schedule.stages.kind', { kind: String(f.kind) }),
      EN('schedule.stages.kind_hint'),
    );
  const clash = ['concurrency', 'rates', 'requests', 'duration_s', 'users'].filter(
    (k) => load[k] !== undefined,
  );
  if (clash.length)
    report(
      ['load', 'stages'],
      EN('schedule.stages.alone', { keys: clash.map((k) => `load.${k}`).join(', ') }),
      EN('schedule.stages.alone_hint'),
    );
  if (typeof load.stages !== 'string') return;
  try {
    parseStages(load.stages, 'load.stages');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    for (const p of e.problems) report(['load', 'stages'], p.message, p.hint ?? '');
  }
}

/** Only judged when every level is a number; a non-number is zod's problem to report. */
export const increasing = (xs: unknown[]): boolean =>
  !xs.every((x) => typeof x === 'number') ||
  xs.every((x, i) => i === 0 || (x as number) > (xs[i - 1] as number));
