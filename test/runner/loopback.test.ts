/**
 * The runner over real loopback HTTP: a node:http SSE server in vLLM's wire shape, the real
 * HTTP client (client/http), the record writer, on the real clock. Assertions are on counts,
 * ids and server-side facts, never on wall-clock durations.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createHttpTarget } from '../../src/client/http.js';
import type { Target } from '../../src/client/types.js';
import { openRecordWriter } from '../../src/record/writer.js';
import { runLoad } from '../../src/runner/loops.js';
import { RealClock } from '../../src/runtime/clock.js';
import type { RequestSpec } from '../../src/workload/types.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-loopback-'));
let server: Server;
let baseUrl: string;
/** X-Request-Id of every request the server saw, in arrival order. */
const seen: string[] = [];
const open = new Set<ServerResponse>();

function chunk(content: string, finish: string | null): string {
  const obj = {
    id: 'c',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(obj)}\n\n`;
}

/**
 * Streams 3 content chunks 2 ms apart, usage and [DONE]. A prompt of `stall` sends one chunk
 * and then never ends the stream (the interruption case).
 */
function handle(req: IncomingMessage, res: ServerResponse): void {
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', () => {
    // The runner opens its connections with GET /v1/models before the window (client/http preconnect).
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    seen.push(String(req.headers['x-request-id']));
    const prompt = JSON.parse(body).messages[0].content as string;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    open.add(res);
    res.on('close', () => open.delete(res));
    res.write(chunk('a', null));
    if (prompt === 'stall') return;
    let i = 1;
    const tick = setInterval(() => {
      i++;
      res.write(chunk(String(i), i === 3 ? 'stop' : null));
      if (i < 3) return;
      clearInterval(tick);
      const usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };
      res.end(`data: ${JSON.stringify({ id: 'c', choices: [], usage })}\n\ndata: [DONE]\n\n`);
    }, 2);
  });
}

before(async () => {
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(async () => {
  for (const res of open) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

function target(clock: RealClock): Target {
  return createHttpTarget({ baseUrl, endpoint: 'chat', model: 'm', stream: true, clock });
}

const specs = (prompt: string): RequestSpec[] => [{ index: 0, prompt, input_len: 7, output_len: 3 }];

test('closed loop over loopback: every planned request is one record, ids reach the server', async () => {
  seen.length = 0;
  const clock = new RealClock();
  const t = target(clock);
  const path = join(dir, 'closed', 'requests.jsonl');
  const writer = openRecordWriter(path);
  const res = await runLoad(
    { load: { kind: 'closed', concurrency: 3, requests: 8 }, specs: specs('hi'), warmup: 2, runPrefix: 'lb' },
    { target: t, clock, observers: [writer] },
  );
  await writer.close();
  await t.close();
  assert.equal(res.records.length, 10);
  assert.deepEqual(
    res.records.map((r) => r.outcome),
    Array(10).fill('ok'),
  );
  assert.deepEqual(res.records.map((r) => r.id).sort(), [...seen].sort());
  assert.deepEqual([...seen].sort(), Array.from({ length: 10 }, (_, i) => `lb-${i}`).sort());
  assert.equal(res.records.filter((r) => r.phase === 'warmup').length, 2);
  assert.ok(res.records.every((r) => r.chunk_times_ms.length === 3 && r.usage?.completion_tokens === 3));
  assert.equal(readFileSync(path, 'utf8').trimEnd().split('\n').length, 10);
  assert.ok(res.window.end_ms >= res.window.start_ms);
});

test('interrupted over loopback: stalled streams end cancelled, unsent ones are recorded, file complete', async () => {
  seen.length = 0;
  const clock = new RealClock();
  const t = target(clock);
  const path = join(dir, 'int', 'requests.jsonl');
  const writer = openRecordWriter(path);
  const ac = new AbortController();
  // Interrupt once both workers' streams are open and have delivered their first chunk.
  let chunks = 0;
  const trigger = { onChunk: () => ++chunks === 2 && ac.abort() };
  const res = await runLoad(
    { load: { kind: 'closed', concurrency: 2, requests: 10 }, specs: specs('stall') },
    { target: t, clock, observers: [writer, trigger], signal: ac.signal },
  );
  await writer.close();
  await t.close();
  assert.equal(res.interrupted, true);
  assert.equal(res.reason, 'interrupted');
  assert.equal(res.records.length, 10);
  assert.equal(seen.length, 2);
  const sent = res.records.filter((r) => r.sent_at_ms !== null);
  assert.equal(sent.length, 2);
  assert.ok(sent.every((r) => r.outcome === 'cancelled' && r.chunk_times_ms.length === 1));
  assert.ok(res.records.every((r) => r.outcome === 'cancelled'));
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  assert.equal(lines.length, 10);
  assert.equal(lines.map((l) => JSON.parse(l)).filter((r) => r.sent_at_ms === null).length, 8);
});

test('open loop over loopback: planned times are exactly t0 + offset, whatever the lateness', async () => {
  seen.length = 0;
  const clock = new RealClock();
  const t = target(clock);
  const arrivalsMs = [0, 3, 6, 9, 12, 15];
  const res = await runLoad(
    { load: { kind: 'open', arrivalsMs, maxConcurrency: 2 }, specs: specs('hi') },
    { target: t, clock },
  );
  await t.close();
  assert.equal(res.records.length, 6);
  assert.equal(seen.length, 6);
  const planned = res.records
    .map((r) => (r.planned_at_ms ?? Number.NaN) - res.window.start_ms)
    .sort((a, b) => a - b);
  for (let i = 0; i < planned.length; i++)
    assert.ok(
      Math.abs(planned[i] - arrivalsMs[i]) < 1e-9,
      `planned ${planned[i]} vs offset ${arrivalsMs[i]}`,
    );
  assert.ok(
    res.records.every((r) => r.outcome === 'ok' && (r.sent_at_ms ?? -1) >= (r.planned_at_ms ?? Infinity)),
  );
});
