/**
 * @module test/analysis/load-curve
 * The knee of a load curve as the report's chart marks it: the experiment result's rule
 * (`analysis/knee`), so both name the same level.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { throughputKnee as expKnee } from '../../src/analysis/knee.js';
import { findKnee } from '../../src/analysis/load-curve.js';

test('knee: the point where a rising curve flattens; none for a straight line or too few points', () => {
  assert.equal(findKnee([1, 2, 4, 8, 16], [100, 200, 390, 420, 430]), 2);
  assert.equal(findKnee([1, 2, 3, 4], [10, 20, 30, 40]), null);
  assert.equal(findKnee([1, 2], [10, 20]), null);
  assert.equal(findKnee([1, 2, 4, 8], [100, null, 390, 400]), 2);
});

test('knee: the chart marks the level the experiment result names (one rule for both)', () => {
  // Still rising by ≥ 10% at every doubling: the sweep says "no knee yet", so must the chart
  // (a chord-distance rule put a knee at 4 on this concave curve).
  const xs = [1, 2, 4, 8, 16];
  const ys = [100, 170, 260, 330, 370];
  const fromExp = expKnee(
    ys,
    ys.map(() => null),
    xs,
  );
  assert.equal(fromExp.index, null, fromExp.reason);
  assert.equal(findKnee(xs, ys), null);
});
