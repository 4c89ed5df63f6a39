/**
 * Store behaviour: round trip of experiments, runs, records and series; id prefixes; batching
 * on a virtual clock; WAL readers during a write; stale `running` rows; secret redaction.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { VirtualClock } from '../../src/runtime/clock.js';
import { Rng } from '../../src/runtime/rng.js';
import { ID_LENGTH, newShortId, openStore, rngRandomBytes, SCHEMA_VERSION } from '../../src/store/index.js';
import { makeErrorRecord, makeRecord, tempDir } from './helpers.js';

const tmp = tempDir();
after(() => tmp.cleanup());
let n = 0;
const dbPath = () => join(tmp.dir, `t${n++}.db`);

describe('ids', () => {
  it('are 8 base32 characters and reproducible from a seed', () => {
    const a = newShortId(rngRandomBytes(new Rng(7)));
    const b = newShortId(rngRandomBytes(new Rng(7)));
    assert.equal(a, b);
    assert.match(a, /^[0-9a-hjkmnp-tv-z]{8}$/);
    assert.equal(a.length, ID_LENGTH);
    assert.equal(
      newShortId(() => new Uint8Array([0, 0, 0, 0, 31])),
      '0000000z',
    );
    assert.equal(
      newShortId(() => new Uint8Array([255, 255, 255, 255, 255])),
      'zzzzzzzz',
    );
  });
});

describe('store round trip', () => {
  it('keeps experiments, runs, records and series, and reopens them', () => {
    const path = dbPath();
    const clock = new VirtualClock(1_700_000_000_000);
    const s = openStore(path, { clock, randomBytes: rngRandomBytes(new Rng(1)) });
    assert.equal(s.db.pragma('journal_mode', { simple: true }), 'wal');
    const exp = s.createExperiment({
      kind: 'concurrency-sweep',
      name: 'sweep',
      fileText: 'kind: concurrency-sweep\n',
      spec: { a: 1 },
    });
    const r1 = s.createRun({ kind: 'exp', experimentId: exp.id, label: 'c=1', config: { concurrency: 1 } });
    clock.advanceTo(1000);
    const r2 = s.createRun({ kind: 'run', label: 'lone' });
    const recs = [makeRecord(0), makeRecord(1), makeErrorRecord(2), makeRecord(3)];
    for (const r of recs) s.appendRecord(r1.id, r);
    s.addSeries(r1.id, [
      {
        source: 'vllm',
        name: 'vllm:num_requests_running',
        labels: { model_name: 'm', b: 'x' },
        t_ms: 100,
        value: 2,
      },
      {
        source: 'vllm',
        name: 'vllm:num_requests_running',
        labels: { model_name: 'm', b: 'x' },
        t_ms: 0,
        value: 1,
      },
      { source: 'dcgm', name: 'DCGM_FI_DEV_GPU_UTIL', t_ms: 50, value: 97.5 },
    ]);
    s.finishRun(r1.id, { ttft_ms: { p50: 5 } }, 'completed', { start_ms: 0, end_ms: 40 });
    s.finishExperiment(exp.id, 'completed', { knee: 8 });
    s.close();

    const t = openStore(path, { readonly: true });
    assert.deepEqual(
      t.listExperiments().map((e) => [e.id, e.kind, e.name, e.status, e.file_text]),
      [[exp.id, 'concurrency-sweep', 'sweep', 'completed', 'kind: concurrency-sweep\n']],
    );
    assert.deepEqual(t.getExperiment(exp.id)?.summary, { knee: 8 });
    assert.deepEqual(
      t.listRuns().map((r) => r.id),
      [r1.id, r2.id],
    );
    assert.deepEqual(
      t.listRuns({ order: 'desc' }).map((r) => r.id),
      [r2.id, r1.id],
    );
    assert.deepEqual(
      t.listRuns({ experimentId: exp.id }).map((r) => r.id),
      [r1.id],
    );
    const got = t.getRun(r1.id);
    assert.ok(got);
    assert.equal(got.status, 'completed');
    assert.equal(got.records, 4);
    assert.equal(got.started_at_unix_ms, 1_700_000_000_000);
    assert.equal(got.ended_at_unix_ms, 1_700_000_001_000);
    assert.deepEqual(got.config, { concurrency: 1 });
    assert.deepEqual(got.summary, { ttft_ms: { p50: 5 } });
    assert.deepEqual(got.window, { start_ms: 0, end_ms: 40 });
    assert.deepEqual([...t.getRecords(r1.id)], recs);
    assert.deepEqual([...t.getRecords(r1.id, { phase: 'warmup' })], [recs[0]]);
    assert.deepEqual([...t.getRecords(r1.id, { offset: 2, pageSize: 1 })], recs.slice(2));
    assert.deepEqual(
      t.getSeries(r1.id).map((p) => [p.source, p.name, p.labels, p.t_ms, p.value]),
      [
        ['dcgm', 'DCGM_FI_DEV_GPU_UTIL', {}, 50, 97.5],
        ['vllm', 'vllm:num_requests_running', { b: 'x', model_name: 'm' }, 0, 1],
        ['vllm', 'vllm:num_requests_running', { b: 'x', model_name: 'm' }, 100, 2],
      ],
    );
    assert.equal(t.getSeries(r1.id, { name: 'DCGM_FI_DEV_GPU_UTIL' }).length, 1);
    // The second run was never finished but its writer (this process) is alive.
    assert.equal(t.getRun(r2.id)?.status, 'running');
    const v = t.db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number };
    assert.equal(v.v, SCHEMA_VERSION);
    t.close();
  });

  it('resolves unique id prefixes and refuses ambiguous ones with a hint', () => {
    const bytes = [
      [0, 0, 0, 0, 1],
      [0, 0, 0, 0, 2],
      [255, 0, 0, 0, 0],
    ];
    let k = 0;
    const s = openStore(dbPath(), { randomBytes: () => new Uint8Array(bytes[k++]) });
    const a = s.createRun({ kind: 'run' });
    const b = s.createRun({ kind: 'plan' });
    const c = s.createRun({ kind: 'run' });
    assert.deepEqual([a.id, b.id, c.id], ['00000001', '00000002', 'zw000000']);
    assert.equal(s.getRun('00000002')?.id, b.id);
    assert.equal(s.getRun('ZW')?.id, c.id, 'prefixes are case-insensitive');
    assert.equal(s.getRun('zz'), undefined);
    assert.equal(s.getRun('%'), undefined, 'LIKE wildcards are not ids');
    assert.throws(
      () => s.getRun('0000000'),
      (e: unknown) => e instanceof UsageError && /ambiguous/.test(e.message) && !!e.problems[0].hint,
    );
    assert.deepEqual(
      s.listRuns({ kind: 'plan' }).map((r) => r.id),
      [b.id],
    );
    s.close();
  });

  it('retries an id that is already taken', () => {
    const bytes = [
      [1, 1, 1, 1, 1],
      [1, 1, 1, 1, 1],
      [2, 2, 2, 2, 2],
    ];
    let k = 0;
    const s = openStore(dbPath(), { randomBytes: () => new Uint8Array(bytes[k++]) });
    const a = s.createExperiment({ kind: 'ab', name: 'x' });
    const b = s.createRun({ kind: 'exp', experimentId: a.id });
    assert.notEqual(a.id, b.id);
    assert.equal(k, 3);
    s.close();
  });

  it('redacts secret-looking keys in stored JSON but keeps api_key_env', () => {
    const s = openStore(dbPath());
    const r = s.createRun({
      kind: 'run',
      config: {
        headers: { Authorization: 'Bearer sk-123', 'X-Api-Key': 'sk-456', Accept: 'a' },
        api_key_env: 'MY_KEY',
      },
    });
    const stored = JSON.stringify(s.getRun(r.id)?.config);
    assert.doesNotMatch(stored, /sk-/);
    assert.match(stored, /MY_KEY/);
    assert.match(stored, /"Accept":"a"/);
    s.close();
  });
});

describe('batched record writes', () => {
  it('commit at flushEvery records or flushIntervalMs after the first, on the injected clock', () => {
    const path = dbPath();
    const clock = new VirtualClock();
    const w = openStore(path, { clock, flushEvery: 5, flushIntervalMs: 250 });
    const reader = openStore(path, { readonly: true });
    const run = w.createRun({ kind: 'run' });
    for (let i = 0; i < 3; i++) w.appendRecord(run.id, makeRecord(i));
    assert.equal(reader.getRun(run.id)?.records, 0, 'not committed yet');
    clock.advanceTo(249);
    assert.equal(reader.getRun(run.id)?.records, 0);
    clock.advanceTo(250);
    assert.equal(reader.getRun(run.id)?.records, 3, 'the interval flush committed them');
    for (let i = 3; i < 8; i++) w.appendRecord(run.id, makeRecord(i));
    assert.equal(reader.getRun(run.id)?.records, 8, 'the fifth queued record triggered a commit');
    assert.equal(w.pendingCount, 0);
    w.appendRecord(run.id, makeRecord(8));
    w.finishRun(run.id, null, 'completed');
    assert.equal(reader.getRun(run.id)?.records, 9, 'finishRun commits what is queued');
    assert.deepEqual(
      [...reader.getRecords(run.id)].map((r) => r.id),
      Array.from({ length: 9 }, (_, i) => `r${i}`),
    );
    reader.close();
    w.close();
  });

  it('streams records through the RunObserver hooks', () => {
    const clock = new VirtualClock();
    const s = openStore(dbPath(), { clock });
    const run = s.createRun({ kind: 'run' });
    const obs = s.observer(run.id);
    obs.onRunStart?.({ started_at_unix_ms: 1234, planned: 2 });
    obs.onRecord?.(makeRecord(0));
    obs.onRecord?.(makeRecord(1));
    assert.equal(s.getRun(run.id)?.records, 0);
    obs.onRunEnd?.('completed');
    const got = s.getRun(run.id);
    assert.equal(got?.records, 2);
    assert.equal(got?.started_at_unix_ms, 1234);
    s.close();
  });

  it('observer hooks never throw into the runner, even on a closed store', () => {
    const s = openStore(dbPath());
    const run = s.createRun({ kind: 'run' });
    const obs = s.observer(run.id);
    s.close();
    assert.doesNotThrow(() => obs.onRecord?.(makeRecord(0)));
    assert.match(String(s.lastWriteError), /closed/);
  });

  it('lets a WAL reader read committed rows while a writer holds an open write transaction', () => {
    const path = dbPath();
    const w = openStore(path);
    const r = openStore(path, { readonly: true, busyTimeoutMs: 0 });
    const run = w.createRun({ kind: 'run' });
    w.appendRecord(run.id, makeRecord(0));
    w.flush();
    w.db.exec('BEGIN IMMEDIATE');
    w.appendRecord(run.id, makeRecord(1));
    w.flush(); // nested: a savepoint inside the open transaction
    // busy_timeout 0: any lock conflict would throw SQLITE_BUSY at once.
    assert.equal(
      [...r.getRecords(run.id)].length,
      1,
      'reader sees only the committed record, without waiting',
    );
    w.db.exec('COMMIT');
    assert.equal([...r.getRecords(run.id)].length, 2);
    r.close();
    w.close();
  });
});

describe('stale running rows', () => {
  it('shows a running row as interrupted when its pid is gone on this host', () => {
    const path = dbPath();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    assert.ok(dead);
    const s = openStore(path, { pid: dead, host: 'box-a' });
    const e = s.createExperiment({ kind: 'baseline', name: 'b' });
    const run = s.createRun({ kind: 'exp', experimentId: e.id });
    s.close();
    const same = openStore(path, { host: 'box-a' });
    assert.equal(same.getRun(run.id)?.status, 'interrupted');
    assert.equal(same.getRun(run.id)?.stored_status, 'running');
    assert.equal(same.getExperiment(e.id)?.status, 'interrupted');
    same.close();
    const other = openStore(path, { host: 'box-b' });
    assert.equal(other.getRun(run.id)?.status, 'running', 'a pid on another host cannot be checked');
    other.close();
  });

  it('asks the injected liveness check, and finished rows keep their status', () => {
    const path = dbPath();
    const asked: number[] = [];
    const s = openStore(path, {
      pid: 4242,
      host: 'h',
      isAlive: (pid) => {
        asked.push(pid);
        return false;
      },
    });
    const a = s.createRun({ kind: 'run' });
    const b = s.createRun({ kind: 'run' });
    s.finishRun(b.id, null, 'failed');
    assert.deepEqual(
      s.listRuns().map((r) => [r.id, r.status]),
      [
        [a.id, 'interrupted'],
        [b.id, 'failed'],
      ],
    );
    assert.ok(asked.length > 0 && asked.every((p) => p === 4242), 'the check was asked about the writer pid');
    s.close();
  });
});

describe('errors', () => {
  it('unknown run ids are usage errors, not crashes', () => {
    const s = openStore(dbPath());
    assert.throws(() => s.finishRun('zzzzzzzz', null, 'completed'), UsageError);
    assert.throws(() => s.createRun({ kind: 'exp', experimentId: 'nope0000' }), UsageError);
    s.close();
  });

  it('a read-only open of a file that is not a store is a usage error', () => {
    const path = dbPath();
    const s = openStore(path);
    s.db.exec('DROP TABLE schema_version');
    s.close();
    assert.throws(
      () => openStore(path, { readonly: true }),
      (e: unknown) => e instanceof UsageError && /not a servelab store/.test(e.message),
    );
    assert.throws(() => openStore(join(tmp.dir, 'absent.db'), { readonly: true }), UsageError);
  });

  it('refuses a store written by a newer servelab', () => {
    const path = dbPath();
    const s = openStore(path);
    s.db.prepare('INSERT INTO schema_version VALUES (?, ?, ?)').run(SCHEMA_VERSION + 1, 'future', 0);
    s.close();
    assert.throws(
      () => openStore(path),
      (e: unknown) => e instanceof UsageError && /newer/.test(e.message),
    );
  });
});
