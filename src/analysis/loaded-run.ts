/**
 * @module analysis/loaded-run
 * What the report and the diagnosis read: a {@link LoadedRun} is one already-loaded run (its
 * summary, its per-request records, optionally its scraped server series and the experiment
 * record). Loading from the store or from `report.json` files is the CLI's job; the judging in
 * `analysis/` (validity, load curves, diagnosis) and the rendering in `report/` are pure
 * functions of these objects.
 */
import type { RunStepRecord } from '../record/engine-step.js';
import type { RequestRecord } from '../record/types.js';
import type { Summary } from './summary.js';

/**
 * Where an experiment-record field's value came from: probed from the target, declared in the
 * experiment file, or missing. `exp/experiment-record` builds its fields with this type.
 */
export type FieldSource = 'probed' | 'declared' | 'missing';

/**
 * One experiment-record field as the report shows it. Structurally the same as
 * `exp/experiment-record`'s `ExperimentRecordField`; redeclared here because `analysis/` and
 * `report/` may not import `exp/` (layout rule).
 */
export interface ReportRecordField {
  value: Record<string, unknown>;
  source: FieldSource;
  /** Where each known part came from. */
  from?: Record<string, string>;
  /** Parts with no value: shown as missing. */
  missing?: string[];
}

/**
 * One normalized scraped reading (same shape as `monitor/scraper`'s `ScrapePoint`): `name` is a
 * vocabulary name (`running`, `waiting`, `kv_usage` 0..1, `*_total` counters,
 * `gpu_memory_used_mib`, `gpu_util_pct`) or `server_tokens_per_s`.
 */
export interface SeriesPoint {
  /** Run-clock ms (same origin as the records' times). */
  t_ms: number;
  source: string;
  name: string;
  value: number;
}

/** The load level a run was made at (one point of a sweep). */
export interface RunLevel {
  /** Closed-loop users or `--max-concurrency`. */
  concurrency?: number;
  /** Open-loop target rate, requests/s. */
  rate_rps?: number;
  /** Sessions: the number of users (one session each), e.g. a team-assistant level. */
  users?: number;
}

/**
 * Another tool's result file a run was read from, instead of servelab's own records. The run's
 * `summary` then holds that tool's numbers under servelab's keys, with that tool's definitions
 * (not servelab's: `docs/metrics.md`, "Metric dialects"), and its `records` are empty.
 *
 * Such a summary carries only what the file measured: `requests` (succeeded, failed),
 * `error_rate`, the latency statistics the file gives, the throughputs, `goodput.rps` and the
 * mean token counts. The rest is not in the file, and what the summary type forces to be a
 * number there is a placeholder, never data: the outcome classes beyond `ok` (so truncation),
 * `finish_reasons`, `usage_missing`, `client`, `littles_law`, `achieved_rate_rps`. Renderers
 * and the diagnosis show those as unknown for a run with a source.
 */
export interface RunSource {
  /** `vllm`: a `vllm bench serve --save-result` file. */
  tool: 'vllm';
  /** The metric definitions the numbers follow, `metric: definition`, for the report's notes. */
  definitions: string[];
  /** What the file lacks, what was read as no data and why, in plain sentences. */
  notes: string[];
  /**
   * Every statistic as the file gives it, ms, per metric (`ttft`, `tpot`, `itl`, `e2el`, …):
   * `mean`, `median`, `std` and each `pNN` (`p99`, `p99.9`), null where the file's 0 means
   * no data. The summary's `Stats` blocks hold the subset servelab's keys name.
   */
  stats: Record<string, Record<string, number | null>>;
}

/** One loaded run, as every function in `report/` and the judging in `analysis/` take it. */
export interface LoadedRun {
  /** Store id or file name. */
  id: string;
  /** Short human label for tables and legends. */
  label: string;
  /** Experiment kind (`sweep`, `ab`, `cold-warm` …) when the run belongs to one. */
  kind?: string;
  /** The run's configuration (`report.json` `config`): target, model, generation, load, seed… */
  config: Record<string, unknown>;
  environment: Record<string, unknown>;
  /** The experiment record's fields (model, engine, device, precision, limits …). */
  record?: Record<string, ReportRecordField>;
  summary: Summary;
  /** Every attempt's record (warm-up included). */
  records: RequestRecord[];
  /** Scraped server series, when monitored. */
  series?: SeriesPoint[];
  /** The simulator's engine steps on the run's clock, when it recorded them (`--record-steps`). */
  steps?: RunStepRecord[];
  /**
   * The engine the scraped `/metrics` was read as (`vllm`, `vllm-v0`, `sglang`, `llamacpp`,
   * `sim`), when a scrape named one: the diagnosis names that engine's settings.
   */
  engine?: string;
  level?: RunLevel;
  /** Price of one GPU-hour, US$, for the cost columns. */
  gpu_hour_usd?: number;
  /** Number of GPUs the price applies to (default: the record's `device.count`, else 1). */
  gpu_count?: number;
  /** The runner's measurement window; default: from the records. */
  window?: { start_ms: number; end_ms: number };
  /** Set when the run was read from another tool's result file (see {@link RunSource}). */
  source?: RunSource;
}
