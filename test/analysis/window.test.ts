/**
 * @module test/analysis/window
 * Measurement window, in-flight sweep line and slot-wait detection.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { inFlightProfile, measurementWindow, slotWaits } from '../../src/analysis/window.js';
import { rec } from './records.js';

describe('measurementWindow', () => {
  it('runs from the first measured send to the last measured end, warm-up excluded', () => {
    const w = measurementWindow([
      rec({ id: 'w', phase: 'warmup', sent: 0, end: 900 }),
      rec({ id: 'a', sent: 1000, end: 1400 }),
      rec({ id: 'b', sent: 1200, end: 1300 }),
      rec({ id: 'c', sent: null, end: null, outcome: 'cancelled' }),
    ]);
    assert.deepEqual(w, { start_ms: 1000, end_ms: 1400 });
    assert.equal(measurementWindow([rec({ id: 'w', phase: 'warmup', sent: 0, end: 1 })]), undefined);
  });
});

describe('inFlightProfile', () => {
  const iv: [number, number][] = [
    [0, 100],
    [50, 150],
    [100, 300],
    [200, 300],
  ];

  it('integrates the in-flight count and finds the peak', () => {
    assert.deepEqual(inFlightProfile(iv, { start_ms: 0, end_ms: 300 }), { mean: 500 / 300, peak: 2 });
  });

  it('clips intervals to the window', () => {
    // [50,100] 50 + [50,150] 100 + [100,250] 150 + [200,250] 50 = 350 over 200 ms
    assert.deepEqual(inFlightProfile(iv, { start_ms: 50, end_ms: 250 }), { mean: 1.75, peak: 2 });
    assert.equal(inFlightProfile(iv, { start_ms: 5, end_ms: 5 }), undefined);
  });

  it('the mean never exceeds the peak, nor the peak the interval count', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 500 })), {
          maxLength: 50,
        }),
        (pairs) => {
          const ivs = pairs.map(([s, d]) => [s, s + d] as [number, number]);
          const p = inFlightProfile(ivs, { start_ms: 0, end_ms: 1500 });
          return p !== undefined && p.mean <= p.peak + 1e-9 && p.peak <= ivs.length;
        },
      ),
    );
  });
});

describe('slotWaits', () => {
  it('finds requests whose planned time fell while every slot was busy', () => {
    const recs = [
      rec({ id: 'a', planned: 0, sent: 0, end: 100 }),
      rec({ id: 'b', planned: 10, sent: 10, end: 120 }),
      rec({ id: 'c', planned: 50, sent: 100, end: 160 }), // 2 busy at 50 → waits
      rec({ id: 'd', planned: 130, sent: 131, end: 170 }), // only c in flight at 130: b ended at 120
    ];
    assert.deepEqual([...slotWaits(recs, 2)], ['c']);
    assert.deepEqual([...slotWaits(recs, 1)].sort(), ['b', 'c', 'd']);
    assert.equal(slotWaits(recs, null).size, 0);
  });

  it('a burst (every request planned at 0, --rate inf) under a cap: the ones queued behind it wait', () => {
    // Cap 2: a and b leave a moment after t = 0 (none was sent *at* 0), c and d queue behind them.
    const recs = [
      rec({ id: 'a', planned: 0, sent: 0.02, end: 100 }),
      rec({ id: 'b', planned: 0, sent: 0.03, end: 100 }),
      rec({ id: 'c', planned: 0, sent: 100.1, end: 200 }),
      rec({ id: 'd', planned: 0, sent: 100.2, end: 200 }),
    ];
    assert.deepEqual([...slotWaits(recs, 2)].sort(), ['c', 'd']);
    // Late but not held back: with room under the cap, the delay is the generator's, not a wait.
    assert.deepEqual([...slotWaits(recs, 4)], []);
  });
});
