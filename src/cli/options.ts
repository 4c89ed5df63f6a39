/**
 * @module cli/options
 * The flags shared by `run` and `plan` (workload, load, generation, output), declared once,
 * and their validation into typed settings. Validation collects every problem before failing,
 * each with a hint, so a user fixes a command line in one go.
 */
import { join, resolve as resolvePath } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import type { Problem } from '../core/errors.js';
import { parseLang, resolveLang, type T, translator } from '../core/i18n/index.js';
import type {
  CommonSettings,
  GenerationSettings,
  LoadSettings,
  OutputSettings,
  WorkloadSettings,
} from '../pipeline/settings.js';
import { VLLM_METRICS, type VllmMetric } from '../report/run/vllm.js';
import { jsonOption } from './commands/common.js';

/** Raw values as commander hands them over (strings until validated). */
export interface RawCommon {
  /** `--lang` (see {@link addLangOption}). */
  lang?: string;
  model?: string;
  maxTokens?: string;
  temperature?: string;
  topP?: string;
  stop?: string[];
  ignoreEos?: boolean;
  outputLen?: string;
  inputLen?: string;
  prompt?: string;
  prompts?: string;
  dataset?: string[];
  sharedPrefixLen?: string;
  numPrefixGroups?: string;
  trace?: string;
  traceSpeedup?: string;
  traceFormat?: string;
  traceWindow?: string;
  traceRateScale?: string;
  traceBlockSize?: string;
  users?: string;
  turns?: string;
  thinkTime?: string;
  rampUp?: string;
  sessionRate?: string;
  documents?: string;
  docLen?: string;
  docPopularity?: string;
  concurrency?: string;
  requests?: string;
  duration?: string;
  drainTimeout?: string;
  rate?: string;
  arrival?: string;
  burstiness?: string;
  maxConcurrency?: string;
  seed?: string;
  warmup?: string;
  slo?: string;
  threshold?: string[];
  baseline?: string;
  out?: string;
  format?: string;
  embedRecords?: boolean;
  json?: string | boolean;
  // `vllm bench serve` names, read as servelab's (see VLLM_ALIASES)
  numPrompts?: string;
  requestRate?: string;
  randomInputLen?: string;
  randomOutputLen?: string;
  randomRangeRatio?: string;
  saveResult?: boolean;
  saveDetailed?: boolean;
  resultDir?: string;
  percentileMetrics?: string;
  metricPercentiles?: string;
  randomPrefixLen?: string;
  datasetName?: string;
  datasetPath?: string;
  tokenizer?: string;
  goodput?: string[];
  resultFilename?: string;
  // SGLang `bench_serving` names
  outputFile?: string;
  disableIgnoreEos?: boolean;
}

/**
 * Flags of `vllm bench serve` (vllm-project/vllm: vllm/benchmarks/serve.py,
 * vllm/benchmarks/datasets.py) and SGLang's `bench_serving` (sgl-project/sglang:
 * python/sglang/bench_serving.py) that are plain renames of a servelab flag: the value moves to
 * the servelab flag named here, and the command prints that name once, as a note. `run`-only
 * entries (the target) are declared by `run`; the rest by {@link addCompatOptions}.
 */
export const FLAG_ALIASES = {
  numPrompts: { flag: '--num-prompts', ours: '--requests', key: 'requests', from: 'vLLM' },
  requestRate: { flag: '--request-rate', ours: '--rate', key: 'rate', from: 'vLLM' },
  randomInputLen: { flag: '--random-input-len', ours: '--input-len', key: 'inputLen', from: 'vLLM' },
  randomOutputLen: { flag: '--random-output-len', ours: '--output-len', key: 'outputLen', from: 'vLLM' },
  resultDir: { flag: '--result-dir', ours: '--out', key: 'out', from: 'vLLM' },
  baseUrl: { flag: '--base-url', ours: '--url', key: 'url', from: 'vLLM' },
  extraRequestBody: { flag: '--extra-request-body', ours: '--extra-body', key: 'extraBody', from: 'SGLang' },
} as const;
export type AliasKey = keyof typeof FLAG_ALIASES;

/** vLLM's defaults for `--dataset-name random` (vllm/benchmarks/datasets.py, RandomDataset). */
const VLLM_RANDOM_DEFAULTS = { inputLen: 1024, outputLen: 128 } as const;

/** vLLM's `--goodput` names → servelab's SLO metrics (vLLM's TTFT is the first chunk of any kind). */
const VLLM_GOODPUT = { ttft: 'vllm_ttft_ms', tpot: 'tpot_ms', e2el: 'e2e_ms' } as const;

/** Commander's collector of a repeatable flag's values. */
export const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];

/** Declare the generation flags. */
export function addGenerationOptions<C extends Command<[], Record<string, unknown>>>(
  cmd: C,
  withModel = true,
) {
  if (withModel)
    cmd.option('--model <name>', 'model id to request (default: the first model the server lists)');
  return cmd
    .option(
      '--max-tokens <n>',
      'max_tokens for every request (default: --output-len, else the server default)',
    )
    .option('--temperature <t>', 'sampling temperature', '0')
    .option('--top-p <p>', 'top_p')
    .option('--stop <s>', 'stop string (repeatable)', collect)
    .option('--ignore-eos', 'send ignore_eos: true (vLLM/llama.cpp extension) so outputs reach max_tokens');
}

/** Declare the workload flags. */
export function addWorkloadOptions<C extends Command<[], Record<string, unknown>>>(cmd: C) {
  return cmd
    .option('--prompt <text>', 'the same prompt text for every request')
    .option('--prompts <file.jsonl>', 'one {"prompt"} or {"messages"} per line, optional output_len')
    .option(
      '--dataset <kind-and-file...>',
      'dataset: `sharegpt FILE` (the ShareGPT JSON used by vLLM/SGLang)',
    )
    .option('--input-len <dist>', 'synthetic input tokens: N, uniform:A-B or normal:MEAN,STD')
    .option(
      '--output-len <dist>',
      'output tokens: sets max_tokens and ignore_eos (N, uniform:A-B, normal:MEAN,STD)',
    )
    .option('--shared-prefix-len <n>', 'tokens of shared prefix at the start of each synthetic prompt')
    .option('--num-prefix-groups <g>', 'number of distinct shared prefixes (with --shared-prefix-len)')
    .option(
      '--trace <file>',
      'replay a trace: Azure or BurstGPT CSV, Mooncake or servelab JSONL (docs/traces.md)',
    )
    .option(
      '--trace-format <fmt>',
      'azure, burstgpt, mooncake or servelab (default: detected from the first line)',
    )
    .option('--trace-speedup <x>', 'replay the trace x times faster', '1')
    .option(
      '--trace-rate-scale <x>',
      'arrival rate × x (every gap ÷ x; multiplies with --trace-speedup)',
      '1',
    )
    .option('--trace-window <start:end>', "replay only seconds START to END of the trace ('600:' to the end)")
    .option('--trace-block-size <n>', 'tokens per Mooncake hash block (default 512)')
    .option(
      '--documents <d>',
      'sessions: D shared documents; each session picks one (Zipf) and its turns start with it',
    )
    .option('--doc-len <dist>', 'sessions: tokens per document (N, uniform:A-B, normal, exp, lognormal)')
    .option('--doc-popularity <zipf:s>', 'sessions: how sessions pick documents, zipf:S (default zipf:1)');
}

/** Declare the load flags. */
export function addLoadOptions<C extends Command<[], Record<string, unknown>>>(cmd: C) {
  return cmd
    .option(
      '--concurrency <n>',
      'closed loop: requests in flight, each finished request starts the next (default: 1)',
    )
    .option(
      '--requests <m>',
      'number of measured requests, warm-up not included (default: 100; a trace: all its lines)',
    )
    .option('--duration <s>', 'run for s seconds instead of a request count')
    .option(
      '--drain-timeout <s>',
      'after --duration, let in-flight requests finish for up to s seconds',
      '30',
    )
    .option('--rate <r>', 'open loop: target arrival rate in requests/s')
    .option('--arrival <kind>', 'open-loop arrivals: constant, poisson or gamma', 'poisson')
    .option('--burstiness <k>', 'gamma shape for --arrival gamma (1 = Poisson; < 1 burstier)', '1')
    .option(
      '--max-concurrency <c>',
      'open loop or trace: cap on requests in flight (waiting requests keep their planned time)',
    )
    .option(
      '--users <n>',
      'sessions: N users, each a closed loop over its turns with think time (docs/sessions.md)',
    )
    .option('--turns <dist>', 'sessions: turns per session (4, uniform:3-6, …; default 1)')
    .option(
      '--think-time <dist>',
      'sessions: seconds from an answer to the next question (exp:10, …; default 0)',
    )
    .option('--ramp-up <s>', 'sessions: users start evenly spread over s seconds (default 0)')
    .option('--session-rate <r>', 'sessions: sessions start as Poisson arrivals at r per second')
    .option('--seed <n>', 'seed for arrivals, lengths and prompts', '42')
    .option('--warmup <n>', 'warm-up requests sent first, recorded but left out of the metrics', '0');
}

/** Declare the output flags. */
export function addOutputOptions<C extends Command<[], Record<string, unknown>>>(cmd: C) {
  return cmd
    .option('--slo <list>', 'SLOs for goodput, e.g. ttft_ms=500,tpot_ms=50,e2e_ms=10000')
    .option(
      '--threshold <expr>',
      "pass/fail gate, e.g. 'ttft_ms.p99<500' or 'error_rate<0.01' (repeatable)",
      collect,
    )
    .option('--baseline <report.json>', "baseline for relative thresholds such as 'ttft_ms.p99<+10%'")
    .option('--out <dir>', 'write report.json, requests.jsonl and summary.csv to this directory')
    .option('--format <fmt>', 'also write vllm.json with `vllm bench serve` field names (fmt: vllm)')
    .option('--embed-records', 'embed the per-request records in report.json')
    .option('--json [file]', 'write the machine-readable result to file, or stdout')
    .option(
      '--percentile-metrics <list>',
      'vllm.json: metrics with percentiles (vLLM names: ttft,tpot,itl,e2el)',
    )
    .option('--metric-percentiles <list>', 'vllm.json: which percentiles, e.g. 50,90,99 (default 99)')
    .option('--save-detailed', 'vllm.json: add the per-request arrays, as vLLM does');
}

/** Declare the `vllm bench serve` and SGLang `bench_serving` names `run` and `plan` read (docs/cli.md). */
export function addCompatOptions<C extends Command<[], Record<string, unknown>>>(cmd: C) {
  return cmd
    .optionsGroup('vLLM and SGLang names (each read as a servelab flag, with a note):')
    .option('--num-prompts <n>', 'vLLM: --requests')
    .option('--request-rate <r>', 'vLLM: --rate (inf: every request at once)')
    .option('--random-input-len <n>', 'vLLM: --input-len')
    .option('--random-output-len <n>', 'vLLM: --output-len')
    .option('--random-range-ratio <r>', 'vLLM: lengths uniform in [N·(1−r), N·(1+r)]')
    .option('--random-prefix-len <n>', 'vLLM: one shared prefix of n tokens before the random input')
    .option('--dataset-name <name>', 'vLLM: random (synthetic, vLLM defaults 1024/128) or sharegpt')
    .option('--dataset-path <file>', 'vLLM: the file of --dataset-name sharegpt')
    .option('--tokenizer <name>', 'vLLM: the tokenizer to count prompt tokens with (default: the model)')
    .option('--goodput <kv...>', 'vLLM: SLOs as ttft:MS tpot:MS e2el:MS (--slo)')
    .option('--save-result', 'vLLM: write vllm.json (into --result-dir, default .)')
    .option('--result-dir <dir>', 'vLLM: --out')
    .option('--result-filename <name>', 'vLLM: the file name of --save-result (default vllm.json)')
    .option('--output-file <file>', 'SGLang: append the result, one JSON line in vllm.json format')
    .option('--disable-ignore-eos', 'SGLang: no ignore_eos, even with --output-len');
}

/** English, for callers that have no command translator (tests, library use). */
const EN = translator('en');

function num(
  problems: Problem[],
  flag: string,
  raw: string | undefined,
  opts: { int?: boolean; min?: number; gt?: number; hint?: string } = {},
  t: T = EN,
): number | null {
  if (raw === undefined) return null;
  const v = Number(raw);
  const hint = opts.hint ?? t('cli.num.example', { flag, value: opts.int ? '8' : '2.5' });
  if (raw.trim() === '' || !Number.isFinite(v)) {
    problems.push({ path: flag, message: t('cli.num.not_number', { raw }), hint });
    return null;
  }
  if (opts.int && !Number.isInteger(v)) {
    problems.push({ path: flag, message: t('cli.num.not_integer', { raw }), hint });
    return null;
  }
  if (opts.min !== undefined && v < opts.min) {
    problems.push({ path: flag, message: t('cli.num.at_least', { min: opts.min, raw }), hint });
    return null;
  }
  if (opts.gt !== undefined && v <= opts.gt) {
    problems.push({ path: flag, message: t('cli.num.greater_than', { gt: opts.gt, raw }), hint });
    return null;
  }
  return v;
}

/** Validate the shared flags. Pushes every problem found; returns settings (meaningful only if none). */
export function parseCommon(
  input: RawCommon,
  problems: Problem[],
  notes: string[] = [],
  t: T = EN,
): CommonSettings {
  const raw = applyCompatFlags(applyAliases(input, COMMON_ALIASES, problems, notes, t), problems, notes, t);
  const concurrency = num(problems, '--concurrency', raw.concurrency, { int: true, min: 1 }, t);
  const requests = num(problems, '--requests', raw.requests, { int: true, min: 1 }, t);
  const durationS = num(problems, '--duration', raw.duration, { gt: 0 }, t);
  const rate =
    raw.rate?.trim().toLowerCase() === 'inf'
      ? Number.POSITIVE_INFINITY
      : num(problems, '--rate', raw.rate, { gt: 0 }, t);
  const maxConcurrency = num(problems, '--max-concurrency', raw.maxConcurrency, { int: true, min: 1 }, t);
  const arrival = (raw.arrival ?? 'poisson') as LoadSettings['arrival'];
  if (!['constant', 'poisson', 'gamma'].includes(arrival))
    problems.push({
      path: '--arrival',
      message: t('cli.arrival.unknown', { value: raw.arrival }),
      hint: t('cli.arrival.hint'),
    });
  const trace = raw.trace ?? null;

  if (concurrency !== null && rate !== null)
    problems.push({
      path: '--concurrency/--rate',
      message: t('cli.load_model.many'),
      hint: t('cli.load_model.hint'),
    });
  if (trace && (concurrency !== null || rate !== null))
    problems.push({
      path: '--trace',
      message: t('cli.trace.own_arrivals'),
      hint: t('cli.trace.own_arrivals_hint'),
    });
  if (requests !== null && durationS !== null)
    problems.push({
      path: '--requests/--duration',
      message: t('cli.requests_duration.both'),
      hint: t('cli.requests_duration.hint'),
    });
  const users = num(problems, '--users', raw.users, { int: true, min: 1 }, t);
  const sessionFlags = sessionsProblems(
    raw,
    users,
    { concurrency, rate, trace, durationS, requests },
    problems,
    t,
  );
  // vLLM's reading: --max-concurrency N without a rate is a closed loop of N users.
  const closedAt =
    maxConcurrency !== null && rate === null && !trace && users === null ? maxConcurrency : null;
  if (closedAt !== null && concurrency !== null && concurrency !== closedAt)
    problems.push({
      path: '--concurrency/--max-concurrency',
      message: t('cli.max_concurrency.differ', { concurrency, closedAt }),
      hint: t('cli.give_one'),
    });
  if (rate === Number.POSITIVE_INFINITY && durationS !== null)
    problems.push({
      path: '--rate',
      message: t('cli.rate.inf_duration'),
      hint: t('cli.rate.inf_duration_hint'),
    });

  const mode: LoadSettings['mode'] =
    users !== null ? 'sessions' : trace ? 'trace' : rate !== null ? 'open' : 'closed';
  const load: LoadSettings = {
    mode,
    concurrency: mode === 'closed' ? (concurrency ?? closedAt ?? 1) : null,
    requests: requests ?? (durationS === null && mode !== 'trace' && mode !== 'sessions' ? 100 : null),
    durationS,
    drainTimeoutS: num(problems, '--drain-timeout', raw.drainTimeout, { min: 0 }, t) ?? 30,
    rateRps: rate,
    arrival,
    burstiness: num(problems, '--burstiness', raw.burstiness, { gt: 0 }, t) ?? 1,
    maxConcurrency: closedAt !== null ? null : maxConcurrency,
    traceFile: trace,
    traceSpeedup: num(problems, '--trace-speedup', raw.traceSpeedup, { gt: 0 }, t) ?? 1,
    traceFormat: raw.traceFormat ?? null,
    traceWindow: raw.traceWindow !== undefined ? traceWindowOf(raw.traceWindow, problems, t) : null,
    traceRateScale:
      num(
        problems,
        '--trace-rate-scale',
        raw.traceRateScale,
        { gt: 0, hint: t('trace.rate_scale.hint') },
        t,
      ) ?? 1,
    traceBlockSize: num(problems, '--trace-block-size', raw.traceBlockSize, { int: true, min: 1 }, t),
    warmup: num(problems, '--warmup', raw.warmup, { int: true, min: 0 }, t) ?? 0,
    seed: num(problems, '--seed', raw.seed, { int: true, min: 0 }, t) ?? 42,
    users,
    turns: raw.turns ?? null,
    thinkTime: raw.thinkTime ?? null,
    rampUpS: sessionFlags.rampUpS,
    sessionRateRps: sessionFlags.sessionRateRps,
  };
  if (mode === 'sessions' && load.warmup > 0)
    problems.push({
      path: '--warmup',
      message: t('sessions.flags.warmup'),
      hint: t('sessions.flags.warmup_hint'),
    });

  let dataset: WorkloadSettings['dataset'] = null;
  if (raw.dataset) {
    const [kind, path, ...rest] = raw.dataset.length === 1 ? raw.dataset[0].split(/[:=]/) : raw.dataset;
    if (kind !== 'sharegpt' || !path || rest.length)
      problems.push({
        path: '--dataset',
        message: t('cli.cannot_read', { value: raw.dataset.join(' ') }),
        hint: t('cli.dataset.hint'),
      });
    else dataset = { kind: 'sharegpt', path };
  }
  const sources = [raw.prompt !== undefined, !!raw.prompts, !!dataset, !!trace].filter(Boolean).length;
  if (sources > 1)
    problems.push({
      path: '--prompt/--prompts/--dataset/--trace',
      message: t('cli.prompt_source.many'),
      hint: t('cli.prompt_source.hint'),
    });
  const sharedPrefixLen = num(problems, '--shared-prefix-len', raw.sharedPrefixLen, { int: true, min: 1 }, t);
  const numPrefixGroups = num(problems, '--num-prefix-groups', raw.numPrefixGroups, { int: true, min: 1 }, t);
  if (numPrefixGroups !== null && sharedPrefixLen === null)
    problems.push({
      path: '--num-prefix-groups',
      message: t('cli.prefix_groups.needs'),
      hint: t('cli.prefix_groups.hint'),
    });

  const workload: WorkloadSettings = {
    prompt: raw.prompt ?? null,
    promptsFile: raw.prompts ?? null,
    dataset,
    inputLen: raw.inputLen ?? null,
    outputLen: raw.outputLen ?? null,
    sharedPrefixLen,
    numPrefixGroups: sharedPrefixLen !== null ? (numPrefixGroups ?? 1) : null,
    tokenizer: raw.tokenizer ?? null,
    documents: sessionFlags.documents,
    docLen: raw.docLen ?? null,
    docPopularity: raw.docPopularity ?? null,
  };

  const generation: GenerationSettings = {
    model: raw.model ?? null,
    maxTokens: num(problems, '--max-tokens', raw.maxTokens, { int: true, min: 1 }, t),
    temperature: num(problems, '--temperature', raw.temperature, { min: 0 }, t) ?? 0,
    topP: num(problems, '--top-p', raw.topP, { gt: 0 }, t),
    stop: raw.stop ?? null,
    // SGLang's --disable-ignore-eos turns off the ignore_eos that --output-len implies.
    ignoreEos: !raw.disableIgnoreEos && (!!raw.ignoreEos || raw.outputLen !== undefined),
  };
  if (raw.disableIgnoreEos && raw.ignoreEos)
    problems.push({
      path: '--disable-ignore-eos',
      message: t('cli.ignore_eos.contradicts'),
      hint: t('cli.keep_one'),
    });

  if (raw.format !== undefined && raw.format !== 'vllm')
    problems.push({
      path: '--format',
      message: t('cli.format.unknown', { value: raw.format }),
      hint: t('cli.format.hint'),
    });
  const vllm = vllmOptions(raw, problems, t);
  const out = raw.out ?? (raw.saveResult ? '.' : null);
  if (raw.outputFile !== undefined && (raw.resultFilename !== undefined || raw.saveResult))
    problems.push({
      path: '--output-file',
      message: t('cli.output_file.both'),
      hint: t('cli.keep_one'),
    });
  // --result-filename names the file in --out; SGLang's --output-file is a path, appended to.
  if (raw.outputFile !== undefined) {
    vllm.file = raw.outputFile;
    vllm.append = true;
    notes.push(t('cli.note.output_file', { file: raw.outputFile }));
  } else if (raw.resultFilename !== undefined && out) vllm.file = join(out, raw.resultFilename);
  const output: OutputSettings = {
    out,
    formatVllm: raw.format === 'vllm' || !!raw.saveResult || raw.outputFile !== undefined,
    vllm,
    embedRecords: !!raw.embedRecords,
    json: jsonOption(raw.json),
    slo: raw.slo ?? null,
    thresholds: raw.threshold ?? [],
    baseline: raw.baseline ?? null,
  };
  if (output.formatVllm && !output.out && !vllm.file)
    problems.push({
      path: '--format',
      message: t('cli.format.needs_out'),
      hint: t('cli.format.needs_out_hint'),
    });
  return { load, workload, generation, output };
}

/** `--trace-window START:END` (seconds; END may be empty: to the end of the trace). */
function traceWindowOf(raw: string, problems: Problem[], t: T): LoadSettings['traceWindow'] {
  const m = /^\s*([0-9.]+)\s*:\s*([0-9.]*)\s*$/.exec(raw);
  const startS = m ? Number(m[1]) : Number.NaN;
  const endS = m && m[2] !== '' ? Number(m[2]) : null;
  if (!Number.isFinite(startS) || (endS !== null && !(Number.isFinite(endS) && endS > startS))) {
    problems.push({
      path: '--trace-window',
      message: t('trace.window.bad', { got: raw }),
      hint: t('trace.window.hint'),
    });
    return null;
  }
  return { startS, endS };
}

/**
 * The sessions flags' problems against the other load flags: sessions are their own load model
 * (each user a closed loop), so `--concurrency`, `--rate`, `--trace`, `--duration` and
 * `--requests` do not combine with `--users`; the session flags need `--users`.
 */
function sessionsProblems(
  raw: RawCommon,
  users: number | null,
  other: {
    concurrency: number | null;
    rate: number | null;
    trace: string | null;
    durationS: number | null;
    requests: number | null;
  },
  problems: Problem[],
  t: T,
): { rampUpS: number | null; sessionRateRps: number | null; documents: number | null } {
  const rampUpS = num(problems, '--ramp-up', raw.rampUp, { min: 0 }, t);
  const sessionRateRps = num(problems, '--session-rate', raw.sessionRate, { gt: 0 }, t);
  const documents = num(problems, '--documents', raw.documents, { int: true, min: 0 }, t);
  if (users === null) {
    const given = (
      [
        ['--turns', raw.turns],
        ['--think-time', raw.thinkTime],
        ['--ramp-up', raw.rampUp],
        ['--session-rate', raw.sessionRate],
        ['--documents', raw.documents],
        ['--doc-len', raw.docLen],
        ['--doc-popularity', raw.docPopularity],
      ] as const
    ).filter(([, v]) => v !== undefined);
    if (given.length && raw.users === undefined)
      problems.push({
        path: given[0][0],
        message: t('sessions.flags.needs_users', { flag: given.map((g) => g[0]).join(', ') }),
        hint: t('sessions.flags.needs_users_hint'),
      });
    return { rampUpS, sessionRateRps, documents };
  }
  const clash = (
    [
      ['--concurrency', other.concurrency],
      ['--rate', other.rate],
      ['--trace', other.trace],
      ['--duration', other.durationS],
      ['--requests', other.requests],
    ] as const
  ).filter(([, v]) => v !== null);
  if (clash.length)
    problems.push({
      path: '--users',
      message: t('sessions.flags.clash', { flags: clash.map((c) => c[0]).join(', ') }),
      hint: t('sessions.flags.clash_hint'),
    });
  if (rampUpS !== null && sessionRateRps !== null)
    problems.push({
      path: '--ramp-up/--session-rate',
      message: t('sessions.flags.start_both'),
      hint: t('cli.keep_one'),
    });
  return { rampUpS, sessionRateRps, documents };
}

/** The renames `run` and `plan` share; `run` applies the target ones ({@link TARGET_ALIASES}) itself. */
const COMMON_ALIASES: readonly AliasKey[] = [
  'numPrompts',
  'requestRate',
  'randomInputLen',
  'randomOutputLen',
  'resultDir',
];
export const TARGET_ALIASES: readonly AliasKey[] = ['baseUrl', 'extraRequestBody'];

/**
 * Move each given alias's value to servelab's flag, with a note; an alias given together with
 * the flag it renames is a problem.
 */
export function applyAliases<R extends object>(
  input: R,
  keys: readonly AliasKey[],
  problems: Problem[],
  notes: string[],
  t: T = EN,
): R {
  const raw = input as Record<string, unknown>;
  const out: Record<string, unknown> = { ...raw };
  for (const alias of keys) {
    const v = raw[alias];
    if (v === undefined) continue;
    const { flag, ours, key, from } = FLAG_ALIASES[alias];
    if (raw[key] !== undefined) {
      problems.push({
        path: flag,
        message: t('cli.alias.both', { flag, from, ours }),
        hint: t('cli.alias.both_hint', { flag, ours }),
      });
      continue;
    }
    out[key] = v;
    notes.push(t('cli.note.alias', { flag, ours }));
  }
  return out as R;
}

/** The vLLM/SGLang flags that are more than a rename: datasets, prefix, range ratio, goodput, result files. */
function applyCompatFlags(raw: RawCommon, problems: Problem[], notes: string[], t: T): RawCommon {
  const out: RawCommon = { ...raw };
  if (raw.datasetName !== undefined) {
    const name = raw.datasetName;
    if (name === 'random') {
      if (raw.inputLen === undefined) out.inputLen = String(VLLM_RANDOM_DEFAULTS.inputLen);
      if (raw.outputLen === undefined) out.outputLen = String(VLLM_RANDOM_DEFAULTS.outputLen);
      if (raw.datasetPath !== undefined)
        problems.push({
          path: '--dataset-path',
          message: t('cli.dataset_path.random'),
          hint: t('cli.dataset_path.random_hint'),
        });
      const lens = { input: out.inputLen, output: out.outputLen };
      notes.push(
        raw.inputLen === undefined || raw.outputLen === undefined
          ? t('cli.note.dataset_random_defaults', lens)
          : t('cli.note.dataset_random', lens),
      );
    } else if (name === 'sharegpt') {
      if (raw.datasetPath === undefined)
        problems.push({
          path: '--dataset-name',
          message: t('cli.dataset_name.sharegpt_file'),
          hint: t('cli.dataset_name.sharegpt_file_hint'),
        });
      else if (raw.dataset !== undefined)
        problems.push({
          path: '--dataset-name',
          message: t('cli.dataset_name.both'),
          hint: t('cli.keep_one'),
        });
      else {
        out.dataset = ['sharegpt', raw.datasetPath];
        notes.push(t('cli.note.dataset_sharegpt'));
      }
    } else
      problems.push({
        path: '--dataset-name',
        message: t('cli.dataset_name.unknown', { name }),
        hint: t('cli.dataset_name.unknown_hint'),
      });
  } else if (raw.datasetPath !== undefined)
    problems.push({
      path: '--dataset-path',
      message: t('cli.dataset_path.needs_name'),
      hint: t('cli.dataset_path.needs_name_hint'),
    });

  const ratio = num(problems, '--random-range-ratio', raw.randomRangeRatio, { min: 0 }, t);
  if (ratio !== null && ratio >= 1)
    problems.push({
      path: '--random-range-ratio',
      message: t('cli.num.below', { max: 1, raw: ratio }),
      hint: t('cli.range_ratio.hint'),
    });
  const prefix = num(problems, '--random-prefix-len', raw.randomPrefixLen, { int: true, min: 0 }, t);
  // vLLM's random dataset: lengths uniform in [⌊N·(1−r)⌋, ⌈N·(1+r)⌉], and the prefix comes on
  // top of the input (vllm/benchmarks/datasets.py RandomDataset); servelab's --input-len counts
  // the prefix, so it is added here.
  const r = ratio !== null && ratio > 0 && ratio < 1 ? ratio : 0;
  for (const key of ['inputLen', 'outputLen'] as const) {
    const add = key === 'inputLen' && prefix ? prefix : 0;
    const n = Number(out[key]);
    if (out[key] === undefined || !Number.isInteger(n) || n <= 0) {
      if (add)
        problems.push({
          path: '--random-prefix-len',
          message: t('cli.random_prefix.plain_length'),
          hint: t('cli.random_prefix.plain_length_hint'),
        });
      continue;
    }
    const lo = Math.max(1, Math.floor(n * (1 - r))) + add;
    const hi = Math.ceil(n * (1 + r)) + add;
    if (lo === n && hi === n) continue;
    out[key] = lo === hi ? String(lo) : `uniform:${lo}-${hi}`;
    const why = [r ? `--random-range-ratio ${r}` : '', add ? `--random-prefix-len ${add}` : ''];
    notes.push(
      t('cli.note.random_lengths', {
        why: why.filter(Boolean).join(t('cli.and')),
        flag: key === 'inputLen' ? '--input-len' : '--output-len',
        value: out[key],
      }),
    );
  }
  if (prefix) {
    if (raw.sharedPrefixLen !== undefined)
      problems.push({
        path: '--random-prefix-len',
        message: t('cli.random_prefix.both'),
        hint: t('cli.keep_one'),
      });
    else {
      out.sharedPrefixLen = String(prefix);
      out.numPrefixGroups ??= '1';
      notes.push(t('cli.note.random_prefix', { n: prefix }));
    }
  }

  if (raw.goodput !== undefined) {
    const pairs: string[] = [];
    for (const kv of raw.goodput.flatMap((x) => x.split(/[\s,]+/)).filter(Boolean)) {
      const m = /^([a-z0-9]+):(.+)$/.exec(kv);
      const metric = m ? VLLM_GOODPUT[m[1] as keyof typeof VLLM_GOODPUT] : undefined;
      if (!m || !metric)
        problems.push({
          path: '--goodput',
          message: t('cli.cannot_read', { value: kv }),
          hint: t('cli.goodput.hint', { keys: Object.keys(VLLM_GOODPUT).join(', ') }),
        });
      else pairs.push(`${metric}=${m[2]}`);
    }
    if (raw.slo !== undefined)
      problems.push({
        path: '--goodput',
        message: t('cli.goodput.both'),
        hint: t('cli.keep_one'),
      });
    else if (pairs.length) {
      out.slo = pairs.join(',');
      notes.push(t('cli.note.goodput', { slo: out.slo }));
    }
  }
  if (raw.saveResult) notes.push(t('cli.note.save_result'));
  if (raw.resultFilename !== undefined && !raw.saveResult)
    problems.push({
      path: '--result-filename',
      message: t('cli.result_filename.needs_save'),
      hint: t('cli.result_filename.needs_save_hint'),
    });
  if (raw.resultFilename !== undefined && /[\\/]/.test(raw.resultFilename))
    problems.push({
      path: '--result-filename',
      message: t('cli.result_filename.path'),
      hint: t('cli.result_filename.path_hint'),
    });
  return out;
}

/** `vllm.json`'s `--percentile-metrics`, `--metric-percentiles` and `--save-detailed`. */
function vllmOptions(raw: RawCommon, problems: Problem[], t: T): OutputSettings['vllm'] {
  let metrics: VllmMetric[] | null = null;
  if (raw.percentileMetrics !== undefined) {
    const names = raw.percentileMetrics
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const bad = names.filter((x) => !(VLLM_METRICS as readonly string[]).includes(x));
    if (bad.length || !names.length)
      problems.push({
        path: '--percentile-metrics',
        message: t('cli.percentile_metrics.unknown', {
          names: bad.join(', ') || t('cli.percentile_metrics.none'),
        }),
        hint: t('cli.percentile_metrics.hint', { names: VLLM_METRICS.join(',') }),
      });
    else metrics = names as VllmMetric[];
  }
  let percentiles: number[] | null = null;
  if (raw.metricPercentiles !== undefined) {
    const ps = raw.metricPercentiles.split(',').map((x) => Number(x.trim()));
    if (!ps.length || ps.some((p) => !Number.isFinite(p) || p <= 0 || p > 100))
      problems.push({
        path: '--metric-percentiles',
        message: t('cli.metric_percentiles.bad', { raw: raw.metricPercentiles }),
        hint: t('cli.metric_percentiles.hint'),
      });
    else percentiles = ps;
  }
  return {
    percentileMetrics: metrics,
    metricPercentiles: percentiles,
    detailed: !!raw.saveDetailed,
    file: null,
    append: false,
  };
}

/** Make every file path in the settings absolute against the command's working directory. */
export function resolvePaths(c: CommonSettings, cwd: string): CommonSettings {
  const abs = (p: string | null) => (p === null ? null : resolvePath(cwd, p));
  return {
    ...c,
    load: { ...c.load, traceFile: abs(c.load.traceFile) },
    workload: {
      ...c.workload,
      promptsFile: abs(c.workload.promptsFile),
      dataset: c.workload.dataset
        ? { ...c.workload.dataset, path: resolvePath(cwd, c.workload.dataset.path) }
        : null,
    },
    output: {
      ...c.output,
      out: abs(c.output.out),
      vllm: { ...c.output.vllm, file: abs(c.output.vllm.file) },
      baseline: abs(c.output.baseline),
      json: typeof c.output.json === 'string' ? resolvePath(cwd, c.output.json) : c.output.json,
    },
  };
}

/** `--lang`'s help text (for commands that take arguments, which {@link addLangOption} cannot type). */
export const LANG_OPTION_HELP = 'language of prose: en or zh-CN (default: from LC_ALL / LANG)';

/** Declare `--lang` on a command that prints or writes prose (docs/cli.md). */
export function addLangOption<A extends unknown[], O extends Record<string, unknown>>(cmd: Command<A, O>) {
  return cmd.option('--lang <lang>', LANG_OPTION_HELP);
}

/**
 * The translator for a command: `--lang` if given (an unknown one is a usage problem, with a
 * hint), else the locale, else English.
 */
export function langOf(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  problems: Problem[],
): T {
  if (flag !== undefined && parseLang(flag) === undefined) {
    const t = translator(resolveLang(undefined, env));
    problems.push({
      path: '--lang',
      message: t('common.lang.unknown', { value: flag }),
      hint: t('common.lang.hint'),
    });
  }
  return translator(resolveLang(flag, env));
}
