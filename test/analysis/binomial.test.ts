/**
 * The Wilson score interval against published values: R. G. Newcombe, "Two-sided confidence
 * intervals for the single proportion: comparison of seven methods", Statistics in Medicine 17,
 * 1998, Table I (method 3, the score interval without continuity correction), and the edges.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wilsonInterval, Z_95_ONE_SIDED } from '../../src/analysis/binomial.js';

const near = (got: number | undefined, want: number) =>
  assert.ok(got !== undefined && Math.abs(got - want) < 5e-5, `${got} ≠ ${want}`);

test("Newcombe's Table I, 95% score intervals", () => {
  for (const [k, n, low, high] of [
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ]) {
    const ci = wilsonInterval(k, n);
    near(ci?.low, low);
    near(ci?.high, high);
  }
});

test('every success: the upper end is 1, and 300 of 300 show 99% at one-sided 95%, 140 of 140 do not', () => {
  assert.equal(wilsonInterval(140, 140)?.high, 1);
  assert.ok((wilsonInterval(300, 300, Z_95_ONE_SIDED)?.low ?? 0) >= 0.99);
  assert.ok((wilsonInterval(140, 140, Z_95_ONE_SIDED)?.low ?? 1) < 0.99);
});

test('no trials is no data (null), never an interval', () => {
  assert.equal(wilsonInterval(0, 0), null);
});
