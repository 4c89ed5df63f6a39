/**
 * @module dashboard/store-runs
 * Turns store rows into what the dashboard's API returns and what `report/` takes: a
 * {@link LoadedRun} per run (records, series, summary, level), and small JSON views of runs and
 * experiments for the lists. A run still `running` has no stored summary yet; its summary is
 * computed from the records committed so far, with the same `summarize` the run itself uses.
 */

import type { LoadedRun, ReportRecordField, RunLevel } from '../analysis/loaded-run.js';
import { type Summary, summarize } from '../analysis/summary.js';
import type { MeasurementWindow } from '../analysis/window.js';
import type { RequestRecord } from '../record/types.js';
import { type ExperimentRow, getRunSteps, type JsonObject, type RunRow, type Store } from '../store/index.js';

/** Whether a stored summary has the fixed keys of {@link Summary} (older or foreign rows may not). */
export function isSummary(v: unknown): v is Summary {
  if (!v || typeof v !== 'object') return false;
  const s = v as Record<string, unknown>;
  return (
    typeof s.requests === 'object' &&
    s.requests !== null &&
    typeof s.ttft_ms === 'object' &&
    s.ttft_ms !== null &&
    typeof s.e2e_ms === 'object' &&
    typeof s.outcomes === 'object' &&
    Array.isArray(s.warnings)
  );
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/**
 * The load level of a run, from its config: an explicit `level` object, else `load.mode`
 * (`closed` → `load.concurrency`, `open` → `load.rateRps`), as `servelab run` writes it.
 */
export function runLevel(config: JsonObject | null): RunLevel | undefined {
  const c = obj(config);
  if (!c) return undefined;
  const level = obj(c.level);
  if (level) {
    const out: RunLevel = {};
    const conc = num(level.concurrency);
    const rate = num(level.rate_rps);
    const users = num(level.users);
    if (conc !== undefined) out.concurrency = conc;
    if (rate !== undefined) out.rate_rps = rate;
    if (users !== undefined) out.users = users;
    if (conc !== undefined || rate !== undefined || users !== undefined) return out;
  }
  const load = obj(c.load);
  if (!load) return undefined;
  const conc = num(load.concurrency);
  const rate = num(load.rateRps) ?? num(load.rate_rps);
  if (load.mode === 'closed' && conc !== undefined) return { concurrency: conc };
  if (load.mode === 'open' && rate !== undefined) return { rate_rps: rate };
  return undefined;
}

/** The run's measurement window, when the row carries a well-formed one. */
export function runWindow(row: RunRow): MeasurementWindow | undefined {
  const w = obj(row.window);
  const start = num(w?.start_ms);
  const end = num(w?.end_ms);
  return start !== undefined && end !== undefined && end >= start
    ? { start_ms: start, end_ms: end }
    : undefined;
}

/** A short human label: the row's label, else the config's, else the id. */
export function runLabel(row: RunRow): string {
  const fromConfig = obj(row.config)?.label;
  return row.label ?? (typeof fromConfig === 'string' && fromConfig ? fromConfig : row.id);
}

/**
 * The summary to show for a run: the stored one when it is complete, else one computed from
 * `records` (a run in progress, or a row written without one).
 */
export function runSummary(
  row: RunRow,
  records: readonly RequestRecord[],
): { summary: Summary; source: 'stored' | 'computed' } {
  if (row.status !== 'running' && isSummary(row.summary)) return { summary: row.summary, source: 'stored' };
  const level = runLevel(row.config);
  const summary = summarize(records, {
    window: runWindow(row) ?? null,
    max_concurrency: level?.concurrency ?? null,
    target_rate_rps: level?.rate_rps ?? null,
  });
  return { summary, source: 'computed' };
}

/** Every committed record of a run, in commit order. */
export function readRecords(store: Store, runId: string): RequestRecord[] {
  return [...store.getRecords(runId)];
}

/** Load one run fully (records and series) as the report's functions take it. */
export function loadedRunFromStore(store: Store, row: RunRow): LoadedRun {
  const records = readRecords(store, row.id);
  const series = store.getSeries(row.id);
  const { summary } = runSummary(row, records);
  const run: LoadedRun = {
    id: row.id,
    label: runLabel(row),
    config: row.config ?? {},
    environment: row.environment ?? {},
    summary,
    records,
    series,
  };
  if (row.record) run.record = row.record as Record<string, ReportRecordField>;
  const steps = getRunSteps(store, row.id);
  if (steps.length) run.steps = steps;
  // The experiment kind the run was measured for: the report's headline reads a baseline's cold
  // request apart, and the source notes are chosen per kind.
  const kind = row.experiment_id ? store.getExperiment(row.experiment_id)?.kind : undefined;
  if (kind) run.kind = kind;
  const level = runLevel(row.config);
  if (level) run.level = level;
  const window = runWindow(row);
  if (window) run.window = window;
  return run;
}

/** A run as the lists show it: the row without its bulky JSON columns, plus headline numbers. */
export interface RunListItem {
  id: string;
  experiment_id: string | null;
  kind: string;
  label: string;
  status: string;
  /** The run clock's origin (virtual time on a virtual clock, not a date). */
  started_at_unix_ms: number;
  /** When the run started on the wall clock, also on a virtual clock; null when not kept (an older virtual-clock row). */
  wall_started_at_unix_ms: number | null;
  ended_at_unix_ms: number | null;
  records: number;
  level: RunLevel | null;
  /**
   * The run's validity verdict as stored with it: valid, or not and why. Null when none was
   * stored: the run is still running, or ended (failed, interrupted) before it was judged.
   */
  verdict: RunVerdict | null;
  /** From the stored summary; null while running or when absent. */
  headline: {
    succeeded: number | null;
    failed: number | null;
    ttft_ms_p50: number | null;
    ttft_ms_p99: number | null;
    e2e_ms_p50: number | null;
    output_tok_s: number | null;
  } | null;
}

/** A stored validity verdict: whether the run's numbers can bear weight, and the reasons they cannot. */
export interface RunVerdict {
  valid: boolean;
  reasons: { code: string; message: string }[];
}

/**
 * The verdict stored in a run's record (`record.validity`, as `measure`, the merge and the
 * experiments store it), or null when the row has none or a malformed one.
 */
export function storedVerdict(row: RunRow): RunVerdict | null {
  const v = obj(obj(row.record)?.validity);
  if (!v || typeof v.valid !== 'boolean' || !Array.isArray(v.reasons)) return null;
  const reasons = v.reasons.flatMap((r) => {
    const o = obj(r);
    return o && typeof o.code === 'string'
      ? [{ code: o.code, message: typeof o.message === 'string' ? o.message : '' }]
      : [];
  });
  // A verdict that says valid but carries reasons reads as not valid.
  return { valid: reasons.length === 0 && v.valid, reasons };
}

/** The list view of a run row. */
export function runListItem(row: RunRow): RunListItem {
  const s = isSummary(row.summary) ? row.summary : null;
  return {
    id: row.id,
    experiment_id: row.experiment_id,
    kind: row.kind,
    label: runLabel(row),
    status: row.status,
    started_at_unix_ms: row.started_at_unix_ms,
    wall_started_at_unix_ms: row.wall_started_at_unix_ms,
    ended_at_unix_ms: row.ended_at_unix_ms,
    records: row.records,
    level: runLevel(row.config) ?? null,
    verdict: storedVerdict(row),
    headline: s
      ? {
          succeeded: s.requests.succeeded,
          failed: s.requests.failed,
          ttft_ms_p50: s.ttft_ms.p50,
          ttft_ms_p99: s.ttft_ms.p99,
          e2e_ms_p50: s.e2e_ms.p50,
          output_tok_s: s.output_throughput_tok_s,
        }
      : null,
  };
}

/** An experiment as the lists show it (without its file text and spec). */
export interface ExperimentListItem {
  id: string;
  kind: string;
  name: string;
  status: string;
  created_at_unix_ms: number;
  ended_at_unix_ms: number | null;
  runs: number;
}

/** The list view of an experiment row; `runs` is how many runs the store holds for it. */
export function experimentListItem(row: ExperimentRow, runs: number): ExperimentListItem {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    status: row.status,
    created_at_unix_ms: row.created_at_unix_ms,
    ended_at_unix_ms: row.ended_at_unix_ms,
    runs,
  };
}
