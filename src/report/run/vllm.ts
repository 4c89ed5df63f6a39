/**
 * @module report/run/vllm
 * `vllm.json` (`--format vllm`): the file `vllm bench serve --save-result` writes, with its
 * keys and vLLM's definitions, so scripts written for vLLM read servelab's runs unchanged. The
 * key set follows vllm-project/vllm@009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1,
 * `vllm/benchmarks/serve.py` (`main`'s `result_json` merged with `benchmark`'s `result`), for a
 * generation run with a tokenizer, no ramp-up, no probes and no speculative decoding:
 *
 * - setup and traffic: `date`, `endpoint_type`, `backend`, `label`, `model_id`, `tokenizer_id`,
 *   `num_prompts`, `request_rate` (`"inf"` when unbounded), `burstiness`, `max_concurrency`;
 * - totals and rates: `duration` (s), `completed`, `failed`, `total_input_tokens`,
 *   `total_output_tokens`, `request_throughput`, `request_goodput` (null without an SLO, as
 *   vLLM), `output_throughput`, `total_token_throughput`, `max_output_tokens_per_s`,
 *   `max_concurrent_requests`, `rtfx`;
 * - per request, always: `latencies` (s) and `queue_times` (s); with `--save-detailed` also
 *   `input_lens`, `output_lens`, `ttfts` (s), `itls` (s), `start_times` (s), `generated_texts`
 *   (empty: servelab keeps no output text) and `errors`;
 * - per metric of `--percentile-metrics` (vLLM's default `ttft,tpot,itl`): `mean_X_ms`,
 *   `median_X_ms`, `std_X_ms` and `pNN_X_ms` per `--metric-percentiles` (default 99).
 *
 * Definitions are vLLM's: TTFT is the first chunk of any kind (servelab's `vllm_ttft_ms`
 * dialect, reasoning included); TPOT and ITL are servelab's `tpot_ms` and chunk gaps, which
 * match vLLM's on streamed responses; E2EL is `e2e_ms`. Where vLLM writes 0 for "no data",
 * servelab writes null and says why under `servelab.notes`. servelab's own definitions go
 * under one extra key, `servelab`.
 */
import { peakFigures } from '../../analysis/peak.js';
import { requestMetrics } from '../../analysis/request.js';
import { describe, percentile } from '../../analysis/stats.js';
import { groupAttempts } from '../../analysis/summary.js';
import { type RequestRecord, SUCCESS_OUTCOMES } from '../../record/types.js';
import type { RunReport } from './report.js';

/** The vLLM revision whose `serve.py` the key set follows. */
export const VLLM_RESULT_REVISION = 'vllm-project/vllm@009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1';

/** vLLM's `--percentile-metrics` names. */
export const VLLM_METRICS = ['ttft', 'tpot', 'itl', 'e2el'] as const;
export type VllmMetric = (typeof VLLM_METRICS)[number];

export interface VllmResultOptions {
  /** `--percentile-metrics` (default vLLM's `ttft,tpot,itl`). */
  percentileMetrics?: readonly VllmMetric[];
  /** `--metric-percentiles` (default `99`). */
  metricPercentiles?: readonly number[];
  /** `--save-detailed`: also the per-request arrays. */
  detailed?: boolean;
}

export type VllmResult = Record<string, unknown>;

/** Format Unix ms as vLLM's `date` field (`%Y%m%d-%H%M%S`, UTC here). */
function vllmDate(unixMs: number): string {
  const d = new Date(unixMs);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/** numpy's mean, median, population std and linear percentiles (analysis/stats), over ms values. */
function stats(values: readonly number[], percentiles: readonly number[]) {
  const d = describe(values);
  const sorted = [...values].sort((a, b) => a - b);
  return {
    mean: d.mean,
    median: d.p50,
    std: d.std,
    pcts: percentiles.map((p) => [p, percentile(sorted, p)] as const),
  };
}

const cfg = (report: RunReport, path: string[]): unknown =>
  path.reduce<unknown>(
    (o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined),
    report.config,
  );

/**
 * The run as `vllm bench serve --save-result` would have written it.
 * @param records the run's records (warm-up included; only the measured phase counts)
 */
export function toVllmResult(
  report: RunReport,
  records: readonly RequestRecord[],
  opts: VllmResultOptions = {},
): VllmResult {
  const s = report.summary;
  const notes: string[] = [];
  const finals = [...groupAttempts(records).values()]
    .map((g) => g.final)
    .filter((r) => r.phase === 'measure')
    .sort((a, b) => a.index - b.index);
  const ok = finals.filter((r) => SUCCESS_OUTCOMES.includes(r.outcome));
  const m = ok.map((r) => requestMetrics(r));
  const durationS = (report.window.end_ms - report.window.start_ms) / 1000;
  const sum = (xs: (number | null | undefined)[]) =>
    xs.some((x) => typeof x !== 'number') ? null : (xs as number[]).reduce((a, b) => a + b, 0);
  const totalIn = sum(ok.map((r) => r.usage?.prompt_tokens));
  const totalOut = sum(ok.map((r) => r.usage?.completion_tokens));
  if (totalIn === null || totalOut === null)
    notes.push(
      'total_input_tokens/total_output_tokens: some successful requests carried no usage (null, not 0)',
    );
  const rate = cfg(report, ['load', 'rateRps']);
  const endpoint = cfg(report, ['target', 'endpoint']);
  // vLLM's --backend when given; else the name of the API servelab sent.
  const backend =
    (cfg(report, ['target', 'backend']) as string | null | undefined) ??
    (endpoint === 'completions' ? 'openai' : 'openai-chat');
  const tokenization = cfg(report, ['workload', 'tokenization']);
  const model = (cfg(report, ['model']) as string | undefined) ?? null;
  const tokenizerName = (cfg(report, ['workload', 'tokenizer']) as string | null | undefined) ?? model;
  const peak = peakFigures(ok);
  const out: VllmResult = {
    date: vllmDate(report.started_at_unix_ms),
    endpoint_type: backend,
    backend,
    label: (cfg(report, ['label']) as string | null | undefined) ?? null,
    model_id: model,
    // The tokenizer prompts were counted with: the offline one, or the server's (the model's).
    tokenizer_id:
      tokenization === 'tokenizer' ? tokenizerName : tokenization === 'server_tokenize' ? model : null,
    num_prompts: finals.length,
    request_rate: typeof rate === 'number' && Number.isFinite(rate) ? rate : 'inf',
    burstiness: (cfg(report, ['load', 'burstiness']) as number | undefined) ?? 1,
    max_concurrency:
      ((cfg(report, ['load', 'maxConcurrency']) ?? cfg(report, ['load', 'concurrency'])) as number | null) ??
      null,
    duration: durationS,
    completed: ok.length,
    failed: finals.length - ok.length,
    total_input_tokens: totalIn,
    total_output_tokens: totalOut,
    request_throughput: s.request_throughput_rps,
    request_goodput: s.goodput.rps,
    output_throughput: s.output_throughput_tok_s,
    total_token_throughput: s.total_throughput_tok_s,
    latencies: finals.map((r) => {
      const e = requestMetrics(r).e2e_ms;
      return SUCCESS_OUTCOMES.includes(r.outcome) && e !== undefined ? e / 1000 : null;
    }),
    queue_times: finals.map((r) => {
      const l = requestMetrics(r).lateness_ms;
      return l === undefined ? null : l / 1000;
    }),
    max_output_tokens_per_s: peak.max_output_tokens_per_s,
    max_concurrent_requests: peak.max_concurrent_requests,
    rtfx: null,
  };
  notes.push('rtfx: speech (ASR) runs only; vLLM writes 0 for text, servelab null');
  if (out.tokenizer_id === null)
    notes.push(`tokenizer_id: no tokenizer counted the prompts (tokenization: ${String(tokenization)})`);
  if (cfg(report, ['load', 'mode']) === 'closed')
    notes.push('request_rate "inf": a closed loop sends the next request as soon as one ends');
  if (opts.detailed) {
    out.input_lens = finals.map((r) => r.usage?.prompt_tokens ?? null);
    out.output_lens = finals.map((r) =>
      SUCCESS_OUTCOMES.includes(r.outcome) ? (r.usage?.completion_tokens ?? null) : null,
    );
    out.ttfts = finals.map((r) => {
      const t = requestMetrics(r).vllm_ttft_ms;
      return t === undefined ? null : t / 1000;
    });
    out.itls = finals.map((r) => requestMetrics(r).itl_ms.map((x) => x / 1000));
    out.start_times = finals.map((r) => (r.sent_at_ms === null ? null : r.sent_at_ms / 1000));
    out.generated_texts = finals.map(() => '');
    out.errors = finals.map((r) => r.error ?? '');
    notes.push('generated_texts: servelab keeps no output text (empty strings)');
  }
  const values: Record<VllmMetric, number[]> = {
    ttft: m.flatMap((x) => (x.vllm_ttft_ms === undefined ? [] : [x.vllm_ttft_ms])),
    tpot: m.flatMap((x) => (x.tpot_ms === undefined ? [] : [x.tpot_ms])),
    itl: m.flatMap((x) => x.itl_ms),
    e2el: m.flatMap((x) => (x.e2e_ms === undefined ? [] : [x.e2e_ms])),
  };
  const percentiles = opts.metricPercentiles ?? [99];
  for (const name of opts.percentileMetrics ?? (['ttft', 'tpot', 'itl'] as const)) {
    const st = stats(values[name], percentiles);
    if (values[name].length === 0)
      notes.push(`${name}: no successful request had it (null, where vLLM writes 0)`);
    out[`mean_${name}_ms`] = st.mean;
    out[`median_${name}_ms`] = st.median;
    out[`std_${name}_ms`] = st.std;
    for (const [p, v] of st.pcts) out[`p${Number.isInteger(p) ? p : String(p)}_${name}_ms`] = v;
  }
  out.servelab = {
    revision: VLLM_RESULT_REVISION,
    definitions: {
      ttft: 'first chunk of any kind − send (vLLM; servelab ttft_ms counts content only: see report.json summary)',
      tpot: '(last token − first token) / (completion tokens − 1), from usage',
      itl: 'gaps between consecutive token-carrying chunks',
      e2el: 'send → the finish chunk',
    },
    notes,
  };
  return out;
}
