/**
 * @module record/series
 * What a scrape of the server records: one normalized reading per vocabulary name, on the run's
 * clock. The vocabulary is servelab's own names for what every engine exposes under its own
 * (`monitor/maps` maps them); counters end in `_total`.
 */

/** The shared vocabulary. Counters end in `_total`; `kv_usage` is a 0..1 fraction. */
export const VOCAB = [
  'running',
  'waiting',
  'kv_usage',
  'prefix_queries_total',
  'prefix_hits_total',
  'preemptions_total',
  'prompt_tokens_total',
  'generation_tokens_total',
  'gpu_memory_used_mib',
  'gpu_util_pct',
  // servelab's simulator only (`servelab_sim_behind_total`): steps it delivered late, i.e. it
  // could not keep up with real time; never an engine's own slowness. `sim_steps_total`: every
  // step it delivered (`servelab_sim_emit_lag_seconds_count`), so late steps have a share.
  'sim_behind_total',
  'sim_steps_total',
  // Speculative decoding (analysis/speculative): vLLM's counters of drafts, draft tokens and
  // accepted tokens; SGLang's gauges of the recent acceptance rate and acceptance length.
  'spec_drafts_total',
  'spec_draft_tokens_total',
  'spec_accepted_tokens_total',
  'spec_accept_rate',
  'spec_accept_length',
] as const;
export type VocabName = (typeof VOCAB)[number];

/** The derived series: generation tokens/s from consecutive `generation_tokens_total` readings. */
export const SERVER_TOKEN_RATE = 'server_tokens_per_s' as const;

/** Vocabulary keys that are monotonic counters (reset-aware deltas apply). */
export const COUNTER_VOCAB: ReadonlySet<VocabName> = new Set<VocabName>([
  'prefix_queries_total',
  'prefix_hits_total',
  'preemptions_total',
  'prompt_tokens_total',
  'generation_tokens_total',
  'sim_behind_total',
  'sim_steps_total',
  'spec_drafts_total',
  'spec_draft_tokens_total',
  'spec_accepted_tokens_total',
]);

/** One normalized reading, aligned to the run clock. */
export interface ScrapePoint {
  /** Run-clock ms when the response arrived (`clock.now()`). */
  t_ms: number;
  /** Where it came from: the scrape URL without credentials, or `nvidia-smi`. */
  source: string;
  /** A vocabulary name (`kv_usage`, …) or `server_tokens_per_s`. */
  name: VocabName | typeof SERVER_TOKEN_RATE;
  value: number;
}
