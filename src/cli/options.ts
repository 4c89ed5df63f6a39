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
}

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
    .option('--json [file]', 'write the machine-readable result to file, or stdout');
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
export function parseCommon(raw: RawCommon, problems: Problem[]): CommonSettings {
  const concurrency = num(problems, '--concurrency', raw.concurrency, { int: true, min: 1 });
  const requests = num(problems, '--requests', raw.requests, { int: true, min: 1 });
  const durationS = num(problems, '--duration', raw.duration, { gt: 0 });
  const rate = num(problems, '--rate', raw.rate, { gt: 0 });
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
  if (maxConcurrency !== null && rate === null && !trace)
    problems.push({
      path: '--max-concurrency',
      message: 'only applies to open-loop runs',
      hint: 'use it with --rate R or --trace FILE',
    });

  const mode: LoadSettings['mode'] = trace ? 'trace' : rate !== null ? 'open' : 'closed';
  const load: LoadSettings = {
    mode,
    concurrency: mode === 'closed' ? (concurrency ?? 1) : null,
    requests: requests ?? (durationS === null && mode !== 'trace' ? 100 : null),
    durationS,
    drainTimeoutS: num(problems, '--drain-timeout', raw.drainTimeout, { min: 0 }) ?? 30,
    rateRps: rate,
    arrival,
    burstiness: num(problems, '--burstiness', raw.burstiness, { gt: 0 }) ?? 1,
    maxConcurrency,
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
  const output: OutputSettings = {
    out: raw.out ?? null,
    formatVllm: raw.format === 'vllm',
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
