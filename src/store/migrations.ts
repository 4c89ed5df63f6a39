/**
 * @module store/migrations
 * The store's SQL schema as an ordered list of migrations. `schema_version` holds one row per
 * applied migration; opening a store applies the missing ones in a single immediate
 * transaction, so two processes opening a fresh file at once cannot both migrate it.
 *
 * Times: `*_unix_ms` columns are Unix wall-clock milliseconds; request `*_at_ms` columns and
 * series `t_ms` are milliseconds on the run's monotonic clock (0 = the run's origin), exactly as
 * in {@link RequestRecord}. JSON columns hold text that SQLite's JSON functions can read.
 */
import type Database from 'better-sqlite3';
import { UsageError } from '../core/errors.js';

export interface Migration {
  version: number;
  description: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'experiments, runs, requests, metric_series',
    sql: `
CREATE TABLE experiments (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  file_path TEXT,
  file_text TEXT,
  spec TEXT,
  record TEXT,
  summary TEXT,
  status TEXT NOT NULL CHECK (status IN ('running','completed','interrupted','failed')),
  pid INTEGER,
  host TEXT,
  created_at_unix_ms REAL NOT NULL,
  ended_at_unix_ms REAL
);
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  experiment_id TEXT REFERENCES experiments(id) ON DELETE SET NULL,
  kind TEXT NOT NULL CHECK (kind IN ('run','plan','exp')),
  label TEXT,
  status TEXT NOT NULL CHECK (status IN ('running','completed','interrupted','failed')),
  pid INTEGER,
  host TEXT,
  started_at_unix_ms REAL NOT NULL,
  ended_at_unix_ms REAL,
  config TEXT,
  environment TEXT,
  record TEXT,
  summary TEXT,
  window TEXT
);
CREATE INDEX runs_experiment ON runs(experiment_id, started_at_unix_ms);
CREATE INDEX runs_started ON runs(started_at_unix_ms);
CREATE TABLE requests (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  planned_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  phase TEXT NOT NULL,
  idx INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  finish_reason TEXT,
  http_status INTEGER,
  planned_at_ms REAL,
  sent_at_ms REAL,
  headers_at_ms REAL,
  first_token_at_ms REAL,
  first_content_at_ms REAL,
  last_token_at_ms REAL,
  end_at_ms REAL,
  n_chunks INTEGER NOT NULL,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  reasoning_tokens INTEGER,
  cached_tokens INTEGER,
  input_len INTEGER,
  output_len INTEGER,
  error TEXT,
  record TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE metric_series (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  source TEXT NOT NULL,
  name TEXT NOT NULL,
  labels TEXT NOT NULL,
  t_ms REAL NOT NULL,
  value REAL NOT NULL
);
CREATE INDEX metric_series_run ON metric_series(run_id, source, name, t_ms);
`,
  },
  {
    version: 2,
    description: 'runs.wall_started_at_unix_ms: the wall-clock start, also of a run on a virtual clock',
    // `started_at_unix_ms` is the run clock's origin, which on a virtual clock is virtual time
    // (1970); a row written before this column existed reads its start from there.
    sql: `
ALTER TABLE runs ADD COLUMN wall_started_at_unix_ms REAL;
UPDATE runs SET wall_started_at_unix_ms = started_at_unix_ms
  WHERE environment IS NULL OR json_extract(environment, '$.clock') IS NOT 'virtual';
CREATE INDEX runs_wall_started ON runs(wall_started_at_unix_ms);
`,
  },
  {
    version: 3,
    description: 'engine_steps: the simulator step timeline of a run (--record-steps)',
    // One row per engine step (record/engine-step `RunStepRecord`): `t_ms` on the run's clock,
    // the rest of the step as JSON.
    sql: `
CREATE TABLE engine_steps (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL,
  t_ms REAL NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (run_id, step)
) WITHOUT ROWID;
`,
  },
  {
    version: 4,
    description: 'requests.stage: the load stage of a staged run (--stages, load.stages)',
    // `RequestRecord.stage`, as a column so that a query can group a staged run by stage; rows
    // written before it take theirs from the record, where it has one (null otherwise).
    sql: `
ALTER TABLE requests ADD COLUMN stage INTEGER;
UPDATE requests SET stage = json_extract(record, '$.stage')
  WHERE json_extract(record, '$.stage') IS NOT NULL;
`,
  },
];

/** The newest schema version this build knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** Current schema version of an open database (0 for a fresh file). */
export function currentVersion(db: Database.Database): number {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'").get();
  if (!has) return 0;
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Bring the database up to {@link SCHEMA_VERSION}. Refuses a file written by a newer servelab
 * rather than guessing at columns it does not know.
 */
export function migrate(db: Database.Database, path: string, nowUnixMs: number): void {
  const run = db.transaction(() => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at_unix_ms REAL NOT NULL)',
    );
    const from = currentVersion(db);
    if (from > SCHEMA_VERSION)
      throw new UsageError([
        {
          path,
          message: `store schema version ${from} is newer than this servelab understands (${SCHEMA_VERSION})`,
          hint: 'upgrade servelab, or point --db at another file',
        },
      ]);
    const add = db.prepare(
      'INSERT INTO schema_version (version, description, applied_at_unix_ms) VALUES (?, ?, ?)',
    );
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      db.exec(m.sql);
      add.run(m.version, m.description, nowUnixMs);
    }
  });
  run.immediate();
}
