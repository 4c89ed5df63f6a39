/**
 * @module report/vllm-result
 * Reading a result file of `vllm bench serve --save-result` as a {@link LoadedRun}, so old
 * vLLM results go into the comparison table next to servelab runs, marked as having vLLM's
 * definitions; and telling such a file from servelab's `report.json` by its shape, whatever
 * its name (vLLM names it like `openai-chat-infqps-concurrency8-MODEL-20261201-120000.json`).
 * Pure: the caller reads the file and passes its text.
 *
 * The keys are those of vllm-project/vllm@009e6d4a1cd6 `vllm/benchmarks/serve.py` (`main`'s
 * `result_json` merged with `benchmark`'s `result`; report/run/vllm lists them): setup
 * (`date`, `backend`, `label`, `model_id`, `num_prompts`, `request_rate`, `burstiness`,
 * `max_concurrency`), totals and rates over `duration`, `latencies` per request, and
 * `mean_X_ms`, `median_X_ms`, `std_X_ms` and `pNN_X_ms` per metric of its
 * `--percentile-metrics`; with `--save-detailed` also `ttfts`, `itls`, `input_lens`,
 * `output_lens`, `start_times` and `errors` per request.
 *
 * What is read and how:
 * - The file's own statistics are vLLM's numbers and are kept as written. With the detailed
 *   arrays, the statistics it did not write (min, p90, p95, max) and exact sample counts come
 *   from them, with vLLM's formulas and numpy's linear percentiles (`analysis/stats`).
 * - vLLM writes 0 for "no data" (`np.mean(x or 0)`): when no request completed, every statistic
 *   is null. servelab's own `vllm.json` writes null there already.
 * - No per-request records are made: vLLM's per-request arrays give durations relative to each
 *   send, not the token times a servelab record holds, so the rules that need records are
 *   skipped with a reason (`analysis/diagnose`).
 * - A `vllm.json` written by servelab (it has a `servelab` key) is read the same way, as the
 *   vLLM-definitions view of a servelab run; when its `report.json` lies next to it, a note
 *   says so, because that file has the records and servelab's definitions.
 */

import { EN } from '../analysis/diagnose/default-lang.js';
import type { LoadedRun, RunSource } from '../analysis/loaded-run.js';
import { describe, emptyStats, type Stats } from '../analysis/stats.js';
import { SUMMARY_METRICS, type Summary, type SummaryMetric } from '../analysis/summary.js';
import { OUTCOMES, type Outcome } from '../record/types.js';
import type { RunReport } from './run/report.js';

/** What `servelab report` accepts as a file, for hints. */
export const RUN_FILE_HINT =
  'give a servelab report.json (`servelab run --out DIR`) or a vLLM result file (`vllm bench serve --save-result`)';

/** The definitions a vLLM result's numbers follow (servelab's differences in parentheses). */
export const VLLM_DEFINITIONS: readonly string[] = [
  'TTFT: send → the first chunk of any kind, role-only and reasoning included (servelab: the first content or tool-call chunk)',
  "TPOT: (E2EL − TTFT) / (output tokens − 1), with vLLM's any-chunk TTFT (servelab: last token − first token)",
  'ITL: gaps between consecutive chunks, pooled over requests (as servelab)',
  'E2E: send → the last chunk (servelab: the finish chunk)',
  "statistics: vLLM's mean, median (= p50), population std and pNN as written; percentiles it did not write are — unless its per-request arrays give them",
  "throughput: per second of vLLM's benchmark duration, first send to last response, ramp and drain included (servelab: the measurement window); input tokens are the dataset's prompt lengths",
];

/** The footnote of the comparison table for runs with vLLM's definitions. */
export const VLLM_DEFINITIONS_NOTE = EN('report.note.vllm_definitions');

/** A parsed vLLM result file: its keys as written. */
export type VllmResultFile = Record<string, unknown>;

/** One JSON file `servelab report` can read: servelab's report.json or a vLLM result. */
export type RunFile = { kind: 'report'; report: RunReport } | { kind: 'vllm'; result: VllmResultFile };

/** A statistic key of the file: `mean_ttft_ms`, `median_e2el_ms`, `p99.9_itl_ms`. */
const STAT_KEY = /^(?:(mean|median|std)|p(\d+(?:\.\d+)?))_(.+)_ms$/;
const isStatKey = (k: string) => STAT_KEY.test(k);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parse JSON text. Python's `json.dump` writes `NaN`, `Infinity` and `-Infinity` bare (vLLM's
 * `--burstiness inf`, metadata), which `JSON.parse` refuses: outside strings they are read as
 * null (no finite value).
 * @throws SyntaxError when the text is not JSON even so (a truncated file)
 */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!/\b(?:NaN|Infinity)\b/.test(text)) throw err;
    return JSON.parse(
      text.replace(/"(?:[^"\\]|\\.)*"|-?\b(?:NaN|Infinity)\b/g, (m) => (m.startsWith('"') ? m : 'null')),
    );
  }
}

/** Whether `v` has servelab's report.json shape (a `summary` object). */
export function isServelabReport(v: unknown): v is RunReport {
  return isObject(v) && isObject(v.summary);
}

/**
 * Whether `v` has the shape of a `vllm bench serve --save-result` file: `completed` and
 * `duration` numbers, a `request_throughput`, one of `num_prompts`, `backend`, `endpoint_type`
 * or a `mean_*_ms` statistic, and no servelab `summary`.
 */
export function isVllmResult(v: unknown): v is VllmResultFile {
  if (!isObject(v) || 'summary' in v) return false;
  if (typeof v.completed !== 'number' || typeof v.duration !== 'number' || !('request_throughput' in v))
    return false;
  return 'num_prompts' in v || 'backend' in v || 'endpoint_type' in v || Object.keys(v).some(isStatKey);
}

/**
 * Tell a run file's shape from its text.
 * @throws Error saying what is wrong: not JSON (truncated?), or neither shape
 */
export function parseRunFile(text: string): RunFile {
  let v: unknown;
  try {
    v = parseJsonText(text);
  } catch (err) {
    // `vllm bench serve --append-result` adds one JSON document per line to the same file.
    const lines = text.split('\n').filter((l) => l.trim());
    const oneEach = (l: string) => {
      try {
        return isObject(parseJsonText(l));
      } catch {
        return false;
      }
    };
    if (lines.length > 1 && lines.every(oneEach))
      throw new Error(
        `${lines.length} JSON documents, one per line (as \`vllm bench serve --append-result\` writes): give one result per file`,
      );
    throw new Error(
      `not valid JSON (${(err as Error).message})${text.trim() ? ': is the file truncated?' : ': the file is empty'}`,
    );
  }
  if (isServelabReport(v)) return { kind: 'report', report: v };
  if (isVllmResult(v)) return { kind: 'vllm', result: v };
  const keys = isObject(v) ? Object.keys(v) : [];
  const seen = keys.length
    ? `keys ${keys
        .slice(0, 6)
        .map((k) => `"${k}"`)
        .join(', ')}${keys.length > 6 ? ', …' : ''}`
    : Array.isArray(v)
      ? 'a JSON array'
      : `a JSON ${v === null ? 'null' : typeof v}`;
  throw new Error(
    `neither a servelab report.json (no "summary") nor a vLLM result (no "completed", "duration" and "request_throughput"): found ${seen}`,
  );
}

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The file's statistics per metric: `{ttft: {mean, median, std, p99}, …}`, as written (ms). */
function fileStats(r: VllmResultFile): Record<string, Record<string, number | null>> {
  const out: Record<string, Record<string, number | null>> = {};
  for (const [k, v] of Object.entries(r)) {
    const m = STAT_KEY.exec(k);
    if (!m) continue;
    const stat = m[1] ?? `p${m[2]}`;
    out[m[3]] ??= {};
    out[m[3]][stat] = finite(v);
  }
  return out;
}

/** A per-request array of the file, or null when absent or of another length. */
function perRequest(r: VllmResultFile, key: string, n: number): unknown[] | null {
  const a = r[key];
  return Array.isArray(a) && a.length === n ? a : null;
}

/**
 * Which requests succeeded, from `errors` (an empty error is a success) or, without it, from
 * `latencies` (a failed request's is 0 in vLLM's file, null in servelab's). Null when neither
 * tells them apart with the file's own `completed` count.
 */
function successes(r: VllmResultFile, completed: number, failed: number): boolean[] | null {
  const n = completed + failed;
  const check = (mask: boolean[]) => (mask.filter(Boolean).length === completed ? mask : null);
  const errors = perRequest(r, 'errors', n);
  if (errors?.every((e) => e === null || typeof e === 'string')) {
    const m = check(errors.map((e) => !e));
    if (m) return m;
  }
  const lat = perRequest(r, 'latencies', n);
  if (lat) return check(lat.map((x) => (finite(x) ?? 0) > 0));
  return null;
}

/** Per-request samples of each metric (ms) from the detailed arrays, successes only. */
function samplesOf(r: VllmResultFile, ok: boolean[] | null): Partial<Record<string, number[]>> {
  if (!ok) return {};
  const n = ok.length;
  const s = (v: unknown) => finite(v);
  const lat = perRequest(r, 'latencies', n);
  const ttfts = perRequest(r, 'ttfts', n);
  const itls = perRequest(r, 'itls', n);
  const outLens = perRequest(r, 'output_lens', n);
  const pick = (a: unknown[] | null, f: (v: unknown, i: number) => number[] | null) => {
    if (!a) return undefined;
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      if (!ok[i]) continue;
      const v = f(a[i], i);
      if (v === null) return undefined; // a success without the value: the array cannot be trusted
      out.push(...v);
    }
    return out;
  };
  const one = (v: unknown) => (s(v) === null ? null : [(s(v) as number) * 1000]);
  return {
    e2el: pick(lat, one),
    ttft: pick(ttfts, one),
    itl: pick(itls, (v) =>
      Array.isArray(v) && v.every((x) => s(x) !== null) ? v.map((x) => (x as number) * 1000) : null,
    ),
    // vLLM's TPOT: (latency − ttft) / (output_len − 1), for outputs of more than one token.
    tpot:
      lat && ttfts
        ? pick(outLens, (v, i) => {
            const len = s(v);
            const l = s(lat[i]);
            const t = s(ttfts[i]);
            if (len === null || l === null || t === null) return null;
            return len > 1 ? [((l - t) / (len - 1)) * 1000] : [];
          })
        : undefined,
  };
}

/**
 * One metric's statistics in servelab's {@link Stats} shape: the file's numbers where it has
 * them (vLLM's own), the per-request samples for the rest and for `n`.
 * @param fallbackN `n` when there are no samples
 */
function statsOf(
  file: Record<string, number | null> | undefined,
  samples: number[] | undefined,
  fallbackN: number,
): Stats {
  if (samples?.length === 0) return emptyStats();
  const base = samples ? describe(samples) : null;
  if (!file) return base ?? emptyStats();
  const out: Stats = base ?? { ...emptyStats(), n: fallbackN };
  const take = (k: keyof Stats, ...from: string[]) => {
    for (const f of from)
      if (file[f] != null) {
        (out as unknown as Record<string, number | null>)[k] = file[f];
        return;
      }
  };
  take('mean', 'mean');
  take('std', 'std');
  take('p50', 'median', 'p50');
  take('p90', 'p90');
  take('p95', 'p95');
  take('p99', 'p99');
  take('min', 'p0');
  take('max', 'p100');
  return out;
}

/** vLLM's metric for each servelab summary metric that has one. */
const METRIC_OF: Partial<Record<SummaryMetric, string>> = {
  ttft_ms: 'ttft',
  tpot_ms: 'tpot',
  itl_ms: 'itl',
  e2e_ms: 'e2el',
};

/** Options for {@link loadedRunFromVllmResult}. */
export interface VllmLoadOptions {
  /** Path of a servelab `report.json` found next to a `vllm.json` servelab wrote. */
  reportNextToIt?: string;
}

/**
 * Wrap a parsed vLLM result file as a {@link LoadedRun} with vLLM's definitions: no records,
 * `source.tool` `vllm`, the summary built from the file's numbers.
 * @param id file path (also the label)
 * @param r the parsed file ({@link isVllmResult})
 * @example
 * const f = parseRunFile(text);
 * if (f.kind === 'vllm') runs.push(loadedRunFromVllmResult(path, f.result));
 */
export function loadedRunFromVllmResult(
  id: string,
  r: VllmResultFile,
  opts: VllmLoadOptions = {},
): LoadedRun {
  const notes: string[] = [];
  const completed = Math.max(0, Math.round(finite(r.completed) ?? 0));
  const numPrompts = finite(r.num_prompts);
  let failed = finite(r.failed);
  if (failed === null) {
    failed = numPrompts !== null ? Math.max(0, numPrompts - completed) : 0;
    notes.push(
      `failed: not in the file; ${numPrompts !== null ? 'num_prompts − completed' : 'read as 0 (no num_prompts either)'}`,
    );
  }
  const measured = completed + failed;
  const ok = successes(r, completed, failed);
  const samples = samplesOf(r, ok);
  const stats = fileStats(r);
  const noneCompleted = completed === 0;
  if (noneCompleted)
    notes.push('no request completed: the statistics vLLM writes as 0 then are read as no data (null)');
  // The file's statistics, with vLLM's 0-for-no-data read as null.
  const kept: RunSource['stats'] = {};
  for (const [metric, st] of Object.entries(stats))
    kept[metric] = Object.fromEntries(Object.entries(st).map(([k, v]) => [k, noneCompleted ? null : v]));

  const metricStats = (name: SummaryMetric): Stats => {
    const metric = METRIC_OF[name];
    if (!metric || noneCompleted) return emptyStats();
    // TTFT and E2E are one value per completed request; vLLM does not write how many TPOT
    // values (outputs longer than one token) or ITL gaps it pooled.
    return statsOf(kept[metric], samples[metric], completed);
  };
  const summaryStats = Object.fromEntries(SUMMARY_METRICS.map((k) => [k, metricStats(k)])) as Record<
    SummaryMetric,
    Stats
  >;
  if (!noneCompleted) {
    const counted = (['tpot', 'itl'] as const).filter((m) => kept[m] && !samples[m]);
    if (counted.length)
      notes.push(
        `${counted.join(', ')}: n is the number of completed requests (the file does not say how many values vLLM pooled; --save-detailed gives exact counts)`,
      );
    if (!kept.e2el && samples.e2el)
      notes.push("E2E: computed from the file's per-request latencies (vLLM's E2EL), as vLLM would");
    else if (!kept.e2el)
      notes.push(
        "E2E: no e2el statistics in the file (vLLM's default --percentile-metrics is ttft,tpot,itl), and no per-request latencies that can be told from the failed requests' (--save-detailed writes errors)",
      );
    const shown = ['p50', 'p90', 'p95', 'p99'];
    const extra = Object.entries(kept).flatMap(([m, st]) =>
      Object.keys(st)
        .filter((k) => /^p\d/.test(k) && !shown.includes(k))
        .map((k) => `${k} ${m}`),
    );
    if (extra.length)
      notes.push(
        `statistics without a table column (${extra.join(', ')}): in the run's section of the HTML and Markdown reports`,
      );
  }

  const totalIn = finite(r.total_input_tokens);
  const totalOut = finite(r.total_output_tokens);
  const perCompleted = (t: number | null) => (t === null || completed === 0 ? null : t / completed);
  const outcomes = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  outcomes.ok = completed;
  const dialect = (definition: string, s: Stats = emptyStats()) => ({ ...s, definition });
  const summary: Summary = {
    requests: { planned: numPrompts ?? measured, measured, succeeded: completed, failed },
    outcomes,
    finish_reasons: {},
    error_rate: measured > 0 ? failed / measured : null,
    usage_missing: 0,
    output_throughput_tok_s: finite(r.output_throughput),
    total_throughput_tok_s: finite(r.total_token_throughput),
    request_throughput_rps: finite(r.request_throughput),
    achieved_rate_rps: null,
    goodput: { rps: finite(r.request_goodput), fraction: null, slo: null },
    littles_law: { measured_in_flight: null, predicted_in_flight: null, rel_gap: null },
    input_tokens: { mean: perCompleted(totalIn) },
    output_tokens: { mean: perCompleted(totalOut) },
    client: { event_loop_delay_ms: null, cpu_percent: null },
    metric_dialects: {
      vllm_ttft_ms: dialect('vLLM bench serve TTFT, as the file gives it', summaryStats.ttft_ms),
      guidellm_tpot_ms: dialect('not in a vLLM result file'),
      guidellm_itl_ms: dialect('not in a vLLM result file'),
    },
    errors: [],
    warnings: [],
    ...summaryStats,
  };

  const rtfx = finite(r.rtfx);
  if (rtfx === 0) notes.push('rtfx 0: speech (ASR) runs only, read as no data');
  if (r.ramp_up_strategy != null)
    notes.push(
      `the request rate ramped (${String(r.ramp_up_strategy)}, ${String(r.ramp_up_start_rps)} → ${String(r.ramp_up_end_rps)} rps): duration and throughputs span the ramp`,
    );
  notes.push("warm-up requests: not in the file (vLLM's --num-warmups is not saved)");
  const errors = ok ? (perRequest(r, 'errors', ok.length) ?? []) : [];
  const byMessage = new Map<string, number>();
  for (const e of errors) if (typeof e === 'string' && e) byMessage.set(e, (byMessage.get(e) ?? 0) + 1);
  const top = [...byMessage].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3);
  for (const [m, n] of top) notes.push(`error: ${n} × ${m.replace(/\s+/g, ' ').trim().slice(0, 160)}`);
  const own = r.servelab;
  if (isObject(own)) {
    notes.push("written by servelab (vllm.json): servelab's measurements with vLLM's definitions");
    if (opts.reportNextToIt)
      notes.push(
        `${opts.reportNextToIt} next to it is the same run with its records and servelab's definitions: give that to compare like with like`,
      );
    if (Array.isArray(own.notes))
      for (const n of own.notes) if (typeof n === 'string') notes.push(`servelab: ${n}`);
  }

  const config: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r))
    if (!isStatKey(k) && !Array.isArray(v) && !isObject(v)) config[k] = v;
  config.model = r.model_id ?? null;
  const conc = finite(r.max_concurrency);
  const rate = finite(r.request_rate);
  const duration = finite(r.duration);
  return {
    id,
    label: id,
    config,
    environment: { tool: 'vllm bench serve', date: r.date ?? null },
    summary,
    records: [],
    ...(conc !== null && conc > 0
      ? { level: { concurrency: conc } }
      : rate !== null && rate > 0
        ? { level: { rate_rps: rate } }
        : {}),
    ...(duration !== null ? { window: { start_ms: 0, end_ms: duration * 1000 } } : {}),
    source: { tool: 'vllm', definitions: [...VLLM_DEFINITIONS], notes, stats: kept },
  };
}
