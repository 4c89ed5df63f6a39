/**
 * @module test/analysis/ttft-breakdown
 * The TTFT split from the server's own times: which requests count, what each part is, and the
 * reason a part is empty. Expected values are hand-computed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { summarize } from '../../src/analysis/summary.js';
import { ttftBreakdown, ttftTailShares } from '../../src/analysis/ttft-breakdown.js';
import { translator } from '../../src/i18n/index.js';
import type { RequestRecord, RequestServerTimes } from '../../src/record/types.js';
import { ttftBreakdownLines } from '../../src/report/run/summary-table.js';
import { rec } from './records.js';

/** A streamed record sent at `sent` with its first token at `first`, and the server's times. */
const timed = (id: string, sent: number, first: number, server: RequestServerTimes | null): RequestRecord =>
  Object.assign(rec({ id, sent, chunks: [[first, 'c']], tokens: 1 }), { server });
const llama = (prefill_ms: number): RequestServerTimes => ({
  queue_ms: null,
  prefill_ms,
  decode_ms: 10,
  source: 'llamacpp.timings',
});
const sim = (queue_ms: number, prefill_ms: number): RequestServerTimes => ({
  queue_ms,
  prefill_ms,
  decode_ms: 10,
  source: 'sim',
});

describe('ttftBreakdown', () => {
  it('llama.cpp: prefill from its timings, no queue (with the reason), the rest is TTFT − prefill', () => {
    const b = ttftBreakdown([
      timed('a', 0, 50, llama(20)),
      timed('b', 10, 40, llama(10)),
      timed('c', 0, 100, llama(30)),
    ]);
    assert.equal(b.source, 'llamacpp.timings');
    assert.deepEqual(b.first_token_ms, { n: 3, mean: 60, p50: 50, reason: null });
    assert.deepEqual(b.server_prefill_ms, { n: 3, mean: 20, p50: 20, reason: null });
    // rests: 30, 20, 70
    assert.deepEqual(b.ttft_rest_ms, { n: 3, mean: 40, p50: 30, reason: null });
    assert.equal(b.server_queue_ms.n, 0);
    assert.equal(b.server_queue_ms.mean, null);
    assert.match(b.server_queue_ms.reason ?? '', /no queue time/);
  });

  it('the simulator: first token = queue + prefill + rest, request by request', () => {
    const b = ttftBreakdown([timed('a', 0, 50, sim(5, 40)), timed('b', 0, 30, sim(15, 10))]);
    assert.equal(b.source, 'sim');
    assert.equal(b.server_queue_ms.mean, 10);
    assert.equal(b.server_prefill_ms.mean, 25);
    assert.equal(b.ttft_rest_ms.mean, 5);
    assert.equal(b.first_token_ms.mean, 40);
  });

  it("splits the first token of any kind (reasoning included): the engine's prefill ends there", () => {
    const r = Object.assign(
      rec({
        id: 'r',
        sent: 0,
        chunks: [
          [30, 'r'],
          [400, 'c'],
        ],
        tokens: 2,
      }),
      { server: sim(5, 20) },
    );
    const b = ttftBreakdown([r]);
    assert.equal(b.first_token_ms.mean, 30);
    assert.equal(b.ttft_rest_ms.mean, 5);
  });

  it('counts only requests the engine timed; a request without server times is left out', () => {
    const b = ttftBreakdown([timed('a', 0, 50, llama(20)), timed('b', 0, 500, null)]);
    assert.equal(b.server_prefill_ms.n, 1);
    assert.equal(b.first_token_ms.mean, 50);
  });

  it('no data is null with a reason, never 0', () => {
    const none = ttftBreakdown([timed('a', 0, 50, null)]);
    assert.equal(none.source, null);
    for (const k of ['first_token_ms', 'server_queue_ms', 'server_prefill_ms', 'ttft_rest_ms'] as const) {
      assert.equal(none[k].mean, null);
      assert.match(none[k].reason ?? '', /no per-request timings/);
    }
    const unstreamed = rec({ id: 'u', sent: 0, chunks: [[80, 'c']], tokens: 9, stream: false });
    const b = ttftBreakdown([Object.assign(unstreamed, { server: llama(20) })]);
    assert.match(b.server_prefill_ms.reason ?? '', /no successful request was streamed/);
  });

  it('says its reasons in the reader language, and the console shows a stored English one in it', () => {
    const zh = translator('zh-CN');
    const b = ttftBreakdown([timed('a', 0, 50, llama(20))], zh);
    assert.match(b.server_queue_ms.reason ?? '', /排队/);
    const stored = ttftBreakdown([timed('a', 0, 50, llama(20))]);
    const lines = ttftBreakdownLines(stored, zh).join('\n');
    assert.match(lines, /TTFT 分解/);
    assert.match(lines, /llamacpp\.timings/);
    assert.match(lines, /排队/);
    assert.doesNotMatch(lines, /no queue time/);
  });

  it("is in the run summary, over the successful measured requests' final attempts", () => {
    const failed = Object.assign(timed('f', 0, 900, llama(800)), { outcome: 'stream_error' as const });
    const warm = Object.assign(timed('w', 0, 900, llama(800)), { phase: 'warmup' as const });
    const s = summarize([timed('a', 0, 50, llama(20)), failed, warm]);
    assert.equal(s.ttft_breakdown?.server_prefill_ms.n, 1);
    assert.equal(s.ttft_breakdown?.server_prefill_ms.mean, 20);
  });
});

describe('ttftTailShares', () => {
  // 100 requests with a 100 ms TTFT (60 queue, 30 prefill) and one slow one: 1,000 ms, of which
  // 780 queue and 150 prefill.
  const fast = Array.from({ length: 100 }, (_, i) => timed(`f${i}`, i, i + 100, sim(60, 30)));
  const slow = timed('s', 0, 1000, sim(780, 150));

  it('says how much of the p99 tail each part explains, over the requests at or above p99', () => {
    const s = ttftTailShares([...fast, slow]);
    assert.ok(s);
    // p99 of 101 TTFTs (100 × 100 ms, 1 × 1000 ms) is 100 ms: the tail is every request.
    assert.equal(s.n, 101);
    const only = ttftTailShares([...fast, slow], 100);
    assert.ok(only);
    assert.equal(only.n, 1);
    assert.equal(only.queue, 0.78);
    assert.equal(only.prefill, 0.15);
    assert.ok(Math.abs((only.rest as number) - 0.07) < 1e-9);
  });

  it('has no queue share where the engine reports none (llama.cpp), and is null without timings', () => {
    const s = ttftTailShares([timed('a', 0, 400, llama(100))]);
    assert.deepEqual(s && [s.queue, s.prefill, s.rest], [null, 0.25, 0.75]);
    assert.equal(ttftTailShares([timed('b', 0, 400, null)]), null);
    assert.equal(ttftTailShares([]), null);
  });
});
