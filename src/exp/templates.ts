/**
 * @module exp/templates
 * `servelab exp init KIND`: one commented YAML template per experiment kind. Each runs as-is
 * against the built-in simulator (Qwen3-0.6B on a simulated H100, small request counts, so a
 * whole experiment takes well under a minute) and documents every field it may use, with the
 * optional ones commented out at their defaults. Every template passes `loadExperimentFile`
 * (tested).
 */
import { UsageError } from '../core/errors.js';
import { EXPERIMENT_KINDS, type ExperimentKind, SIM_FAULTS, SIM_GPUS, SIM_MODELS } from './schema.js';

interface SimTarget {
  name: string;
  /** Extra `key: value` lines inside `sim:` that this kind needs (set, not commented). */
  set?: string[];
  /** Write the fully commented option list (only on the first target). */
  full?: boolean;
  gpu?: string;
}

const SIM_OPTION_DOCS = [
  `# tp: 1                              # tensor-parallel GPUs (interconnect from the catalogue)`,
  `# dtype: bf16                        # weights: bf16 | fp16 | fp8 | int4`,
  `# kv_cache_dtype: auto               # auto (16-bit) | fp8`,
  `# max_num_seqs: 256                  # vLLM --max-num-seqs: requests in a batch`,
  `# max_num_batched_tokens: 8192       # vLLM --max-num-batched-tokens: token budget per step (chunked prefill)`,
  `# max_model_len: 40960               # context length; default: the model's`,
  `# block_size: 16                     # KV block size, tokens`,
  `# gpu_memory_utilization: 0.9        # fraction of GPU memory the engine may use`,
  `# enable_prefix_caching: true`,
  `# max_waiting: 1000                  # waiting-queue length above which requests get 429`,
  `# time_scale: 1                      # run X times faster than real time (demos, tests)`,
  `# seed: 0                            # simulator seed (output lengths, text, faults)`,
  `# fault_rate: 0.0                    # fraction of requests that get a fault…`,
  `# faults: [garble]                   # …of these kinds: ${SIM_FAULTS.join(', ')}`,
  `# cold_start_ms: 0                   # extra delay on the first requests, as a cold engine`,
  `# expose_timings: false              # server-side timings on every chunk (ground truth)`,
  `# reasoning_field: reasoning_content # or reasoning (newer vLLM)`,
  `# served_model_name: qwen3-0.6b      # model id on /v1/models`,
  `# catalog: my-gpus.yaml              # extra GPUs/models in Hugging Face config terms`,
  `# clock: real                        # real: HTTP server in real time; virtual: in-process, no HTTP (as plan)`,
];

function simTarget(t: SimTarget): string {
  const lines = [
    `  ${t.name}:`,
    '    sim:',
    `      ${'model: qwen3-0.6b'.padEnd(34)} # ${SIM_MODELS.join(' | ')}`,
    `      ${`gpu: ${t.gpu ?? 'h100'}`.padEnd(34)} # ${SIM_GPUS.join(' | ')}`,
  ];
  const setKeys = new Set((t.set ?? []).map((s) => s.split(':')[0]));
  for (const s of t.set ?? []) lines.push(`      ${s}`);
  // The commented list documents every option; those set above are not repeated.
  if (t.full)
    for (const d of SIM_OPTION_DOCS) if (!setKeys.has(d.slice(2).split(':')[0])) lines.push(`      ${d}`);
  return lines.join('\n');
}

const URL_TARGET_DOCS = `  # A running server instead of the simulator:
  # my-vllm:
  #   url: http://127.0.0.1:8000/v1   # base URL ending in /v1
  #   api_key_env: VLLM_API_KEY        # name of the variable holding the key (never the key itself)
  #   headers: {X-Team: perf}          # extra request headers
  #   model: Qwen/Qwen3-8B             # served model id (default: top-level model)
  #   endpoint: chat                   # chat | completions
  #   local: true                      # server on this machine: probe the GPU with nvidia-smi (default: loopback URL)
  #   metrics_url: http://127.0.0.1:8000/metrics  # Prometheus endpoint (default: <server>/metrics)
  #   generation: {thinking: false}    # per-target generation overrides (an A/B switch)
  #   extra_body: {chat_template_kwargs: {enable_thinking: false}}  # merged into each request body
  #   declared:                        # facts servelab cannot probe, recorded as "declared"
  #     image: vllm/vllm-openai@sha256:…
  #     gpu: H100 SXM
  #     gpu_count: 1
  #     driver: "570.86"
  #     cuda: "12.8"
  #     kernel_backend: FLASH_ATTN
  #     weights_dtype: bf16
  #     kv_cache_dtype: auto
  #     model_revision: main
  #     engine: vllm                   # also engine_version, gpu_memory_gib, interconnect, rocm,
  #                                    # activations_dtype, max_model_len, max_num_seqs,
  #                                    # max_num_batched_tokens, chat_template, routing`;

interface Common {
  generation?: string[];
  workload?: string[];
  load: string[];
  cache?: string[];
  repeats?: number;
  warmup?: number;
  slo?: string[];
  thresholds?: string[];
}

function commonBlocks(c: Common): string {
  const gen = c.generation ?? [];
  const wl = c.workload ?? ['input_len: 256', 'output_len: 64'];
  const out: string[] = [];
  out.push(`# Model id sent in requests; sim targets default to their sim model.
# model: qwen3-0.6b
# endpoint: chat                      # chat (/v1/chat/completions) | completions (/v1/completions)

# Seed for prompts, lengths and arrivals: the same seed gives the same requests.
seed: 1

# Generation settings, the same for every target (recorded in the experiment record).
generation:
${gen.map((l) => `  ${l}\n`).join('')}  # thinking: false                   # reasoning phase on/off (unset: the engine's default)
  # temperature: 0
  # top_p: 1
  # max_tokens: 128                   # default: the workload's output_len
  # stop: ["\\n\\n"]
  # ignore_eos: false                 # generate exactly max_tokens
  # stream: true
  # seed: 0                           # per-request sampling seed sent to the server

# What each request asks for. Lengths are tokens: 512, uniform:A-B or normal:MEAN,STD.
workload:
${wl.map((l) => `  ${l}\n`).join('')}  # dataset: {format: sharegpt, path: ShareGPT_V3.json}   # or format: prompts (JSONL)
  # shared_prefix: {tokens: 1024, groups: 4}   # prompts share one of G prefixes of N tokens
  # seed: 1                           # workload seed (default: the top-level seed)
  # reuse_prompts: false              # true: the same prompts at every level (a prefix cache then runs later levels warm)

# How requests arrive. Closed loop: a fixed number in flight; open loop: a rate.
load:
${c.load.map((l) => `  ${l}\n`).join('')}  # mode: closed                      # closed | open (default: from concurrency/rates)
  # arrival: poisson                  # open loop: constant | poisson | gamma
  # burstiness: 1                     # gamma shape (1 = Poisson, <1 burstier)
  # max_concurrency: 256              # open loop: cap on requests in flight
  # duration_s: 60                    # instead of requests
  # timeout_s: 600                    # per request
  # timeout_ttft_s: 60                # until the first token

# Prefix cache before measuring: cold (reset through /reset_prefix_cache or /flush_cache),
# warm (run the workload once first) or as-is.
cache:
${(c.cache ?? ['policy: as-is']).map((l) => `  ${l}\n`).join('')}  # reset: auto                       # auto | vllm | sglang | none
  # routing: single replica           # how requests reach replicas (recorded as declared)

repeats: ${c.repeats ?? 1}                            # repeat every measurement (default 1)
warmup: ${c.warmup ?? 2}                             # warm-up requests per level, recorded but not measured`);
  out.push(
    c.slo
      ? `\n# Service-level objectives: goodput counts requests meeting all of them.\nslo:\n${c.slo.map((l) => `  ${l}\n`).join('')}  # itl_ms: 100`
      : `\n# Service-level objectives: goodput counts requests meeting all of them.\n# slo: {ttft_ms: 1000, tpot_ms: 50, e2e_ms: 20000, itl_ms: 100}`,
  );
  out.push(
    `\n# Checks on the summary (any numeric path); a failure exits with code 2.\nthresholds:${
      c.thresholds?.length ? `\n${c.thresholds.map((t) => `  - '${t}'`).join('\n')}` : ' []'
    }\n  # - 'ttft_ms.p99<500'\n  # - 'error_rate<0.01'`,
  );
  return out.join('\n');
}

function head(kind: ExperimentKind, name: string, about: string): string {
  return `# servelab experiment: ${kind}
# ${about.split('\n').join('\n# ')}
# Run it:  servelab exp run ${name}.yaml      (docs/experiments.md documents every field)
kind: ${kind}
name: ${name}
# description: free text, stored with the experiment
`;
}

const TEMPLATES: Record<ExperimentKind, () => string> = {
  baseline: () => `${head(
    'baseline',
    'baseline',
    'One request at a time against each target: correctness (finish_reason, EOS vs length,\nreasoning/content split), the cold first request apart from the warm ones. Every target\ngets the same generation settings; per-target overrides are refused.',
  )}
targets:
${simTarget({ name: 'h100', full: true })}
${simTarget({ name: 'a100', gpu: 'a100-80gb' })}
${URL_TARGET_DOCS}

baseline:
  requests: 5                         # sequential requests per target; the first is the cold one

${commonBlocks({ load: ['# (one request at a time; baseline.requests sets how many)'], workload: ['input_len: 256', 'output_len: 128'], warmup: 0 })}
`,

  'prefix-cache': () => `${head(
    'prefix-cache',
    'prefix-cache',
    'A long shared document with the question last, in four phases: cold (after a cache\nreset), exact repeat, same document with a new question, and scattered (documents rotated\nso consecutive requests share no prefix). Reports cached tokens, TTFT and the prefill\nestimate per phase.',
  )}
targets:
${simTarget({ name: 'sim', full: true, set: ['enable_prefix_caching: true'] })}
${URL_TARGET_DOCS}

prefix_cache:
  document_tokens: 2048               # length of the shared document
  documents: 4                        # documents rotated in the scattered phase
  question_tokens: 32
  requests_per_phase: 4
  phases: [cold, exact-repeat, new-question, scattered]
  # document_file: contract.txt       # use this text as the document instead of generated text

${commonBlocks({ load: ['# (one request at a time; prefix_cache sets the counts)'], workload: ['input_len: 2048', 'output_len: 32'], cache: ['policy: cold'], warmup: 0 })}
`,

  'concurrency-sweep': () => `${head(
    'concurrency-sweep',
    'concurrency-sweep',
    'Closed loop at rising concurrency with the same length distribution. Reports throughput and\np50/p95/p99 per level and the knee: the last level before throughput stops rising or the\ntail blows up. max_num_seqs 8 puts the knee near 8 on this small simulated setup.',
  )}
targets:
${simTarget({ name: 'sim', full: true, set: ['max_num_seqs: 8'] })}
${URL_TARGET_DOCS}

sweep:
  stop:                               # stop the sweep once any rule trips:
    error_rate: 0.05                  #   error rate above this fraction
    ttft_p99_factor: 10               #   p99 TTFT above K × the first level's
    e2e_p99_factor: 10                #   p99 E2E above K × the first level's
  find_max_concurrency: false         # search the largest concurrency meeting slo (as servelab plan)

${commonBlocks({ load: ['concurrency: [1, 2, 4, 8, 16, 32]', 'requests: 32                      # measured requests per level'], slo: ['ttft_ms: 1000', 'tpot_ms: 50', 'e2e_ms: 20000'] })}
`,

  'rate-sweep': () => `${head(
    'rate-sweep',
    'rate-sweep',
    'Open loop over a list of rates (requests/s), with the same stop rules as the concurrency\nsweep. Leave load.rates out to derive the rates from the measured capacity\n(sweep.capacity_fractions).',
  )}
targets:
${simTarget({ name: 'sim', full: true, set: ['max_num_seqs: 8'] })}
${URL_TARGET_DOCS}

sweep:
  stop:
    error_rate: 0.05
    ttft_p99_factor: 10
    e2e_p99_factor: 10
  # capacity_fractions: [0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.25]   # used when load.rates is absent

${commonBlocks({ load: ['rates: [5, 10, 20, 40, 80]        # requests per second', 'arrival: poisson', 'requests: 40                      # per rate'] })}
`,

  'mixed-input': () => `${head(
    'mixed-input',
    'mixed-input',
    'Long and short requests in a controlled arrival order. Reports the stalls of requests\nalready decoding: their chunk gaps while a long prefill overlaps them, against the gaps\nwhile none does. A small token budget (max_num_batched_tokens) makes long prefills chunk.',
  )}
targets:
${simTarget({ name: 'sim', full: true, set: ['max_num_batched_tokens: 512', 'max_num_seqs: 256'] })}
${URL_TARGET_DOCS}

mixed_input:
  long: {input_len: 4096, output_len: 32, count: 4}
  short: {input_len: 128, output_len: 128, count: 16}
  orders: [short-first, long-first, interleaved]
  spacing_ms: 50                      # gap between arrivals

${commonBlocks({ load: ['# (arrivals come from mixed_input; requests, concurrency and rates do not apply)'], warmup: 0 })}
`,

  ab: () => `${head(
    'ab',
    'ab',
    "Exactly one switch between two targets, same workload and seed. Reports each metric's delta\nwith a bootstrap 95% CI; significant only after a Holm correction and above\nmin_effect_pct. A quality check on fixed samples flags a faster config with broken output.",
  )}
targets:
${simTarget({ name: 'bf16-kv', full: true })}
${simTarget({ name: 'fp8-kv', set: ['kv_cache_dtype: fp8                # the one switch'] })}
${URL_TARGET_DOCS}

ab:
  a: bf16-kv
  b: fp8-kv
  switch: kv_cache_dtype              # what differs (recorded)
  metrics: [ttft_ms, tpot_ms, e2e_ms, itl_ms, output_tokens_per_s]
  alpha: 0.05                         # family-wise error rate (Holm)
  min_effect_pct: 5                   # smaller deltas are never called significant
  bootstrap_resamples: 2000
  quality:
    samples: 8                        # fixed prompts sent to both sides
    expected: side-a                  # exact match with side A's output, or {file: answers.jsonl}
    # regex: '^\\S'                   # every output must match
    # json_schema: {type: object}     # every output must be valid JSON for this schema (or a .json path)

${commonBlocks({ load: ['concurrency: 4', 'requests: 32'], generation: ['temperature: 0'] })}
`,

  matrix: () => `${head(
    'matrix',
    'matrix',
    'The load matrix: input/output length cells × concurrency levels, the same workload seed\nin every cell.',
  )}
targets:
${simTarget({ name: 'sim', full: true })}
${URL_TARGET_DOCS}

matrix:
  cells:                              # at least three
    - {name: short-in-short-out, input_len: 128, output_len: 32}
    - {name: long-in-short-out, input_len: 2048, output_len: 32}
    - {name: long-in-long-out, input_len: 2048, output_len: 256}
  concurrency: [1, 8]                 # at least two levels

${commonBlocks({ load: ['requests: 16                      # per cell and level'] })}
`,
};

/**
 * The commented YAML template for `kind`.
 * @throws UsageError for an unknown kind, listing the valid ones.
 * @example
 * process.stdout.write(experimentTemplate('concurrency-sweep'));
 */
export function experimentTemplate(kind: string): string {
  if (!(EXPERIMENT_KINDS as readonly string[]).includes(kind))
    throw new UsageError([
      {
        message: `unknown experiment kind ${JSON.stringify(kind)}`,
        hint: `valid kinds: ${EXPERIMENT_KINDS.join(', ')}`,
      },
    ]);
  return TEMPLATES[kind as ExperimentKind]();
}
