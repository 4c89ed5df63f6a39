/**
 * @module exp/template-parts
 * The shared pieces every kind's `exp init` template is made of (`exp/kinds/`, each kind's
 * `template`): the opening comment, a sim target documenting every simulator setting (from the
 * settings schema), the commented url target, and the shared sections (generation, workload,
 * load, cache, repeats, warm-up, SLOs, thresholds) with their optional fields commented out at
 * their defaults.
 */
import { BUILTIN_GPUS, BUILTIN_MODELS } from '../sim/catalogue/index.js';
import {
  simSettingDescription,
  simSettingExample,
  simSettingKeys,
  simSettingRequiredInFile,
} from '../sim/settings.js';

export interface SimTarget {
  name: string;
  /** Extra `key: value` lines inside `sim:` that this kind needs (set, not commented). */
  set?: string[];
  /** Write the fully commented option list (only on the first target). */
  full?: boolean;
  gpu?: string;
  /** The simulated model (default qwen3-0.6b). */
  model?: string;
  /**
   * The clock the simulator runs on (default virtual): a template must succeed as shipped on a
   * small, busy machine, and only virtual time does not depend on the machine keeping up.
   */
  clock?: 'real' | 'virtual';
}

/**
 * A sim target's optional settings, commented out at their defaults (or an example), each with
 * its description: from the settings schema, so that every setting is documented.
 */
const SIM_OPTION_DOCS: [key: string, line: string][] = [
  ...simSettingKeys('file')
    .filter((k) => !simSettingRequiredInFile(k))
    .map((k): [string, string] => [
      k,
      `${`# ${k}: ${simSettingExample(k) ?? ''}`.padEnd(36)} # ${simSettingDescription(k)}`,
    ]),
];

/**
 * The clock line every sim target writes out. Templates ship on a virtual clock: a real-time
 * simulator shares the machine's cores with the load generator and falls behind on a busy one
 * (`sim_behind`), which no template should end with.
 */
const CLOCK_LINE: Record<'real' | 'virtual', string> = {
  virtual: `${'clock: virtual'.padEnd(34)} # virtual: in-process, virtual time (as plan); real: HTTP server, real time (needs idle cores)`,
  real: `${'clock: real'.padEnd(34)} # real: HTTP server, real time (needs idle cores); virtual: in-process, virtual time (as plan)`,
};

function simTarget(t: SimTarget): string {
  const lines = [
    `  ${t.name}:`,
    '    sim:',
    `      ${`model: ${t.model ?? 'qwen3-0.6b'}`.padEnd(34)} # ${Object.keys(BUILTIN_MODELS).join(' | ')}`,
    `      ${`gpu: ${t.gpu ?? 'h100'}`.padEnd(34)} # ${Object.keys(BUILTIN_GPUS).join(' | ')}`,
  ];
  const setKeys = new Set((t.set ?? []).map((s) => s.split(':')[0]));
  if (!setKeys.has('clock')) lines.push(`      ${CLOCK_LINE[t.clock ?? 'virtual']}`);
  for (const s of t.set ?? []) lines.push(`      ${s}`);
  // The commented list documents every option; those set above are not repeated.
  if (t.full) for (const [k, d] of SIM_OPTION_DOCS) if (!setKeys.has(k)) lines.push(`      ${d}`);
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

export interface Common {
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

# Seed for prompts, lengths and arrivals: the same seed gives the same requests. Left out, each
# \`exp run\` draws a fresh one (printed, and stored with the experiment): give it to repeat a run.
# seed: 1

# Generation settings, the same for every target (recorded in the experiment record).
generation:
${gen.map((l) => `  ${l}\n`).join('')}  # thinking: false                   # reasoning phase on/off (unset: the engine's default)
  # temperature: 0                    # default 0: greedy, as vllm bench serve
  # top_p: 1
  # max_tokens: 128                   # default: the workload's output_len
  # stop: ["\\n\\n"]
  # ignore_eos: false                 # true: generate exactly max_tokens (default: sent only when asked)
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

function head(kind: string, name: string, about: string): string {
  return `# servelab experiment: ${kind}
# ${about.split('\n').join('\n# ')}
# Run it:  servelab exp run ${name}.yaml      (docs/experiments.md documents every field)
kind: ${kind}
name: ${name}
# description: free text, stored with the experiment
`;
}

/** The shared parts a kind's template is made of. */
export interface TemplateParts {
  /** The opening comment, `kind:` and `name:`. */
  head(kind: string, name: string, about: string): string;
  /** One sim target; `full` documents every simulator setting. */
  simTarget(t: SimTarget): string;
  /** The commented url target, documenting its fields. */
  urlTargets: string;
  /** The shared sections (generation, workload, load, cache, repeats, warmup, slo, thresholds). */
  common(c: Common): string;
}

/** The parts, as the kinds' templates take them. */
export const PARTS: TemplateParts = { head, simTarget, urlTargets: URL_TARGET_DOCS, common: commonBlocks };
