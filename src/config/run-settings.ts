/**
 * @module config/run-settings
 * Every setting of a measurement run (load, workload, generation, the request, output),
 * declared once: its key (snake_case), its flag, its path in an experiment file, its type and
 * range (a zod schema), default, unit and a one-sentence description, and the `vllm bench
 * serve` / SGLang `bench_serving` names it is also read under. Derived from it:
 *
 * - the flags of `run`, `plan` and `voice` and their `--help` ({@link runFlags});
 * - the `load:`, `workload:` and `generation:` sections of an experiment file and its
 *   top-level `seed`, `warmup`, `model` and `thresholds` ({@link fileShape}, {@link fileField});
 * - the check of a flag's number ({@link checkFlagNumber}): a problem names the setting's key,
 *   and each surface spells it (`--max-concurrency` on the command line, `load.max_concurrency`
 *   in a file: {@link spellKey});
 * - the settings table of docs/cli.md ({@link runSettingsTable}).
 *
 * The typed settings `run` and `plan` build (`pipeline/settings` `CommonSettings`) are checked
 * against the `field` each key declares. As in k6, values are consolidated in one order:
 * defaults < experiment file < flags (https://grafana.com/docs/k6/latest/using-k6/k6-options/how-to/).
 */
import { z } from 'zod';
import type { Problem } from '../core/errors.js';
import {
  bool,
  err,
  FRACTION,
  listOf,
  nonNegInt,
  nonNegNum,
  oneOf,
  posInt,
  posNum,
  str,
} from '../core/fields.js';
import { MAX_PLANNED_REQUESTS, plannedCountProblem } from '../core/limits.js';
import type { MessageKey, T } from '../i18n/index.js';
import { drawSeed, type SeedSource } from '../runtime/seed.js';
import { type DistUnit, parseLengthDist } from '../workload/index.js';

/**
 * The refusal of a request count over what one run may plan (its memory grows with it): core/limits'
 * one wording, which the flags' check ({@link checkFlagNumber}) gives too.
 */
const MAX_REQUESTS = {
  error: (iss: { input?: unknown }) => {
    const p = plannedCountProblem(Number(iss.input), '');
    return p ? `${p.message}; ${p.hint}` : undefined;
  },
};
/**
 * A length distribution, kept as its canonical string (what `--input-len` takes). The grammar
 * is workload's ({@link parseLengthDist}), so a file accepts what `run` accepts; spaces
 * around `:`, `-` and `,` are forgiven first, since YAML writers put them there
 * (`normal:512, 64`).
 */
export const lengthDist = (unit: DistUnit = 'int') =>
  z.union([z.number(), z.string()], err('expected a length')).transform((v, ctx) => {
    const r = parseLengthDist(
      String(v)
        .trim()
        .replace(/\s*([:,-])\s*/g, '$1'),
      undefined,
      unit,
    );
    if (!r.ok) {
      ctx.addIssue({ code: 'custom', message: r.problem.message, params: { hint: r.problem.hint } });
      return z.NEVER;
    }
    return r.dist.toString();
  });

/** Which command-line declaration a setting's flag belongs to (`addLoadOptions`, …). */
export type FlagGroup = 'target' | 'generation' | 'workload' | 'load' | 'output' | 'compat' | 'request';

/** A vLLM or SGLang flag read as this setting's (`--num-prompts` for `requests`). */
export interface FlagAlias {
  /** The flag without its dashes. */
  flag: string;
  from: 'vLLM' | 'SGLang';
  /** `--help`'s words, after the `vLLM:` prefix (default: the servelab flag). */
  help?: string;
}

interface RunSettingInfo {
  group: FlagGroup;
  /** One sentence, for `--help` and the docs table. */
  description: string;
  /** The default: a value, or null (unset: the setting is off or decided by others). */
  default: unknown;
  /** The default in words, where it depends on other settings. */
  defaultText?: string;
  /**
   * The default of synthetic prompts (no other prompt source given), on both surfaces: a prompt
   * file, a dataset or a trace brings its own lengths ({@link syntheticDefault}).
   */
  synthetic?: string;
  /**
   * Unset on both surfaces means drawn fresh for each run (`runtime/seed`), then printed and
   * stored with it, so giving that value reproduces the run.
   */
  fresh?: true;
  unit?: string;
  /** The flag without its dashes, `max-concurrency`; null: not a flag (the file only). */
  flag: string | null;
  /** The flag's argument, `<n>`; a switch (boolean) has none. */
  arg?: string;
  /** A repeatable flag (each use adds one value). */
  repeatable?: boolean;
  /** Path in an experiment file, `load.max_concurrency`; null: not in a file (the flags only). */
  file: string | null;
  /**
   * A file may give a list: of levels, one measurement each (`load.concurrency: [1, 4, 16]`),
   * or of values (`generation.stop`); a single value stands for a list of one.
   */
  list?: 'levels' | 'values';
  /** Required in the file object it sits in (`workload.shared_prefix.tokens`). */
  fileRequired?: true;
  /**
   * A file keeps what it writes (no default filled in): a rule reads whether it was written
   * (`burstiness` applies to `arrival: gamma` only).
   */
  fileKeepsWritten?: true;
  /** The `CommonSettings` field the flag fills (`load.maxConcurrency`), where it fills one. */
  field?: string;
  /**
   * The workload builder reads this setting as given, under its field's name (`workload.X` is
   * `WorkloadOptions.X`): `run`/`plan` and the experiments hand it on through
   * {@link workloadOptionValues}, and its `CommonSettings` field is typed from the declaration
   * ({@link WorkloadOptionFields}), so such a setting needs no line of its own on either path.
   */
  option?: 'workload';
  /** The flag means nothing without this other setting, so commander gets no default for it. */
  needs?: string;
  /** vLLM/SGLang names of the flag: plain renames, read as servelab's with a note. */
  aliases?: readonly FlagAlias[];
  /** Message key of the hint for a bad number (default: `cli.num.example`). */
  hintKey?: MessageKey;
  /** The values, in words, where the type does not say them (docs table). */
  valueText?: string;
}

function setting<S extends z.ZodType, const I extends RunSettingInfo>(schema: S, info: I): I & { schema: S } {
  return { ...info, schema };
}

const TEMPERATURE = 'expected a number between 0 and 2';
const TOP_P = 'expected a number in (0, 1]';
const THRESHOLD_RE = /^[A-Za-z0-9_.]+\s*(<=|>=|<|>|==)\s*[+-]?\d+(\.\d+)?%?$/;

/** The settings, in the order `--help` and the docs list them. */
export const RUN_SETTINGS = {
  // ---- the target (`run`; an experiment file names its targets) ----
  url: setting(str().regex(/^https?:\/\/[^\s/]+/, 'expected an http:// or https:// URL'), {
    group: 'target',
    flag: 'url',
    arg: '<base>',
    file: 'targets.<name>.url',
    default: null,
    valueText: 'an http(s) URL',
    aliases: [{ flag: 'base-url', from: 'vLLM', help: '--url (the server root; /v1 is added)' }],
    description: 'OpenAI base URL, e.g. http://127.0.0.1:8000/v1 (a bare http://host:port gets /v1).',
  }),
  extra_body: setting(z.record(z.string(), z.unknown(), err('expected a map')), {
    group: 'target',
    flag: 'extra-body',
    arg: '<json>',
    file: 'targets.<name>.extra_body',
    default: null,
    valueText: 'a JSON object; a file: a map',
    aliases: [{ flag: 'extra-request-body', from: 'SGLang' }],
    description: 'Extra JSON fields merged into every request body.',
  }),
  // ---- generation ----
  model: setting(str(), {
    group: 'generation',
    flag: 'model',
    arg: '<name>',
    file: 'model',
    field: 'generation.model',
    default: null,
    defaultText: 'the first model the server lists',
    description: 'Model id to request.',
  }),
  max_tokens: setting(posInt(), {
    group: 'generation',
    flag: 'max-tokens',
    arg: '<n>',
    file: 'generation.max_tokens',
    field: 'generation.maxTokens',
    default: null,
    defaultText: '--output-len, else the server default',
    unit: 'tokens',
    description: 'max_tokens for every request.',
  }),
  temperature: setting(z.number(err(TEMPERATURE)).min(0, err(TEMPERATURE)).max(2, err(TEMPERATURE)), {
    group: 'generation',
    flag: 'temperature',
    arg: '<t>',
    file: 'generation.temperature',
    field: 'generation.temperature',
    // Greedy, as `vllm bench serve` sends when no temperature is given (vllm/benchmarks/serve.py
    // defaults to greedy decoding): output lengths then depend on the prompt alone.
    default: 0,
    description: 'Sampling temperature.',
  }),
  top_p: setting(z.number(err(FRACTION)).gt(0, err(TOP_P)).max(1, err(TOP_P)), {
    group: 'generation',
    flag: 'top-p',
    arg: '<p>',
    file: 'generation.top_p',
    field: 'generation.topP',
    default: null,
    description: 'top_p: sample from the smallest set of tokens whose probabilities add up to p.',
  }),
  stop: setting(str(), {
    group: 'generation',
    flag: 'stop',
    arg: '<s>',
    repeatable: true,
    file: 'generation.stop',
    list: 'values',
    field: 'generation.stop',
    default: null,
    description: 'Stop string (repeatable; a file gives a list).',
  }),
  ignore_eos: setting(bool(), {
    group: 'generation',
    flag: 'ignore-eos',
    file: 'generation.ignore_eos',
    field: 'generation.ignoreEos',
    // Sent only when asked, as `vllm bench serve --ignore-eos` (off by default): an output may end
    // at EOS before max_tokens. A fixed-length benchmark asks for it.
    default: false,
    description: 'Send ignore_eos: true (vLLM/llama.cpp extension) so outputs reach max_tokens.',
  }),
  thinking: setting(bool(), {
    group: 'generation',
    flag: null,
    file: 'generation.thinking',
    default: null,
    defaultText: "the engine's",
    description: 'Reasoning phase on or off (chat_template_kwargs.enable_thinking).',
  }),
  stream: setting(bool(), {
    group: 'request',
    flag: 'stream',
    file: 'generation.stream',
    default: true,
    description: 'Streaming requests (server-sent events); off: each response arrives whole.',
  }),
  generation_seed: setting(nonNegInt(), {
    group: 'generation',
    flag: null,
    file: 'generation.seed',
    default: null,
    description: 'The seed field of every request, for engines that sample with one.',
  }),
  // ---- workload ----
  prompt: setting(str(), {
    group: 'workload',
    flag: 'prompt',
    arg: '<text>',
    file: null,
    field: 'workload.prompt',
    default: null,
    description: 'The same prompt text for every request.',
  }),
  prompts: setting(str(), {
    group: 'workload',
    flag: 'prompts',
    arg: '<file.jsonl>',
    file: null,
    field: 'workload.promptsFile',
    default: null,
    valueText: 'a file path',
    description:
      'One {"prompt"} or {"messages"} per line, optional output_len (a file: workload.dataset with format prompts).',
  }),
  dataset: setting(z.strictObject({ format: oneOf(['sharegpt', 'prompts']), path: str() }), {
    group: 'workload',
    flag: 'dataset',
    arg: '<kind-and-file...>',
    file: 'workload.dataset',
    field: 'workload.dataset',
    default: null,
    valueText: '`sharegpt FILE`; a file: {format, path}',
    description: 'A file of prompts instead of synthetic ones: the ShareGPT JSON used by vLLM/SGLang.',
  }),
  input_len: setting(lengthDist(), {
    group: 'workload',
    flag: 'input-len',
    arg: '<dist>',
    file: 'workload.input_len',
    field: 'workload.inputLen',
    // Unset: a prompt file, a dataset or a trace brings its own prompts. Synthetic prompts are
    // 1024 tokens, `vllm bench serve`'s random dataset default (--random-input-len 1024 in
    // vllm/benchmarks/datasets.py), so a servelab number sits beside a vLLM one.
    default: null,
    synthetic: '1024',
    unit: 'tokens',
    valueText: 'N, uniform:A-B or normal:MEAN,STD',
    aliases: [{ flag: 'random-input-len', from: 'vLLM' }],
    description: 'Synthetic input tokens per request.',
  }),
  output_len: setting(lengthDist(), {
    group: 'workload',
    flag: 'output-len',
    arg: '<dist>',
    file: 'workload.output_len',
    field: 'workload.outputLen',
    // Unset: a prompt file, a dataset or a trace brings its own lengths (ShareGPT: the reply's,
    // as vLLM's ShareGPT dataset does), else the server's. Synthetic prompts ask for 128, `vllm
    // bench serve`'s random dataset default (--random-output-len 128 in vllm/benchmarks/datasets.py),
    // unless max_tokens is given: then that is the length asked for.
    default: null,
    synthetic: '128',
    unit: 'tokens',
    valueText: 'N, uniform:A-B or normal:MEAN,STD',
    aliases: [{ flag: 'random-output-len', from: 'vLLM' }],
    description: 'Output tokens per request: their max_tokens (with --ignore-eos, every output reaches it).',
  }),
  disable_shuffle: setting(bool(), {
    group: 'workload',
    flag: 'disable-shuffle',
    file: 'workload.disable_shuffle',
    field: 'workload.disableShuffle',
    option: 'workload',
    default: false,
    // vLLM's `vllm bench serve --disable-shuffle` (vllm/benchmarks/datasets.py, BenchmarkDataset,
    // vllm-project/vllm@0056b87fc1fda2642f39dda4392824c425dd1638): the dataset in file order.
    description: "Take ShareGPT prompts in the file's order instead of shuffling them with the seed.",
  }),
  shared_prefix_len: setting(posInt(), {
    group: 'workload',
    flag: 'shared-prefix-len',
    arg: '<n>',
    file: 'workload.shared_prefix.tokens',
    fileRequired: true,
    field: 'workload.sharedPrefixLen',
    default: null,
    unit: 'tokens',
    description: 'Tokens of shared prefix at the start of each synthetic prompt.',
  }),
  num_prefix_groups: setting(posInt(), {
    group: 'workload',
    flag: 'num-prefix-groups',
    arg: '<g>',
    file: 'workload.shared_prefix.groups',
    field: 'workload.numPrefixGroups',
    needs: 'shared_prefix_len',
    default: 1,
    description: 'Number of distinct shared prefixes (with --shared-prefix-len).',
  }),
  prompts_per_group: setting(posInt(), {
    group: 'workload',
    flag: 'prompts-per-group',
    arg: '<m>',
    file: 'workload.shared_prefix.prompts_per_group',
    field: 'workload.promptsPerGroup',
    option: 'workload',
    needs: 'shared_prefix_len',
    default: null,
    defaultText: 'every request its own question',
    // inference-perf's shared_prefix data (kubernetes-sigs/inference-perf @ e8e0aa99,
    // inference_perf/datagen/shared_prefix_datagen.py, `num_prompts_per_group`): N·M fixed
    // prompts, shuffled once, request n sends prompt n mod N·M (workload/shared-prefix).
    description:
      'Fixed questions per prefix group: the run cycles through the groups × this many prompts (inference-perf shared_prefix).',
  }),
  trace: setting(str(), {
    group: 'workload',
    flag: 'trace',
    arg: '<file>',
    file: null,
    field: 'load.traceFile',
    default: null,
    valueText: 'a file path',
    description: 'Replay a trace: Azure or BurstGPT CSV, Mooncake or servelab JSONL (docs/traces.md).',
  }),
  trace_format: setting(oneOf(['azure', 'burstgpt', 'mooncake', 'servelab']), {
    group: 'workload',
    flag: 'trace-format',
    arg: '<fmt>',
    file: null,
    field: 'load.traceFormat',
    needs: 'trace',
    default: null,
    defaultText: 'detected from the first line',
    description: 'The trace file format.',
  }),
  trace_speedup: setting(posNum(), {
    group: 'workload',
    flag: 'trace-speedup',
    arg: '<x>',
    file: null,
    field: 'load.traceSpeedup',
    default: 1,
    description: 'Replay the trace x times faster.',
  }),
  trace_rate_scale: setting(posNum(), {
    group: 'workload',
    flag: 'trace-rate-scale',
    arg: '<x>',
    file: null,
    field: 'load.traceRateScale',
    default: 1,
    hintKey: 'trace.rate_scale.hint',
    description: 'Arrival rate × x (every gap ÷ x; multiplies with --trace-speedup).',
  }),
  trace_window: setting(str(), {
    group: 'workload',
    flag: 'trace-window',
    arg: '<start:end>',
    file: null,
    field: 'load.traceWindow',
    default: null,
    unit: 's',
    valueText: 'START:END',
    description: "Replay only seconds START to END of the trace ('600:' to the end).",
  }),
  trace_block_size: setting(posInt(), {
    group: 'workload',
    flag: 'trace-block-size',
    arg: '<n>',
    file: null,
    field: 'load.traceBlockSize',
    needs: 'trace',
    default: null,
    defaultText: '512',
    unit: 'tokens',
    description: 'Tokens per Mooncake hash block.',
  }),
  reuse_prompts: setting(bool(), {
    group: 'workload',
    flag: null,
    file: 'workload.reuse_prompts',
    default: false,
    description:
      'Send the same prompts at every level of a sweep or matrix (off: each level gets its own, so a prefix cache does not run later levels warm).',
  }),
  workload_seed: setting(nonNegInt(), {
    group: 'workload',
    flag: null,
    file: 'workload.seed',
    default: null,
    defaultText: 'the experiment seed',
    description: 'Seed of the synthetic prompts and lengths alone.',
  }),
  // ---- load ----
  mode: setting(oneOf(['closed', 'open']), {
    group: 'load',
    flag: null,
    file: 'load.mode',
    default: null,
    defaultText: 'from the settings given (--rate: open, else closed)',
    description: 'closed: a fixed number of requests in flight; open: arrivals at a rate.',
  }),
  concurrency: setting(posInt(), {
    group: 'load',
    flag: 'concurrency',
    arg: '<n>',
    file: 'load.concurrency',
    list: 'levels',
    field: 'load.concurrency',
    default: null,
    defaultText: '1',
    unit: 'requests',
    description: 'Closed loop: requests in flight, each finished request starts the next.',
  }),
  rate: setting(posNum(), {
    group: 'load',
    flag: 'rate',
    arg: '<r>',
    file: 'load.rates',
    list: 'levels',
    field: 'load.rateRps',
    default: null,
    unit: 'requests/s',
    valueText: 'a number > 0; the flags also take inf (every request at once)',
    aliases: [{ flag: 'request-rate', from: 'vLLM', help: '--rate (inf: every request at once)' }],
    description: 'Open loop: target arrival rate.',
  }),
  requests: setting(posInt().max(MAX_PLANNED_REQUESTS, MAX_REQUESTS), {
    group: 'load',
    flag: 'requests',
    arg: '<m>',
    file: 'load.requests',
    field: 'load.requests',
    default: null,
    defaultText: '100; a trace: all its lines',
    unit: 'requests',
    aliases: [{ flag: 'num-prompts', from: 'vLLM' }],
    description: 'Number of measured requests, warm-up not included.',
  }),
  duration: setting(posNum(), {
    group: 'load',
    flag: 'duration',
    arg: '<s>',
    file: 'load.duration_s',
    field: 'load.durationS',
    default: null,
    unit: 's',
    description: 'Run for this long instead of a request count.',
  }),
  config: setting(str(), {
    group: 'load',
    flag: 'config',
    arg: '<file>',
    file: null,
    default: null,
    valueText: 'a file path',
    // kubernetes-sigs/inference-perf @ e8e0aa99, inference_perf/config.py (config/inference-perf).
    description:
      "An inference-perf config (YAML): its api type, load stages and data (shared_prefix, random, synthetic) as servelab's flags; flags given win.",
  }),
  stages: setting(str(), {
    group: 'load',
    flag: 'stages',
    arg: '<r×s,…>',
    // A file: the same text (`stages: "5x600,10x600"`), in a rate-sweep (exp/kinds/sweep), whose
    // points are then the stages, measured in one run.
    file: 'load.stages',
    field: 'load.stagesText',
    default: null,
    unit: 'requests/s × s',
    valueText: 'RATExSECONDS,… e.g. 5x600,10x600',
    // inference-perf's multi-stage load (kubernetes-sigs/inference-perf @ e8e0aa99,
    // inference_perf/loadgen/load_generator.py, run_stage): schedule/stages.
    description:
      'Load stages: int(rate × seconds) arrivals each (--arrival spacing); a stage starts when the previous one has drained, plus --stage-pause.',
  }),
  stage_pause: setting(nonNegNum(), {
    group: 'load',
    flag: 'stage-pause',
    arg: '<s>',
    file: 'load.stage_pause_s',
    fileKeepsWritten: true,
    field: 'load.stagePauseS',
    needs: 'stages',
    // Unset: no pause (load-plan, the rate-sweep); a file keeps what it writes for its rule.
    default: null,
    defaultText: '0',
    unit: 's',
    description:
      "With --stages: seconds between a stage's last response and the next stage (inference-perf's load.interval).",
  }),
  drain_timeout: setting(nonNegNum(), {
    group: 'load',
    flag: 'drain-timeout',
    arg: '<s>',
    file: null,
    field: 'load.drainTimeoutS',
    default: 30,
    unit: 's',
    description: 'After --duration, let in-flight requests finish for up to this long.',
  }),
  arrival: setting(oneOf(['constant', 'poisson', 'gamma']), {
    group: 'load',
    flag: 'arrival',
    arg: '<kind>',
    file: 'load.arrival',
    field: 'load.arrival',
    default: 'poisson',
    description: 'Open-loop arrivals: constant, poisson or gamma.',
  }),
  burstiness: setting(posNum(), {
    group: 'load',
    flag: 'burstiness',
    arg: '<k>',
    file: 'load.burstiness',
    fileKeepsWritten: true,
    field: 'load.burstiness',
    default: 1,
    description: 'Gamma shape for arrival gamma (1 = Poisson; < 1 burstier).',
  }),
  max_concurrency: setting(posInt(), {
    group: 'load',
    flag: 'max-concurrency',
    arg: '<c>',
    file: 'load.max_concurrency',
    field: 'load.maxConcurrency',
    default: null,
    unit: 'requests',
    description: 'Open loop or trace: cap on requests in flight (waiting requests keep their planned time).',
  }),
  users: setting(posInt(), {
    group: 'load',
    flag: 'users',
    arg: '<n>',
    file: 'load.users',
    list: 'levels',
    field: 'load.users',
    default: null,
    unit: 'users',
    description: 'Sessions: users, each a closed loop over its turns with think time (docs/sessions.md).',
  }),
  turns: setting(lengthDist(), {
    group: 'load',
    flag: 'turns',
    arg: '<dist>',
    file: 'load.turns',
    field: 'load.turns',
    needs: 'users',
    default: null,
    defaultText: '1',
    unit: 'turns',
    valueText: '4, uniform:3-6, …',
    description: 'Sessions: turns per session.',
  }),
  think_time: setting(lengthDist('real'), {
    group: 'load',
    flag: 'think-time',
    arg: '<dist>',
    file: 'load.think_time_s',
    field: 'load.thinkTime',
    needs: 'users',
    default: null,
    defaultText: '0',
    unit: 's',
    valueText: 'exp:10, …',
    description: 'Sessions: seconds from an answer to the next question.',
  }),
  ramp_up: setting(nonNegNum(), {
    group: 'load',
    flag: 'ramp-up',
    arg: '<s>',
    file: 'load.ramp_up_s',
    field: 'load.rampUpS',
    needs: 'users',
    default: null,
    defaultText: '0',
    unit: 's',
    description: 'Sessions: users start evenly spread over this long.',
  }),
  session_rate: setting(posNum(), {
    group: 'load',
    flag: 'session-rate',
    arg: '<r>',
    file: 'load.session_rate',
    field: 'load.sessionRateRps',
    needs: 'users',
    default: null,
    unit: 'sessions/s',
    description: 'Sessions: sessions start as Poisson arrivals at this rate.',
  }),
  // The sessions' documents are workload flags, listed with the other sessions' settings.
  documents: setting(posInt(), {
    group: 'workload',
    flag: 'documents',
    arg: '<d>',
    file: 'workload.documents.count',
    fileRequired: true,
    field: 'workload.documents',
    needs: 'users',
    default: null,
    unit: 'documents',
    description: 'Sessions: shared documents; each session picks one (Zipf) and its turns start with it.',
  }),
  doc_len: setting(lengthDist(), {
    group: 'workload',
    flag: 'doc-len',
    arg: '<dist>',
    file: 'workload.documents.tokens',
    fileRequired: true,
    field: 'workload.docLen',
    needs: 'users',
    default: null,
    unit: 'tokens',
    valueText: 'N, uniform:A-B, normal, exp, lognormal',
    description: 'Sessions: tokens per document.',
  }),
  doc_popularity: setting(str(), {
    group: 'workload',
    flag: 'doc-popularity',
    arg: '<zipf:s>',
    file: 'workload.documents.popularity',
    field: 'workload.docPopularity',
    needs: 'users',
    // zipf:1 (a few documents take most sessions): on both surfaces once documents are given.
    default: 'zipf:1',
    valueText: 'zipf:S',
    description: 'Sessions: how sessions pick documents.',
  }),
  seed: setting(nonNegInt(), {
    group: 'load',
    flag: 'seed',
    arg: '<n>',
    file: 'seed',
    field: 'load.seed',
    // Drawn fresh for each run, and for each experiment (shared by all its runs, so the sides of
    // an A/B stay paired): a fixed default replays the same prompts, and a second run then
    // measures the prefix cache the first one filled. Printed and stored, so --seed reproduces it.
    default: null,
    fresh: true,
    description: 'Seed for arrivals, lengths and prompts: the same seed gives the same requests.',
  }),
  warmup: setting(nonNegInt().max(MAX_PLANNED_REQUESTS, MAX_REQUESTS), {
    group: 'load',
    flag: 'warmup',
    arg: '<n>',
    file: 'warmup',
    field: 'load.warmup',
    default: 0,
    unit: 'requests',
    description: 'Warm-up requests sent first, recorded but left out of the metrics.',
  }),
  // ---- the request ----
  timeout: setting(posNum(), {
    group: 'request',
    flag: 'timeout',
    arg: '<s>',
    file: 'load.timeout_s',
    default: null,
    defaultText: 'none',
    unit: 's',
    description: 'Per-request timeout.',
  }),
  timeout_ttft: setting(posNum(), {
    group: 'request',
    flag: 'timeout-ttft',
    arg: '<s>',
    file: 'load.timeout_ttft_s',
    default: null,
    defaultText: 'none',
    unit: 's',
    description: 'Time-to-first-token timeout.',
  }),
  otlp_port: setting(nonNegInt().max(65535, err('expected an integer from 0 to 65535')), {
    group: 'request',
    flag: 'otlp-port',
    arg: '<p>',
    file: null,
    default: null,
    defaultText: 'off',
    valueText: 'a port, 0: any free one',
    hintKey: 'otlp.port_example',
    description:
      "Receive the engine's OpenTelemetry spans (OTLP/HTTP) on this local port and send a traceparent with every request, so each record is joined to its span.",
  }),
  // ---- output ----
  slo: setting(str(), {
    group: 'output',
    flag: 'slo',
    arg: '<list>',
    file: null,
    field: 'output.slo',
    default: null,
    valueText: 'ttft_ms=500,tpot_ms=50,e2e_ms=10000; a file: the slo section',
    description: 'SLOs for goodput.',
  }),
  threshold: setting(
    str().regex(THRESHOLD_RE, 'expected PATH<NUMBER, e.g. ttft_ms.p99<500 or error_rate<0.01'),
    {
      group: 'output',
      flag: 'threshold',
      arg: '<expr>',
      repeatable: true,
      file: 'thresholds',
      list: 'values',
      field: 'output.thresholds',
      default: [],
      valueText: "'ttft_ms.p99<500', 'error_rate<0.01'",
      description: 'Pass/fail gate on the summary; exit code 2 when one fails (repeatable).',
    },
  ),
  baseline: setting(str(), {
    group: 'output',
    flag: 'baseline',
    arg: '<report.json>',
    file: null,
    field: 'output.baseline',
    default: null,
    valueText: 'a file path',
    description: "Baseline for relative thresholds such as 'ttft_ms.p99<+10%'.",
  }),
  out: setting(str(), {
    group: 'output',
    flag: 'out',
    arg: '<dir>',
    file: null,
    field: 'output.out',
    default: null,
    valueText: 'a directory',
    aliases: [{ flag: 'result-dir', from: 'vLLM' }],
    description: 'Write report.json, requests.jsonl and summary.csv to this directory.',
  }),
  format: setting(oneOf(['vllm']), {
    group: 'output',
    flag: 'format',
    arg: '<fmt>',
    file: null,
    default: null,
    description: 'Also write vllm.json with `vllm bench serve` field names (fmt: vllm).',
  }),
  embed_records: setting(bool(), {
    group: 'output',
    flag: 'embed-records',
    file: null,
    field: 'output.embedRecords',
    default: false,
    description: 'Embed the per-request records in report.json.',
  }),
  json: setting(str(), {
    group: 'output',
    flag: 'json',
    arg: '[file]',
    file: null,
    field: 'output.json',
    default: null,
    valueText: 'a file path, or none: stdout',
    description: 'Write the machine-readable result to a file, or stdout.',
  }),
  percentile_metrics: setting(str(), {
    group: 'output',
    flag: 'percentile-metrics',
    arg: '<list>',
    file: null,
    field: 'output.vllm.percentileMetrics',
    default: null,
    valueText: 'vLLM names: ttft,tpot,itl,e2el',
    description: 'vllm.json: metrics with percentiles.',
  }),
  metric_percentiles: setting(str(), {
    group: 'output',
    flag: 'metric-percentiles',
    arg: '<list>',
    file: null,
    field: 'output.vllm.metricPercentiles',
    default: null,
    defaultText: '99',
    valueText: '50,90,99',
    description: 'vllm.json: which percentiles.',
  }),
  save_detailed: setting(bool(), {
    group: 'output',
    flag: 'save-detailed',
    file: null,
    field: 'output.vllm.detailed',
    default: false,
    description: 'vllm.json: add the per-request arrays, as vLLM does.',
  }),
  // ---- vLLM and SGLang settings that are more than a rename ----
  // Below 1 too: applyCompatFlags says so with its own hint.
  random_range_ratio: setting(nonNegNum(), {
    group: 'compat',
    flag: 'random-range-ratio',
    arg: '<r>',
    file: null,
    default: null,
    description: 'vLLM: lengths uniform in [N·(1−r), N·(1+r)].',
  }),
  random_prefix_len: setting(nonNegInt(), {
    group: 'compat',
    flag: 'random-prefix-len',
    arg: '<n>',
    file: null,
    default: null,
    unit: 'tokens',
    description: 'vLLM: one shared prefix of n tokens before the random input.',
  }),
  dataset_name: setting(oneOf(['random', 'sharegpt']), {
    group: 'compat',
    flag: 'dataset-name',
    arg: '<name>',
    file: null,
    default: null,
    description: 'vLLM: random (synthetic, vLLM defaults 1024/128) or sharegpt.',
  }),
  dataset_path: setting(str(), {
    group: 'compat',
    flag: 'dataset-path',
    arg: '<file>',
    file: null,
    default: null,
    valueText: 'a file path',
    description: 'vLLM: the file of --dataset-name sharegpt.',
  }),
  tokenizer: setting(str(), {
    group: 'compat',
    flag: 'tokenizer',
    arg: '<name>',
    file: null,
    field: 'workload.tokenizer',
    default: null,
    defaultText: 'the model',
    description: 'vLLM: the tokenizer to count prompt tokens with.',
  }),
  goodput: setting(str(), {
    group: 'compat',
    flag: 'goodput',
    arg: '<kv...>',
    file: null,
    default: null,
    valueText: 'ttft:MS tpot:MS e2el:MS',
    description: 'vLLM: SLOs (--slo).',
  }),
  save_result: setting(bool(), {
    group: 'compat',
    flag: 'save-result',
    file: null,
    default: false,
    description: 'vLLM: write vllm.json (into --result-dir, default .).',
  }),
  result_filename: setting(str(), {
    group: 'compat',
    flag: 'result-filename',
    arg: '<name>',
    file: null,
    default: null,
    defaultText: 'vllm.json',
    description: 'vLLM: the file name of --save-result.',
  }),
  output_file: setting(str(), {
    group: 'compat',
    flag: 'output-file',
    arg: '<file>',
    file: null,
    default: null,
    valueText: 'a file path',
    description: 'SGLang: append the result, one JSON line in vllm.json format.',
  }),
  disable_ignore_eos: setting(bool(), {
    group: 'compat',
    flag: 'disable-ignore-eos',
    file: null,
    default: false,
    description: 'SGLang: no ignore_eos (already the default here; SGLang sends it unless told not to).',
  }),
};

type Defs = typeof RUN_SETTINGS;
/** The key of a run setting (snake_case). */
export type RunSettingKey = keyof Defs;
type AnyDef = RunSettingInfo & { schema: z.ZodType };
const DEFS = RUN_SETTINGS as Record<RunSettingKey, AnyDef>;
/** Every key, in declaration order. */
export const RUN_SETTING_KEYS = Object.keys(RUN_SETTINGS) as RunSettingKey[];

/** A setting's declaration. */
export function runSetting(key: RunSettingKey): Readonly<AnyDef> {
  return DEFS[key];
}

// ---- the experiment file -------------------------------------------------------------------

/** The zod field of one value in a file: list, default, optional, from the declaration. */
type ListOf<S extends z.ZodType> = z.ZodPipe<z.ZodTransform<unknown, unknown>, z.ZodArray<S>>;
type FieldOf<K extends RunSettingKey> = Defs[K] extends { list: string }
  ? z.ZodOptional<ListOf<Defs[K]['schema']>>
  : Defs[K] extends { fileRequired: true }
    ? Defs[K]['schema']
    : Defs[K] extends { fileKeepsWritten: true }
      ? z.ZodOptional<Defs[K]['schema']>
      : Defs[K] extends { fresh: true }
        ? z.ZodDefault<Defs[K]['schema']>
        : Defs[K]['default'] extends null
          ? z.ZodOptional<Defs[K]['schema']>
          : z.ZodDefault<Defs[K]['schema']>;

/**
 * The fixed default a file gets for a key: the flags' own (undefined: it keeps what it writes, or
 * for a {@link RunSettingInfo.fresh} key, a value drawn fresh when the file is read).
 */
export function fileDefaultOf(key: RunSettingKey): unknown {
  const d = DEFS[key];
  if (d.list || d.fileRequired || d.fileKeepsWritten || d.fresh) return undefined;
  return d.default ?? undefined;
}

/**
 * The schema of a key as an experiment file writes it. A {@link RunSettingInfo.fresh} key left
 * out is drawn when the file is read (`servelab exp run` reads it once, at the top), so every
 * run of the experiment shares it; the command line draws its own ({@link freshDefault}).
 */
export function fileField<K extends RunSettingKey>(key: K): FieldOf<K> {
  const d = DEFS[key];
  if (d.list) return listOf(d.schema).optional() as unknown as FieldOf<K>;
  if (d.fileRequired) return d.schema as FieldOf<K>;
  if (d.fresh) return d.schema.default(() => drawSeed() as never) as unknown as FieldOf<K>;
  const dflt = fileDefaultOf(key);
  return (dflt === undefined
    ? d.schema.optional()
    : d.schema.default(dflt as never)) as unknown as FieldOf<K>;
}

/**
 * A {@link RunSettingInfo.fresh} setting's value: the one given, else one drawn from `draw`
 * (the injected source; `runtime/seed` by default). Drawn once, where a run begins.
 */
export function freshDefault(given: number | null | undefined, draw: SeedSource = drawSeed): number {
  return given ?? draw();
}

/**
 * The default length of synthetic prompts (`input_len`, `output_len`), on both surfaces:
 * applied only when no other prompt source is given (a source brings its own lengths).
 */
export function syntheticDefault(key: 'input_len' | 'output_len'): string {
  return DEFS[key].synthetic as string;
}

/**
 * The output length a run asks for when it names none: none when its prompts bring their own
 * (a prompt file, a dataset, a trace) or when `max_tokens` is given (that is the length asked
 * for), else {@link syntheticDefault}'s. One rule for the command line and experiment files.
 */
export function defaultOutputLen(
  ownLengths: boolean,
  maxTokens: number | null | undefined,
): string | undefined {
  return ownLengths || maxTokens != null ? undefined : syntheticDefault('output_len');
}

type KeysAt<P extends string> = {
  [K in RunSettingKey]: Defs[K]['file'] extends `${P}.${infer F}`
    ? F extends `${string}.${string}`
      ? never
      : K
    : never;
}[RunSettingKey];
type NameAt<K extends RunSettingKey, P extends string> = Defs[K]['file'] extends `${P}.${infer F}`
  ? F
  : never;
/** The fields of a file object (`load`, `workload.shared_prefix`), by their names there. */
export type FileShape<P extends string> = { [K in KeysAt<P> as NameAt<K, P>]: FieldOf<K> };

/**
 * The fields of the experiment file object at `prefix` (`load`, `workload.documents`): every
 * key whose file path is directly under it, by its name there, in declaration order.
 */
export function fileShape<P extends string>(prefix: P): FileShape<P> {
  const shape: Record<string, z.ZodType> = {};
  for (const key of RUN_SETTING_KEYS) {
    const path = DEFS[key].file;
    if (!path?.startsWith(`${prefix}.`)) continue;
    const name = path.slice(prefix.length + 1);
    if (!name.includes('.')) shape[name] = fileField(key);
  }
  return shape as FileShape<P>;
}

// ---- the typed settings ------------------------------------------------------------------

/**
 * The settings whose `CommonSettings` field is `section.NAME`, by NAME, in declaration order.
 * A setting whose field is elsewhere, or deeper (`output.vllm.detailed`), is not among them.
 */
export function fieldsOf(section: string): [name: string, key: RunSettingKey][] {
  return RUN_SETTING_KEYS.flatMap((key) => {
    const f = DEFS[key].field;
    const name = f?.startsWith(`${section}.`) ? f.slice(section.length + 1) : undefined;
    return name && !name.includes('.') ? [[name, key] as [string, RunSettingKey]] : [];
  });
}

/**
 * The default of each field of a `CommonSettings` section that settings fill (by field name):
 * the declared default, or null for one that needs another setting (it is unset without it).
 */
export function fieldDefaults<S extends object>(section: string): S {
  return Object.fromEntries(
    fieldsOf(section).map(([name, key]) => [
      name,
      DEFS[key].needs ? null : structuredClone(DEFS[key].default),
    ]),
  ) as S;
}

// ---- settings the workload builder reads as given ------------------------------------------

/** The `CommonSettings.workload` fields of the settings the workload builder reads as given. */
export type WorkloadOptionFields = {
  [K in RunSettingKey as Defs[K] extends { option: 'workload'; field: `workload.${infer F}` }
    ? F
    : never]: z.output<Defs[K]['schema']>;
};

/**
 * The values of the settings the workload builder reads as given ({@link RunSettingInfo.option}),
 * by field name: from `CommonSettings.workload` (`from: 'settings'`) or an experiment file's
 * `workload:` section (`from: 'file'`, by its names there). Unset values are left out.
 */
export function workloadOptionValues(
  values: object,
  from: 'settings' | 'file',
): Partial<WorkloadOptionFields> {
  const given = values as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const key of RUN_SETTING_KEYS) {
    const d = DEFS[key];
    if (d.option !== 'workload' || !d.field?.startsWith('workload.')) continue;
    const name = d.field.slice('workload.'.length);
    // A file's key may sit in a nested object (`workload.shared_prefix.prompts_per_group`).
    const v =
      from === 'settings'
        ? given[name]
        : (d.file ?? '')
            .slice('workload.'.length)
            .split('.')
            .reduce<unknown>(
              (o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined),
              given,
            );
    if (v !== undefined && v !== null) out[name] = v;
  }
  return out as Partial<WorkloadOptionFields>;
}

// ---- the flags -----------------------------------------------------------------------------

/** How each surface writes a setting. */
export type Surface = 'flag' | 'file';

/** `--max-concurrency` (the command line) or `load.max_concurrency` (an experiment file). */
export function spellKey(key: RunSettingKey, surface: Surface): string {
  const d = DEFS[key];
  const name = surface === 'flag' ? d.flag : d.file;
  if (name === null) throw new Error(`run setting ${key} has no ${surface}`);
  return surface === 'flag' ? `--${name}` : name;
}

/** Every setting's spelling on a surface, by key (for messages that name settings: `{users}`). */
export function spellings(surface: Surface): Record<string, string> {
  return Object.fromEntries(
    RUN_SETTING_KEYS.flatMap((k) =>
      (surface === 'flag' ? DEFS[k].flag : DEFS[k].file) === null ? [] : [[k, spellKey(k, surface)]],
    ),
  );
}

/** Whether `s` is a run setting's key. */
export function isRunSettingKey(s: string): s is RunSettingKey {
  return Object.hasOwn(DEFS, s);
}

/** The property commander puts a flag's value in (`maxConcurrency`). */
export const attributeOf = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** One flag of a setting, for commander. */
export interface RunFlag {
  key: RunSettingKey;
  /** `--rate <r>`, `--ignore-eos`, `--no-stream`. */
  flags: string;
  help: string;
  /** commander's default (the text a flag would give), where commander fills it in. */
  commanderDefault?: string;
  repeatable: boolean;
  /** The property commander puts the value in (`maxConcurrency`). */
  attribute: string;
}

/** The default in words: its text, or the value; null when there is none. */
export function defaultTextOf(key: RunSettingKey): string | null {
  const d = DEFS[key];
  if (d.defaultText !== undefined) return d.defaultText;
  if (d.synthetic !== undefined) return `${d.synthetic} for synthetic prompts (no other prompt source)`;
  if (d.fresh) return 'drawn fresh for each run and experiment (printed and stored)';
  if (Array.isArray(d.default)) return d.default.length ? d.default.join(', ') : null;
  return d.default === null || d.default === undefined ? null : String(d.default);
}

/** The flag of a setting. A switch on by default is written `--no-NAME`. */
export function runFlag(key: RunSettingKey): RunFlag {
  const d = DEFS[key];
  if (d.flag === null) throw new Error(`run setting ${key} has no flag`);
  const attribute = attributeOf(d.flag);
  if (d.arg === undefined) {
    const on = d.default === true;
    return {
      key,
      flags: on ? `--no-${d.flag}` : `--${d.flag}`,
      help: `${helpOf(d)}${on ? ' (on by default; this flag turns it off)' : ''}`,
      repeatable: false,
      attribute,
    };
  }
  // commander fills in a fixed default (and --help shows it) unless the flag needs another:
  // then a default would read as the flag given.
  const fixed =
    d.default !== null && d.defaultText === undefined && d.needs === undefined && !d.repeatable
      ? String(d.default)
      : undefined;
  const dtext = fixed === undefined ? defaultTextOf(key) : null;
  return {
    key,
    flags: `--${d.flag} ${d.arg}`,
    help: `${helpOf(d)}${dtext !== null ? ` (default: ${dtext})` : ''}`,
    ...(fixed !== undefined ? { commanderDefault: fixed } : {}),
    repeatable: !!d.repeatable,
    attribute,
  };
}

/** `--help`'s words: the description as a phrase (lower case, no full stop), with its unit. */
const helpOf = (d: AnyDef): string =>
  (d.description.endsWith('.') ? d.description.slice(0, -1) : d.description).replace(
    /^[A-Z](?=[a-z]*[\s,:;.])/,
    (c) => c.toLowerCase(),
  ) +
  (d.unit && !new RegExp(`\\b${d.unit}\\b`, 'i').test(d.description)
    ? `, in ${d.unit === 's' ? 'seconds' : d.unit}`
    : '');

/** The settings that mean something only beside `key` (`users`: the sessions' settings), in declaration order. */
export function settingsNeeding(key: RunSettingKey): RunSettingKey[] {
  return RUN_SETTING_KEYS.filter((k) => DEFS[k].needs === key);
}

/** The flags of a group, in declaration order. */
export function runFlags(group: FlagGroup): RunFlag[] {
  return RUN_SETTING_KEYS.filter((k) => DEFS[k].group === group && DEFS[k].flag !== null).map(runFlag);
}

/** A vLLM/SGLang rename of a setting's flag, with the setting. */
export interface AliasFlag extends FlagAlias {
  key: RunSettingKey;
  /** The property commander puts the alias's value in (`numPrompts`). */
  attribute: string;
}

/** The vLLM/SGLang renames of the settings' flags, in declaration order. */
export function aliasFlags(): AliasFlag[] {
  return RUN_SETTING_KEYS.flatMap((key) =>
    (DEFS[key].aliases ?? []).map((a) => ({ ...a, key, attribute: attributeOf(a.flag) })),
  );
}

type Camel<S extends string> = S extends `${infer H}-${infer R}` ? `${H}${Capitalize<Camel<R>>}` : S;
type FlagKey = { [K in RunSettingKey]: Defs[K]['flag'] extends string ? K : never }[RunSettingKey];
type RawOf<K extends RunSettingKey> = Defs[K] extends { arg: string }
  ? Defs[K] extends { repeatable: true }
    ? string[]
    : Defs[K]['arg'] extends `${string}...>`
      ? string[]
      : Defs[K]['arg'] extends `[${string}]`
        ? string | boolean
        : string
  : boolean;
type AliasFlagName = {
  [K in RunSettingKey]: Defs[K] extends { aliases: readonly { flag: infer F }[] } ? F : never;
}[RunSettingKey];
/**
 * The values of the settings' flags as commander hands them over (by {@link RunFlag.attribute}):
 * text until checked, switches as booleans, repeatable flags as lists; and their vLLM/SGLang renames.
 */
export type RawRunFlags = { [K in FlagKey as Camel<Defs[K]['flag'] & string>]?: RawOf<K> } & {
  [A in AliasFlagName as Camel<A & string>]?: string;
};

// ---- checking a flag's number --------------------------------------------------------------

interface NumberRange {
  int: boolean;
  min?: number;
  gt?: number;
  max?: number;
  lt?: number;
}

/** The range of a numeric setting, read from its zod schema (as its JSON schema says it). */
export function numberRange(key: RunSettingKey): NumberRange | null {
  const j = z.toJSONSchema(DEFS[key].schema, { io: 'input', unrepresentable: 'any' }) as {
    type?: string;
    minimum?: number;
    exclusiveMinimum?: number;
    maximum?: number;
    exclusiveMaximum?: number;
  };
  if (j.type !== 'number' && j.type !== 'integer') return null;
  const int = j.type === 'integer';
  // An integer > 0 is an integer ≥ 1: say it so (`must be at least 1`).
  const gtInt = int && j.exclusiveMinimum !== undefined;
  return {
    int,
    ...(j.minimum !== undefined ? { min: j.minimum } : {}),
    ...(gtInt ? { min: (j.exclusiveMinimum as number) + 1 } : {}),
    ...(j.exclusiveMinimum !== undefined && !gtInt ? { gt: j.exclusiveMinimum } : {}),
    // zod's integers stop at the largest safe one: no bound a user meets.
    ...(j.maximum !== undefined && j.maximum < Number.MAX_SAFE_INTEGER ? { max: j.maximum } : {}),
    ...(j.exclusiveMaximum !== undefined ? { lt: j.exclusiveMaximum } : {}),
  };
}

/**
 * A flag's text → its number, checked against the setting's range; or a problem that names the
 * setting's key (the caller spells it: {@link spellKey}), with a hint written with `spell`.
 * Undefined text is unset: null, no problem.
 */
export function checkFlagNumber(
  key: RunSettingKey,
  raw: string | undefined,
  t: T,
  spell: (key: RunSettingKey) => string = (k) => spellKey(k, 'flag'),
): { value: number | null; problem: Problem | null } {
  if (raw === undefined) return { value: null, problem: null };
  const range = numberRange(key);
  if (!range) throw new Error(`run setting ${key} is not a number`);
  const v = Number(raw);
  const d = DEFS[key];
  const hint = d.hintKey
    ? t(d.hintKey)
    : t('cli.num.example', { flag: spell(key), value: range.int ? '8' : '2.5' });
  const bad = (message: string) => ({ value: null, problem: { path: key, message, hint } });
  if (raw.trim() === '' || !Number.isFinite(v)) return bad(t('cli.num.not_number', { raw }));
  if (range.int && !Number.isInteger(v)) return bad(t('cli.num.not_integer', { raw }));
  if (range.min !== undefined && v < range.min) return bad(t('cli.num.at_least', { min: range.min, raw }));
  if (range.gt !== undefined && v <= range.gt) return bad(t('cli.num.greater_than', { gt: range.gt, raw }));
  if (range.max === MAX_PLANNED_REQUESTS && v > range.max) {
    const tooMany = plannedCountProblem(v, key, t);
    if (tooMany) return { value: null, problem: tooMany };
  }
  if (range.max !== undefined && v > range.max) return bad(t('cli.num.at_most', { max: range.max, raw }));
  if (range.lt !== undefined && v >= range.lt) return bad(t('cli.num.below', { max: range.lt, raw }));
  return { value: v, problem: null };
}

// ---- docs ----------------------------------------------------------------------------------

/** The values a setting takes, in words: `an integer ≥ 1`, `one of constant, poisson, gamma`. */
export function runSettingValues(key: RunSettingKey): string {
  const d = DEFS[key];
  if (d.valueText) return d.valueText;
  const range = numberRange(key);
  if (range) {
    const bounds = [
      range.min !== undefined ? `≥ ${range.min}` : '',
      range.gt !== undefined ? `> ${range.gt}` : '',
      range.max !== undefined ? `≤ ${range.max}` : '',
      range.lt !== undefined ? `< ${range.lt}` : '',
    ].filter(Boolean);
    return `${range.int ? 'an integer' : 'a number'}${bounds.length ? ` ${bounds.join(', ')}` : ''}`;
  }
  if (d.schema instanceof z.ZodEnum) return `one of ${d.schema.options.join(', ')}`;
  if (d.schema instanceof z.ZodBoolean) return 'true or false (a flag: a switch)';
  return 'text';
}

/** The settings table of docs/cli.md (Markdown), generated from the declarations. */
export function runSettingsTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = RUN_SETTING_KEYS.map((key) => {
    const d = DEFS[key];
    const flag = d.flag === null ? '—' : `\`${runFlag(key).flags}\``;
    const aliases = (d.aliases ?? []).map((a) => `\`--${a.flag}\` (${a.from})`).join(', ');
    const list = d.list === 'levels' ? ' (a list: one level each)' : d.list ? ' (or a list)' : '';
    const file = d.file === null ? '—' : `\`${d.file}\`${list}`;
    const dt = defaultTextOf(key);
    const words = d.defaultText !== undefined || d.synthetic !== undefined || d.fresh;
    const dflt =
      `${dt === null ? '—' : words ? dt : `\`${dt}\``}` +
      (d.fileRequired ? ' (required in its file section)' : '');
    const values = `${runSettingValues(key)}${d.unit ? ` (${d.unit})` : ''}`;
    return `| \`${key}\` | ${flag}${aliases ? `; ${aliases}` : ''} | ${file} | ${cell(values)} | ${cell(dflt)} | ${cell(d.description)} |`;
  });
  return [
    '| setting | flag | experiment file | value | default | meaning |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
