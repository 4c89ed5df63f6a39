/**
 * @module runner/health
 * The load generator's own health over a run: event-loop delay (`monitorEventLoopDelay`) and
 * process CPU percent (`process.cpuUsage`). A suspect latency tail can then be blamed on the
 * client when the client was the bottleneck. This is the only process-level probe the runner
 * touches, kept here so the load loops stay pure functions of their injected clock.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ClientPrepared, EventLoopLag } from '../analysis/summary.js';
import { type Clock, RealClock } from '../runtime/clock.js';

/** The event-loop delay is read once per this many ms, so a lag can be placed in time. */
export const LAG_INTERVAL_MS = 100;
/**
 * An interval is kept in {@link ClientHealthReading.event_loop_lags} when its worst delay reached
 * this, ms: half the smallest stall (`analysis/stalls` STALL_MIN_MS), the least lag that could
 * explain one. Idle intervals are dropped, so a long run's list stays short.
 */
export const LAG_FLOOR_MS = 25;
/** At most this many lag intervals are kept (the first ones). */
const MAX_LAGS = 10_000;

export interface ClientHealthReading {
  /**
   * Event-loop delay over the run, in ms; fields are null when the run was too short to sample.
   * Same shape as `ClientHealth` in analysis/summary, so it is passed to `summarize` unchanged.
   */
  event_loop_delay_ms: { mean: number | null; p50: number | null; p99: number | null; max: number | null };
  /** Process CPU time (user + system) over wall time, in percent of one core (can exceed 100). */
  cpu_percent: number | null;
  /**
   * When the event loop lagged: each {@link LAG_INTERVAL_MS} interval, on the run's clock, whose
   * worst delay reached {@link LAG_FLOOR_MS}, so a stall can be checked against the client's lag
   * at its own time rather than the run's maximum.
   */
  event_loop_lags?: EventLoopLag[];
  /** What the target did before the window to get ready for it (set by the load loops, not by the probe). */
  prepared?: ClientPrepared;
}

export interface HealthProbe {
  /** Stop sampling and return what was measured. Idempotent: later calls return the same values. */
  stop(): ClientHealthReading;
}

/**
 * Start measuring the process's health. CPU% is over real elapsed time, so the clock defaults
 * to a fresh {@link RealClock} even when the run itself is on a virtual clock.
 * @param opts.resolutionMs event-loop sampling resolution in ms (default 2)
 * @param opts.timeline the run's clock, on which the lag intervals are stamped (default `clock`)
 *
 * Node's histogram records the whole interval between its timer's callbacks, resolution
 * included (an idle loop at resolution 10 reports p50 ≈ 10 ms), so the resolution is
 * subtracted to report the delay itself.
 */
export function startClientHealth(
  opts: { clock?: Clock; resolutionMs?: number; timeline?: Clock } = {},
): HealthProbe {
  const clock = opts.clock ?? new RealClock();
  const timeline = opts.timeline ?? clock;
  const resolutionMs = opts.resolutionMs ?? 2;
  const nsToMs = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs);
  const h = monitorEventLoopDelay({ resolution: resolutionMs });
  h.enable();
  // A second histogram read and reset every interval: the lag's time, not only its size.
  const hi = monitorEventLoopDelay({ resolution: resolutionMs });
  hi.enable();
  const lags: EventLoopLag[] = [];
  let from = timeline.now();
  const sample = () => {
    const to = timeline.now();
    const worst = hi.count > 0 ? nsToMs(hi.max) : 0;
    if (worst >= LAG_FLOOR_MS && lags.length < MAX_LAGS)
      lags.push({ from_ms: from, to_ms: to, max_ms: worst });
    hi.reset();
    from = to;
  };
  let cancel = () => {};
  const tick = () => {
    sample();
    cancel = clock.setTimer(tick, LAG_INTERVAL_MS);
  };
  cancel = clock.setTimer(tick, LAG_INTERVAL_MS);
  const cpu0 = process.cpuUsage();
  const t0 = clock.now();
  let result: ClientHealthReading | undefined;
  return {
    stop(): ClientHealthReading {
      if (result) return result;
      cancel();
      sample();
      hi.disable();
      h.disable();
      const cpu = process.cpuUsage(cpu0);
      const elapsedMs = clock.now() - t0;
      const sampled = h.count > 0;
      result = {
        event_loop_delay_ms: {
          mean: sampled ? nsToMs(h.mean) : null,
          p50: sampled ? nsToMs(h.percentile(50)) : null,
          p99: sampled ? nsToMs(h.percentile(99)) : null,
          max: sampled ? nsToMs(h.max) : null,
        },
        // cpuUsage is in µs; elapsed in ms.
        cpu_percent: elapsedMs > 0 ? ((cpu.user + cpu.system) / 1000 / elapsedMs) * 100 : null,
        event_loop_lags: lags,
      };
      return result;
    },
  };
}
