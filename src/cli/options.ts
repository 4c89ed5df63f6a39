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
  const raw = applyCompatFlags(applyAliases(input, COMMON_ALIASES, problems, notes), problems, notes);
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
    tokenizer: raw.tokenizer ?? null,
  };

  const generation: GenerationSettings = {
    model: raw.model ?? null,
    maxTokens: num(problems, '--max-tokens', raw.maxTokens, { int: true, min: 1 }),
    temperature: num(problems, '--temperature', raw.temperature, { min: 0 }) ?? 0,
    topP: num(problems, '--top-p', raw.topP, { gt: 0 }),
    stop: raw.stop ?? null,
    // SGLang's --disable-ignore-eos turns off the ignore_eos that --output-len implies.
    ignoreEos: !raw.disableIgnoreEos && (!!raw.ignoreEos || raw.outputLen !== undefined),
  };
  if (raw.disableIgnoreEos && raw.ignoreEos)
    problems.push({
      path: '--disable-ignore-eos',
      message: 'contradicts --ignore-eos',
      hint: 'keep one',
    });

  if (raw.format !== undefined && raw.format !== 'vllm')
    problems.push({
      path: '--format',
      message: `unknown format "${raw.format}"`,
      hint: 'the only extra format is vllm',
    });
  const vllm = vllmOptions(raw, problems);
  const out = raw.out ?? (raw.saveResult ? '.' : null);
  if (raw.outputFile !== undefined && (raw.resultFilename !== undefined || raw.saveResult))
    problems.push({
      path: '--output-file',
      message: "SGLang's --output-file and vLLM's --save-result both name the result file",
      hint: 'keep one',
    });
  // --result-filename names the file in --out; SGLang's --output-file is a path, appended to.
  if (raw.outputFile !== undefined) {
    vllm.file = raw.outputFile;
    vllm.append = true;
    notes.push(
      `note: --output-file appends one JSON line to ${raw.outputFile}, in vllm.json's format (SGLang's own keys differ)`,
    );
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
    problems.push({ path: '--format', message: 'vllm.json is written into --out', hint: 'add --out DIR' });
  return { load, workload, generation, output };
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
        message: `${flag} is ${from}'s name of ${ours}, and both are given`,
        hint: `keep one of ${flag} and ${ours}`,
      });
      continue;
    }
    out[key] = v;
    notes.push(`note: ${flag} is read as servelab's ${ours}`);
  }
  return out as R;
}

/** The vLLM/SGLang flags that are more than a rename: datasets, prefix, range ratio, goodput, result files. */
function applyCompatFlags(raw: RawCommon, problems: Problem[], notes: string[]): RawCommon {
  const out: RawCommon = { ...raw };
  if (raw.datasetName !== undefined) {
    const name = raw.datasetName;
    if (name === 'random') {
      if (raw.inputLen === undefined) out.inputLen = String(VLLM_RANDOM_DEFAULTS.inputLen);
      if (raw.outputLen === undefined) out.outputLen = String(VLLM_RANDOM_DEFAULTS.outputLen);
      if (raw.datasetPath !== undefined)
        problems.push({
          path: '--dataset-path',
          message: 'the random dataset has no file',
          hint: 'drop --dataset-path, or use --dataset-name sharegpt',
        });
      notes.push(
        `note: --dataset-name random is read as servelab's --input-len ${out.inputLen} --output-len ${out.outputLen}` +
          (raw.inputLen === undefined || raw.outputLen === undefined ? " (vLLM's defaults)" : ''),
      );
    } else if (name === 'sharegpt') {
      if (raw.datasetPath === undefined)
        problems.push({
          path: '--dataset-name',
          message: 'sharegpt needs its file',
          hint: 'add --dataset-path ShareGPT_V3_unfiltered_cleaned_split.json',
        });
      else if (raw.dataset !== undefined)
        problems.push({
          path: '--dataset-name',
          message: '--dataset-name/--dataset-path and --dataset are the same thing, both given',
          hint: 'keep one',
        });
      else {
        out.dataset = ['sharegpt', raw.datasetPath];
        notes.push(
          `note: --dataset-name sharegpt --dataset-path is read as servelab's --dataset sharegpt FILE`,
        );
      }
    } else
      problems.push({
        path: '--dataset-name',
        message: `servelab does not read vLLM's "${name}" dataset`,
        hint: 'use random or sharegpt; or --prompts FILE.jsonl, --trace FILE.jsonl',
      });
  } else if (raw.datasetPath !== undefined)
    problems.push({
      path: '--dataset-path',
      message: 'needs --dataset-name',
      hint: 'e.g. --dataset-name sharegpt --dataset-path FILE.json',
    });

  const ratio = num(problems, '--random-range-ratio', raw.randomRangeRatio, { min: 0 });
  if (ratio !== null && ratio >= 1)
    problems.push({
      path: '--random-range-ratio',
      message: `must be below 1, got ${ratio}`,
      hint: 'e.g. 0.1',
    });
  const prefix = num(problems, '--random-prefix-len', raw.randomPrefixLen, { int: true, min: 0 });
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
          message: 'a prefix goes before random inputs of a plain length',
          hint: 'add --random-input-len N (or --dataset-name random)',
        });
      continue;
    }
    const lo = Math.max(1, Math.floor(n * (1 - r))) + add;
    const hi = Math.ceil(n * (1 + r)) + add;
    if (lo === n && hi === n) continue;
    out[key] = lo === hi ? String(lo) : `uniform:${lo}-${hi}`;
    const why = [r ? `--random-range-ratio ${r}` : '', add ? `--random-prefix-len ${add}` : ''];
    notes.push(
      `note: ${why.filter(Boolean).join(' and ')}: ${key === 'inputLen' ? '--input-len' : '--output-len'} ${out[key]}`,
    );
  }
  if (prefix) {
    if (raw.sharedPrefixLen !== undefined)
      problems.push({
        path: '--random-prefix-len',
        message: "is vLLM's one-group --shared-prefix-len, and both are given",
        hint: 'keep one',
      });
    else {
      out.sharedPrefixLen = String(prefix);
      out.numPrefixGroups ??= '1';
      notes.push(`note: --random-prefix-len ${prefix} is read as servelab's --shared-prefix-len ${prefix}`);
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
          message: `cannot read "${kv}"`,
          hint: `use vLLM's KEY:MS pairs with KEY one of ${Object.keys(VLLM_GOODPUT).join(', ')}, e.g. --goodput ttft:500 tpot:50`,
        });
      else pairs.push(`${metric}=${m[2]}`);
    }
    if (raw.slo !== undefined)
      problems.push({
        path: '--goodput',
        message: "is vLLM's name of --slo, and both are given",
        hint: 'keep one',
      });
    else if (pairs.length) {
      out.slo = pairs.join(',');
      notes.push(
        `note: --goodput is read as servelab's --slo ${out.slo} (vLLM's TTFT: first chunk of any kind)`,
      );
    }
  }
  if (raw.saveResult)
    notes.push("note: --save-result is read as servelab's --format vllm (into --out, else .)");
  if (raw.resultFilename !== undefined && !raw.saveResult)
    problems.push({
      path: '--result-filename',
      message: 'names the file of --save-result',
      hint: 'add --save-result',
    });
  if (raw.resultFilename !== undefined && /[\\/]/.test(raw.resultFilename))
    problems.push({
      path: '--result-filename',
      message: 'is a file name, not a path',
      hint: 'give the directory with --result-dir',
    });
  return out;
}

/** `vllm.json`'s `--percentile-metrics`, `--metric-percentiles` and `--save-detailed`. */
function vllmOptions(raw: RawCommon, problems: Problem[]): OutputSettings['vllm'] {
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
        message: `unknown metric(s) ${bad.join(', ') || '(none given)'}`,
        hint: `use vLLM's names: ${VLLM_METRICS.join(',')}`,
      });
    else metrics = names as VllmMetric[];
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
