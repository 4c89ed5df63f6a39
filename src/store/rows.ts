/**
 * @module store/rows
 * The store's rows as the rest of servelab sees them, and how they map to the columns: the row
 * and new-row shapes (experiments, runs, series points), the query options, JSON columns
 * written through the redaction net and parsed back, and the status a reader is shown (a
 * `running` row whose writer died reads `interrupted`, `store/liveness`).
 */
import { StorageError } from '../core/errors.js';
import { redactForOutput } from '../core/redact.js';
import type { RequestRecord } from '../record/types.js';
import { effectiveStatus, type LifecycleStatus } from './liveness.js';

export type RunKind = 'run' | 'plan' | 'exp';
export type RunStatus = LifecycleStatus;
export type ExperimentStatus = LifecycleStatus;
/** A JSON object column, parsed (null when never set). */
export type JsonObject = Record<string, unknown>;

export interface ExperimentRow {
  id: string;
  kind: string;
  name: string;
  file_path: string | null;
  /** The experiment file exactly as read (YAML). */
  file_text: string | null;
  /** The validated experiment, as JSON. */
  spec: JsonObject | null;
  /** The experiment record (see `exp/experiment-record`). */
  record: JsonObject | null;
  summary: JsonObject | null;
  /** Shown status: a `running` row whose writer died is `interrupted`. */
  status: ExperimentStatus;
  /** Status as written in the file. */
  stored_status: ExperimentStatus;
  pid: number | null;
  host: string | null;
  created_at_unix_ms: number;
  ended_at_unix_ms: number | null;
}

export interface RunRow {
  id: string;
  experiment_id: string | null;
  kind: RunKind;
  label: string | null;
  /** Shown status: a `running` row whose writer died is `interrupted`. */
  status: RunStatus;
  /** Status as written in the file. */
  stored_status: RunStatus;
  pid: number | null;
  host: string | null;
  /**
   * Unix ms at the run clock's origin: the run's times are relative to it. On a virtual clock
   * it is virtual time (near 1970), not a date.
   */
  started_at_unix_ms: number;
  /**
   * Unix ms on the wall clock when the run started, also for a run on a virtual clock: the date
   * the lists show and sort by. Null for a virtual-clock row stored before it was kept.
   */
  wall_started_at_unix_ms: number | null;
  ended_at_unix_ms: number | null;
  config: JsonObject | null;
  environment: JsonObject | null;
  /** The experiment record fields for this run. */
  record: JsonObject | null;
  summary: JsonObject | null;
  /** The measurement window, e.g. `{start_ms, end_ms}` on the run clock. */
  window: JsonObject | null;
  /** Request records committed so far. */
  records: number;
}

export interface NewExperiment {
  kind: string;
  name: string;
  filePath?: string | null;
  fileText?: string | null;
  spec?: JsonObject | null;
  record?: JsonObject | null;
}

export interface NewRun {
  kind: RunKind;
  experimentId?: string | null;
  label?: string | null;
  /** Unix ms at the run clock's origin. Default: now. */
  startedAtUnixMs?: number;
  /**
   * Unix ms on the wall clock when the run started. Default: `startedAtUnixMs` when the run's
   * clock is the wall clock, else now (a run on a virtual clock: see {@link virtualClock}).
   */
  wallStartedAtUnixMs?: number;
  /** The run's clock is virtual: its `startedAtUnixMs` is virtual time, not a date. */
  virtualClock?: boolean;
  config?: JsonObject | null;
  environment?: JsonObject | null;
  record?: JsonObject | null;
  window?: JsonObject | null;
}

/** One scraped sample. `t_ms` is on the run's clock (0 = run origin), so it lines up with records. */
export interface SeriesSample {
  /** Where it came from, e.g. the scrape URL or `vllm`, `dcgm`. */
  source: string;
  /** Metric name, e.g. `vllm:num_requests_running`. */
  name: string;
  labels?: Record<string, string>;
  t_ms: number;
  value: number;
}

export interface ListRunsOptions {
  experimentId?: string;
  kind?: RunKind;
  /** Newest first when 'desc'. Default 'asc' (chronological). */
  order?: 'asc' | 'desc';
  limit?: number;
}

export interface GetRecordsOptions {
  /** Skip the first `offset` records (by seq); a live follower passes the count it already has. */
  offset?: number;
  phase?: 'warmup' | 'measure';
  /** Rows read per query; no statement stays open between pages, so writes may interleave. */
  pageSize?: number;
}

/** JSON for a column, passed through the redaction net (a header map in `config` must not leak a key). */
export function toJson(v: unknown): string | null {
  return v === undefined || v === null ? null : JSON.stringify(redactForOutput(v));
}

function fromJson(s: unknown): JsonObject | null {
  if (typeof s !== 'string') return null;
  try {
    return JSON.parse(s) as JsonObject;
  } catch (e) {
    // A column that is not JSON: the file is damaged, not servelab.
    throw new StorageError('corrupt', '', `a stored JSON column: ${(e as Error).message}`);
  }
}

/** An `experiments` row as the store shows it: JSON columns parsed, a dead writer's `running` shown as `interrupted`. */
export function experimentFromRow(
  r: Record<string, unknown>,
  ownHost: string,
  isAlive: (pid: number) => boolean,
): ExperimentRow {
  const stored = r.status as ExperimentStatus;
  const pid = (r.pid as number | null) ?? null;
  const host = (r.host as string | null) ?? null;
  return {
    id: r.id as string,
    kind: r.kind as string,
    name: r.name as string,
    file_path: (r.file_path as string | null) ?? null,
    file_text: (r.file_text as string | null) ?? null,
    spec: fromJson(r.spec),
    record: fromJson(r.record),
    summary: fromJson(r.summary),
    status: effectiveStatus(stored, pid, host, ownHost, isAlive),
    stored_status: stored,
    pid,
    host,
    created_at_unix_ms: r.created_at_unix_ms as number,
    ended_at_unix_ms: (r.ended_at_unix_ms as number | null) ?? null,
  };
}

/** A `runs` row (with its `n_records` count) as the store shows it; see {@link experimentFromRow}. */
export function runFromRow(
  r: Record<string, unknown>,
  ownHost: string,
  isAlive: (pid: number) => boolean,
): RunRow {
  const stored = r.status as RunStatus;
  const pid = (r.pid as number | null) ?? null;
  const host = (r.host as string | null) ?? null;
  return {
    id: r.id as string,
    experiment_id: (r.experiment_id as string | null) ?? null,
    kind: r.kind as RunKind,
    label: (r.label as string | null) ?? null,
    status: effectiveStatus(stored, pid, host, ownHost, isAlive),
    stored_status: stored,
    pid,
    host,
    started_at_unix_ms: r.started_at_unix_ms as number,
    wall_started_at_unix_ms: (r.wall_started_at_unix_ms as number | null) ?? null,
    ended_at_unix_ms: (r.ended_at_unix_ms as number | null) ?? null,
    config: fromJson(r.config),
    environment: fromJson(r.environment),
    record: fromJson(r.record),
    summary: fromJson(r.summary),
    window: fromJson(r.window),
    records: Number(r.n_records ?? 0),
  };
}

/** A stored record row parsed; a row that is not JSON means a damaged file (StorageError). */
export function parseRecordRow(
  storePath: string,
  runId: string,
  row: { seq: number; record: string },
): RequestRecord {
  try {
    return JSON.parse(row.record) as RequestRecord;
  } catch (e) {
    throw new StorageError('corrupt', storePath, `run ${runId}, record ${row.seq}: ${(e as Error).message}`);
  }
}
