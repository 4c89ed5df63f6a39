/**
 * Full disks and broken stores are the user's to fix, not bugs (issue 28): each case ends with
 * one message naming the file, a hint and exit code 4 (docs/cli.md), never a stack trace or
 * "internal error"; a run prints its summary before the error and leaves no half-written
 * report.json. How each case is made (we may run as root, which ignores permission bits):
 * - a full disk: a 1 MB tmpfs (`mount -t tmpfs`), filled up to a few kB; skipped, saying so,
 *   where it cannot be mounted; and /dev/full (every write fails with ENOSPC) for the records
 *   file and for stdout;
 * - read-only: a read-only bind mount (skipped where it cannot be mounted), and `chattr +i`
 *   (skipped where unsupported);
 * - locked: another connection holds an exclusive transaction;
 * - corrupted: pages overwritten, and a stored record cut short;
 * - foreign: another program's SQLite database.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import Database from 'better-sqlite3';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { openRecordWriter } from '../../src/record/writer.js';
import { startSimServer } from '../../src/sim/server/index.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-storage-'));
const mounts: string[] = [];
let sim: Awaited<ReturnType<typeof startSimServer>>;
let url = '';
let good = '';
let runId = '';

before(async () => {
  sim = await startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', port: 0, timeScale: 50 });
  url = `${sim.url}/v1`;
  good = join(dir, 'good.db');
  const io = memoryIo({}, dir);
  assert.equal(await main(runArgs('--db', good), io), 0, io.err());
  runId = /run ([a-z0-9]{8})/.exec(io.out() + io.err())?.[1] ?? '';
});
after(async () => {
  for (const m of mounts.reverse()) tryRun('umount', [m]);
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function runArgs(...extra: string[]): string[] {
  return [
    'run',
    '--url',
    url,
    '--model',
    'llama-3.1-8b',
    '--prompt',
    'hi',
    '--output-len',
    '8',
    '--requests',
    '20',
    '--concurrency',
    '4',
    '--seed',
    '1',
    '--no-scrape',
    ...extra,
  ];
}

function tryRun(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A 1 MB tmpfs at a new folder, or null where it cannot be mounted. */
function tmpfs(name: string): string | null {
  const d = join(dir, name);
  mkdirSync(d);
  if (!tryRun('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', d])) return null;
  mounts.push(d);
  return d;
}

/** Fill `d` until `leave` bytes are free. */
function fill(d: string, leave: number): void {
  const fd = openSync(join(d, 'filler'), 'w');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch {}
  closeSync(fd);
  rmSync(join(d, 'filler'));
  const fd2 = openSync(join(d, 'filler'), 'w');
  const total = 1024 * 1024 - leave;
  for (let n = 0; n + 4096 <= total; n += 4096)
    try {
      writeSync(fd2, block);
    } catch {
      break;
    }
  closeSync(fd2);
}

function assertClean(io: { err(): string; out(): string }, code: number, expect: RegExp): void {
  const text = io.out() + io.err();
  assert.equal(code, 4, text);
  assert.match(io.err(), expect);
  assert.match(io.err(), /hint: /);
  assert.doesNotMatch(text, /internal error|\n\s+at [\w.<]+ \(|SqliteError|SyntaxError/);
}

it('--db on a full disk: the summary first, then one message, exit 4', async (t) => {
  const d = tmpfs('full-db');
  if (!d) return t.skip('cannot mount a tmpfs here (needs root)');
  fill(d, 160 * 1024);
  const io = memoryIo({}, dir);
  const code = await main(runArgs('--requests', '500', '--concurrency', '16', '--db', join(d, 's.db')), io);
  assertClean(io, code, /s\.db: the disk is full/);
  assert.match(io.out(), /Requests[\s\S]*succeeded/, 'the summary is printed');
  assert.ok(io.out().indexOf('succeeded') >= 0 && io.err().includes('disk is full'));
});

it('--out on a full disk: the summary, exit 4, no half-written report.json, whole lines only', async (t) => {
  const d = tmpfs('full-out');
  if (!d) return t.skip('cannot mount a tmpfs here (needs root)');
  fill(d, 64 * 1024);
  const out = join(d, 'o');
  const io = memoryIo({}, dir);
  const code = await main(runArgs('--requests', '300', '--concurrency', '16', '--no-db', '--out', out), io);
  assertClean(io, code, /the disk is full/);
  assert.match(io.out(), /succeeded/);
  assert.ok(
    !existsSync(join(out, 'report.json')) || JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')),
  );
  assert.deepEqual(
    readdirSync(out).filter((f) => f.endsWith('.tmp')),
    [],
    'no temporary file left',
  );
  const lines = readFileSync(join(out, 'requests.jsonl'), 'utf8');
  assert.ok(lines.endsWith('\n'));
  for (const l of lines.trim().split('\n')) JSON.parse(l);
});

it('the records file on a device that is full keeps whole lines and says why it stopped', () => {
  const w = openRecordWriter<{ n: number }>('/dev/full');
  w.write({ n: 1 });
  assert.equal((w.error as NodeJS.ErrnoException | null)?.code, 'ENOSPC');
  assert.equal(w.written, 0);
});

it('runs export > a full device: one message, exit 4, no stack', async () => {
  const full = openSync('/dev/full', 'w');
  const root = join(import.meta.dirname, '..', '..');
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'test', 'helpers', 'cli-entry.ts'),
      'runs',
      'export',
      runId,
      '--db',
      good,
      '--format',
      'jsonl',
    ],
    {
      cwd: root,
      stdio: ['ignore', full, 'pipe'],
      encoding: 'utf8',
      env: { ...process.env, LANG: 'C', LC_ALL: '' },
    },
  );
  closeSync(full);
  assert.equal(r.status, 4, r.stderr);
  assert.match(r.stderr, /stdout: the disk is full/);
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
});

it('a valid store on a read-only mount: read-only, not "not a servelab store"', async (t) => {
  const d = join(dir, 'ro');
  mkdirSync(d);
  copyFileSync(good, join(d, 'good.db'));
  if (!tryRun('mount', ['--bind', d, d])) return t.skip('cannot bind-mount here (needs root)');
  mounts.push(d);
  if (!tryRun('mount', ['-o', 'remount,bind,ro', d])) return t.skip('cannot remount read-only here');
  for (const argv of [
    runArgs('--db', join(d, 'good.db')),
    ['runs', 'list', '--db', join(d, 'good.db')],
    runArgs('--db', join(d, 'new.db')),
  ]) {
    const io = memoryIo({}, dir);
    assertClean(io, await main(argv, io), /read-only/);
    assert.doesNotMatch(io.err(), /not a servelab store/);
  }
});

it('a read-only store file (chattr +i): exit 4, read-only', async (t) => {
  const f = join(dir, 'immutable.db');
  copyFileSync(good, f);
  if (!tryRun('chattr', ['+i', f])) return t.skip('chattr +i is not supported here');
  try {
    const io = memoryIo({}, dir);
    assertClean(io, await main(runArgs('--db', f), io), /immutable\.db: it is read-only/);
  } finally {
    tryRun('chattr', ['-i', f]);
  }
});

it('a store locked by another connection at start: exit 4, locked', async () => {
  const f = join(dir, 'locked.db');
  copyFileSync(good, f);
  const holder = new Database(f);
  holder.exec('BEGIN EXCLUSIVE');
  try {
    const io = memoryIo({}, dir);
    assertClean(io, await main(runArgs('--db', f), io), /locked\.db is locked by another process/);
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
  }
});

it('a corrupted store, and a stored record cut short: exit 4, damaged, for run, runs list, report and export', async () => {
  const f = join(dir, 'corrupt.db');
  copyFileSync(good, f);
  const fd = openSync(f, 'r+');
  writeSync(fd, Buffer.alloc(4096 * 3, 0xff), 0, 4096 * 3, 4096 * 2);
  closeSync(fd);
  for (const argv of [runArgs('--db', f), ['runs', 'list', '--db', f]]) {
    const io = memoryIo({}, dir);
    assertClean(io, await main(argv, io), /corrupt\.db is damaged/);
  }
  const g = join(dir, 'badrec.db');
  copyFileSync(good, g);
  const db = new Database(g);
  db.prepare('UPDATE requests SET record = substr(record, 1, 20) WHERE seq = 1').run();
  db.close();
  for (const argv of [
    ['report', runId, '--db', g],
    ['runs', 'export', runId, '--db', g, '--format', 'jsonl'],
  ]) {
    const io = memoryIo({}, dir);
    assertClean(io, await main(argv, io), /badrec\.db is damaged[\s\S]*record 1/);
  }
});

it("another program's database: run refuses it as runs list does, and adds no table", async () => {
  const f = join(dir, 'other-app.sqlite');
  const db = new Database(f);
  db.exec('CREATE TABLE users (id INTEGER)');
  db.close();
  const io = memoryIo({}, dir);
  assert.equal(await main(runArgs('--db', f), io), 1, io.err());
  assert.match(io.err(), /not a servelab store/);
  assert.doesNotMatch(io.err(), /internal error|\n\s+at /);
  const check = new Database(f, { readonly: true });
  assert.deepEqual(check.prepare("SELECT name FROM sqlite_master WHERE type='table'").all(), [
    { name: 'users' },
  ]);
  check.close();
});

it('a report.json without summary.ttft_ms or with config: null, and a requests.jsonl cut short: a problem naming the field or the line', async () => {
  const out = join(dir, 'edited');
  const io = memoryIo({}, dir);
  assert.equal(await main(runArgs('--no-db', '--out', out), io), 0, io.err());
  const file = join(out, 'report.json');
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const cases: [string, () => void, RegExp][] = [
    [
      'no ttft_ms',
      () =>
        writeFileSync(
          file,
          JSON.stringify({ ...report, summary: { ...report.summary, ttft_ms: undefined } }),
        ),
      /summary\.ttft_ms is missing/,
    ],
    [
      'config null',
      () => writeFileSync(file, JSON.stringify({ ...report, config: null })),
      /^(?![\s\S]*internal error)/,
    ],
    [
      'cut records',
      () => {
        writeFileSync(file, JSON.stringify({ ...report, records: undefined }));
        const jsonl = readFileSync(join(out, 'requests.jsonl'), 'utf8');
        writeFileSync(join(out, 'requests.jsonl'), jsonl.slice(0, Math.floor(jsonl.length / 2)));
      },
      /requests\.jsonl, line \d+/,
    ],
  ];
  for (const [name, edit, expect] of cases) {
    edit();
    for (const cmd of ['report', 'diagnose']) {
      const r = memoryIo({}, dir);
      await main([cmd, out], r);
      assert.match(r.err() + r.out(), expect, `${cmd} ${name}`);
      assert.doesNotMatch(r.err(), /internal error|TypeError|\n\s+at /, `${cmd} ${name}`);
    }
  }
});
