/**
 * @module report/run/report
 * `report.json` for one `servelab run`: the versioned, self-describing result of a run. It
 * carries the wall-clock anchor (`started_at_unix_ms`) that lines the run's relative times up
 * with server logs and Grafana, the full configuration and environment, the measurement window
 * and the summary. Records stay in `requests.jsonl` (named by `records_file`) unless embedded.
 */

import type { ValidityReason } from '../../analysis/diagnose/types.js';
import type { SeriesPoint } from '../../analysis/loaded-run.js';
import type { SessionsSummary } from '../../analysis/sessions.js';
import type { SpeculativeSummary } from '../../analysis/speculative.js';
import type { Summary } from '../../analysis/summary.js';
import type { RequestRecord, RunEndReason } from '../../record/types.js';

/** Name of the per-request record file next to `report.json`. */
export const RECORDS_FILE = 'requests.jsonl';

/** The `schema_version` this servelab writes into, and reads from, `report.json`. */
export const RUN_REPORT_SCHEMA_VERSION = 1;

/**
 * Why a parsed file is not a run's `report.json` this servelab can read, or null when it is.
 * A version other than ours is refused rather than rendered: its fields may mean something else.
 * @example runReportProblem(JSON.parse(text)) // 'schema_version 2; this servelab reads version 1'
 */
export function runReportProblem(value: unknown): string | null {
  if (!isObject(value)) return 'not a JSON object';
  const v = value;
  if (v.schema_version !== undefined && v.schema_version !== RUN_REPORT_SCHEMA_VERSION)
    return `schema_version ${JSON.stringify(v.schema_version)}; this servelab reads version ${RUN_REPORT_SCHEMA_VERSION}`;
  if (v.kind !== undefined && v.kind !== 'run') return `kind ${JSON.stringify(v.kind)}, not a run's report`;
  if (!isObject(v.summary)) return 'no summary';
  // The parts every reader of a summary relies on; a hand-edited or foreign file missing them
  // is refused here, not met by a TypeError in the renderer.
  const s = v.summary;
  const req = s.requests;
  if (
    !isObject(req) ||
    !['planned', 'measured', 'succeeded', 'failed'].every((k) => typeof req[k] === 'number')
  )
    return 'summary.requests is not {planned, measured, succeeded, failed}';
  for (const k of ['outcomes', 'finish_reasons', 'client'])
    if (!isObject(s[k])) return `summary.${k} is missing`;
  for (const k of ['errors', 'warnings']) if (!Array.isArray(s[k])) return `summary.${k} is missing`;
  // The distributions every table, chart and diagnosis rule reads (analysis/summary SUMMARY_METRICS).
  for (const k of ['ttft_ms', 'e2e_ms', 'tpot_ms', 'itl_ms'])
    if (!isObject(s[k])) return `summary.${k} is missing (a {p50, p90, p99, …} block)`;
  return null;
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** Where and with what the run was made. */
export interface RunEnvironment {
  servelab_version: string;
  node_version: string;
  platform?: string;
  arch?: string;
  hostname?: string;
  cpus?: number;
  [key: string]: unknown;
}

/** How the run ended (from the runner's result). */
export interface RunEnd {
  reason: RunEndReason;
  interrupted: boolean;
  /** With reason `failed_fast`: why the run stopped early (`20 × HTTP 401: …`). */
  failed_fast?: string | null;
}

export interface RunReport {
  schema_version: 1;
  kind: 'run';
  /** Unix ms at the run clock's origin: every `*_ms` time in the records counts from here. */
  started_at_unix_ms: number;
  /**
   * The run's full configuration: target URL, model, generation settings, load, seed, workload,
   * tokenization method. Secrets are redacted by the caller before it gets here.
   */
  config: Record<string, unknown>;
  environment: RunEnvironment;
  /** Measurement window in run-clock ms; every throughput uses it. */
  window: { start_ms: number; end_ms: number };
  /** Present when the caller passes how the run ended. */
  end?: RunEnd;
  summary: Summary;
  records_file: typeof RECORDS_FILE;
  /** Only with `--embed-records`. */
  records?: RequestRecord[];
  /** Server-side view scraped during the run (engine /metrics, GPU), when monitored. */
  monitoring?: {
    /** The server's series summarised over the whole run, warm-up included (what the token-count check compares). */
    server: Record<string, number | null> | null;
    /** The same over the measurement window only (rates, hit rate and peaks of what was measured). */
    server_window?: Record<string, number | null> | null;
    scrape: Record<string, unknown> | null;
    exporter_url: string | null;
  };
  /** The run's id in the store, when recorded. */
  run_id?: string;
  /** The server's scraped series (normalized names, run-clock ms), when it was scraped. */
  series?: SeriesPoint[];
  /** The validity verdict: why the run's numbers cannot bear weight (none = valid). */
  validity?: { valid: boolean; reasons: ValidityReason[] };
  /** A sessions run's per-turn and user-perceived numbers (`analysis/sessions`); null for other runs. */
  sessions?: SessionsSummary | null;
  /**
   * Speculative decoding over the measurement window (`analysis/speculative`): acceptance rate,
   * mean accepted length, draft efficiency, each null with a reason when the engine did not say.
   */
  speculative?: SpeculativeSummary;
}

export interface BuildRunReportInput {
  config: Record<string, unknown>;
  environment: RunEnvironment;
  window: { start_ms: number; end_ms: number };
  started_at_unix_ms: number;
  summary: Summary;
  end?: RunEnd;
  records?: readonly RequestRecord[];
  /** Embed `records` in the report (`--embed-records`). */
  embedRecords?: boolean;
}

/**
 * Assemble the `report.json` object. Pure: the caller redacts secrets in `config` (header
 * values of Authorization, `*-Key`, `*-Token`, Cookie; the API key is never in it).
 * @example
 * const report = buildRunReport({ config, environment, window: res.window,
 *   started_at_unix_ms: res.started_at_unix_ms, summary, end: res, embedRecords: false });
 */
export function buildRunReport(input: BuildRunReportInput): RunReport {
  const report: RunReport = {
    schema_version: RUN_REPORT_SCHEMA_VERSION,
    kind: 'run',
    started_at_unix_ms: input.started_at_unix_ms,
    config: input.config,
    environment: input.environment,
    window: { start_ms: input.window.start_ms, end_ms: input.window.end_ms },
    ...(input.end
      ? {
          end: {
            reason: input.end.reason,
            interrupted: input.end.interrupted,
            ...(input.end.failed_fast ? { failed_fast: input.end.failed_fast } : {}),
          },
        }
      : {}),
    summary: input.summary,
    records_file: RECORDS_FILE,
  };
  if (input.embedRecords) report.records = [...(input.records ?? [])];
  return report;
}
