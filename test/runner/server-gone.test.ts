/**
 * A server that stops answering mid-run, in virtual time: closed-loop workers back off between
 * connect errors (bounded exponential), the run stops sending after 10 s of connect errors only
 * and records the rest as not sent (one record per planned request), and `serverGone` reads
 * when the server went away from the records.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CONNECT_BACKOFF_MAX_MS,
  SERVER_GONE_AFTER_MS,
  SERVER_GONE_UNSENT,
  serverGone,
} from '../../src/analysis/server-gone.js';
import { runLoad } from '../../src/runner/loops.js';
import { VirtualClock } from '../../src/runtime/clock.js';
import type { RequestSpec } from '../../src/workload/types.js';
import { drive, VirtualTarget } from './virtual-target.js';

const specs: RequestSpec[] = Array.from({ length: 10 }, (_, index) => ({
  index,
  prompt: `p${index}`,
  input_len: 10,
  output_len: 5,
}));
const health = () => ({
  stop: () => ({ event_loop_delay_ms: { mean: null, p50: null, p99: null, max: null }, cpu_percent: null }),
});

/** 200 requests at concurrency 4 against a server that answers in 20 ms until `diesAtMs`, then refuses. */
async function run(diesAtMs: number, load: 'closed' | 'open' = 'closed') {
  const clock = new VirtualClock(1_700_000_000_000);
  const target = new VirtualTarget(clock, () =>
    clock.now() < diesAtMs
      ? { kind: 'ok', latencyMs: 20 }
      : { kind: 'ok', latencyMs: 1, outcome: 'connect_error' },
  );
  const result = await drive(
    clock,
    runLoad(
      {
        load:
          load === 'closed'
            ? { kind: 'closed', concurrency: 4, requests: 200 }
            : { kind: 'open', arrivalsMs: Array.from({ length: 200 }, (_, i) => i * 100) },
        specs,
      },
      { target, clock, health },
    ),
  );
  return { result, target };
}

describe('a server that stops answering', () => {
  test('closed loop: workers back off, the run stops after 10 s of connect errors, one record per planned request', async () => {
    const { result } = await run(500);
    const recs = result.records;
    assert.equal(recs.length, 200, 'one record per planned request (no retries asked for)');
    assert.equal(new Set(recs.map((r) => r.planned_id)).size, 200);
    assert.equal(result.reason, 'server_gone');
    const refused = recs.filter((r) => r.outcome === 'connect_error');
    const unsent = recs.filter((r) => r.outcome === 'cancelled' && r.sent_at_ms === null);
    assert.equal(refused.length + unsent.length, 200 - 100, JSON.stringify({ refused: refused.length }));
    assert.ok(
      unsent.every((r) => r.error?.startsWith(`${SERVER_GONE_UNSENT} (connect errors only since t=0.5 s)`)),
    );
    // Four workers backing off 100, 200, 400 … 2,000 ms over 10 s: a few dozen connect errors,
    // not the 100 remaining requests at once.
    assert.ok(refused.length >= 4 * 5 && refused.length <= 4 * 12, String(refused.length));
    const sends = refused.map((r) => r.sent_at_ms as number).sort((a, b) => a - b);
    assert.ok(sends[sends.length - 1] - sends[0] >= SERVER_GONE_AFTER_MS - CONNECT_BACKOFF_MAX_MS);
    assert.ok(sends[sends.length - 1] - sends[0] <= SERVER_GONE_AFTER_MS + CONNECT_BACKOFF_MAX_MS);
    const gone = serverGone(recs);
    assert.deepEqual(gone, { at_ms: 500, connect_errors: refused.length, unsent: unsent.length });
  });

  test('open loop: keeps its schedule, and stops sending 10 s after the server went away', async () => {
    const { result } = await run(5000, 'open');
    assert.equal(result.records.length, 200);
    assert.equal(result.reason, 'server_gone');
    const refused = result.records.filter((r) => r.outcome === 'connect_error');
    // one every 100 ms from 5 s to 15 s
    assert.ok(refused.length >= 99 && refused.length <= 102, String(refused.length));
    assert.equal(serverGone(result.records)?.at_ms, 5000);
  });

  test('a server that never answered, or that came back, is not "gone"', async () => {
    const never = await run(0);
    assert.equal(never.result.reason, 'server_gone', 'the run still stops sending');
    assert.equal(serverGone(never.result.records), null, 'unreachable, not gone');
    const recs = (await run(Number.POSITIVE_INFINITY)).result.records;
    const blip = recs.map((r, i) => (i === 50 ? { ...r, outcome: 'connect_error' as const } : r));
    assert.equal(serverGone(blip), null);
  });
});
