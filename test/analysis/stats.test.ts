/**
 * @module test/analysis/stats
 * Percentile, describe, weighted-describe and the sorted-list searches: hand values plus
 * fast-check properties.
 */
import assert from 'node:assert/strict';
import { it, describe as suite } from 'node:test';
import fc from 'fast-check';
import {
  describe,
  describeWeighted,
  insertSorted,
  lowerBound,
  percentile,
  upperBound,
} from '../../src/analysis/stats.js';

const close = (a: number | null, b: number) => assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${a} ≠ ${b}`);
const finite = fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true });

suite('percentile (numpy linear)', () => {
  it('matches hand-computed values', () => {
    const a = [1, 2, 3, 4];
    close(percentile(a, 0), 1);
    close(percentile(a, 50), 2.5); // rank 1.5
    close(percentile(a, 90), 3.7); // rank 2.7
    close(percentile(a, 99), 3.97); // rank 2.97
    close(percentile(a, 100), 4);
    close(percentile([7], 99), 7);
    assert.equal(percentile([], 50), null);
    assert.throws(() => percentile(a, 101), RangeError);
  });

  it('is monotone in p and stays within [min, max]', () => {
    fc.assert(
      fc.property(
        fc.array(finite, { minLength: 1, maxLength: 200 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (xs, p, q) => {
          const s = [...xs].sort((x, y) => x - y);
          const [lo, hi] = p <= q ? [p, q] : [q, p];
          const a = percentile(s, lo) as number;
          const b = percentile(s, hi) as number;
          return a <= b && a >= s[0] && b <= s[s.length - 1];
        },
      ),
    );
  });
});

suite('describe', () => {
  it('gives n, mean, population std, min, percentiles, max', () => {
    const s = describe([4, 1, 3, 2]);
    assert.equal(s.n, 4);
    close(s.mean, 2.5);
    close(s.std, Math.sqrt(1.25)); // squared deviations 2.25+0.25+0.25+2.25 over 4
    assert.equal(s.min, 1);
    assert.equal(s.max, 4);
    close(s.p50, 2.5);
    close(s.p95, 3.85);
  });

  it('is null, not 0, with no data', () => {
    const s = describe([]);
    assert.equal(s.n, 0);
    for (const k of ['mean', 'std', 'min', 'p50', 'p90', 'p95', 'p99', 'max'] as const)
      assert.equal(s[k], null);
  });

  it('keeps the ordering min ≤ p50 ≤ p90 ≤ p95 ≤ p99 ≤ max and does not modify its input', () => {
    fc.assert(
      fc.property(fc.array(finite, { minLength: 1, maxLength: 100 }), (xs) => {
        const copy = [...xs];
        const s = describe(xs);
        assert.deepEqual(xs, copy);
        const order = [s.min, s.p50, s.p90, s.p95, s.p99, s.max] as number[];
        for (let i = 1; i < order.length; i++) if (order[i - 1] > order[i]) return false;
        return (
          (s.mean as number) >= (s.min as number) - 1e-6 && (s.mean as number) <= (s.max as number) + 1e-6
        );
      }),
    );
  });
});

suite('describeWeighted', () => {
  it('equals describe on the expanded list', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 6 })), {
          maxLength: 30,
        }),
        (pairs) => {
          const expanded = pairs.flatMap(([v, w]) => Array<number>(w).fill(v));
          const a = describeWeighted(pairs);
          const b = describe(expanded);
          assert.equal(a.n, b.n);
          for (const k of ['mean', 'std', 'min', 'p50', 'p90', 'p95', 'p99', 'max'] as const) {
            if (b[k] === null) assert.equal(a[k], null);
            else assert.ok(Math.abs((a[k] as number) - (b[k] as number)) < 1e-6, `${k}: ${a[k]} vs ${b[k]}`);
          }
        },
      ),
    );
  });

  it('weights by count: one heavy value dominates the median', () => {
    const s = describeWeighted([
      [10, 1],
      [50, 9],
    ]);
    assert.equal(s.n, 10);
    close(s.mean, 46); // (10 + 450) / 10
    assert.equal(s.p50, 50);
  });
});

suite('sorted-list searches', () => {
  it('count values ≤ x (upperBound) and < x (lowerBound), ties included', () => {
    const a = [1, 2, 2, 2, 5];
    assert.deepEqual(
      [0, 1, 2, 3, 5, 9].map((x) => upperBound(a, x)),
      [0, 1, 4, 4, 5, 5],
    );
    assert.deepEqual(
      [0, 1, 2, 3, 5, 9].map((x) => lowerBound(a, x)),
      [0, 0, 1, 4, 4, 5],
    );
    assert.equal(upperBound(new Float64Array(), 3), 0);
  });

  it('agree with a linear count on any sorted list', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -20, max: 20 })), fc.integer({ min: -25, max: 25 }), (xs, x) => {
        const a = [...xs].sort((p, q) => p - q);
        assert.equal(upperBound(a, x), a.filter((v) => v <= x).length);
        assert.equal(lowerBound(a, x), a.filter((v) => v < x).length);
      }),
    );
  });

  it('insertSorted keeps the list sorted and loses nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 })), (xs) => {
        const a: number[] = [];
        for (const v of xs) insertSorted(a, v);
        assert.deepEqual(
          a,
          [...xs].sort((p, q) => p - q),
        );
      }),
    );
  });
});
