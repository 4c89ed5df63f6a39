/**
 * A run's wall-clock start (`wall_started_at_unix_ms`, schema 2) beside its run clock's origin:
 * the default for a wall-clock and a virtual-clock run, and the migration of a version-1 file,
 * whose virtual-clock rows cannot know when they ran and sort by when they ended.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { VirtualClock } from '../../src/runtime/clock.js';
import { openStore } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { tempDir } from './helpers.js';

const tmp = tempDir();
after(() => tmp.cleanup());

/** A store whose clock reads this Unix ms. */
const WALL = 1_764_600_000_000;

describe('a run keeps its wall-clock start', () => {
  it('is the run clock origin on the wall clock, and the store’s now on a virtual clock', () => {
    const store = openStore(join(tmp.dir, 'a.db'), { clock: new VirtualClock(WALL) });
    try {
      const wall = store.createRun({ kind: 'run', startedAtUnixMs: WALL - 5000 });
      assert.equal(wall.wall_started_at_unix_ms, WALL - 5000);
      // plan: the origin is virtual time (ms since 1970); the date is when the store saw it start.
      const virtual = store.createRun({ kind: 'plan', startedAtUnixMs: 1234, virtualClock: true });
      assert.equal(virtual.started_at_unix_ms, 1234, 'the run clock stays virtual');
      assert.equal(virtual.wall_started_at_unix_ms, WALL);
      assert.deepEqual(
        store.listRuns({ order: 'desc' }).map((r) => r.id),
        [virtual.id, wall.id],
        'newest first by wall-clock start, not by the virtual origin',
      );
    } finally {
      store.close();
    }
  });

  it('a version-1 file: wall-clock rows keep their start, virtual rows have none and sort by their end', () => {
    const path = join(tmp.dir, 'v1.db');
    const db = new Database(path);
    db.exec(
      'CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at_unix_ms REAL NOT NULL)',
    );
    db.exec(MIGRATIONS[0].sql);
    db.prepare('INSERT INTO schema_version VALUES (1, ?, 0)').run(MIGRATIONS[0].description);
    const row = db.prepare(
      `INSERT INTO runs (id, kind, status, started_at_unix_ms, ended_at_unix_ms, environment) VALUES (?, ?, 'completed', ?, ?, ?)`,
    );
    row.run('wallrun1', 'run', WALL - 60_000, WALL - 50_000, JSON.stringify({ node: '20' }));
    row.run('virtrun1', 'plan', 0, WALL - 10_000, JSON.stringify({ clock: 'virtual' }));
    row.run('oldrun01', 'run', WALL - 120_000, WALL - 110_000, null);
    db.close();

    const store = openStore(path, { clock: new VirtualClock(WALL) });
    try {
      const byId = new Map(store.listRuns().map((r) => [r.id, r]));
      assert.equal(byId.get('wallrun1')?.wall_started_at_unix_ms, WALL - 60_000);
      assert.equal(byId.get('oldrun01')?.wall_started_at_unix_ms, WALL - 120_000);
      assert.equal(byId.get('virtrun1')?.wall_started_at_unix_ms, null, 'not known: no data, not 1970');
      assert.deepEqual(
        store.listRuns({ order: 'desc' }).map((r) => r.id),
        ['virtrun1', 'wallrun1', 'oldrun01'],
      );
    } finally {
      store.close();
    }
  });
});
