/**
 * @module monitor/sim-metric-names
 * The metric families the simulator (`servelab sim`) must expose on `/metrics`: the vLLM v1
 * names the Grafana dashboard and the name maps rely on, plus the two DCGM GPU series.
 * Family names only (a histogram's `_bucket`/`_sum`/`_count` belong to its family).
 * The dashboard test checks every dashboard query against this list and servelab's exporter;
 * the simulator's tests check that it exposes every name here.
 */
export const SIM_METRIC_NAMES = [
  'vllm:num_requests_running',
  'vllm:num_requests_waiting',
  'vllm:kv_cache_usage_perc',
  'vllm:prefix_cache_queries_total',
  'vllm:prefix_cache_hits_total',
  'vllm:num_preemptions_total',
  'vllm:prompt_tokens_total',
  'vllm:generation_tokens_total',
  'vllm:request_success_total',
  'vllm:time_to_first_token_seconds',
  'vllm:inter_token_latency_seconds',
  'vllm:e2e_request_latency_seconds',
  'vllm:request_queue_time_seconds',
  'vllm:request_prefill_time_seconds',
  'vllm:request_decode_time_seconds',
  'DCGM_FI_DEV_FB_USED',
  'DCGM_FI_DEV_GPU_UTIL',
  // The simulator's own health (sim/server/lag-metrics): did it keep up with real time?
  'servelab_sim_behind_total',
  'servelab_sim_emit_lag_seconds',
] as const;
export type SimMetricName = (typeof SIM_METRIC_NAMES)[number];
