/**
 * SIGINT against a real `servelab run` process: requests in flight and requests not yet sent
 * end as `cancelled` records, the report is complete, and the exit code is 130.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, it } from 'node:test';
import { chatChunk, sse, startSseServer } from '../helpers/misbehaving.js';
import { assertNoNodeWarning } from '../helpers/node-warnings.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'servelab-sigint-'));
after(() => {
  if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
});

it('SIGINT writes a complete report with every planned request as one record, exit 130', async () => {
  // Every chat request sends one token, then stalls forever.
  const server = await startSseServer((req) =>
    req.path.startsWith('/v1/models')
      ? { headers: { 'content-type': 'application/json' }, steps: ['{"data":[{"id":"m"}]}'] }
      : {
          headers: { 'content-type': 'text/event-stream' },
          steps: [sse(chatChunk({ content: 'a' })), { stall: true }],
        },
  );
  try {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'test/helpers/cli-entry.ts'),
        'run',
        '--url',
        server.baseUrl,
        '--concurrency',
        '2',
        '--requests',
        '10',
        // a fixed prompt needs no token counting, so no /tokenize probe meets the stalling server
        '--prompt',
        'hello',
        '--out',
        join(dir, 'out'),
        '--no-db',
        '--no-scrape',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // Interrupt once both concurrent requests have reached the server.
    for (
      let i = 0;
      i < 600 && server.requests.filter((r) => r.path.endsWith('/chat/completions')).length < 2;
      i++
    )
      await new Promise((r) => setTimeout(r, 50));
    assert.equal(server.requests.filter((r) => r.path.endsWith('/chat/completions')).length, 2, stderr);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    assert.equal(code, 130, stderr);
    assertNoNodeWarning(stderr);
    const recs = readFileSync(join(dir, 'out', 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(recs.length, 10);
    assert.ok(recs.every((r) => r.outcome === 'cancelled'));
    assert.equal(recs.filter((r) => r.sent_at_ms === null).length, 8);
    const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
    assert.equal(report.summary.requests.planned, 10);
    assert.equal(report.summary.outcomes.cancelled, 10);
    assert.equal(report.end.interrupted, true);
  } finally {
    await server.close();
  }
});

it('servers take port 0, print "listening on http://127.0.0.1:PORT" when ready, and stop on SIGINT', async () => {
  const db = join(dir, 'empty.db');
  const { openStore } = await import('../../src/store/index.js');
  openStore(db).close();
  for (const args of [
    ['sim', '--model', 'llama-3.1-8b', '--gpu', 'h100', '--port', '0', '--seed', '3'],
    ['dashboard', '--db', db, '--port', '0'],
  ]) {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'test/helpers/cli-entry.ts'), ...args],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    let url: string | undefined;
    for (let i = 0; i < 600 && !url; i++) {
      url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (!url) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(url, `${args[0]}: ${out}${err}`);
    const res = await fetch(args[0] === 'sim' ? `${url}/v1/models` : `${url}/api/runs`);
    assert.equal(res.status, 200);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    assert.equal(code, 130, err);
    assertNoNodeWarning(err);
  }
});

it('SIGTERM drains `servelab sim`: the stream in flight finishes, /health turns 503, exit 130', async () => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'test/helpers/cli-entry.ts'), 'sim', '--port', '0', '--json'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
  try {
    const url = await new Promise<string>((res, rej) => {
      child.stdout.on('data', (d) => {
        stdout += d;
        const m = /"url":\s*"([^"]+)"/.exec(stdout);
        if (m) res(m[1]);
      });
      child.on('exit', () => rej(new Error(`sim exited early: ${stderr}`)));
    });
    // ~200 decode steps of real (time scale 1) engine time: long enough to outlive the signal.
    const res = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'drain me', max_tokens: 200, ignore_eos: true, stream: true }),
    });
    assert.equal(res.status, 200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    assert.ok(!first.done);
    child.kill('SIGTERM');
    for (let i = 0; i < 100 && !stderr.includes('draining'); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal((await fetch(`${url}/health`)).status, 503, stderr);
    let text = new TextDecoder().decode(first.value);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    assert.match(text, /"finish_reason":"length"/);
    assert.ok(text.trimEnd().endsWith('data: [DONE]'));
    assert.equal(await exited, 130, stderr);
    assertNoNodeWarning(stderr);
    assert.match(stderr, /drained: every request in flight finished/);
  } finally {
    child.kill('SIGKILL');
  }
});
