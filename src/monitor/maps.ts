/**
 * @module monitor/maps
 * Name maps from each engine's `/metrics` into one servelab vocabulary, so the report and the
 * diagnosis rules ask for `kv_usage` and never care whether it came from vLLM v1
 * (`vllm:kv_cache_usage_perc`), vLLM v0 (`vllm:gpu_cache_usage_perc`), SGLang
 * (`sglang:token_usage`) or llama.cpp. Names come from
 * `vllm-project/vllm:vllm/v1/metrics/loggers.py`, `sgl-project/sglang:python/sglang/srt/metrics/collector.py`
 * and `ggml-org/llama.cpp:tools/server/README.md`.
 *
 * A vocabulary key that an engine does not expose is left out, never set to 0: "no data" and
 * "zero preemptions" are different findings.
 */
import { mean as meanOf } from '../analysis/stats.js';
import { VOCAB, type VocabName } from '../record/series.js';
import type { Sample } from './prom-parse.js';

export { COUNTER_VOCAB, SERVER_TOKEN_RATE, VOCAB, type VocabName } from '../record/series.js';

export type Normalized = Partial<Record<VocabName, number>>;

/** Engines servelab can read. `sim` is servelab's simulator (vLLM v1 names plus DCGM names). */
export type EngineKind = 'vllm' | 'vllm-v0' | 'sglang' | 'llamacpp' | 'sim' | 'unknown';

/**
 * How one vocabulary key is read: the first of `names` that has samples wins (so a build that
 * emits both an old and a new name is not counted twice), then the label sets are combined.
 */
export interface VocabularyRule {
  names: readonly string[];
  /** `sum` for counts across data-parallel engines or GPUs; `mean` for fractions and percentages. */
  agg: 'sum' | 'mean';
  /**
   * Series added to the value (summed over their label sets): an engine that counts one thing in
   * two counters. With `required`, the key is left out when none of them is exposed.
   */
  plus?: { names: readonly string[]; required: boolean };
}

export type EngineMap = Partial<Record<VocabName, VocabularyRule>>;

const sum = (...names: string[]): VocabularyRule => ({ names, agg: 'sum' });
const mean = (...names: string[]): VocabularyRule => ({ names, agg: 'mean' });

/** DCGM exporter series; merged into every map because DCGM is often scraped alongside the engine. */
export const DCGM_MAP: EngineMap = {
  gpu_memory_used_mib: sum('DCGM_FI_DEV_FB_USED'),
  gpu_util_pct: mean('DCGM_FI_DEV_GPU_UTIL'),
};

/**
 * vLLM v1's speculative-decoding counters (`SpecDecodingProm`,
 * `vllm-project/vllm:vllm/v1/spec_decode/metrics.py` @016a8587edb04ae53c913a1da9355a07dc0ca4ae;
 * prometheus_client appends `_total`), present only with `--speculative-config`.
 */
const VLLM_SPEC: EngineMap = {
  spec_drafts_total: sum('vllm:spec_decode_num_drafts_total'),
  spec_draft_tokens_total: sum('vllm:spec_decode_num_draft_tokens_total'),
  spec_accepted_tokens_total: sum('vllm:spec_decode_num_accepted_tokens_total'),
};

/** vLLM v1 (`vllm/v1/metrics/loggers.py`). The old names are fallbacks for builds in between. */
export const VLLM_V1_MAP: EngineMap = {
  ...VLLM_SPEC,
  running: sum('vllm:num_requests_running'),
  waiting: sum('vllm:num_requests_waiting'),
  kv_usage: mean('vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'),
  prefix_queries_total: sum('vllm:prefix_cache_queries_total', 'vllm:gpu_prefix_cache_queries_total'),
  prefix_hits_total: sum('vllm:prefix_cache_hits_total', 'vllm:gpu_prefix_cache_hits_total'),
  preemptions_total: sum('vllm:num_preemptions_total'),
  prompt_tokens_total: sum('vllm:prompt_tokens_total'),
  generation_tokens_total: sum('vllm:generation_tokens_total'),
  ...DCGM_MAP,
};

/** vLLM v0 and early v1 (before 0.9): `gpu_cache_usage_perc`, `gpu_prefix_cache_*`. */
export const VLLM_V0_MAP: EngineMap = {
  // v0 counted draft and accepted tokens but not drafts (`vllm/engine/metrics.py`, spec_decode_*).
  spec_draft_tokens_total: VLLM_SPEC.spec_draft_tokens_total,
  spec_accepted_tokens_total: VLLM_SPEC.spec_accepted_tokens_total,
  running: sum('vllm:num_requests_running'),
  waiting: sum('vllm:num_requests_waiting'),
  kv_usage: mean('vllm:gpu_cache_usage_perc'),
  prefix_queries_total: sum('vllm:gpu_prefix_cache_queries_total'),
  prefix_hits_total: sum('vllm:gpu_prefix_cache_hits_total'),
  preemptions_total: sum('vllm:num_preemptions_total'),
  prompt_tokens_total: sum('vllm:prompt_tokens_total'),
  generation_tokens_total: sum('vllm:generation_tokens_total'),
  ...DCGM_MAP,
};

/**
 * SGLang (`python/sglang/srt/metrics/collector.py`). SGLang has no prefix-query counter: every
 * prompt token is looked up in the radix cache, so queries = prompt tokens and hits = cached
 * tokens. A retraction is SGLang's preemption.
 */
export const SGLANG_MAP: EngineMap = {
  // Speculative decoding: gauges of the last logging interval, not counters
  // (`sgl-project/sglang:python/sglang/srt/metrics/collector.py`
  // @00ae9c1590d2d0bb6c0bfff39e312c34ae3dd538, SchedulerMetricsCollector): a run's value is
  // the mean of its readings.
  spec_accept_rate: mean('sglang:spec_accept_rate'),
  spec_accept_length: mean('sglang:spec_accept_length'),
  running: sum('sglang:num_running_reqs'),
  waiting: sum('sglang:num_queue_reqs'),
  kv_usage: mean('sglang:token_usage'),
  prefix_queries_total: sum('sglang:prompt_tokens_total'),
  prefix_hits_total: sum('sglang:cached_tokens_total'),
  preemptions_total: sum('sglang:num_retracted_requests_total'),
  prompt_tokens_total: sum('sglang:prompt_tokens_total'),
  generation_tokens_total: sum('sglang:generation_tokens_total'),
  ...DCGM_MAP,
};

/** llama.cpp's counter of prompt tokens taken from its prompt cache (builds that have it). */
const LLAMACPP_CACHED = 'llamacpp:prompt_tokens_cached_total';

/**
 * llama.cpp `llama-server --metrics` (ggml-org/llama.cpp:tools/server/server.cpp, `metrics`).
 * Its `prompt_tokens_total` counts only the prompt tokens it evaluated, not those reused from
 * the prompt cache (vLLM's counts both), so builds that expose the cached counter add it back:
 * prompt tokens = evaluated + cached, prefix hits = cached, prefix queries = all prompt tokens.
 * It has no preemption counter, and only older builds report KV usage (`kv_cache_usage_ratio`),
 * so those keys stay absent.
 */
export const LLAMACPP_MAP: EngineMap = {
  running: sum('llamacpp:requests_processing'),
  waiting: sum('llamacpp:requests_deferred'),
  kv_usage: mean('llamacpp:kv_cache_usage_ratio'),
  prompt_tokens_total: {
    ...sum('llamacpp:prompt_tokens_total'),
    plus: { names: [LLAMACPP_CACHED], required: false },
  },
  prefix_queries_total: {
    ...sum('llamacpp:prompt_tokens_total'),
    plus: { names: [LLAMACPP_CACHED], required: true },
  },
  prefix_hits_total: sum(LLAMACPP_CACHED),
  generation_tokens_total: sum('llamacpp:tokens_predicted_total'),
  // With a draft model (-md) or an ngram --spec-type, llama-server counts like vLLM v1
  // (seen on the shared build, ggml-org/llama.cpp@de3ff81, tools/server/server.cpp `metrics`).
  spec_drafts_total: sum('llamacpp:spec_decode_num_drafts_total'),
  spec_draft_tokens_total: sum('llamacpp:spec_decode_num_draft_tokens_total'),
  spec_accepted_tokens_total: sum('llamacpp:spec_decode_num_accepted_tokens_total'),
  ...DCGM_MAP,
};

/**
 * servelab's simulator: vLLM v1's names plus its own health counter (`sim/server/lag-metrics`),
 * which says when the simulator itself fell behind real time.
 */
export const SIM_HEALTH_MAP: EngineMap = {
  sim_behind_total: sum('servelab_sim_behind_total'),
  sim_steps_total: sum('servelab_sim_emit_lag_seconds_count'),
};
export const SIM_MAP: EngineMap = { ...VLLM_V1_MAP, ...SIM_HEALTH_MAP };

/** Every map by engine; `unknown` reads only DCGM. */
export const ENGINE_MAPS: Record<EngineKind, EngineMap> = {
  vllm: VLLM_V1_MAP,
  'vllm-v0': VLLM_V0_MAP,
  sglang: SGLANG_MAP,
  llamacpp: LLAMACPP_MAP,
  // The simulator impersonates vLLM v1 and adds DCGM-named GPU series (see sim-metric-names.ts).
  sim: SIM_MAP,
  unknown: DCGM_MAP,
};

/**
 * The maps `normalize` reads with: each engine's plus the simulator's health series, which are
 * read whatever engine it plays (`--engine sglang` exposes SGLang's names and its own
 * `servelab_sim_*`); no real engine has those names.
 */
const READ_MAPS = Object.fromEntries(
  Object.entries(ENGINE_MAPS).map(([k, m]) => [k, { ...m, ...SIM_HEALTH_MAP }]),
) as Record<EngineKind, EngineMap>;

/**
 * Name of a gauge the simulator may expose to identify itself. Without it a simulator scrape is
 * detected as `vllm`, which reads identically.
 */
export const SIM_MARKER = 'servelab_sim_info';

/**
 * Every series name any map reads, plus the simulator marker: what a scrape must parse when
 * nobody keeps the raw series (see `ParseOptions.only`).
 */
export const MAPPED_NAMES: ReadonlySet<string> = new Set([
  SIM_MARKER,
  ...Object.values(ENGINE_MAPS).flatMap((m) =>
    Object.values(m).flatMap((r) => [...(r?.names ?? []), ...(r?.plus?.names ?? [])]),
  ),
]);

/**
 * Which engine produced these samples, judged by metric-name prefixes.
 * vLLM is `vllm-v0` when it has the old KV name and not the new one. The simulator's marker
 * means `sim` (vLLM v1's names) unless the simulator impersonates another engine
 * (`servelab sim --engine sglang|vllm-v0`), whose names it then exposes and is read by.
 */
export function detectEngine(samples: readonly Sample[]): EngineKind {
  const families = new Set(samples.map((s) => s.family));
  if (families.has(SIM_MARKER)) {
    const named = byPrefix(families);
    return named === 'sglang' || named === 'vllm-v0' ? named : 'sim';
  }
  return byPrefix(families);
}

function byPrefix(families: ReadonlySet<string>): EngineKind {
  let vllm = false;
  let sglang = false;
  let llamacpp = false;
  for (const f of families) {
    if (f.startsWith('vllm:')) vllm = true;
    else if (f.startsWith('sglang:')) sglang = true;
    else if (f.startsWith('llamacpp:')) llamacpp = true;
  }
  if (vllm) {
    const old =
      families.has('vllm:gpu_cache_usage_perc') || families.has('vllm:gpu_prefix_cache_queries_total');
    return old && !families.has('vllm:kv_cache_usage_perc') ? 'vllm-v0' : 'vllm';
  }
  if (sglang) return 'sglang';
  if (llamacpp) return 'llamacpp';
  return 'unknown';
}

/**
 * Map one scrape into the vocabulary. Label sets are combined per {@link VocabularyRule.agg}:
 * vLLM's data-parallel `engine` label and DCGM's `gpu` label are summed (counts, MiB) or averaged
 * (fractions, %). Non-finite values (NaN from an idle gauge) are skipped.
 *
 * @param engine which map to use; detected from the samples when omitted.
 */
export function normalize(
  samples: readonly Sample[],
  engine: EngineKind = detectEngine(samples),
): Normalized {
  const byName = new Map<string, number[]>();
  for (const s of samples) {
    if (!Number.isFinite(s.value)) continue;
    let list = byName.get(s.name);
    if (!list) {
      list = [];
      byName.set(s.name, list);
    }
    list.push(s.value);
  }
  const out: Normalized = {};
  const map = READ_MAPS[engine];
  for (const key of VOCAB) {
    const rule = map[key];
    if (!rule) continue;
    for (const name of rule.names) {
      const values = byName.get(name);
      if (!values || values.length === 0) continue;
      let value = rule.agg === 'sum' ? values.reduce((a, b) => a + b, 0) : (meanOf(values) as number);
      if (rule.plus) {
        const extra = rule.plus.names.flatMap((n) => byName.get(n) ?? []);
        if (extra.length === 0 && rule.plus.required) break;
        value += extra.reduce((a, b) => a + b, 0);
      }
      out[key] = value;
      break;
    }
  }
  return out;
}

export { counterIncrease, tokenRate } from '../analysis/series.js';
