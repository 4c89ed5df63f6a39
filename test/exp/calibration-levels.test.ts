/**
 * Issue 26 item 5: the calibration template keeps doubling its saturation levels while the output
 * rate still grows (the saturation rule `calibrate` reads), so a GPU that still scales at the top
 * listed level still gives calibrate a saturated level.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CalibrationPoint, stillGrowing } from '../../src/exp/kinds/calibration.js';

const at = (concurrency: number, rate: number | null, phase: CalibrationPoint['phase'] = 'saturation') =>
  ({ phase, concurrency, output_throughput_tok_s: rate }) as CalibrationPoint;

test('still growing while the top level is more than 10% above every level at ≤ 2/3 of it', () => {
  assert.equal(stillGrowing([at(1, 300), at(4, 1200), at(16, 4000), at(64, 9100)]), true);
  // c=128 within 10% of c=64 (≤ 2/3 of 128): saturated, stop.
  assert.equal(stillGrowing([at(16, 4000), at(64, 9100), at(128, 9900)]), false);
  // c=128 grew 16% over c=64: go on.
  assert.equal(stillGrowing([at(64, 9100), at(128, 10585)]), true);
  // Nothing measured, or only low-load phases: nothing to extend.
  assert.equal(stillGrowing([]), false);
  assert.equal(stillGrowing([at(1, 300, 'decode'), at(1, 250, 'prefill')]), false);
});
