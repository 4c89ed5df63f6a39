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
import { type DriverOptions, RealTimeDriver } from '../../src/sim/engine/realtime-driver.js';
import type { StepResult } from '../../src/sim/engine/types.js';

/** Let the driver's promise chain run (timers already fired by advanceTo). */
const settle = () => new Promise((r) => setImmediate(r));

/**
 * A driver over a real engine; `lateToleranceMs` null = the driver's default; `release` and
 * `onLag` as {@link DriverOptions}; `deliverMs`: clock ms each delivery takes (its writes).
 */
function setup(
  timeScale: number,
  lateToleranceMs: number | null = 20,
  extra: Pick<DriverOptions, 'release' | 'onLag' | 'gpuFreeAtMs'> & { deliverMs?: number } = {},
) {
  const clock = new VirtualClock();
  const engine = createEngine(resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100' }));
  const steps: { r: StepResult; planned: number; at: number }[] = [];
  const { deliverMs, ...hooks } = extra;
  const opts = lateToleranceMs === null ? { timeScale, ...hooks } : { timeScale, lateToleranceMs, ...hooks };
  const driver = new RealTimeDriver(engine, clock, opts, (r, planned) => {
    steps.push({ r: { ...r }, planned, at: clock.now() });
    if (deliverMs) clock.advanceTo(clock.now() + deliverMs);
  });
  return { clock, engine, driver, steps };
}

/** Advance the clock timer by timer until the engine is idle and nothing is scheduled. */
async function runOut(clock: VirtualClock, lateMs = 0): Promise<void> {
  // A late driver catches up in event-loop turns with no timer pending: wait a few turns.
  for (let i = 0, idle = 0; i < 2000 && idle < 5; i++) {
    await settle();
    const next = clock.nextTimerAt();
    if (next === undefined) idle++;
    else {
      idle = 0;
      clock.advanceTo(next + lateMs);
    }
  }
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

test('a release after the step end: tokens leave at the release, in step order, while the engine steps on', async () => {
  // Every step's tokens are held 25 engine ms past its end (a busy API server), longer than a
  // decode step, so several steps wait in the outbox at once.
  const { clock, driver, steps } = setup(1, 20, { release: (r) => r.endMs + 25 });
  driver.add({ id: 'a', promptTokens: [1, 2, 3, 4], maxTokens: 30, eosLen: 30 });
  await runOut(clock);
  assert.equal(steps.length, 30);
  for (let i = 0; i < steps.length; i++) {
    assert.equal(steps[i].planned, steps[i].r.endMs + 25, `step ${i} is planned at its release`);
    assert.equal(steps[i].at, steps[i].planned, `step ${i} is delivered at its release`);
    if (i > 0) {
      assert.equal(steps[i].r.startMs, steps[i - 1].r.endMs, 'the engine does not wait for the release');
      assert.ok(steps[i].r.step > steps[i - 1].r.step, 'in step order');
    }
  }
  assert.ok(steps[3].r.startMs < steps[0].planned, 'step 3 was computed before step 0 left');
  const st = driver.stats();
  assert.equal(st.behind, 0);
  assert.deepEqual(st.lateMs, new Array(30).fill(0));
});

test('a release earlier than the one before it waits for it: no step overtakes another', async () => {
  let n = 0;
  // Step 0 is held 40 ms, the later ones only 1 ms: they must still leave after step 0.
  const { clock, driver, steps } = setup(1, 20, { release: (r) => r.endMs + (n++ === 0 ? 40 : 1) });
  driver.add({ id: 'a', promptTokens: [1, 2, 3, 4], maxTokens: 12, eosLen: 12 });
  await runOut(clock);
  assert.equal(steps.length, 12);
  for (let i = 1; i < steps.length; i++) {
    assert.ok(steps[i].r.step > steps[i - 1].r.step);
    assert.ok(steps[i].at >= steps[i - 1].at);
    assert.ok(steps[i].planned >= steps[0].planned, 'planned no earlier than the step ahead of it');
  }
});

test('the lag counts to the end of the writes, against the release: a slow delivery is behind', async () => {
  const lags: { lag: number; behind: boolean }[] = [];
  // Each delivery takes 15 clock ms of writes (above BEHIND_MS = 10), released 5 ms after the end.
  const { clock, driver } = setup(1, null, {
    release: (r) => r.endMs + 5,
    onLag: (lag, behind) => lags.push({ lag, behind }),
    deliverMs: 15,
  });
  driver.add({ id: 'a', promptTokens: [1, 2, 3, 4], maxTokens: 6, eosLen: 6 });
  await runOut(clock);
  assert.equal(lags.length, 6);
  assert.ok(lags.every((l) => l.behind && l.lag >= 15 - 1e-9));
  const st = driver.stats();
  assert.equal(st.behind, 6);
  assert.ok(st.lagMs.every((l) => l >= 15 - 1e-9));
  // A late wake-up counts too: the writes end at least that much after the release.
  const late = setup(1, null, { release: (r) => r.endMs + 5, onLag: () => {} });
  late.driver.add({ id: 'a', promptTokens: [1, 2, 3, 4], maxTokens: 4, eosLen: 4 });
  await runOut(late.clock, 18); // the first wake-up 18 ms late: 13 after its release
  const ls = late.driver.stats();
  assert.equal(ls.steps, 4);
  assert.ok(ls.lagMs[0] >= 13 - 1e-9 && ls.behind >= 1, `lag ${ls.lagMs[0]}, behind ${ls.behind}`);
});

test('a step never starts before the GPU is free of other work (colocated transcriptions)', async () => {
  // The GPU is busy until 250 ms (a transcription booked on it); later it is free.
  let freeAt = 250;
  const { clock, driver, steps } = setup(1, 20, { gpuFreeAtMs: () => freeAt });
  driver.add({ id: 'a', promptTokens: [1, 2, 3, 4], maxTokens: 3, eosLen: 3 });
  await settle();
  assert.ok(driver.busyUntilMs() > 250, 'the first step is planned after the busy GPU');
  freeAt = 0;
  await runOut(clock);
  assert.equal(steps.length, 3);
  assert.ok(steps[0].r.startMs >= 250, `first step started at ${steps[0].r.startMs}`);
  assert.equal(steps[1].r.startMs, steps[0].r.endMs, 'then steps chain as usual');
  assert.equal(driver.busyUntilMs(), 0, 'idle again');
});

test('an arrival due before the simulator handed it over is backdated, and the engine catches up without a restart', async () => {
  // Issue 26 item 6: the simulator spent 300 wall ms of its own (tokenising) after the modelled
  // front end was done at 10 ms. The request arrives at 10 ms; the steps keep that timeline.
  const { clock, driver, steps } = setup(1);
  clock.advanceTo(310);
  const prompt = Array.from({ length: 20_000 }, (_, i) => i % 50_000);
  assert.equal(driver.add({ id: 'a', promptTokens: prompt, maxTokens: 2, eosLen: 2 }, 10), 10);
  await runOut(clock);
  assert.ok(steps.length >= 3, 'a chunked prefill and a decode step');
  assert.equal(steps[0].r.startMs, 10, 'the first step starts at the due arrival');
  for (let i = 1; i < steps.length; i++) assert.equal(steps[i].r.startMs, steps[i - 1].r.endMs);
  assert.equal(driver.stats().resyncs, 0, 'catching up is not a stall');

  // Never before the last step's end: the engine's time does not run backwards.
  const lastEnd = steps.at(-1)?.r.endMs ?? 0;
  clock.advanceTo(lastEnd + 100);
  assert.equal(driver.add({ id: 'b', promptTokens: [1, 2, 3], maxTokens: 1, eosLen: 1 }, 0), lastEnd);
  // Never later than now: a due time in the future is now.
  await runOut(clock);
  const now = clock.now();
  assert.equal(driver.add({ id: 'c', promptTokens: [1, 2, 3], maxTokens: 1, eosLen: 1 }, now + 50), now);
});
