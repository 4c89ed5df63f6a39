/**
 * Little's law through `servelab run` against purpose-built loopback servers: a closed loop of
 * 100 users against a server with a fixed 20 ms latency keeps 100 requests in flight and is not
 * INVALID for Little's law (λ·W over the send span read 1/(N/c − 1) too many there: 33% at
 * N = 400); an open loop at 1.5 × the capacity of a two-slot FIFO server still is.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import {
  chatChunk,
  DONE,
  type Script,
  type SeenRequest,
  type Step,
  sse,
  startSseServer,
  usageChunk,
} from '../helpers/misbehaving.js';
import '../helpers/node-warnings.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'servelab-little-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A two-token streamed answer after `waitMs`. */
function answer(waitMs: number): Script {
  const steps: Step[] = [
    sse(chatChunk({ role: 'assistant', content: '' })),
    { delay_ms: waitMs },
    sse(chatChunk({ content: 'Hi' })),
    sse(chatChunk({ content: '!', finish_reason: 'stop' })),
    sse(usageChunk({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 })),
    DONE,
  ];
  return { headers: { 'content-type': 'text/event-stream' }, steps };
}

const notFound: Script = { status: 404, headers: { 'content-type': 'application/json' }, steps: ['{}'] };
const chat = (r: SeenRequest) => r.method === 'POST' && r.path.endsWith('/chat/completions');

/** A FIFO server of `slots` slots, each answering in `serviceMs`: a request waits for a free slot. */
function fifo(slots: number, serviceMs: number) {
  const free = Array.from({ length: slots }, () => 0);
  return (r: SeenRequest): Script => {
    if (!chat(r)) return notFound;
    const now = performance.now();
    free.sort((a, b) => a - b);
    const start = Math.max(now, free[0]);
    free[0] = start + serviceMs;
    return answer(free[0] - now);
  };
}

async function run(url: string, ...load: string[]) {
  const dir = tmp();
  const io = memoryIo({}, dir);
  const code = await main(
    [
      'run',
      '--url',
      url,
      '--model',
      'm',
      '--prompt',
      'hi',
      ...load,
      '--out',
      'out',
      '--no-db',
      '--no-scrape',
    ],
    io,
  );
  const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
  return { code, text: io.out() + io.err(), report };
}

describe("Little's law through the CLI", () => {
  it('a closed loop at c=100 against a fixed-latency server: 100 in flight, not INVALID for it', async () => {
    const server = await startSseServer((r) => (chat(r) ? answer(20) : notFound));
    try {
      const { text, report } = await run(server.baseUrl, '--requests', '400', '--concurrency', '100');
      const ll = report.summary.littles_law;
      assert.equal(ll.basis, 'closed_loop', JSON.stringify(ll));
      assert.equal(ll.judged, true, JSON.stringify(ll));
      assert.equal(ll.predicted_in_flight, 100);
      assert.ok(ll.rel_gap < 0.1, JSON.stringify(ll));
      assert.doesNotMatch(text, /littles_law|Little's law off/, text);
      assert.match(text, /predicted \(closed-loop users\) +100\.00/);
    } finally {
      await server.close();
    }
  });

  it("an open loop at 1.5 × the capacity of its server is INVALID for Little's law", async () => {
    // Two slots of 50 ms serve 40 requests/s; 480 requests are sent at 60/s over 8 s: the span
    // holds ~90 early sojourns, judged with room to spare on a slow machine.
    const server = await startSseServer(fifo(2, 50));
    try {
      const { text, report } = await run(server.baseUrl, '--requests', '480', '--rate', '60');
      const ll = report.summary.littles_law;
      assert.equal(ll.basis, 'open_loop', JSON.stringify(ll));
      assert.equal(ll.judged, true, JSON.stringify(ll));
      assert.ok(ll.rel_gap > 0.1, JSON.stringify(ll));
      assert.match(text, /Little's law off by \d+%/, text);
    } finally {
      await server.close();
    }
  });
});
