/**
 * Errors that explain themselves, and fail fast, end to end through `main(argv, io)` over real
 * loopback HTTP: a server that answers every request 401 stops the run after its first 20
 * answers (exit 3, the cause and its hint on the console, one record per planned request);
 * `--no-fail-fast` sends every request; servelab's own simulator with `--api-key` does the same.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startSimServer } from '../../src/sim/server/index.js';
import { startSseServer, type TestServer } from '../helpers/misbehaving.js';
import '../helpers/node-warnings.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'servelab-failfast-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Answers every request 401 with an OpenAI-style error body. */
function unauthorizedServer(): Promise<TestServer> {
  return startSseServer({
    status: 401,
    headers: { 'content-type': 'application/json' },
    steps: ['{"error":{"message":"Invalid or missing API key","type":"invalid_request_error"}}'],
  });
}

const completions = (s: TestServer) => s.requests.filter((r) => r.path.endsWith('/chat/completions')).length;

function records(dir: string): { outcome: string; error: string | null; sent_at_ms: number | null }[] {
  return readFileSync(join(dir, 'out', 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/** `servelab run` of 300 requests at concurrency 4 against `url`, records under out/. */
const runArgs = (url: string, ...extra: string[]) => [
  'run',
  '--url',
  url,
  '--model',
  'm',
  '--prompt',
  'hi',
  '--requests',
  '300',
  '--concurrency',
  '4',
  ...extra,
  '--out',
  'out',
  '--no-db',
  '--no-scrape',
];

describe('fail fast', () => {
  it('every request 401: stops after 20 answers at c=4 (≤ 23 sent), exits 3, names the cause and the fix', async () => {
    const server = await unauthorizedServer();
    try {
      const dir = tmp();
      const io = memoryIo({}, dir);
      const code = await main(runArgs(server.baseUrl), io);
      const text = io.out() + io.err();
      assert.equal(code, 3, text);
      assert.match(text, /HTTP 401/);
      assert.match(text, /INFERENCE_API_KEY/);
      assert.match(io.err(), /stopped early \(fail fast\): 20 × HTTP 401: Invalid or missing API key/);
      assert.match(
        io.out(),
        /Top errors\n {2}\d+ × not sent: the run stopped early|Top errors\n {2}2\d × HTTP 401/,
      );
      const sent = completions(server);
      assert.ok(sent >= 20 && sent <= 23, `the server saw ${sent} requests`);
      const recs = records(dir);
      assert.equal(recs.length, 300);
      const cancelled = recs.filter((r) => r.outcome === 'cancelled');
      assert.equal(cancelled.length, 300 - sent);
      for (const r of cancelled) {
        assert.equal(r.sent_at_ms, null);
        assert.match(r.error ?? '', /^not sent: the run stopped early \(fail fast\): 20 × HTTP 401/);
      }
      const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
      assert.equal(report.end.reason, 'failed_fast');
      assert.match(report.end.failed_fast, /^20 × HTTP 401/);
      const top401 = report.summary.errors.find((g: { http_status: number | null }) => g.http_status === 401);
      assert.equal(top401.count, sent);
      assert.equal(top401.message, 'HTTP 401: Invalid or missing API key');
      assert.match(top401.hint, /set INFERENCE_API_KEY \(or name the variable with --api-key-env\)/);
    } finally {
      await server.close();
    }
  });

  it('--no-fail-fast sends all 300, and the summary counts them in one group', async () => {
    const server = await unauthorizedServer();
    try {
      const dir = tmp();
      const io = memoryIo({}, dir);
      const code = await main(runArgs(server.baseUrl, '--no-fail-fast'), io);
      assert.equal(code, 3, io.err());
      assert.equal(completions(server), 300);
      assert.match(io.out(), /300 × HTTP 401: Invalid or missing API key\n {4}hint: set INFERENCE_API_KEY/);
      assert.doesNotMatch(io.err(), /fail fast/);
      assert.equal(records(dir).filter((r) => r.outcome === 'cancelled').length, 0);
    } finally {
      await server.close();
    }
  });

  it("servelab's simulator with an API key: no key → fail fast; the right key → every request succeeds", async () => {
    const sim = await startSimServer({
      model: 'llama-3.1-8b',
      gpu: 'h100',
      port: 0,
      timeScale: 50,
      apiKey: 'K',
    });
    try {
      const args = (dir: string) => [
        'run',
        '--url',
        `${sim.url}/v1`,
        '--model',
        'llama-3.1-8b',
        '--prompt',
        'hi',
        '--max-tokens',
        '4',
        '--requests',
        '60',
        '--concurrency',
        '2',
        '--out',
        join(dir, 'out'),
        '--no-db',
        '--no-scrape',
      ];
      const bad = tmp();
      const io = memoryIo({}, bad);
      assert.equal(await main(args(bad), io), 3, io.err());
      assert.match(io.err(), /stopped early \(fail fast\): 20 × HTTP 401: Invalid or missing API key/);
      assert.match(io.err(), /hint: set INFERENCE_API_KEY/);
      const recs = records(bad);
      assert.equal(recs.length, 60);
      assert.ok(recs.filter((r) => r.sent_at_ms !== null).length <= 21);

      const good = tmp();
      const io2 = memoryIo({ INFERENCE_API_KEY: 'K' }, good);
      assert.equal(await main(args(good), io2), 0, io2.err());
      assert.doesNotMatch(io2.out(), /Top errors/);
      assert.equal(records(good).length, 60);

      // Without --model the run asks /v1/models first: a 401 there stops it before anything is
      // sent (as vLLM's initial test prompt does), with the server's words and the same hint.
      const early = tmp();
      const io3 = memoryIo({ INFERENCE_API_KEY: 'wrong' }, early);
      const noModel = args(early).filter((a, i, all) => a !== '--model' && all[i - 1] !== '--model');
      assert.equal(await main(noModel, io3), 3, io3.err());
      assert.match(
        io3.err(),
        /HTTP 401 from .*\/v1\/models: Invalid or missing API key \(the API key was not accepted; no request was sent\)/,
      );
      assert.match(io3.err(), /hint: set INFERENCE_API_KEY/);
      assert.doesNotMatch(io3.err(), /wrong/, 'the key never appears');
    } finally {
      await sim.close();
    }
  });
});
