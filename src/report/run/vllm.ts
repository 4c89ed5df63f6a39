/**
 * @module report/run/vllm
 * `vllm.json` (`--format vllm`): the run's results under the field names of
 * `vllm bench serve --save-result` (vllm/benchmarks/serve.py), so scripts written for vLLM read
 * servelab's numbers unchanged. Units follow vLLM: `duration` in seconds, latencies in ms,
 * throughputs per second. Definitions are servelab's (see docs/metrics.md): servelab's TTFT
 * counts the first *content* token, and vLLM's own TTFT is under `metric_dialects` in the
 * summary. Where vLLM writes 0 for "no data", servelab writes null.
 */
import type { Stats } from '../../analysis/stats.js';
import type { RunReport } from './report.js';

/** vLLM's metric names → servelab's summary metrics. */
const METRICS = [
  ['ttft', 'ttft_ms'],
  ['tpot', 'tpot_ms'],
  ['itl', 'itl_ms'],
  ['e2el', 'e2e_ms'],
] as const;

/** Percentiles written per metric (vLLM's default is p99 only; `--metric-percentiles` adds more). */
const PERCENTILES = ['p50', 'p90', 'p95', 'p99'] as const;

export type VllmResult = Record<string, number | string | null>;

/** Format Unix ms as vLLM's `date` field (`%Y%m%d-%H%M%S`, UTC here). */
function vllmDate(unixMs: number): string {
  const d = new Date(unixMs);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/**
 * Map a run report to vLLM bench serve's result fields.
 * Token totals are throughput × window (exact: the summary's throughputs are successful
 * tokens over that same window), rounded to whole tokens.
 */
export function toVllmResult(report: RunReport): VllmResult {
  const s = report.summary;
  const durationS = (report.window.end_ms - report.window.start_ms) / 1000;
  const total = (rate: number | null): number | null => (rate === null ? null : Math.round(rate * durationS));
  const out: VllmResult = {
    date: vllmDate(report.started_at_unix_ms),
    duration: durationS,
    completed: s.requests.succeeded,
    failed: s.requests.failed,
    total_input_tokens:
      s.total_throughput_tok_s === null || s.output_throughput_tok_s === null
        ? null
        : total(s.total_throughput_tok_s - s.output_throughput_tok_s),
    total_output_tokens: total(s.output_throughput_tok_s),
    request_throughput: s.request_throughput_rps,
    request_goodput: s.goodput.rps,
    output_throughput: s.output_throughput_tok_s,
    total_token_throughput: s.total_throughput_tok_s,
  };
  for (const [name, key] of METRICS) {
    const st: Stats = s[key];
    out[`mean_${name}_ms`] = st.mean;
    out[`median_${name}_ms`] = st.p50;
    out[`std_${name}_ms`] = st.std;
    for (const p of PERCENTILES) out[`${p}_${name}_ms`] = st[p];
  }
  return out;
}
