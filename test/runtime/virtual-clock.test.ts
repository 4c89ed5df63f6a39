/**
 * VirtualClock's timers fire in (time, insertion) order, whatever order they were set or
 * cancelled in: the order a seed's run depends on. Checked against a plain sort of the same
 * timers, with a third of them cancelled (enough to make the heap drop them in bulk).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '../../src/runtime/clock.js';
import { Rng } from '../../src/runtime/rng.js';

describe('VirtualClock timers', () => {
  it('fire in (time, insertion) order; cancelled ones never fire', () => {
    const clock = new VirtualClock();
    const rng = new Rng(7);
    const fired: number[] = [];
    const expected: { at: number; i: number }[] = [];
    for (let i = 0; i < 2000; i++) {
      // whole milliseconds, so many timers share a time and insertion order decides
      const at = rng.int(0, 199);
      const cancel = clock.setTimer(() => fired.push(i), at);
      if (i % 3 === 1) cancel();
      else expected.push({ at, i });
    }
    assert.equal(clock.nextTimerAt(), Math.min(...expected.map((e) => e.at)));
    clock.advanceTo(1000);
    expected.sort((a, b) => a.at - b.at || a.i - b.i);
    assert.deepEqual(
      fired,
      expected.map((e) => e.i),
    );
    assert.equal(clock.nextTimerAt(), undefined);
  });

  it('a timer set while firing, due now, fires in the same advance, after those already due', () => {
    const clock = new VirtualClock();
    const order: string[] = [];
    clock.setTimer(() => {
      order.push('a');
      clock.setTimer(() => order.push('c'), 0);
    }, 5);
    clock.setTimer(() => order.push('b'), 5);
    clock.setTimer(() => order.push('d'), 6);
    clock.advanceTo(5);
    assert.deepEqual(order, ['a', 'b', 'c']);
    assert.equal(clock.now(), 5);
    clock.advanceTo(10);
    assert.deepEqual(order, ['a', 'b', 'c', 'd']);
  });
});
