/**
 * Many waiters on one run's stop signal put one `abort` listener on it, so Node never prints
 * `MaxListenersExceededWarning` (16 users thinking at once used to add 16), and each waiter's
 * listener is gone once its wait is over.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { whenAborted } from '../../src/runtime/abort.js';
import { RealClock, VirtualClock } from '../../src/runtime/clock.js';
import '../helpers/node-warnings.js';

const WAITERS = 32; // over Node's default threshold of 10 listeners per signal

describe('one abort listener per signal', () => {
  it('VirtualClock: 32 sleeps on one signal add one listener; each resolves and lets go', async () => {
    const clock = new VirtualClock();
    const ac = new AbortController();
    const sleeps = Array.from({ length: WAITERS }, (_, i) => clock.sleepUntil(10 + i, ac.signal));
    assert.equal(getEventListeners(ac.signal, 'abort').length, 1);
    clock.advanceTo(10 + WAITERS);
    await Promise.all(sleeps);
    // A later abort reaches nobody: the finished sleeps stopped waiting.
    let late = 0;
    const again = whenAborted(ac.signal, () => late++);
    ac.abort(new Error('stop'));
    assert.equal(late, 1);
    again();
  });

  it('RealClock: 32 sleeps an hour out add one listener, and abort rejects each with the reason', async () => {
    const clock = new RealClock();
    const ac = new AbortController();
    const sleeps = Array.from({ length: WAITERS }, () =>
      clock.sleepUntil(clock.now() + 3_600_000, ac.signal),
    );
    const reason = new Error('interrupted');
    try {
      assert.equal(getEventListeners(ac.signal, 'abort').length, 1);
    } finally {
      ac.abort(reason); // also when the count is wrong: no hour-long timer may outlive the test
    }
    const results = await Promise.allSettled(sleeps);
    assert.ok(results.every((r) => r.status === 'rejected' && r.reason === reason));
  });

  it('whenAborted: each waiter is called once, a stopped one never, one fn may wait twice', () => {
    const ac = new AbortController();
    const calls: string[] = [];
    const fn = () => calls.push('fn');
    whenAborted(ac.signal, fn);
    whenAborted(ac.signal, fn);
    const stop = whenAborted(ac.signal, () => calls.push('stopped'));
    stop();
    assert.equal(getEventListeners(ac.signal, 'abort').length, 1);
    ac.abort();
    ac.abort();
    assert.deepEqual(calls, ['fn', 'fn']);
  });
});
