/**
 * @module test/cli/shard-start
 * The common start across processes: three `servelab run --shard i/3 --start-at T` children,
 * launched 0, 300 and 800 ms apart against one simulator, each send their first request within
 * 100 ms of T (each converts T once to its own monotonic clock); a fourth launched 2 s after T
 * sends nothing and exits non-zero. Then `merge --expect 3` takes the three and refuses two.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { shardFiles } from '../../src/pipeline/shard.js';
import { unixNowMs } from '../../src/runtime/clock.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import { assertNoNodeWarning } from '../helpers/node-warnings.js';

const ENTRY = join(import.meta.dirname, '..', 'helpers', 'cli-entry.ts');
/** Time for a child to start (tsx, imports, the workload) before the common start. */
const LEAD_MS = 12_000;

let sim: SimServer;
before(async () => {
  sim = await startSimServer({ model: 'qwen3-8b', gpu: 'h100', port: 0, timeScale: 50 });
});
after(async () => {
  await sim.close();
});

function child(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    p.stderr.on('data', (d) => {
      stderr += d;
    });
    p.on('close', (code) => resolve({ code, stderr }));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('children launched apart dispatch together at --start-at; one launched 2 s late exits non-zero', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-start-'));
  const startAt = Math.ceil((unixNowMs() + LEAD_MS) / 1000) * 1000;
  const iso = new Date(startAt).toISOString();
  const args = (i: number, out: string) => [
    'run',
    ...['--url', `${sim.url}/v1`, '--prompt', 'hello there', '--output-len', '4'],
    ...['--rate', '50', '--requests', '12', '--seed', '5', '--no-db', '--no-scrape'],
    ...['--shard', `${i}/3`, '--start-at', iso, '--out', out],
  ];
  // launched at 0, 300 and 800 ms
  const runs = [child(args(0, dir))];
  await sleep(300);
  runs.push(child(args(1, dir)));
  await sleep(500);
  runs.push(child(args(2, dir)));
  await sleep(Math.max(0, startAt + 2000 - unixNowMs()));
  const late = child(args(1, join(dir, 'late')));
  const done = await Promise.all(runs);
  for (const d of done) {
    assert.equal(d.code, 0, d.stderr);
    assertNoNodeWarning(d.stderr);
  }
  const files = [0, 1, 2].map((i) => join(dir, shardFiles(i, 3).report));
  for (const f of files) {
    const s = JSON.parse(readFileSync(f, 'utf8')).shard;
    assert.equal(s.planned_start_unix_ms, startAt);
    const off = s.first_dispatch_unix_ms - startAt;
    assert.ok(off >= 0 && off < 100, `shard ${s.index} first dispatch ${off} ms after start-at`);
  }
  const l = await late;
  assert.notEqual(l.code, 0);
  assertNoNodeWarning(l.stderr);
  assert.match(l.stderr, /after the common start/);

  const io = memoryIo({}, dir);
  assert.equal(
    await main(['merge', '--expect', '3', ...files, '--out', join(dir, 'merged')], io),
    0,
    io.err(),
  );
  const merged = JSON.parse(readFileSync(join(dir, 'merged', 'report.json'), 'utf8'));
  assert.equal(merged.summary.requests.succeeded, 12);
  const two = memoryIo({}, dir);
  assert.notEqual(
    await main(['merge', '--expect', '3', ...files.slice(0, 2), '--out', join(dir, 'm2')], two),
    0,
  );
  assert.match(two.err(), /shard\(s\) 2 of 3 are missing/);
});
