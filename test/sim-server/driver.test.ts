/**
 * The real-time driver on a virtual clock: steps are chained on their planned end times (drift
 * compensation), a wake-up later than the tolerance restarts from now, the time scale maps
 * engine ms to clock ms, and the loop goes idle when the engine has no work.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VirtualClock } from '../../src/runtime/clock.js';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import { createEngine } from '../../src/sim/engine/engine.js';
import type { StepResult } from '../../src/sim/engine/types.js';
import { RealTimeDriver } from '../../src/sim/server/driver.js';

/** Let the driver's promise chain run (timers already fired by advanceTo). */
const settle = () => new Promise((r) => setImmediate(r));

/** A driver over a real engine; `lateToleranceMs` null = the driver's default. */
function setup(timeScale: number, lateToleranceMs: number | null = 20) {
  const clock = new VirtualClock();
  const engine = createEngine(resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100' }));
  const steps: { r: StepResult; planned: number; at: number }[] = [];
  const opts = lateToleranceMs === null ? { timeScale } : { timeScale, lateToleranceMs };
  const driver = new RealTimeDriver(engine, clock, opts, (r, planned) =>
    steps.push({ r: { ...r }, planned, at: clock.now() }),
  );
  return { clock, engine, driver, steps };
}

test('each step starts at the previous planned end, however late the wake-up (within tolerance)', async () => {
  const { clock, driver, steps } = setup(1);
  driver.add({ id: 'a', promptTokens: [1, 2, 3, 4], maxTokens: 5, eosLen: 5 });
  for (let i = 0; i < 5; i++) {
    await settle();
    const next = clock.nextTimerAt();
    assert.ok(next !== undefined, 'the driver is sleeping until the step end');
    clock.advanceTo(next + 0.7); // every wake-up is 0.7 ms late
    await settle();
  }
  assert.equal(steps.length, 5);
  for (let i = 1; i < steps.length; i++) {
    assert.equal(steps[i].r.startMs, steps[i - 1].r.endMs, 'no drift accumulates');
    assert.ok(steps[i].at - steps[i].planned >= 0.7 - 1e-9);
  }
  assert.equal(driver.stats().resyncs, 0);
  await settle();
  assert.equal(clock.nextTimerAt(), undefined, 'idle once the request is done');
});

test('a wake-up later than the tolerance restarts the timeline from now', async () => {
  const { clock, driver, steps } = setup(1);
  driver.add({ id: 'a', promptTokens: [1, 2, 3, 4], maxTokens: 3, eosLen: 3 });
  await settle();
  clock.advanceTo((clock.nextTimerAt() ?? 0) + 50); // 50 ms late: a stall
  await settle();
  clock.advanceTo((clock.nextTimerAt() ?? 0) + 0.1);
  await settle();
  assert.equal(steps.length, 2);
  assert.equal(steps[1].r.startMs, steps[0].r.endMs + 50);
  assert.equal(driver.stats().resyncs, 1);
  driver.close();
});

test('--time-scale X: engine ms are X clock ms; the engine timeline is the same', async () => {
  const fast = setup(10);
  const slow = setup(1);
  for (const s of [fast, slow]) s.driver.add({ id: 'a', promptTokens: [1, 2, 3], maxTokens: 4, eosLen: 4 });
  for (const s of [fast, slow])
    for (let i = 0; i < 4; i++) {
      await settle();
      s.clock.advanceTo(s.clock.nextTimerAt() ?? s.clock.now());
      await settle();
    }
  assert.equal(fast.steps.length, 4);
  assert.deepEqual(
    fast.steps.map((s) => s.r.endMs),
    slow.steps.map((s) => s.r.endMs),
  );
  for (let i = 0; i < 4; i++) assert.ok(Math.abs(fast.steps[i].planned * 10 - slow.steps[i].planned) < 1e-9);
});

test('faster than real time, a lagging driver catches up without gaps and stamps arrivals on its timeline', async () => {
  const { clock, engine, driver, steps } = setup(10, null);
  driver.add({ id: 'a', promptTokens: [1, 2, 3, 4], maxTokens: 50, eosLen: 50 });
  await settle();
  clock.advanceTo((clock.nextTimerAt() ?? 0) + 100); // 100 clock ms = 1000 engine ms behind
  await settle();
  await settle();
  driver.add({ id: 'b', promptTokens: [9, 8, 7], maxTokens: 5, eosLen: 5 });
  for (let i = 0; i < 500 && engine.hasWork(); i++) {
    await settle();
    const next = clock.nextTimerAt();
    if (next !== undefined) clock.advanceTo(next);
  }
  assert.equal(engine.hasWork(), false);
  for (let i = 1; i < steps.length; i++) assert.equal(steps[i].r.startMs, steps[i - 1].r.endMs, `step ${i}`);
  assert.equal(driver.stats().resyncs, 0);
  const b = engine.times('b');
  assert.ok(b && b.firstScheduledMs !== null);
  assert.ok(b.arrivalMs < driver.engineNow() - 500, 'stamped on the lagging engine timeline, not the wall');
  assert.ok(b.firstScheduledMs - b.arrivalMs < 20, `queued ${b.firstScheduledMs - b.arrivalMs} ms`);
});
