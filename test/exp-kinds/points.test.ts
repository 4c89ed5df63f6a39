import assert from 'node:assert/strict';
import { test } from 'node:test';
import { throughputKnee as findKnee } from '../../src/analysis/knee.js';
import { formatPct, pctUnreliable } from '../../src/exp/kinds/points.js';

const none = (n: number) => new Array<string | null>(n).fill(null);

test('knee: a doubling sweep stops at the first level whose successor adds < 10%', () => {
  // Throughput 100, 190, 360, 370, 372 at c = 1, 2, 4, 8, 16: flat after 4.
  const k = findKnee([100, 190, 360, 370, 372], none(5), [1, 2, 4, 8, 16]);
  assert.equal(k.index, 2, k.reason);
  assert.match(k.reason, /stops rising/);
  // Same answer without levels (the default step is a doubling).
  assert.equal(findKnee([100, 190, 360, 370, 372], none(5)).index, 2);
  // Still rising by ≥ 10% at every doubling: no knee.
  assert.equal(findKnee([100, 200, 400, 800], none(4), [1, 2, 4, 8]).index, null);
});

test('knee: a rate sweep whose throughput tracks the rate has no knee, even with 10% steps', () => {
  // Capacity fractions 0.25 … 1.25 of 4 req/s, the engine keeping up at every rate (throughput
  // 97–99% of the offered rate, as a finite open-loop run measures it): throughput grows as the
  // load does, so it never "stops rising". A fixed 10% gain threshold called a knee at 4 req/s,
  // because the step to 4.4 req/s is itself only a 10% step and noise took a little off it.
  const rates = [1, 2, 3, 3.6, 4, 4.4, 5];
  const tracked = [0.99, 1.98, 2.94, 3.55, 3.97, 4.3, 4.91];
  const k = findKnee(tracked, none(rates.length), rates);
  assert.equal(k.index, null, k.reason);
  // The same rates with throughput flat from 4 req/s on: the knee is 4 (index 4).
  const flat = [1, 2, 3, 3.6, 4, 4.02, 4.01];
  assert.equal(findKnee(flat, none(flat.length), rates).index, 4);
});

test('knee: a tripped stop rule puts the knee at the level before it', () => {
  const k = findKnee([100, 200, 400, 800], [null, null, 'p99 TTFT …', null], [1, 2, 4, 8]);
  assert.equal(k.index, 1);
  assert.match(k.reason, /stop rule/);
});

test('knee: zero or missing throughput never yields NaN or Infinity in the reason', () => {
  const k = findKnee([0, 0, 0], none(3), [1, 2, 4]);
  assert.doesNotMatch(k.reason, /NaN|Infinity/);
  const m = findKnee([100, null, 101], none(3), [1, 2, 4]);
  assert.doesNotMatch(m.reason, /NaN|Infinity/);
  // A missing middle level is skipped: 100 → 101 over the two steps is still flat.
  assert.equal(m.index, 0, m.reason);
});

test('formatPct marks a p99 from < 100 samples and a p95 from < 20, and never a missing value', () => {
  assert.equal(formatPct({ p50: 1, p95: 2, p99: 3, n: 100 }), '1.0/2.0/3.0');
  assert.equal(formatPct({ p50: 1, p95: 2, p99: 3, n: 99 }), '1.0/2.0/3.0*');
  assert.equal(formatPct({ p50: 1, p95: 2, p99: 3, n: 19 }), '1.0/2.0*/3.0*');
  assert.equal(formatPct({ p50: null, p95: null, p99: null, n: 0 }), '-/-/-');
  assert.equal(pctUnreliable({ p50: null, p95: null, p99: null, n: 0 }), false);
  assert.equal(pctUnreliable({ p50: 1, p95: 2, p99: 3, n: 50 }), true);
});
