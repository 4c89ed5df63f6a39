/**
 * @module runner/health
 * The load generator's own health over a run: event-loop delay (`monitorEventLoopDelay`) and
 * process CPU percent (`process.cpuUsage`). A suspect latency tail can then be blamed on the
 * client when the client was the bottleneck. This is the only process-level probe the runner
 * touches, kept here so the load loops stay pure functions of their injected clock.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type Clock, RealClock } from '../runtime/clock.js';

export interface ClientHealthReading {
  /**
   * Event-loop delay over the run, in ms; fields are null when the run was too short to sample.
   * Same shape as `ClientHealth` in analysis/summary, so it is passed to `summarize` unchanged.
   */
  event_loop_delay_ms: { mean: number | null; p50: number | null; p99: number | null; max: number | null };
  /** Process CPU time (user + system) over wall time, in percent of one core (can exceed 100). */
  cpu_percent: number | null;
}

export interface HealthProbe {
  /** Stop sampling and return what was measured. Idempotent: later calls return the same values. */
  stop(): ClientHealthReading;
}

/**
 * Start measuring the process's health. CPU% is over real elapsed time, so the clock defaults
 * to a fresh {@link RealClock} even when the run itself is on a virtual clock.
 * @param opts.resolutionMs event-loop sampling resolution in ms (default 2)
 *
 * Node's histogram records the whole interval between its timer's callbacks, resolution
 * included (an idle loop at resolution 10 reports p50 ≈ 10 ms), so the resolution is
 * subtracted to report the delay itself.
 */
export function startClientHealth(opts: { clock?: Clock; resolutionMs?: number } = {}): HealthProbe {
  const clock = opts.clock ?? new RealClock();
  const resolutionMs = opts.resolutionMs ?? 2;
  const h = monitorEventLoopDelay({ resolution: resolutionMs });
  h.enable();
  const cpu0 = process.cpuUsage();
  const t0 = clock.now();
  let result: ClientHealthReading | undefined;
  return {
    stop(): ClientHealthReading {
      if (result) return result;
      h.disable();
      const cpu = process.cpuUsage(cpu0);
      const elapsedMs = clock.now() - t0;
      const nsToMs = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs);
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
      };
      return result;
    },
  };
}
