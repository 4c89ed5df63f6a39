/**
 * One drain rule for every loop (issue 28): an open-loop `run --rate 5 --duration 2
 * --drain-timeout 1` against a server whose streams never finish ends after the drain, with every
 * request in flight recorded `cancelled` and `end.reason: drain_timeout` (before the fix it hung).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { cliProcess } from '../helpers/cli-process.js';
import { chatChunk, sse, startSseServer } from '../helpers/misbehaving.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-drain-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('an open loop honours --drain-timeout: in-flight requests cancelled, end.reason drain_timeout', async () => {
  // Every chat request gets one token, then the stream stalls for good.
  const server = await startSseServer((req) =>
    req.path.startsWith('/v1/models')
      ? { headers: { 'content-type': 'application/json' }, steps: ['{"data":[{"id":"m"}]}'] }
      : {
          headers: { 'content-type': 'text/event-stream' },
          steps: [sse(chatChunk({ content: 'a' })), { stall: true }],
        },
  );
  try {
    const out = join(dir, 'out');
    const args = ['run', '--url', server.baseUrl, '--rate', '5', '--duration', '2', '--drain-timeout', '1'];
    // A fixed prompt needs no token counting; the seed fixes the schedule.
    args.push('--prompt', 'hello', '--seed', '1', '--no-db', '--no-scrape', '--out', out);
    const started = Date.now();
    const r = await cliProcess(args);
    // Generous for a loaded machine: before the fix this never ended.
    assert.ok(Date.now() - started < 30_000, 'the run ended');
    assert.equal(r.code, 3, r.err); // nothing succeeded
    assert.match(r.err, /drain timed out/);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    assert.equal(report.end.reason, 'drain_timeout');
    assert.equal(report.end.interrupted, false);
    const recs = readFileSync(join(out, 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(recs.length, 10);
    assert.ok(recs.every((x) => x.outcome === 'cancelled' && x.sent_at_ms !== null));
    // Cancelled at the drain's end: 2 s of schedule + 1 s of drain (plus the abort's own time).
    const lastEnd = Math.max(...recs.map((x) => x.end_at_ms));
    assert.ok(lastEnd - report.window.start_ms < 4_000, `ended ${lastEnd} ms`);
  } finally {
    await server.close();
  }
});
