/**
 * @module test/analysis/littles-law
 * The Little's-law estimator on constructed schedules: closed loops in lock-step waves (where
 * λ·W over the send span read a gap of 1/(N/c − 1)), a closed loop with uneven service times,
 * a stable open loop and an overloaded one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LITTLES_LAW_MAX_GAP, littlesLaw } from '../../src/analysis/littles-law.js';

type Interval = [number, number];

/** A deterministic uniform [0, 1) stream (Park–Miller). */
function uniform(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 16807) % 2147483647;
    return (x - 1) / 2147483646;
  };
}

/**
 * A closed loop of `c` users and `n` requests: each user sends its next request `turnMs` after
 * its last one ended, until `n` were sent. Service time `svc()`; the users start within `jitterMs`.
 */
function closedLoop(n: number, c: number, svc: () => number, jitterMs = 0, turnMs = 0.1): Interval[] {
  const u = uniform(7);
  const free = Array.from({ length: c }, () => u() * jitterMs);
  const out: Interval[] = [];
  for (let i = 0; i < n; i++) {
    free.sort((a, b) => a - b);
    const s = free[0];
    const e = s + svc();
    out.push([s, e]);
    free[0] = e + turnMs;
  }
  return out;
}

/** An open loop: `n` sends at `rateRps` (evenly spaced) into a FIFO server of `slots` slots. */
function openLoop(n: number, rateRps: number, slots: number, svc: () => number): Interval[] {
  const free = Array.from({ length: slots }, () => 0);
  const out: Interval[] = [];
  for (let i = 0; i < n; i++) {
    const t = (i * 1000) / rateRps;
    free.sort((a, b) => a - b);
    const start = Math.max(t, free[0]);
    free[0] = start + svc();
    out.push([t, free[0]]);
  }
  return out;
}

describe("Little's law estimator", () => {
  const u = uniform(42);
  const cases: {
    name: string;
    intervals: Interval[];
    users: number | null;
    invalid: boolean;
    judged: boolean;
  }[] = [
    // Lock-step waves of 20 ms: every user's request takes the same time.
    {
      name: 'closed c=100 N=1000',
      intervals: closedLoop(1000, 100, () => 20),
      users: 100,
      invalid: false,
      judged: true,
    },
    {
      name: 'closed c=100 N=200',
      intervals: closedLoop(200, 100, () => 20),
      users: 100,
      invalid: false,
      judged: true,
    },
    {
      name: 'closed c=8 N=64',
      intervals: closedLoop(64, 8, () => 900 + 200 * u(), 5),
      users: 8,
      invalid: false,
      judged: true,
    },
    {
      name: 'closed c=8 N=12',
      intervals: closedLoop(12, 8, () => 100),
      users: 8,
      invalid: false,
      judged: false,
    },
    // 10 requests/s into 16 slots of 1 s: utilisation 0.63, 60 s of sends.
    {
      name: 'open stable',
      intervals: openLoop(600, 10, 16, () => 500 + 1000 * u()),
      users: null,
      invalid: false,
      judged: true,
    },
    // 24 requests/s into the same 16 slots: 1.5 × capacity, the queue grows for 25 s.
    {
      name: 'open overloaded',
      intervals: openLoop(600, 24, 16, () => 1000),
      users: null,
      invalid: true,
      judged: true,
    },
    // 40 requests/s into 2 slots of 100 ms: 2 × capacity for 7.5 s, overloaded from the start.
    {
      name: 'open overloaded, short',
      intervals: openLoop(300, 40, 2, () => 100),
      users: null,
      invalid: true,
      judged: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const ll = littlesLaw(c.intervals, null, c.users);
      assert.equal(ll.judged, c.judged, JSON.stringify(ll));
      assert.ok(ll.rel_gap !== null, JSON.stringify(ll));
      assert.equal(ll.rel_gap > LITTLES_LAW_MAX_GAP, c.invalid, JSON.stringify(ll));
      assert.equal(ll.basis, c.users === null ? 'open_loop' : 'closed_loop');
    });
  }

  it('reads the lock-step closed loop as exactly c in flight, where λ·W over the send span read 1/(N/c − 1) more', () => {
    const iv = closedLoop(1000, 100, () => 20, 0, 0);
    const ll = littlesLaw(iv, null, 100);
    assert.ok(Math.abs((ll.measured_in_flight as number) - 100) < 1e-9, JSON.stringify(ll));
    assert.equal(ll.predicted_in_flight, 100);
    // The same waves judged as an open loop (λ·W with the last wave's sends in λ) are what the
    // old estimator reported: 10 waves of sends over 9 wave lengths.
    const sends = iv.map(([s]) => s);
    const span = Math.max(...sends) - Math.min(...sends);
    const oldPredicted = ((iv.length - 1) / span) * 20;
    assert.ok(Math.abs(oldPredicted / 100 - 1 - 1 / 9) < 0.01, String(oldPredicted));
  });

  it('sees a client that does not keep its closed loop busy', () => {
    // 8 users, but each waits 100 ms between a response and its next request (20 ms service).
    const ll = littlesLaw(
      closedLoop(400, 8, () => 20, 0, 100),
      null,
      8,
    );
    assert.ok((ll.rel_gap as number) > LITTLES_LAW_MAX_GAP, JSON.stringify(ll));
    assert.ok((ll.measured_in_flight as number) < 2, JSON.stringify(ll));
  });

  it('has no rate for a single send', () => {
    const ll = littlesLaw([[0, 10]], { start_ms: 0, end_ms: 10 }, null);
    assert.equal(ll.predicted_in_flight, null);
    assert.equal(ll.rel_gap, null);
    assert.equal(ll.judged, false);
  });
});
