/**
 * @module cli/options
 * The flags shared by `run` and `plan` (workload, load, generation, output), declared once,
 * and their validation into typed settings. Validation collects every problem before failing,
 * each with a hint, so a user fixes a command line in one go.
 */
import { resolve as resolvePath } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import type { Problem } from '../core/errors.js';
import type {
  CommonSettings,
  GenerationSettings,
  LoadSettings,
  OutputSettings,
  WorkloadSettings,
} from '../pipeline/settings.js';
import { jsonOption } from './commands/common.js';

/** Raw values as commander hands them over (strings until validated). */
export interface RawCommon {
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
}

/**
 * `vllm bench serve` flags accepted under their vLLM names (vllm-project/vllm:
 * vllm/benchmarks/serve.py and vllm/benchmarks/datasets.py), each read as the servelab flag
 * named here; the command prints the servelab name once, as a note.
 */
export const VLLM_ALIASES = {
  numPrompts: ['--num-prompts <n>', '--requests'],
  requestRate: ['--request-rate <r>', '--rate'],
  randomInputLen: ['--random-input-len <n>', '--input-len'],
  randomOutputLen: ['--random-output-len <n>', '--output-len'],
  resultDir: ['--result-dir <dir>', '--out'],
} as const;

const collect = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];

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
      '--trace <file.jsonl>',
      'replay a trace: {"timestamp_ms", "input_len"|"prompt"|"messages", "output_len"} per line',
    )
    .option('--trace-speedup <x>', 'replay the trace x times faster', '1');
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
    .option('--save-detailed', 'vllm.json: add the per-request arrays, as vLLM does')
    .option('--save-result', 'vLLM name: write vllm.json (as --format vllm; into --result-dir, default .)')
    .option('--num-prompts <n>', 'vLLM name of --requests')
    .option('--request-rate <r>', 'vLLM name of --rate (inf: every request at once)')
    .option('--random-input-len <n>', 'vLLM name of --input-len')
    .option('--random-output-len <n>', 'vLLM name of --output-len')
    .option('--random-range-ratio <r>', 'vLLM: lengths uniform in [N·(1−r), N·(1+r)]')
    .option('--result-dir <dir>', 'vLLM name of --out');
}

function num(
  problems: Problem[],
  flag: string,
  raw: string | undefined,
  opts: { int?: boolean; min?: number; gt?: number; hint?: string } = {},
): number | null {
  if (raw === undefined) return null;
  const v = Number(raw);
  const hint = opts.hint ?? `e.g. ${flag} ${opts.int ? '8' : '2.5'}`;
  if (raw.trim() === '' || !Number.isFinite(v)) {
    problems.push({ path: flag, message: `expected a number, got "${raw}"`, hint });
    return null;
  }
  if (opts.int && !Number.isInteger(v)) {
    problems.push({ path: flag, message: `expected a whole number, got ${raw}`, hint });
    return null;
  }
  if (opts.min !== undefined && v < opts.min) {
    problems.push({ path: flag, message: `must be at least ${opts.min}, got ${raw}`, hint });
    return null;
  }
  if (opts.gt !== undefined && v <= opts.gt) {
    problems.push({ path: flag, message: `must be greater than ${opts.gt}, got ${raw}`, hint });
    return null;
  }
  return v;
}

/** Validate the shared flags. Pushes every problem found; returns settings (meaningful only if none). */
export function parseCommon(input: RawCommon, problems: Problem[], notes: string[] = []): CommonSettings {
  const raw = applyVllmAliases(input, problems, notes);
  const concurrency = num(problems, '--concurrency', raw.concurrency, { int: true, min: 1 });
  const requests = num(problems, '--requests', raw.requests, { int: true, min: 1 });
  const durationS = num(problems, '--duration', raw.duration, { gt: 0 });
  const rate =
    raw.rate?.trim().toLowerCase() === 'inf'
      ? Number.POSITIVE_INFINITY
      : num(problems, '--rate', raw.rate, { gt: 0 });
  const maxConcurrency = num(problems, '--max-concurrency', raw.maxConcurrency, { int: true, min: 1 });
  const arrival = (raw.arrival ?? 'poisson') as LoadSettings['arrival'];
  if (!['constant', 'poisson', 'gamma'].includes(arrival))
    problems.push({
      path: '--arrival',
      message: `unknown arrival "${raw.arrival}"`,
      hint: 'use constant, poisson or gamma',
    });
  const trace = raw.trace ?? null;

  if (concurrency !== null && rate !== null)
    problems.push({
      path: '--concurrency/--rate',
      message: 'choose one load model',
      hint: 'closed loop: --concurrency N; open loop: --rate R (cap in-flight requests with --max-concurrency)',
    });
  if (trace && (concurrency !== null || rate !== null))
    problems.push({
      path: '--trace',
      message: 'a trace sets its own arrival times',
      hint: 'drop --concurrency/--rate, or use --trace-speedup',
    });
  if (requests !== null && durationS !== null)
    problems.push({
      path: '--requests/--duration',
      message: 'give a request count or a duration, not both',
      hint: 'e.g. --requests 200 or --duration 60',
    });
  // vLLM's reading: --max-concurrency N without a rate is a closed loop of N users.
  const closedAt = maxConcurrency !== null && rate === null && !trace ? maxConcurrency : null;
  if (closedAt !== null && concurrency !== null && concurrency !== closedAt)
    problems.push({
      path: '--concurrency/--max-concurrency',
      message: `without --rate both mean users in flight, and they differ (${concurrency} vs ${closedAt})`,
      hint: 'give one of them',
    });
  if (rate === Number.POSITIVE_INFINITY && durationS !== null)
    problems.push({
      path: '--rate',
      message: 'an unbounded rate (inf) sends a number of requests at once, not a duration',
      hint: 'give --requests N with --rate inf',
    });

  const mode: LoadSettings['mode'] = trace ? 'trace' : rate !== null ? 'open' : 'closed';
  const load: LoadSettings = {
    mode,
    concurrency: mode === 'closed' ? (concurrency ?? closedAt ?? 1) : null,
    requests: requests ?? (durationS === null && mode !== 'trace' ? 100 : null),
    durationS,
    drainTimeoutS: num(problems, '--drain-timeout', raw.drainTimeout, { min: 0 }) ?? 30,
    rateRps: rate,
    arrival,
    burstiness: num(problems, '--burstiness', raw.burstiness, { gt: 0 }) ?? 1,
    maxConcurrency: closedAt !== null ? null : maxConcurrency,
    traceFile: trace,
    traceSpeedup: num(problems, '--trace-speedup', raw.traceSpeedup, { gt: 0 }) ?? 1,
    warmup: num(problems, '--warmup', raw.warmup, { int: true, min: 0 }) ?? 0,
    seed: num(problems, '--seed', raw.seed, { int: true, min: 0 }) ?? 42,
  };

  let dataset: WorkloadSettings['dataset'] = null;
  if (raw.dataset) {
    const [kind, path, ...rest] = raw.dataset.length === 1 ? raw.dataset[0].split(/[:=]/) : raw.dataset;
    if (kind !== 'sharegpt' || !path || rest.length)
      problems.push({
        path: '--dataset',
        message: `cannot read "${raw.dataset.join(' ')}"`,
        hint: 'use --dataset sharegpt FILE.json',
      });
    else dataset = { kind: 'sharegpt', path };
  }
  const sources = [raw.prompt !== undefined, !!raw.prompts, !!dataset, !!trace].filter(Boolean).length;
  if (sources > 1)
    problems.push({
      path: '--prompt/--prompts/--dataset/--trace',
      message: 'choose one prompt source',
      hint: 'or none for synthetic prompts (--input-len)',
    });
  const sharedPrefixLen = num(problems, '--shared-prefix-len', raw.sharedPrefixLen, { int: true, min: 1 });
  const numPrefixGroups = num(problems, '--num-prefix-groups', raw.numPrefixGroups, { int: true, min: 1 });
  if (numPrefixGroups !== null && sharedPrefixLen === null)
    problems.push({
      path: '--num-prefix-groups',
      message: 'needs --shared-prefix-len',
      hint: 'e.g. --shared-prefix-len 1024 --num-prefix-groups 4',
    });

  const workload: WorkloadSettings = {
    prompt: raw.prompt ?? null,
    promptsFile: raw.prompts ?? null,
    dataset,
    inputLen: raw.inputLen ?? null,
    outputLen: raw.outputLen ?? null,
    sharedPrefixLen,
    numPrefixGroups: sharedPrefixLen !== null ? (numPrefixGroups ?? 1) : null,
  };

  const generation: GenerationSettings = {
    model: raw.model ?? null,
    maxTokens: num(problems, '--max-tokens', raw.maxTokens, { int: true, min: 1 }),
    temperature: num(problems, '--temperature', raw.temperature, { min: 0 }) ?? 0,
    topP: num(problems, '--top-p', raw.topP, { gt: 0 }),
    stop: raw.stop ?? null,
    ignoreEos: !!raw.ignoreEos || raw.outputLen !== undefined,
  };

  if (raw.format !== undefined && raw.format !== 'vllm')
    problems.push({
      path: '--format',
      message: `unknown format "${raw.format}"`,
      hint: 'the only extra format is vllm',
    });
  const vllm = vllmOptions(raw, problems);
  const output: OutputSettings = {
    out: raw.out ?? (raw.saveResult ? '.' : null),
    formatVllm: raw.format === 'vllm' || !!raw.saveResult,
    vllm,
    embedRecords: !!raw.embedRecords,
    json: jsonOption(raw.json),
    slo: raw.slo ?? null,
    thresholds: raw.threshold ?? [],
    baseline: raw.baseline ?? null,
  };
  if (output.formatVllm && !output.out)
    problems.push({ path: '--format', message: 'vllm.json is written into --out', hint: 'add --out DIR' });
  return { load, workload, generation, output };
}

/** The vLLM names given: each one's value moves to servelab's flag, with a note (both given: a problem). */
function applyVllmAliases(raw: RawCommon, problems: Problem[], notes: string[]): RawCommon {
  const out: RawCommon = { ...raw };
  const target: Record<keyof typeof VLLM_ALIASES, keyof RawCommon> = {
    numPrompts: 'requests',
    requestRate: 'rate',
    randomInputLen: 'inputLen',
    randomOutputLen: 'outputLen',
    resultDir: 'out',
  };
  for (const [alias, [flag, ours]] of Object.entries(VLLM_ALIASES) as [
    keyof typeof VLLM_ALIASES,
    readonly [string, string],
  ][]) {
    const v = raw[alias];
    if (v === undefined) continue;
    const key = target[alias];
    const name = flag.split(' ')[0];
    if (raw[key] !== undefined) {
      problems.push({
        path: name,
        message: `${name} is vLLM's name of ${ours}, and both are given`,
        hint: `keep one of ${name} and ${ours}`,
      });
      continue;
    }
    (out as Record<string, unknown>)[key] = v;
    notes.push(`note: ${name} is read as servelab's ${ours}`);
  }
  if (raw.randomRangeRatio !== undefined) {
    const r = num(problems, '--random-range-ratio', raw.randomRangeRatio, { min: 0 });
    if (r !== null && r >= 1)
      problems.push({ path: '--random-range-ratio', message: `must be below 1, got ${r}`, hint: 'e.g. 0.1' });
    else if (r !== null && r > 0)
      for (const key of ['inputLen', 'outputLen'] as const) {
        const n = Number(out[key]);
        if (out[key] !== undefined && Number.isInteger(n) && n > 0) {
          out[key] = `uniform:${Math.max(1, Math.floor(n * (1 - r)))}-${Math.ceil(n * (1 + r))}`;
          notes.push(
            `--random-range-ratio ${r}: ${key === 'inputLen' ? '--input-len' : '--output-len'} ${out[key]}`,
          );
        }
      }
  }
  if (raw.saveResult) notes.push("--save-result is read as servelab's --format vllm (into --out, else .)");
  return out;
}

const VLLM_METRIC_NAMES = ['ttft', 'tpot', 'itl', 'e2el'] as const;

/** `vllm.json`'s `--percentile-metrics`, `--metric-percentiles` and `--save-detailed`. */
function vllmOptions(raw: RawCommon, problems: Problem[]): OutputSettings['vllm'] {
  let metrics: (typeof VLLM_METRIC_NAMES)[number][] | null = null;
  if (raw.percentileMetrics !== undefined) {
    const names = raw.percentileMetrics
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const bad = names.filter((x) => !(VLLM_METRIC_NAMES as readonly string[]).includes(x));
    if (bad.length || !names.length)
      problems.push({
        path: '--percentile-metrics',
        message: `unknown metric(s) ${bad.join(', ') || '(none given)'}`,
        hint: `use vLLM's names: ${VLLM_METRIC_NAMES.join(',')}`,
      });
    else metrics = names as (typeof VLLM_METRIC_NAMES)[number][];
  }
  let percentiles: number[] | null = null;
  if (raw.metricPercentiles !== undefined) {
    const ps = raw.metricPercentiles.split(',').map((x) => Number(x.trim()));
    if (!ps.length || ps.some((p) => !Number.isFinite(p) || p <= 0 || p > 100))
      problems.push({
        path: '--metric-percentiles',
        message: `expected percentiles in (0, 100], got "${raw.metricPercentiles}"`,
        hint: 'e.g. --metric-percentiles 50,90,99',
      });
    else percentiles = ps;
  }
  return { percentileMetrics: metrics, metricPercentiles: percentiles, detailed: !!raw.saveDetailed };
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
      baseline: abs(c.output.baseline),
      json: typeof c.output.json === 'string' ? resolvePath(cwd, c.output.json) : c.output.json,
    },
  };
}
