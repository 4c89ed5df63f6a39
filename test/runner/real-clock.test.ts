/**
 * RealClock.sleepUntil with its shared waker thread: a sleep never resolves before its target
 * (checked on the clock itself, never against wall-clock budgets), aborts reject with the
 * signal's reason and leave the other sleeps alone, and neither an idle waker nor a pending
 * abort keeps a process alive.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RealClock } from '../../src/runtime/clock.js';

test('many concurrent sleeps each resolve at or after their own target', async () => {
  const clock = new RealClock();
  const t0 = clock.now();
  // targets interleaved and reused, 0–6 ms ahead: the waker is re-armed for an earlier target
  // while a later one is pending, and several targets share one wake-up
  const targets = Array.from({ length: 60 }, (_, i) => t0 + ((i * 7) % 13) * 0.45 + 0.05);
  const early: number[] = [];
  await Promise.all(
    targets.map((at) =>
      clock.sleepUntil(at).then(() => {
        if (clock.now() < at) early.push(at);
      }),
    ),
  );
  assert.deepEqual(early, []);
});

test('back-to-back sleeps (the open loop) are never early', async () => {
  const clock = new RealClock();
  let at = clock.now();
  let early = 0;
  for (let i = 0; i < 100; i++) {
    at += 0.05 + (i % 5) * 0.3;
    await clock.sleepUntil(at);
    if (clock.now() < at) early++;
  }
  assert.equal(early, 0);
});

test('a past target resolves at once; an aborted sleep rejects with its reason and others still wake', async () => {
  const clock = new RealClock();
  await clock.sleepUntil(clock.now() - 5);
  const ac = new AbortController();
  const reason = new Error('stop');
  const aborted = clock.sleepUntil(clock.now() + 60_000, ac.signal);
  const other = clock.sleepUntil(clock.now() + 2);
  ac.abort(reason);
  await assert.rejects(aborted, (e) => e === reason);
  await other;
  const pre = new AbortController();
  pre.abort(reason);
  await assert.rejects(clock.sleepUntil(clock.now() + 1, pre.signal), (e) => e === reason);
});

test('the waker thread never keeps a process alive', () => {
  const clockUrl = new URL('../../src/runtime/clock.ts', import.meta.url).href;
  // starts the waker ahead of any sleep (what a simulator does before it serves; it must resolve),
  // sleeps, aborts a long sleep, then has nothing left to do: the process must exit by itself
  const code = `
    import { RealClock, startFineWaker } from ${JSON.stringify(clockUrl)};
    await startFineWaker();
    const c = new RealClock();
    await c.sleepUntil(c.now() + 3);
    const ac = new AbortController();
    const p = c.sleepUntil(c.now() + 600000, ac.signal).catch(() => 'aborted');
    ac.abort(new Error('x'));
    console.log(await p);
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    encoding: 'utf8',
    // a hang detector, not a timing assertion: exiting takes well under a second
    timeout: 30_000,
  });
  assert.equal(r.signal, null, 'the process hung and was killed');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'aborted');
});
