/**
 * @module test/cli/server-times
 * Every record carries the engine's own account of it (`server`: queue, prefill, decode, where
 * it was read), measured through the real CLI in-process (`main(argv, io)`):
 * - against the real llama.cpp `llama-server` (`../shared/llamacpp`, a tiny random-weight model
 *   on the CPU): every successful record's `server.prefill_ms` is its `timings.prompt_ms`, the
 *   queue is null (llama.cpp reports none), and the client's TTFT is at least the server's
 *   queue + prefill; the summary's TTFT breakdown says so. Without the binary (a user's machine)
 *   this test skips with a one-line reason; under `CI=true` it fails;
 * - against the simulator in virtual time (`plan`) and in real time (`servelab sim
 *   --time-scale 10 --expose-timings`), whose engine ms become wall ms divided by the scale.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { engineTimes } from '../../src/analysis/interference.js';
import type { Summary } from '../../src/analysis/summary.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { RequestRecord } from '../../src/record/types.js';
import { SUCCESS_OUTCOMES } from '../../src/record/types.js';
import { startSimServer } from '../../src/sim/server/index.js';
import '../helpers/node-warnings.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LLAMA_DIR = resolve(ROOT, '../shared/llamacpp');
const LLAMA_BIN = join(LLAMA_DIR, 'llama-server');
const HAVE_LLAMA = existsSync(LLAMA_BIN);
const UNDER_CI = process.env.CI === 'true';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'servelab-server-times-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Run servelab in-process in a fresh folder; the run's records and report.json. */
async function runCli(
  args: string[],
): Promise<{ out: string; records: RequestRecord[]; report: { summary: Summary } }> {
  const dir = tmp();
  const io = memoryIo({}, dir);
  const code = await main([...args, '--no-db', '--out', 'out'], io);
  assert.equal(code, 0, `${io.out()}\n${io.err()}`);
  const records = readFileSync(join(dir, 'out', 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RequestRecord);
  const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
  return { out: io.out(), records, report };
}

const successes = (rs: readonly RequestRecord[]) =>
  rs.filter((r) => r.phase === 'measure' && SUCCESS_OUTCOMES.includes(r.outcome));

/** The client's TTFT (first content chunk − sent) is at least the server's queue + prefill. */
function assertTtftCoversServer(r: RequestRecord): void {
  const s = r.server;
  assert.ok(s && s.prefill_ms !== null, `${r.id}: no server prefill`);
  const ttft = (r.first_content_at_ms as number) - (r.sent_at_ms as number);
  assert.ok(ttft >= (s.queue_ms ?? 0) + s.prefill_ms, `${r.id}: TTFT ${ttft} < ${JSON.stringify(s)}`);
}

/** A port nobody listens on now (llama-server does not take port 0). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((ok) => srv.close(() => ok()));
  return port;
}

async function waitHealthy(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`llama-server exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('llama-server did not become healthy in 60 s');
}

describe('server-side times against the real llama.cpp server', () => {
  const skip = HAVE_LLAMA || UNDER_CI ? false : `no llama-server at ${LLAMA_BIN} (../shared/llamacpp)`;
  it('every successful record has server.prefill_ms from timings, and TTFT ≥ queue + prefill', {
    skip,
  }, async () => {
    assert.ok(HAVE_LLAMA, `CI=true needs ${LLAMA_BIN}`);
    const port = await freePort();
    const child = spawn(join(LLAMA_DIR, 'start.sh'), [String(port), 'qwen2'], { stdio: 'ignore' });
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitHealthy(url, child);
      // 6 in flight over 4 slots: some requests wait for a slot, which llama.cpp does not time.
      const { out, records, report } = await runCli([
        'run',
        '--url',
        url,
        '--requests',
        '12',
        '--concurrency',
        '6',
        '--input-len',
        '64',
        '--output-len',
        '8',
        '--ignore-eos',
      ]);
      const ok = successes(records);
      assert.equal(ok.length, 12);
      for (const r of ok) {
        assert.equal(r.server?.source, 'llamacpp.timings');
        assert.equal(r.server?.prefill_ms, r.timings?.prompt_ms);
        assert.equal(r.server?.decode_ms, r.timings?.predicted_ms);
        assert.equal(r.server?.queue_ms, null);
        assertTtftCoversServer(r);
        assert.equal(engineTimes(r)?.clock, 'client');
      }
      const b = report.summary.ttft_breakdown;
      assert.ok(b);
      assert.equal(b.source, 'llamacpp.timings');
      assert.equal(b.server_prefill_ms.n, 12);
      assert.equal(b.ttft_rest_ms.n, 12);
      assert.equal(b.server_queue_ms.mean, null);
      assert.match(b.server_queue_ms.reason ?? '', /no queue time/);
      assert.match(out, /^TTFT breakdown \(ms, from the server's own timings: llamacpp\.timings\)$/m);
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    }
  });
});

describe('server-side times against the simulator', () => {
  it('plan (virtual time): every record has the engine queue and prefill, within its TTFT', async () => {
    const { records, report } = await runCli([
      'plan',
      '--model',
      'llama-3.1-8b',
      '--gpu',
      'h100',
      '--requests',
      '40',
      '--request-rate',
      '20',
      '--seed',
      '3',
    ]);
    const ok = successes(records);
    assert.equal(ok.length, 40);
    for (const r of ok) {
      assert.equal(r.server?.source, 'sim');
      assert.equal(r.server?.prefill_ms, r.timings?.prefill_ms, 'time scale 1: engine ms are wall ms');
      assert.equal(r.server?.queue_ms, r.timings?.queue_ms);
      assertTtftCoversServer(r);
    }
    const b = report.summary.ttft_breakdown;
    assert.ok(b);
    assert.equal(b.source, 'sim');
    assert.equal(b.server_queue_ms.n, 40);
    assert.equal(b.server_prefill_ms.n, 40);
    assert.ok((b.ttft_rest_ms.mean ?? -1) >= 0);
  });

  it('servelab sim --time-scale 10 (real time): engine ms become wall ms over the scale', async () => {
    const sim = await startSimServer(
      { model: 'llama-3.1-8b', gpu: 'h100', port: 0, timeScale: 10, exposeTimings: true },
      { log: () => {} },
    );
    try {
      const { records } = await runCli([
        'run',
        '--url',
        sim.url,
        '--requests',
        '8',
        '--concurrency',
        '4',
        '--input-len',
        '256',
        '--output-len',
        '16',
      ]);
      const ok = successes(records);
      assert.equal(ok.length, 8);
      for (const r of ok) {
        assert.equal(r.server?.source, 'sim');
        assert.equal(r.server?.prefill_ms, (r.timings?.prefill_ms as number) / 10);
        assert.equal(r.server?.queue_ms, (r.timings?.queue_ms as number) / 10);
        assertTtftCoversServer(r);
      }
    } finally {
      await sim.close();
    }
  });
});
