/**
 * Client health: the probe reports event-loop delay and CPU% in the summary's shape, and
 * stops once. Values depend on the machine, so only their kind and consistency are checked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startClientHealth } from '../../src/runner/health.js';
import { RealClock, VirtualClock } from '../../src/runtime/clock.js';

test('health probe: shape, non-negative values, idempotent stop', async () => {
  const probe = startClientHealth({ resolutionMs: 1 });
  // Some timer turns so the histogram gets samples, and some CPU work.
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 5));
  let x = 0;
  for (let i = 0; i < 1e6; i++) x += i % 7;
  assert.ok(x > 0);
  const h = probe.stop();
  const d = h.event_loop_delay_ms;
  assert.ok(d.p50 !== null && d.p99 !== null && d.max !== null && d.mean !== null, 'sampled');
  assert.ok(d.p50 >= 0 && d.p50 <= d.p99 && d.p99 <= d.max);
  assert.ok(h.cpu_percent !== null && h.cpu_percent > 0);
  assert.deepEqual(probe.stop(), h);
});

test('health probe: no elapsed time gives null CPU%, not a division by zero', () => {
  const probe = startClientHealth({ clock: new VirtualClock() });
  assert.equal(probe.stop().cpu_percent, null);
});

test("health probe: a blocked event loop is placed in time on the run's clock", async () => {
  const timeline = new RealClock();
  const probe = startClientHealth({ resolutionMs: 1, timeline });
  await new Promise((r) => setTimeout(r, 20));
  const from = timeline.now();
  // Block the loop for 150 ms, then let the probe's timers turn.
  while (timeline.now() - from < 150) {}
  const to = timeline.now();
  await new Promise((r) => setTimeout(r, 120));
  const { event_loop_lags: lags } = probe.stop();
  assert.ok(lags?.length, 'a lag interval');
  const hit = lags.find((l) => l.from_ms <= to && l.to_ms >= from);
  assert.ok(hit && hit.max_ms >= 100, JSON.stringify(lags));
  // Quiet intervals are not kept.
  assert.ok(lags.every((l) => l.max_ms >= 25));
});
