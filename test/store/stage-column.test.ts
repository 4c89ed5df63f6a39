/**
 * A staged run's records keep their load stage (`RequestRecord.stage`) in the store's
 * `requests.stage` column (schema 4): written with each record, and filled from the record JSON
 * when a version-3 file is migrated.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { emptyRecord } from '../../src/record/types.js';
import { VirtualClock } from '../../src/runtime/clock.js';
import { openStore } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { tempDir } from './helpers.js';

const tmp = tempDir();
after(() => tmp.cleanup());

const rec = (n: number, stage?: number) => {
  const r = emptyRecord({ id: `r${n}`, planned_id: `r${n}`, attempt: 1, phase: 'measure', index: n });
  if (stage !== undefined) r.stage = stage;
  return r;
};

describe('requests.stage', () => {
  it('holds each record’s stage, null outside a staged run', () => {
    const path = join(tmp.dir, 'a.db');
    const store = openStore(path, { clock: new VirtualClock(0) });
    const run = store.createRun({ kind: 'plan', startedAtUnixMs: 0 });
    for (const r of [rec(0, 0), rec(1, 1), rec(2)]) store.appendRecord(run.id, r);
    store.close();
    const db = new Database(path, { readonly: true });
    const rows = db.prepare('SELECT idx, stage FROM requests ORDER BY idx').all();
    db.close();
    assert.deepEqual(rows, [
      { idx: 0, stage: 0 },
      { idx: 1, stage: 1 },
      { idx: 2, stage: null },
    ]);
  });

  it('a version-3 file: the migration takes the stage from each record', () => {
    const path = join(tmp.dir, 'v3.db');
    const db = new Database(path);
    db.exec(
      'CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at_unix_ms REAL NOT NULL)',
    );
    for (const m of MIGRATIONS.slice(0, 3)) {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_version VALUES (?, ?, 0)').run(m.version, m.description);
    }
    db.prepare(
      `INSERT INTO runs (id, kind, status, started_at_unix_ms) VALUES ('oldrun01', 'plan', 'completed', 0)`,
    ).run();
    const row = db.prepare(
      `INSERT INTO requests (run_id, seq, id, planned_id, attempt, phase, idx, outcome, n_chunks, record)
       VALUES ('oldrun01', ?, ?, ?, 1, 'measure', ?, 'ok', 0, ?)`,
    );
    for (const [seq, r] of [rec(0, 0), rec(1, 2), rec(2)].entries())
      row.run(seq, r.id, r.planned_id, r.index, JSON.stringify(r));
    db.close();

    openStore(path, { clock: new VirtualClock(0) }).close();
    const after4 = new Database(path, { readonly: true });
    const stages = after4.prepare('SELECT stage FROM requests ORDER BY seq').all();
    after4.close();
    assert.deepEqual(stages, [{ stage: 0 }, { stage: 2 }, { stage: null }]);
  });
});
