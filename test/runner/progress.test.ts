/**
 * The progress observer: live line on a TTY (≤ 4 redraws per second of run time), periodic
 * plain lines elsewhere; counters follow the run. Virtual time only.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { translator } from '../../src/i18n/index.js';
import { runLoad } from '../../src/runner/loops.js';
import { createProgress, formatProgress } from '../../src/runner/progress.js';
import { VirtualClock } from '../../src/runtime/clock.js';
import { drive, VirtualTarget } from './virtual-target.js';

const specs = [{ index: 0, prompt: 'hi', input_len: 4, output_len: 8 }];
const health = () => ({
  stop: () => ({ event_loop_delay_ms: { mean: null, p50: null, p99: null, max: null }, cpu_percent: null }),
});

function sink(isTTY: boolean) {
  const writes: { at: number; text: string }[] = [];
  return {
    writes,
    stream: (clock: VirtualClock) => ({
      isTTY,
      write: (s: string) => writes.push({ at: clock.now(), text: s }),
    }),
  };
}

test('TTY: one live line redrawn at most 4×/s, ending with a newline', async () => {
  const clock = new VirtualClock();
  const out = sink(true);
  const progress = createProgress({ stream: out.stream(clock), clock });
  // Every 3rd request fails, so the error count is visible.
  let n = 0;
  const target = new VirtualTarget(clock, () =>
    ++n % 3 === 0
      ? { kind: 'ok', latencyMs: 100, outcome: 'http_error', http_status: 500 }
      : { kind: 'ok', latencyMs: 100 },
  );
  await drive(
    clock,
    runLoad(
      { load: { kind: 'closed', concurrency: 2, requests: 24 }, specs },
      { target, clock, observers: [progress], health },
    ),
  );
  // 24 requests at concurrency 2 × 100 ms = 1200 ms: ticks at 250, 500, 750, 1000, then the final line.
  assert.deepEqual(
    out.writes.map((w) => w.at),
    [250, 500, 750, 1000, 1200],
  );
  for (let i = 1; i < out.writes.length; i++) assert.ok(out.writes[i].at - out.writes[i - 1].at <= 250);
  assert.ok(out.writes.every((w) => w.text.startsWith('\r\x1b[2K')));
  assert.ok(out.writes.slice(0, -1).every((w) => !w.text.includes('\n')));
  const last = out.writes[out.writes.length - 1].text;
  assert.ok(last.endsWith('\n'));
  assert.match(last, /24\/24 done · 0 in flight · 8 errors · 20\.0 req\/s/);
  // Mid-run line at 500 ms (drawn before the requests ending at that same instant): 8 done.
  assert.match(out.writes[1].text, /8\/24 done · 2 in flight · 2 errors/);
  assert.deepEqual(progress.state().in_flight, 0);
  assert.equal(clock.nextTimerAt(), undefined, 'the redraw timer is stopped at the end');
});

test('not a TTY: a plain line every 5 s and at the end', async () => {
  const clock = new VirtualClock();
  const out = sink(false);
  const progress = createProgress({ stream: out.stream(clock), clock, durationMs: 12_000 });
  const target = new VirtualTarget(clock, () => ({ kind: 'ok', latencyMs: 1000 }));
  await drive(
    clock,
    runLoad(
      { load: { kind: 'closed', concurrency: 1, durationMs: 12_000 }, specs },
      { target, clock, observers: [progress], health },
    ),
  );
  assert.deepEqual(
    out.writes.map((w) => w.at),
    [5000, 10000, 12000],
  );
  assert.ok(out.writes.every((w) => w.text.endsWith('\n') && !w.text.includes('\r')));
  // Duration run: the count has no total, and the ETA counts down the duration.
  assert.match(out.writes[0].text, /^\[ {3}5\.0s\] 4 done · 1 in flight .* ETA 7s\n$/);
});

test('formatProgress: rate since start and ETA from the remaining count', () => {
  assert.equal(
    formatProgress({ planned: 100, done: 45, in_flight: 8, errors: 1, elapsed_ms: 12_300 }, null),
    '[  12.3s] 45/100 done · 8 in flight · 1 error · 3.7 req/s · ETA 15s',
  );
  assert.equal(
    formatProgress({ planned: 1000, done: 10, in_flight: 1, errors: 0, elapsed_ms: 10_000 }, null),
    '[  10.0s] 10/1000 done · 1 in flight · 0 errors · 1.0 req/s · ETA 16m30s',
  );
  assert.equal(
    formatProgress({ planned: 5, done: 0, in_flight: 5, errors: 0, elapsed_ms: 0 }, null),
    '[   0.0s] 0/5 done · 5 in flight · 0 errors · 0.0 req/s',
  );
  // In Chinese (--lang zh-CN): the same counters, the words translated.
  assert.equal(
    formatProgress(
      { planned: 100, done: 45, in_flight: 8, errors: 1, elapsed_ms: 12_300 },
      null,
      translator('zh-CN'),
    ),
    '[  12.3s] 已完成 45/100 · 在途 8 · 错误 1 · 3.7 req/s · 预计剩余 15s',
  );
});
