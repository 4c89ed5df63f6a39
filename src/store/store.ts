/**
 * @module store/store
 * The embedded results store: one SQLite file (`./servelab.db` by default) holding experiments,
 * runs, per-request records and scraped server metric series. `servelab run`, `plan` and
 * `exp run` write it; `report`, `diagnose` and the dashboard read it.
 *
 * Why SQLite in WAL mode: a dashboard process can read while a run writes (DuckDB lets a single
 * process hold a file read-write and no other process open it meanwhile: DuckDB documentation,
 * "Concurrency"), and a writer killed with SIGKILL leaves every
 * committed transaction readable. Per-request records are buffered and committed in batches
 * (every {@link StoreOptions.flushEvery} records or {@link StoreOptions.flushIntervalMs} ms,
 * whichever comes first), so the hot path only pushes to an array, yet a finished request
 * reaches the file within a fraction of a second for a live reader.
 *
 * This module is the handle's operations (experiments, runs, the record buffer, series, the
 * run observer); the rows' shapes and column mapping are `store/rows`, opening a file (the
 * connection's pragmas, migrating or refusing it) is `store/open`.
 */
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { storageFailureOf, UsageError } from '../core/errors.js';
import { redactConfigText, redactText } from '../core/redact.js';
import type { RequestRecord } from '../record/types.js';
import type { RunObserver } from '../runner/events.js';
import { type Clock, RealClock } from '../runtime/clock.js';
import { cryptoRandomBytes, isIdPrefix, newShortId, type RandomBytes } from './ids.js';
import { isProcessAlive } from './liveness.js';
import { openDatabase, openFailure } from './open.js';
import {
  type ExperimentRow,
  type ExperimentStatus,
  experimentFromRow,
  type GetRecordsOptions,
  type JsonObject,
  type ListRunsOptions,
  type NewExperiment,
  type NewRun,
  parseRecordRow,
  type RunRow,
  type RunStatus,
  runFromRow,
  type SeriesSample,
  toJson,
} from './rows.js';

export interface StoreOptions {
  /** Open without write access (a dashboard). The file must exist and be migrated. */
  readonly?: boolean;
  /** How long a writer waits for another writer's lock, ms (SQLite busy_timeout). Default 5000. */
  busyTimeoutMs?: number;
  /** Commit buffered request records once this many are waiting. Default 200. */
  flushEvery?: number;
  /** Commit buffered request records at most this long after the first one arrived, ms. Default 250. */
  flushIntervalMs?: number;
  /** Timers for the flush interval and the wall-clock anchor for `*_unix_ms`. Default RealClock. */
  clock?: Clock;
  /** Source of id bytes. Default `crypto.randomBytes`. */
  randomBytes?: RandomBytes;
  /** This process's id, written into rows it starts. Default `process.pid`. */
  pid?: number;
  /** This host's name, written into rows it starts. Default `os.hostname()`. */
  host?: string;
  /** Liveness check for stale `running` rows. Default {@link isProcessAlive}. */
  isAlive?: (pid: number) => boolean;
}

interface RequestRow {
  run_id: string;
  seq: number;
  record: string;
}

/**
 * Open (creating and migrating when needed) the store at `path`.
 * @example
 * const store = openStore('./servelab.db');
 * const run = store.createRun({ kind: 'run', label: 'smoke' });
 * store.appendRecord(run.id, rec); // per finished request
 * store.finishRun(run.id, summary, 'completed');
 * store.close();
 */
export function openStore(path = './servelab.db', opts: StoreOptions = {}): Store {
  try {
    return new Store(path, opts);
  } catch (err) {
    throw openFailure(err, path);
  }
}

/** A handle on one store file. Not safe to share across worker threads; open one per thread. */
export class Store {
  readonly path: string;
  readonly db: Database.Database;
  private readonly clock: Clock;
  private readonly randomBytes: RandomBytes;
  private readonly pid: number;
  private readonly host: string;
  private readonly isAlive: (pid: number) => boolean;
  private readonly flushEvery: number;
  private readonly flushIntervalMs: number;
  private pending: { runId: string; rec: RequestRecord }[] = [];
  private cancelTimer: (() => void) | null = null;
  private readonly nextSeq = new Map<string, number>();
  private closed = false;
  /** The last commit error swallowed on the hot path (observer hooks, timer flushes), if any. */
  lastWriteError: Error | null = null;
  private readonly insertRequest: Database.Statement;

  constructor(path: string, opts: StoreOptions = {}) {
    this.path = path;
    this.clock = opts.clock ?? new RealClock();
    this.randomBytes = opts.randomBytes ?? cryptoRandomBytes;
    this.pid = opts.pid ?? process.pid;
    this.host = opts.host ?? hostname();
    this.isAlive = opts.isAlive ?? isProcessAlive;
    this.flushEvery = Math.max(1, opts.flushEvery ?? 200);
    this.flushIntervalMs = Math.max(0, opts.flushIntervalMs ?? 250);
    this.db = openDatabase(path, opts, () => this.nowUnixMs());
    this.insertRequest = opts.readonly
      ? this.db.prepare('SELECT 1')
      : this.db.prepare(
          `INSERT INTO requests (run_id, seq, id, planned_id, attempt, phase, idx, outcome, finish_reason, http_status,
             planned_at_ms, sent_at_ms, headers_at_ms, first_token_at_ms, first_content_at_ms, last_token_at_ms, end_at_ms,
             n_chunks, prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens, input_len, output_len, error, record, stage)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
  }

  /** Unix wall-clock ms now (from the injected clock). */
  private nowUnixMs(): number {
    return this.clock.originUnixMs + this.clock.now();
  }

  private newId(): string {
    const taken = this.db.prepare(
      'SELECT 1 FROM runs WHERE id = ? UNION ALL SELECT 1 FROM experiments WHERE id = ?',
    );
    for (;;) {
      const id = newShortId(this.randomBytes);
      if (!taken.get(id, id)) return id;
    }
  }

  // ---- experiments --------------------------------------------------------------------------

  /** Record a new experiment (status `running`, owned by this process). */
  createExperiment(e: NewExperiment): ExperimentRow {
    const id = this.newId();
    this.db
      .prepare(
        `INSERT INTO experiments (id, kind, name, file_path, file_text, spec, record, status, pid, host, created_at_unix_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?)`,
      )
      .run(
        id,
        e.kind,
        e.name,
        e.filePath ?? null,
        e.fileText == null ? null : redactConfigText(e.fileText),
        toJson(e.spec),
        toJson(e.record),
        this.pid,
        this.host,
        this.nowUnixMs(),
      );
    return this.mustGetExperiment(id);
  }

  /** Replace an experiment's record and/or summary. */
  updateExperiment(id: string, patch: { record?: JsonObject | null; summary?: JsonObject | null }): void {
    const cur = this.mustGetExperiment(id);
    this.db
      .prepare('UPDATE experiments SET record = ?, summary = ? WHERE id = ?')
      .run(
        toJson(patch.record !== undefined ? patch.record : cur.record),
        toJson(patch.summary !== undefined ? patch.summary : cur.summary),
        cur.id,
      );
  }

  /** Mark an experiment ended. */
  finishExperiment(
    id: string,
    status: Exclude<ExperimentStatus, 'running'>,
    summary?: JsonObject | null,
  ): void {
    const cur = this.mustGetExperiment(id);
    this.db
      .prepare('UPDATE experiments SET status = ?, summary = ?, ended_at_unix_ms = ? WHERE id = ?')
      .run(status, toJson(summary !== undefined ? summary : cur.summary), this.nowUnixMs(), cur.id);
  }

  /** Every experiment, oldest first. */
  listExperiments(): ExperimentRow[] {
    return (
      this.db.prepare('SELECT * FROM experiments ORDER BY created_at_unix_ms, id').all() as Record<
        string,
        unknown
      >[]
    ).map((r) => experimentFromRow(r, this.host, this.isAlive));
  }

  /**
   * The experiment whose id is `idOrPrefix` or starts with it; undefined when none does.
   * @throws UsageError when the prefix matches several experiments.
   */
  getExperiment(idOrPrefix: string): ExperimentRow | undefined {
    const id = this.resolveId('experiments', idOrPrefix);
    if (!id) return undefined;
    return experimentFromRow(
      this.db.prepare('SELECT * FROM experiments WHERE id = ?').get(id) as Record<string, unknown>,
      this.host,
      this.isAlive,
    );
  }

  private mustGetExperiment(idOrPrefix: string): ExperimentRow {
    const e = this.getExperiment(idOrPrefix);
    if (!e)
      throw new UsageError([
        {
          message: `no experiment ${idOrPrefix} in ${this.path}`,
          hint: 'servelab exp list shows the stored ones',
        },
      ]);
    return e;
  }

  // ---- runs ---------------------------------------------------------------------------------

  /** Record a new run (status `running`, owned by this process) and return it with its id. */
  createRun(r: NewRun): RunRow {
    const id = this.newId();
    if (r.experimentId) this.mustGetExperiment(r.experimentId);
    this.db
      .prepare(
        `INSERT INTO runs (id, experiment_id, kind, label, status, pid, host, started_at_unix_ms, wall_started_at_unix_ms, config, environment, record, window)
         VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        r.experimentId ?? null,
        r.kind,
        r.label ?? null,
        this.pid,
        this.host,
        r.startedAtUnixMs ?? this.nowUnixMs(),
        // On a virtual clock the origin is virtual time: the wall start is now, on this store's clock.
        r.wallStartedAtUnixMs ?? (r.virtualClock ? undefined : r.startedAtUnixMs) ?? this.nowUnixMs(),
        toJson(r.config),
        toJson(r.environment),
        toJson(r.record),
        toJson(r.window),
      );
    this.nextSeq.set(id, 0);
    return this.mustGetRun(id);
  }

  /** Replace some of a run's JSON columns (null clears, undefined keeps). */
  updateRun(
    id: string,
    patch: Partial<Pick<RunRow, 'config' | 'environment' | 'record' | 'summary' | 'window' | 'label'>> & {
      startedAtUnixMs?: number;
    },
  ): void {
    const cur = this.mustGetRun(id);
    const pick = <K extends keyof typeof patch>(k: K, v: unknown) => (patch[k] !== undefined ? patch[k] : v);
    this.db
      .prepare(
        'UPDATE runs SET config = ?, environment = ?, record = ?, summary = ?, window = ?, label = ?, started_at_unix_ms = ? WHERE id = ?',
      )
      .run(
        toJson(pick('config', cur.config)),
        toJson(pick('environment', cur.environment)),
        toJson(pick('record', cur.record)),
        toJson(pick('summary', cur.summary)),
        toJson(pick('window', cur.window)),
        (pick('label', cur.label) as string | null) ?? null,
        (pick('startedAtUnixMs', cur.started_at_unix_ms) as number) ?? cur.started_at_unix_ms,
        cur.id,
      );
  }

  /**
   * End a run: commit its buffered records, then set its summary, status and end time in one
   * transaction.
   */
  finishRun(
    id: string,
    summary: JsonObject | null,
    status: Exclude<RunStatus, 'running'>,
    window?: JsonObject | null,
  ): void {
    let flushError: unknown = null;
    try {
      this.flush();
    } catch (e) {
      // The run's status is still worth recording (a small write may fit where the records did not).
      flushError = e;
    }
    if (flushError) {
      try {
        this.db
          .prepare('UPDATE runs SET status = ?, ended_at_unix_ms = ? WHERE id = ?')
          .run(status, this.nowUnixMs(), id);
      } catch {}
      throw flushError;
    }
    const cur = this.mustGetRun(id);
    this.db
      .prepare('UPDATE runs SET summary = ?, status = ?, ended_at_unix_ms = ?, window = ? WHERE id = ?')
      .run(
        toJson(summary),
        status,
        this.nowUnixMs(),
        toJson(window !== undefined ? window : cur.window),
        cur.id,
      );
    this.nextSeq.delete(cur.id);
  }

  /**
   * Runs in the order they started on the wall clock (a virtual-clock row stored before that was
   * kept: when it ended), newest first with `order: 'desc'`; filtered by experiment or kind.
   */
  listRuns(opts: ListRunsOptions = {}): RunRow[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (opts.experimentId !== undefined) {
      const e = this.mustGetExperiment(opts.experimentId);
      where.push('experiment_id = ?');
      args.push(e.id);
    }
    if (opts.kind !== undefined) {
      where.push('kind = ?');
      args.push(opts.kind);
    }
    const dir = opts.order === 'desc' ? 'DESC' : 'ASC';
    const sql = `SELECT runs.*, (SELECT COUNT(*) FROM requests WHERE requests.run_id = runs.id) AS n_records FROM runs
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY COALESCE(wall_started_at_unix_ms, ended_at_unix_ms, started_at_unix_ms) ${dir}, rowid ${dir}
      ${opts.limit !== undefined ? `LIMIT ${Math.max(0, Math.floor(opts.limit))}` : ''}`;
    return (this.db.prepare(sql).all(...args) as Record<string, unknown>[]).map((r) =>
      runFromRow(r, this.host, this.isAlive),
    );
  }

  /**
   * The run whose id is `idOrPrefix` or starts with it; undefined when none does.
   * @throws UsageError when the prefix matches several runs.
   */
  getRun(idOrPrefix: string): RunRow | undefined {
    const id = this.resolveId('runs', idOrPrefix);
    if (!id) return undefined;
    const r = this.db
      .prepare(
        'SELECT runs.*, (SELECT COUNT(*) FROM requests WHERE requests.run_id = runs.id) AS n_records FROM runs WHERE id = ?',
      )
      .get(id) as Record<string, unknown>;
    return runFromRow(r, this.host, this.isAlive);
  }

  private mustGetRun(idOrPrefix: string): RunRow {
    const r = this.getRun(idOrPrefix);
    if (!r)
      throw new UsageError([
        { message: `no run ${idOrPrefix} in ${this.path}`, hint: 'servelab runs list shows the stored ones' },
      ]);
    return r;
  }

  /** Full id for an id or unique prefix; undefined when nothing matches. */
  private resolveId(table: 'runs' | 'experiments', idOrPrefix: string): string | undefined {
    const p = idOrPrefix.trim().toLowerCase();
    if (!isIdPrefix(p)) return undefined;
    const rows = this.db
      .prepare(`SELECT id FROM ${table} WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 6`)
      .all(p.length, p) as { id: string }[];
    if (rows.length > 1) {
      const what = table === 'runs' ? 'run' : 'experiment';
      throw new UsageError([
        {
          message: `${what} id prefix ${p} is ambiguous: ${rows.map((r) => r.id).join(', ')}${rows.length > 5 ? ', …' : ''}`,
          hint: 'type more characters of the id',
        },
      ]);
    }
    return rows[0]?.id;
  }

  // ---- request records ----------------------------------------------------------------------

  /**
   * Queue one finished request record of `runId` for the next batch commit. Cheap (an array
   * push); the commit happens when {@link StoreOptions.flushEvery} records are waiting or
   * {@link StoreOptions.flushIntervalMs} after the first one, or on {@link flush}/{@link finishRun}.
   */
  appendRecord(runId: string, rec: RequestRecord): void {
    if (this.closed) throw new Error('store is closed');
    this.pending.push({ runId, rec });
    if (this.pending.length >= this.flushEvery) this.flush();
    else if (!this.cancelTimer)
      this.cancelTimer = this.clock.setTimer(() => this.flushFromTimer(), this.flushIntervalMs);
  }

  private flushFromTimer(): void {
    this.cancelTimer = null;
    // A timer callback has no caller to report to; a failed commit (disk full) must not crash the
    // run. The records stay queued and the next flush retries them.
    try {
      this.flush();
    } catch (e) {
      this.lastWriteError = e as Error;
      if (!this.cancelTimer && !this.closed)
        this.cancelTimer = this.clock.setTimer(() => this.flushFromTimer(), this.flushIntervalMs);
    }
  }

  /** Commit every queued record now, in one transaction. Returns how many were written. */
  flush(): number {
    if (this.cancelTimer) {
      this.cancelTimer();
      this.cancelTimer = null;
    }
    if (this.pending.length === 0) return 0;
    const batch = this.pending;
    const tx = this.db.transaction(() => {
      for (const { runId, rec } of batch) this.insertOne(runId, rec);
    });
    tx.immediate();
    this.pending = [];
    return batch.length;
  }

  /** Records queued but not yet committed. */
  get pendingCount(): number {
    return this.pending.length;
  }

  private seqFor(runId: string): number {
    let s = this.nextSeq.get(runId);
    if (s === undefined) {
      // A run reopened by another Store handle continues after its last committed record.
      const row = this.db.prepare('SELECT MAX(seq) AS m FROM requests WHERE run_id = ?').get(runId) as {
        m: number | null;
      };
      s = (row.m ?? -1) + 1;
    }
    this.nextSeq.set(runId, s + 1);
    return s;
  }

  private insertOne(runId: string, r: RequestRecord): void {
    const u = r.usage;
    this.insertRequest.run(
      runId,
      this.seqFor(runId),
      r.id,
      r.planned_id,
      r.attempt,
      r.phase,
      r.index,
      r.outcome,
      r.finish_reason,
      r.http_status,
      r.planned_at_ms,
      r.sent_at_ms,
      r.headers_at_ms,
      r.first_token_at_ms,
      r.first_content_at_ms,
      r.last_token_at_ms,
      r.end_at_ms,
      r.chunk_times_ms.length,
      u?.prompt_tokens ?? null,
      u?.completion_tokens ?? null,
      u?.reasoning_tokens ?? null,
      u?.cached_tokens ?? null,
      r.input_len,
      r.output_len,
      r.error === null ? null : redactText(r.error),
      redactText(JSON.stringify(r)),
      r.stage ?? null,
    );
  }

  /**
   * A run's committed records in seq order (the order they finished), read in pages so that no
   * statement stays open between yields: the caller may await, and this handle may write,
   * while iterating.
   */
  *getRecords(runId: string, opts: GetRecordsOptions = {}): Generator<RequestRecord> {
    for (const row of this.getRecordRows(runId, opts)) yield parseRecordRow(this.path, runId, row);
  }

  /** Like {@link getRecords} but with the row's seq (0-based commit order within the run). */
  *getRecordRows(runId: string, opts: GetRecordsOptions = {}): Generator<{ seq: number; record: string }> {
    const run = this.mustGetRun(runId);
    const page = Math.max(1, opts.pageSize ?? 1000);
    const stmt = this.db.prepare(
      `SELECT run_id, seq, record FROM requests WHERE run_id = ? AND seq >= ? ${opts.phase ? 'AND phase = ?' : ''} ORDER BY seq LIMIT ?`,
    );
    let from = Math.max(0, Math.floor(opts.offset ?? 0));
    for (;;) {
      const rows = (
        opts.phase ? stmt.all(run.id, from, opts.phase, page) : stmt.all(run.id, from, page)
      ) as RequestRow[];
      for (const r of rows) yield { seq: r.seq, record: r.record };
      if (rows.length < page) return;
      from = rows[rows.length - 1].seq + 1;
    }
  }

  // ---- metric series ------------------------------------------------------------------------

  /** Append scraped samples for a run in one transaction. */
  addSeries(runId: string, points: readonly SeriesSample[]): void {
    const run = this.mustGetRun(runId);
    const ins = this.db.prepare(
      'INSERT INTO metric_series (run_id, source, name, labels, t_ms, value) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.db
      .transaction(() => {
        for (const p of points)
          ins.run(run.id, p.source, p.name, JSON.stringify(sortLabels(p.labels ?? {})), p.t_ms, p.value);
      })
      .immediate();
  }

  /** A run's samples ordered by (source, name, labels, t_ms); filter by name when given. */
  getSeries(runId: string, opts: { name?: string; source?: string } = {}): SeriesSample[] {
    const run = this.mustGetRun(runId);
    const rows = this.db
      .prepare(
        `SELECT source, name, labels, t_ms, value FROM metric_series WHERE run_id = ?
         AND (? IS NULL OR name = ?) AND (? IS NULL OR source = ?) ORDER BY source, name, labels, t_ms, rowid`,
      )
      .all(run.id, opts.name ?? null, opts.name ?? null, opts.source ?? null, opts.source ?? null) as {
      source: string;
      name: string;
      labels: string;
      t_ms: number;
      value: number;
    }[];
    return rows.map((r) => ({ ...r, labels: JSON.parse(r.labels) as Record<string, string> }));
  }

  // ---- observer -----------------------------------------------------------------------------

  /**
   * A {@link RunObserver} that streams a run's finished records into this store. `onRunEnd`
   * commits what is queued; the caller still calls {@link finishRun} with the summary.
   */
  observer(runId: string): RunObserver {
    const run = this.mustGetRun(runId);
    return {
      onRunStart: (info) => {
        this.updateRun(run.id, { startedAtUnixMs: info.started_at_unix_ms });
      },
      // Observers must not throw into the runner: a failed commit (disk full, store closed) is
      // kept in `lastWriteError`, the records stay queued, and finishRun retries and reports.
      onRecord: (rec) => {
        try {
          this.appendRecord(run.id, rec);
        } catch (e) {
          this.lastWriteError = e as Error;
        }
      },
      onRunEnd: () => {
        try {
          this.flush();
        } catch (e) {
          this.lastWriteError = e as Error;
        }
      },
    };
  }

  /** Commit what is queued and close the file. Idempotent. */
  close(): void {
    if (this.closed) return;
    try {
      if (!this.db.readonly) this.flush();
    } catch (e) {
      // A full disk or a lost lock: the file is closed all the same. What could not be committed
      // was already reported by finishRun (the caller's StorageError); it stays in lastWriteError.
      if (!storageFailureOf(e)) throw e;
      this.lastWriteError = e as Error;
    } finally {
      if (this.cancelTimer) this.cancelTimer();
      this.closed = true;
      this.db.close();
    }
  }
}

function sortLabels(l: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(l).sort()) out[k] = l[k];
  return out;
}
