/**
 * runLoad in virtual time: closed and open loops, warm-up, duration drain, interruption,
 * retries and a misbehaving target. Every case checks the invariant: one record per planned
 * request per attempt.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SendArgs } from '../../src/client/types.js';
import { UsageError } from '../../src/core/errors.js';
import type { RequestRecord } from '../../src/record/types.js';
import type { RunObserver } from '../../src/runner/events.js';
import type { RunLoadConfig, RunResult } from '../../src/runner/load.js';
import { runLoad } from '../../src/runner/loops.js';
import { VirtualClock } from '../../src/runtime/clock.js';
import { streamArrivals } from '../../src/schedule/arrivals.js';
import { streamSpecs } from '../../src/workload/spec-stream.js';
import type { RequestSpec } from '../../src/workload/types.js';
import { type Behaviour, drive, VirtualTarget } from './virtual-target.js';

function specs(n: number): RequestSpec[] {
  return Array.from({ length: n }, (_, index) => ({
    index,
    prompt: `p${index}`,
    input_len: 10 + index,
    output_len: 5,
  }));
}

const fixedHealth = () => ({
  stop: () => ({ event_loop_delay_ms: { mean: null, p50: null, p99: null, max: null }, cpu_percent: null }),
});

interface Harness {
  clock: VirtualClock;
  target: VirtualTarget;
  result: RunResult;
  events: {
    sent: { id: string; lateness: number | null; at: number }[];
    records: RequestRecord[];
    ends: string[];
  };
}

async function harness(
  cfg: RunLoadConfig,
  behave: (a: SendArgs) => Behaviour,
  opts: { abortAtMs?: number; signal?: AbortSignal; observers?: RunObserver[]; clock?: VirtualClock } = {},
): Promise<Harness> {
  const clock = opts.clock ?? new VirtualClock(1_700_000_000_000);
  const target = new VirtualTarget(clock, behave);
  const events: Harness['events'] = { sent: [], records: [], ends: [] };
  const spy: RunObserver = {
    onSent: (r, lateness) => events.sent.push({ id: r.id, lateness, at: clock.now() }),
    onRecord: (r) => events.records.push(r),
    onRunEnd: (reason) => events.ends.push(reason),
  };
  const ac = new AbortController();
  if (opts.abortAtMs !== undefined) clock.setTimer(() => ac.abort(), opts.abortAtMs);
  const result = await drive(
    clock,
    runLoad(cfg, {
      target,
      clock,
      observers: [spy, ...(opts.observers ?? [])],
      signal: opts.signal ?? ac.signal,
      health: fixedHealth,
    }),
  );
  return { clock, target, result, events };
}

/** The invariant every case checks. */
function assertOneRecordPerPlannedAttempt(h: Harness, planned: number) {
  const { records } = h.result;
  const firsts = records.filter((r) => r.attempt === 1);
  assert.equal(firsts.length, planned, 'one first-attempt record per planned request');
  assert.equal(new Set(records.map((r) => r.id)).size, records.length, 'ids are unique');
  assert.equal(new Set(firsts.map((r) => r.planned_id)).size, planned, 'planned ids are unique');
  assert.deepEqual(h.events.records, records, 'onRecord saw every record exactly once, in order');
  assert.equal(h.events.ends.length, 1);
}

const ok = (latencyMs: number): Behaviour => ({ kind: 'ok', latencyMs });

describe('closed loop', () => {
  test('M requests at concurrency N: M records, N in flight at most, window covers them', async () => {
    const h = await harness(
      { load: { kind: 'closed', concurrency: 3, requests: 10 }, specs: specs(4), runPrefix: 't' },
      () => ok(100),
    );
    assertOneRecordPerPlannedAttempt(h, 10);
    assert.equal(h.target.maxInFlight, 3);
    assert.ok(h.result.records.every((r) => r.phase === 'measure' && r.outcome === 'ok'));
    assert.deepEqual(h.result.window, { start_ms: 0, end_ms: 400 });
    assert.equal(h.result.reason, 'completed');
    assert.equal(h.result.interrupted, false);
    assert.equal(h.result.started_at_unix_ms, 1_700_000_000_000);
    // Each finished request starts the next: sends at 0 (×3), 100 (×3), 200 (×3), 300 (×1).
    assert.deepEqual(
      h.target.sent.map((s) => s.at_ms),
      [0, 0, 0, 100, 100, 100, 200, 200, 200, 300],
    );
    // Specs are cycled in order and ids are `${prefix}-${n}`.
    assert.deepEqual(
      h.target.sent.map((s) => s.args.spec.index),
      [0, 1, 2, 3, 0, 1, 2, 3, 0, 1],
    );
    assert.deepEqual(
      h.target.sent.map((s) => s.args.id),
      Array.from({ length: 10 }, (_, i) => `t-${i}`),
    );
    // Closed loop: planned = sent, lateness 0.
    assert.ok(h.events.sent.every((s) => s.lateness === 0));
  });

  test('warm-up requests come first, on top, as phase warmup, before the window opens', async () => {
    const h = await harness(
      { load: { kind: 'closed', concurrency: 2, requests: 5 }, specs: specs(5), warmup: 3 },
      () => ok(100),
    );
    assertOneRecordPerPlannedAttempt(h, 8);
    const warm = h.result.records.filter((r) => r.phase === 'warmup');
    assert.equal(warm.length, 3);
    // Warm-up (3 at concurrency 2) ends at 200; the measured phase starts there.
    assert.equal(h.result.window.start_ms, 200);
    assert.ok(warm.every((r) => (r.end_at_ms ?? Infinity) <= h.result.window.start_ms));
    const measured = h.result.records.filter((r) => r.phase === 'measure');
    assert.equal(measured.length, 5);
    assert.ok(measured.every((r) => (r.sent_at_ms ?? -1) >= 200));
    assert.equal(h.result.window.end_ms, 500);
  });

  test('beforeMeasure is awaited after the warm-up, and the window opens when it settles', async () => {
    const clock = new VirtualClock();
    const target = new VirtualTarget(clock, () => ok(100));
    const calls: number[] = [];
    const result = await drive(
      clock,
      runLoad(
        {
          load: { kind: 'closed', concurrency: 2, requests: 4 },
          specs: specs(4),
          warmup: 2,
          // A reading that takes 30 ms (the scrape monitoring takes there).
          beforeMeasure: async () => {
            calls.push(clock.now());
            await clock.sleepUntil(clock.now() + 30);
          },
        },
        { target, clock, health: fixedHealth },
      ),
    );
    assert.deepEqual(calls, [100], 'once, when the warm-up (2 at concurrency 2, 100 ms each) ended');
    assert.equal(result.window.start_ms, 130);
    const measured = result.records.filter((r) => r.phase === 'measure');
    assert.equal(measured.length, 4);
    assert.ok(
      measured.every((r) => (r.sent_at_ms ?? -1) >= 130),
      'no measured request before it settled',
    );
  });

  test('--duration: no new request after the deadline; in-flight ones finish', async () => {
    const starts: (number | null)[] = [];
    const h = await harness(
      { load: { kind: 'closed', concurrency: 2, durationMs: 250 }, specs: specs(3) },
      () => ok(100),
      { observers: [{ onRunStart: (i) => starts.push(i.planned) }] },
    );
    assertOneRecordPerPlannedAttempt(h, 6); // starts at 0, 100, 200 per worker
    assert.deepEqual(starts, [null]);
    assert.equal(h.result.reason, 'duration');
    assert.ok(h.result.records.every((r) => r.outcome === 'ok'));
    assert.equal(h.result.window.end_ms, 300);
  });

  test('--duration: requests still running after the drain timeout are cancelled', async () => {
    const h = await harness(
      { load: { kind: 'closed', concurrency: 2, durationMs: 100 }, specs: specs(3), drainTimeoutMs: 500 },
      () => ok(10_000),
    );
    assertOneRecordPerPlannedAttempt(h, 2);
    assert.ok(h.result.records.every((r) => r.outcome === 'cancelled' && r.end_at_ms === 600));
    assert.equal(h.result.reason, 'drain_timeout');
    assert.equal(h.result.interrupted, false);
  });

  test('--duration: requests that finish within the drain end the run as `duration`', async () => {
    const h = await harness(
      { load: { kind: 'closed', concurrency: 1, durationMs: 100 }, specs: specs(3), drainTimeoutMs: 500 },
      () => ok(150),
    );
    assert.equal(h.result.reason, 'duration');
    assert.ok(h.result.records.every((r) => r.outcome === 'ok'));
  });
});

describe('open loop drain (one rule with the closed loop)', () => {
  test('a --duration schedule: requests still in flight --drain-timeout after its end are cancelled', async () => {
    const arrivalsMs = [0, 50, 100, 150];
    const h = await harness(
      { load: { kind: 'open', arrivalsMs, durationMs: 200 }, specs: specs(4), drainTimeoutMs: 300 },
      () => ok(10_000),
    );
    assertOneRecordPerPlannedAttempt(h, 4);
    assert.ok(h.result.records.every((r) => r.outcome === 'cancelled' && r.end_at_ms === 500));
    assert.equal(h.result.reason, 'drain_timeout');
    assert.equal(h.result.interrupted, false);
  });

  test('a --duration schedule whose requests end within the drain ends as `duration`', async () => {
    const h = await harness(
      { load: { kind: 'open', arrivalsMs: [0, 100], durationMs: 200 }, specs: specs(2), drainTimeoutMs: 300 },
      () => ok(250),
    );
    assert.equal(h.result.reason, 'duration');
    assert.ok(h.result.records.every((r) => r.outcome === 'ok'));
  });

  test('a request-count schedule has no drain: its requests end on their own', async () => {
    const h = await harness(
      { load: { kind: 'open', arrivalsMs: [0, 10] }, specs: specs(2), drainTimeoutMs: 5 },
      () => ok(1_000),
    );
    assert.equal(h.result.reason, 'completed');
    assert.ok(h.result.records.every((r) => r.outcome === 'ok'));
  });
});

describe('open loop', () => {
  test('without a cap every request is sent exactly at t0 + offset', async () => {
    const arrivalsMs = [0, 5, 5, 17.5, 40];
    const h = await harness({ load: { kind: 'open', arrivalsMs }, specs: specs(5) }, () => ok(100));
    assertOneRecordPerPlannedAttempt(h, 5);
    assert.deepEqual(
      h.target.sent.map((s) => s.at_ms),
      arrivalsMs,
    );
    assert.deepEqual(
      h.result.records.map((r) => r.planned_at_ms).sort((a, b) => (a ?? 0) - (b ?? 0)),
      arrivalsMs,
    );
    assert.ok(h.events.sent.every((s) => s.lateness === 0));
    assert.equal(h.target.maxInFlight, 5);
  });

  test('maxConcurrency: a request waiting for a slot keeps its planned time; the schedule never slides', async () => {
    const h = await harness(
      { load: { kind: 'open', arrivalsMs: [0, 10, 20, 30, 40], maxConcurrency: 2 }, specs: specs(5) },
      () => ok(25),
    );
    assertOneRecordPerPlannedAttempt(h, 5);
    assert.equal(h.target.maxInFlight, 2);
    // Slots free at 25, 35, 50: the queued requests go then, in order.
    assert.deepEqual(
      h.target.sent.map((s) => s.at_ms),
      [0, 10, 25, 35, 50],
    );
    const byId = new Map(h.result.records.map((r) => [r.id, r]));
    const planned = h.target.sent.map((s) => byId.get(s.args.id)?.planned_at_ms);
    assert.deepEqual(planned, [0, 10, 20, 30, 40]);
    // Lateness (sent − planned) is visible to observers and in the records.
    assert.deepEqual(
      h.events.sent.map((s) => s.lateness),
      [0, 0, 5, 5, 10],
    );
    assert.deepEqual(
      h.target.sent.map((s) => {
        const r = byId.get(s.args.id)!;
        return (r.sent_at_ms ?? 0) - (r.planned_at_ms ?? 0);
      }),
      [0, 0, 5, 5, 10],
    );
  });

  test('the window opens after warm-up and offsets count from there', async () => {
    const h = await harness(
      { load: { kind: 'open', arrivalsMs: [0, 50] }, specs: specs(2), warmup: 2, warmupConcurrency: 1 },
      () => ok(30),
    );
    assertOneRecordPerPlannedAttempt(h, 4);
    assert.equal(h.result.window.start_ms, 60);
    assert.deepEqual(
      h.target.sent.map((s) => [s.args.phase, s.at_ms]),
      [
        ['warmup', 0],
        ['warmup', 30],
        ['measure', 60],
        ['measure', 110],
      ],
    );
  });
});

describe('interruption', () => {
  test('closed loop: in-flight requests end cancelled, unsent ones are recorded with sent_at_ms null', async () => {
    const h = await harness(
      { load: { kind: 'closed', concurrency: 2, requests: 10 }, specs: specs(3) },
      () => ok(100),
      { abortAtMs: 150 },
    );
    assertOneRecordPerPlannedAttempt(h, 10);
    const out = h.result.records;
    assert.equal(out.filter((r) => r.outcome === 'ok').length, 2);
    const inflight = out.filter((r) => r.outcome === 'cancelled' && r.sent_at_ms !== null);
    assert.equal(inflight.length, 2);
    assert.ok(inflight.every((r) => r.end_at_ms === 150));
    const unsent = out.filter((r) => r.sent_at_ms === null);
    assert.equal(unsent.length, 6);
    assert.ok(unsent.every((r) => r.outcome === 'cancelled' && r.phase === 'measure'));
    assert.equal(h.target.sent.length, 4, 'nothing is sent after the interruption');
    assert.equal(h.result.interrupted, true);
    assert.equal(h.result.reason, 'interrupted');
    assert.deepEqual(h.events.ends, ['interrupted']);
    assert.equal(h.result.window.end_ms, 150);
  });

  test('open loop: unsent requests keep their planned time', async () => {
    const arrivalsMs = Array.from({ length: 10 }, (_, i) => i * 10);
    const h = await harness({ load: { kind: 'open', arrivalsMs }, specs: specs(10) }, () => ok(100), {
      abortAtMs: 35,
    });
    assertOneRecordPerPlannedAttempt(h, 10);
    const unsent = h.result.records.filter((r) => r.sent_at_ms === null);
    assert.deepEqual(
      unsent.map((r) => r.planned_at_ms),
      [40, 50, 60, 70, 80, 90],
    );
    assert.equal(
      h.result.records.filter((r) => r.sent_at_ms !== null && r.outcome === 'cancelled').length,
      4,
    );
  });

  test('a streamed --duration schedule: a stop records what fell due; requests not yet due were never planned', async () => {
    // A 24-hour schedule at 200/s, read as it falls due (issue 28): stopped at 37 ms, the run
    // holds and records 8 requests, not 17 million.
    const arrivalsMs = await streamArrivals(
      { rateRps: 200, arrival: 'constant', durationS: 86_400, seed: 1 },
      async () => undefined,
    );
    const stream = await streamSpecs(
      {
        count: arrivalsMs.length,
        draw: () => null,
        build: async (index) => specs(1).map((s) => ({ ...s, index }))[0],
      },
      { ahead: 4, pause: async () => undefined },
    );
    const h = await harness(
      { load: { kind: 'open', arrivalsMs, durationMs: 86_400_000 }, specs: stream, drainTimeoutMs: 10 },
      () => ok(100),
      { abortAtMs: 37 },
    );
    assertOneRecordPerPlannedAttempt(h, 8);
    assert.deepEqual(
      h.result.records.map((r) => r.index).sort((a, b) => a - b),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    assert.ok(h.result.records.every((r) => r.outcome === 'cancelled' && r.sent_at_ms !== null));
    assert.equal(h.result.reason, 'interrupted');
  });

  test('open loop with a full queue: queued requests are recorded unsent, with their planned time', async () => {
    const h = await harness(
      { load: { kind: 'open', arrivalsMs: [0, 1, 2, 3], maxConcurrency: 1 }, specs: specs(4) },
      () => ok(100),
      { abortAtMs: 50 },
    );
    assertOneRecordPerPlannedAttempt(h, 4);
    const unsent = h.result.records.filter((r) => r.sent_at_ms === null);
    assert.deepEqual(
      unsent.map((r) => r.planned_at_ms),
      [1, 2, 3],
    );
  });

  test('during warm-up: the rest of warm-up and every measured request are recorded', async () => {
    const h = await harness(
      { load: { kind: 'closed', concurrency: 1, requests: 4 }, specs: specs(2), warmup: 3 },
      () => ok(100),
      { abortAtMs: 150 },
    );
    assertOneRecordPerPlannedAttempt(h, 7);
    const phases = h.result.records.map((r) => [
      r.phase,
      r.outcome,
      r.sent_at_ms === null ? 'unsent' : 'sent',
    ]);
    assert.deepEqual(phases, [
      ['warmup', 'ok', 'sent'],
      ['warmup', 'cancelled', 'sent'],
      ['warmup', 'cancelled', 'unsent'],
      ['measure', 'cancelled', 'unsent'],
      ['measure', 'cancelled', 'unsent'],
      ['measure', 'cancelled', 'unsent'],
      ['measure', 'cancelled', 'unsent'],
    ]);
  });

  test('a signal already aborted: nothing is sent, everything is recorded', async () => {
    const ac = new AbortController();
    ac.abort();
    const h = await harness(
      { load: { kind: 'closed', concurrency: 2, requests: 3 }, specs: specs(1) },
      () => ok(1),
      {
        signal: ac.signal,
      },
    );
    assertOneRecordPerPlannedAttempt(h, 3);
    assert.equal(h.target.sent.length, 0);
    assert.ok(h.result.records.every((r) => r.sent_at_ms === null && r.outcome === 'cancelled'));
  });

  test('a client that ignores the abort is given up on after the grace period', async () => {
    const h = await harness(
      { load: { kind: 'closed', concurrency: 2, requests: 2 }, specs: specs(1), abortGraceMs: 1000 },
      () => ({ kind: 'hang' }),
      { abortAtMs: 10 },
    );
    assertOneRecordPerPlannedAttempt(h, 2);
    assert.ok(h.result.records.every((r) => r.outcome === 'cancelled' && r.end_at_ms === 1010));
    assert.match(h.result.records[0].error ?? '', /did not end/);
  });
});

describe('misbehaving targets and observers', () => {
  test('a target that throws or rejects still yields one record each, with the error', async () => {
    const h = await harness(
      { load: { kind: 'closed', concurrency: 2, requests: 6 }, specs: specs(3) },
      (a) =>
        a.spec.index === 0
          ? { kind: 'throw', message: 'boom' }
          : a.spec.index === 1
            ? { kind: 'reject', latencyMs: 20, message: 'socket gone' }
            : ok(10),
    );
    assertOneRecordPerPlannedAttempt(h, 6);
    const byIndex = (i: number) => h.result.records.filter((r) => r.index === i);
    assert.ok(byIndex(0).every((r) => r.outcome === 'stream_error' && /boom/.test(r.error ?? '')));
    assert.ok(byIndex(1).every((r) => r.outcome === 'stream_error' && /socket gone/.test(r.error ?? '')));
    assert.ok(byIndex(1).every((r) => r.end_at_ms !== null && r.sent_at_ms !== null));
    assert.ok(byIndex(2).every((r) => r.outcome === 'ok'));
  });

  test('an observer that throws never breaks the run; the error is reported', async () => {
    const h = await harness(
      { load: { kind: 'closed', concurrency: 1, requests: 3 }, specs: specs(1) },
      () => ok(5),
      {
        observers: [
          {
            onRecord: () => {
              throw new Error('disk full');
            },
          },
        ],
      },
    );
    assertOneRecordPerPlannedAttempt(h, 3);
    assert.equal(h.result.observer_errors.length, 3);
    assert.match(h.result.observer_errors[0], /onRecord: disk full/);
  });

  test('chunks reach observers as they arrive; a throwing onChunk is contained', async () => {
    const seen: [string, number][] = [];
    const h = await harness(
      { load: { kind: 'closed', concurrency: 2, requests: 2 }, specs: specs(1), runPrefix: 'c' },
      () => ({ kind: 'ok', latencyMs: 100, chunks: 3 }),
      {
        observers: [
          { onChunk: (r) => seen.push([r.id, r.chunk_times_ms[r.chunk_times_ms.length - 1]]) },
          {
            onChunk: () => {
              throw new Error('slow consumer');
            },
          },
        ],
      },
    );
    assertOneRecordPerPlannedAttempt(h, 2);
    assert.deepEqual(seen, [
      ['c-0', 25],
      ['c-1', 25],
      ['c-0', 50],
      ['c-1', 50],
      ['c-0', 75],
      ['c-1', 75],
    ]);
    assert.equal(h.result.observer_errors.length, 6);
    assert.match(h.result.observer_errors[0], /^onChunk: slow consumer/);
  });

  test('the runner owns record identity even if the target writes another', async () => {
    const clock = new VirtualClock();
    const target = new VirtualTarget(clock, () => ok(5));
    const orig = target.send.bind(target);
    target.send = async (a) => ({ ...(await orig(a)), id: 'wrong', phase: 'warmup', attempt: 9 });
    const res = await drive(
      clock,
      runLoad(
        { load: { kind: 'closed', concurrency: 1, requests: 2 }, specs: specs(1), runPrefix: 'x' },
        { target, clock, health: fixedHealth },
      ),
    );
    assert.deepEqual(
      res.records.map((r) => [r.id, r.phase, r.attempt]),
      [
        ['x-0', 'measure', 1],
        ['x-1', 'measure', 1],
      ],
    );
  });
});

describe('retries', () => {
  test('each attempt is its own record, linked by planned_id; Retry-After sets the wait', async () => {
    const h = await harness(
      { load: { kind: 'closed', concurrency: 1, requests: 2 }, specs: specs(2), retries: 2, runPrefix: 'r' },
      (a) =>
        a.spec.index === 0 && a.attempt === 1
          ? { kind: 'ok', latencyMs: 10, outcome: 'http_error', http_status: 429, retry_after_s: 1 }
          : ok(10),
    );
    assertOneRecordPerPlannedAttempt(h, 2);
    assert.deepEqual(
      h.result.records.map((r) => [r.id, r.planned_id, r.attempt, r.outcome, r.sent_at_ms]),
      [
        ['r-0', 'r-0', 1, 'http_error', 0],
        ['r-0.2', 'r-0', 2, 'ok', 1010],
        ['r-1', 'r-1', 1, 'ok', 1020],
      ],
    );
    assert.equal(h.result.records[1].planned_at_ms, 1010);
  });

  test('retries stop after N extra attempts, with exponential back-off', async () => {
    const h = await harness(
      {
        load: { kind: 'closed', concurrency: 1, requests: 1 },
        specs: specs(1),
        retries: 2,
        retryBackoffMs: 100,
      },
      () => ({ kind: 'ok', latencyMs: 10, outcome: 'http_error', http_status: 503 }),
    );
    assert.deepEqual(
      h.result.records.map((r) => [r.attempt, r.sent_at_ms]),
      [
        [1, 0],
        [2, 110],
        [3, 320],
      ],
    );
  });

  test('timeouts, 4xx other than 429 and stream errors are not retried', async () => {
    const outcomes: Behaviour[] = [
      { kind: 'ok', latencyMs: 10, outcome: 'timeout' },
      { kind: 'ok', latencyMs: 10, outcome: 'http_error', http_status: 401 },
      { kind: 'ok', latencyMs: 10, outcome: 'stream_error' },
      { kind: 'ok', latencyMs: 10, outcome: 'connect_error', http_status: undefined },
    ];
    const h = await harness(
      { load: { kind: 'closed', concurrency: 1, requests: 4 }, specs: specs(4), retries: 1 },
      (a) => (a.attempt === 1 ? outcomes[a.spec.index] : ok(1)),
    );
    assertOneRecordPerPlannedAttempt(h, 4);
    // Only the connect_error was retried.
    assert.deepEqual(
      h.result.records.filter((r) => r.attempt === 2).map((r) => r.index),
      [3],
    );
  });

  test('an interruption during back-off ends the planned request with its last attempt', async () => {
    const h = await harness(
      {
        load: { kind: 'closed', concurrency: 1, requests: 2 },
        specs: specs(1),
        retries: 3,
        retryBackoffMs: 1000,
      },
      () => ({ kind: 'ok', latencyMs: 10, outcome: 'http_error', http_status: 500 }),
      { abortAtMs: 500 },
    );
    assertOneRecordPerPlannedAttempt(h, 2);
    assert.equal(h.result.records.length, 2);
    assert.equal(h.result.records[1].sent_at_ms, null);
  });
});

test('invalid configurations are rejected with every problem at once', async () => {
  const clock = new VirtualClock();
  const target = new VirtualTarget(clock, () => ok(1));
  await assert.rejects(
    runLoad(
      { load: { kind: 'closed', concurrency: 0 }, specs: [], retries: -1 },
      { target, clock, health: fixedHealth },
    ),
    (err: unknown) => {
      assert.ok(err instanceof UsageError);
      const paths = err.problems.map((p) => p.path);
      assert.deepEqual(paths.sort(), ['--concurrency', '--requests/--duration', '--retries', 'workload']);
      assert.ok(err.problems.every((p) => p.hint));
      return true;
    },
  );
  await assert.rejects(
    runLoad(
      { load: { kind: 'open', arrivalsMs: [0, 10, 5] }, specs: specs(1) },
      { target, clock, health: fixedHealth },
    ),
    /non-decreasing/,
  );
  assert.equal(target.sent.length, 0);
});

describe('retries and the --duration deadline', () => {
  test('a back-off that would end after the deadline sends no further attempt', async () => {
    const h = await harness(
      {
        load: { kind: 'closed', concurrency: 1, durationMs: 100 },
        specs: specs(1),
        retries: 3,
        retryBackoffMs: 200,
        drainTimeoutMs: 10_000,
      },
      () => ({ kind: 'ok', latencyMs: 10, outcome: 'http_error', http_status: 503 }),
    );
    // each attempt fails after 10 ms and its back-off would end 200 ms later, past the deadline
    // at 100: a retry then would be a new send after the run's duration, so every request ends
    // with its first attempt and the worker plans the next one (0, 10, …, 90)
    assert.deepEqual(
      h.result.records.map((r) => [r.attempt, r.sent_at_ms]),
      Array.from({ length: 10 }, (_, i) => [1, i * 10]),
    );
    assert.ok(h.target.sent.every((s) => s.at_ms < 100));
    assert.equal(h.result.reason, 'duration');
    assert.equal(h.result.window.end_ms, 100);
  });
});

describe('fail fast', () => {
  const unauthorized: Behaviour = { kind: 'ok', latencyMs: 10, outcome: 'http_error', http_status: 401 };

  test('closed loop: the first 20 requests all 401 → stop; ≤ 20 + c − 1 sent; the rest recorded as cancelled', async () => {
    const c = 4;
    const h = await harness(
      { load: { kind: 'closed', concurrency: c, requests: 300 }, specs: specs(5), failFast: {} },
      () => unauthorized,
    );
    assertOneRecordPerPlannedAttempt(h, 300);
    assert.equal(h.result.reason, 'failed_fast');
    assert.deepEqual(h.events.ends, ['failed_fast']);
    assert.match(h.result.failed_fast ?? '', /^20 × HTTP 401/);
    assert.equal(h.result.interrupted, false);
    assert.ok(h.target.sent.length <= 20 + c - 1, `sent ${h.target.sent.length}`);
    assert.ok(h.target.sent.length >= 20);
    const unsent = h.result.records.filter((r) => r.sent_at_ms === null);
    assert.equal(unsent.length, 300 - h.target.sent.length);
    for (const r of unsent) {
      assert.equal(r.outcome, 'cancelled');
      assert.match(r.error ?? '', /^not sent: the run stopped early \(fail fast\): 20 × HTTP 401/);
    }
  });

  test('never retried under --retries (401 is not retryable), and still stops', async () => {
    const h = await harness(
      { load: { kind: 'closed', concurrency: 2, requests: 50 }, specs: specs(1), retries: 3, failFast: {} },
      () => unauthorized,
    );
    assertOneRecordPerPlannedAttempt(h, 50);
    assert.equal(h.result.records.filter((r) => r.attempt > 1).length, 0);
    assert.equal(h.result.reason, 'failed_fast');
    assert.ok(h.target.sent.length <= 21);
  });

  test('open loop: stops sending at the verdict; the schedule’s remainder is cancelled', async () => {
    const arrivalsMs = Array.from({ length: 100 }, (_, i) => i * 5);
    const h = await harness(
      { load: { kind: 'open', arrivalsMs, maxConcurrency: null }, specs: specs(3), failFast: {} },
      () => ({ kind: 'ok', latencyMs: 12, outcome: 'http_error', http_status: 404 }),
    );
    assertOneRecordPerPlannedAttempt(h, 100);
    assert.equal(h.result.reason, 'failed_fast');
    // The 20th ends at 19·5 + 12 = 107 ms; sends due by then: 0..105 ms → 22.
    assert.equal(h.target.sent.length, 22);
    assert.equal(h.result.records.filter((r) => r.sent_at_ms === null).length, 78);
  });

  test('fewer planned than 20: all of them decide (and nothing is left to cancel)', async () => {
    const h = await harness(
      { load: { kind: 'closed', concurrency: 1, requests: 3 }, specs: specs(3), failFast: {} },
      () => unauthorized,
    );
    assert.equal(h.result.reason, 'failed_fast');
    assert.match(h.result.failed_fast ?? '', /^3 × HTTP 401/);
    assert.equal(h.target.sent.length, 3);
  });

  test('goes on when one of the first 20 succeeded, for retryable classes, and when off', async () => {
    const mostly401 = await harness(
      { load: { kind: 'closed', concurrency: 1, requests: 40 }, specs: specs(40), failFast: {} },
      (a) => (a.spec.index === 7 ? ok(5) : unauthorized),
    );
    assert.equal(mostly401.result.reason, 'completed');
    assert.equal(mostly401.target.sent.length, 40);
    const busy = await harness(
      { load: { kind: 'closed', concurrency: 2, requests: 40 }, specs: specs(1), failFast: {} },
      () => ({ kind: 'ok', latencyMs: 5, outcome: 'http_error', http_status: 503 }),
    );
    assert.equal(busy.result.reason, 'completed');
    assert.equal(busy.target.sent.length, 40);
    const off = await harness(
      { load: { kind: 'closed', concurrency: 4, requests: 60 }, specs: specs(1) },
      () => unauthorized,
    );
    assert.equal(off.result.reason, 'completed');
    assert.equal(off.result.failed_fast, null);
    assert.equal(off.target.sent.length, 60);
  });

  test('warm-up failures do not count: the rule looks at measured requests only', async () => {
    const h = await harness(
      { load: { kind: 'closed', concurrency: 1, requests: 30 }, specs: specs(1), warmup: 25, failFast: {} },
      (a) => (a.phase === 'warmup' ? unauthorized : ok(5)),
    );
    assert.equal(h.result.reason, 'completed');
    assert.equal(h.target.sent.length, 55);
  });
});

describe('a coordinated start (run --workers)', () => {
  const open = (n: number) => ({
    load: { kind: 'open' as const, arrivalsMs: Array.from({ length: n }, (_, i) => i * 10) },
    specs: specs(n),
  });

  test('the window opens at the start the coordinator gives, after the warm-up', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const readyAt: number[] = [];
    const h = await harness(
      {
        ...open(4),
        warmup: 2,
        start: {
          atMs: 0,
          lateLimitMs: 1000,
          policy: 'fail',
          ready: async () => {
            readyAt.push(clock.now());
            return clock.now() + 500;
          },
        },
      },
      () => ok(20),
      { clock },
    );
    assertOneRecordPerPlannedAttempt(h, 6);
    assert.equal(readyAt.length, 1);
    assert.ok(readyAt[0] >= 20, `ready at ${readyAt[0]} ms: only after the warm-up`);
    assert.equal(h.result.start_at_ms, readyAt[0] + 500);
    assert.equal(h.result.window.start_ms, readyAt[0] + 500);
    const sends = h.events.sent.slice(2).map((e) => e.at);
    assert.deepEqual(
      sends,
      [0, 10, 20, 30].map((o) => readyAt[0] + 500 + o),
    );
    assert.equal(h.result.reason, 'completed');
  });

  test('an interrupt while waiting for the coordinator ends the run: nothing waits forever', async () => {
    const h = await harness(
      {
        ...open(3),
        start: { atMs: 0, lateLimitMs: 1000, policy: 'fail', ready: () => new Promise(() => {}) },
      },
      () => ok(20),
      { abortAtMs: 300 },
    );
    assertOneRecordPerPlannedAttempt(h, 3);
    assert.equal(h.result.interrupted, true);
    assert.ok(h.result.records.every((r) => r.outcome === 'cancelled' && r.sent_at_ms === null));
  });
});
