/**
 * A 24-hour soak (`run --rate 200 --duration 86400`, 17.28 million planned requests) against a
 * closed port, as a real process (issue 28): it was refused up front (and before that grew to
 * 4.4 GB in 80 s without sending anything and ignored SIGINT). Streamed, it starts sending, and
 * SIGINT ends it with exit 130 and every request that fell due recorded. How fast it starts, its
 * memory and how fast SIGINT acts are figures, in `npm run bench -- soak` (bench/soak.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, it } from 'node:test';
import { refusedPort } from '../helpers/misbehaving.js';
import { assertNoNodeWarning } from '../helpers/node-warnings.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'servelab-soak-'));
after(() => {
  if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
});

it('run --rate 200 --duration 86400 against a closed port: sends, and SIGINT exits 130 with what fell due recorded', async () => {
  const port = await refusedPort();
  const out = join(dir, 'out');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'test/helpers/cli-entry.ts'),
      'run',
      '--url',
      `http://127.0.0.1:${port}/v1`,
      '--model',
      'm',
      '--rate',
      '200',
      '--duration',
      '86400',
      '--out',
      out,
      '--no-db',
      '--no-scrape',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LANG: 'C', LC_ALL: '' } },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
  // The progress line (every 5 s off a terminal) counts requests done: wait for some.
  const sending = /\] [1-9]\d*\/17280000 done/;
  for (let i = 0; i < 1200 && !sending.test(stderr) && child.exitCode === null; i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.match(stderr, sending, stderr);
  child.kill('SIGINT');
  const code = await exited;
  assertNoNodeWarning(stderr, 'servelab run (soak)');
  assert.equal(code, 130, stderr);
  assert.doesNotMatch(stderr, /internal error|\n\s+at /);

  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  assert.equal(report.end.reason, 'interrupted');
  const records = readFileSync(join(out, 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { index: number; outcome: string; planned_at_ms: number });
  // Every request that fell due, and nothing past it: indices 0..n-1, each once, none of the
  // millions not yet due (they were never planned: a streamed schedule plans as it goes).
  const indices = records.map((r) => r.index).sort((a, b) => a - b);
  assert.ok(records.length >= 1 && records.length < 1_000_000, `${records.length} records`);
  assert.deepEqual(
    indices,
    Array.from({ length: records.length }, (_, i) => i),
  );
  assert.ok(records.every((r) => r.outcome === 'connect_error' || r.outcome === 'cancelled'));
});
