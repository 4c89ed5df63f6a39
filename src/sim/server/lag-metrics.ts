/**
 * @module sim/server/lag-metrics
 * The simulator's own health on `/metrics`: whether it delivered each step's tokens on time. A
 * simulator that cannot keep up (too many streams for its core, a busy machine, a blocked event
 * loop) writes tokens late, and a client would read that as a slow engine. These series let the
 * run's validity verdict (`analysis/validity`, reason `sim_behind`) say so instead.
 *
 * - `servelab_sim_behind_total` (counter): steps whose tokens were handed to the sockets more than
 *   {@link BEHIND_MS} wall ms after the step's planned release (its end, or later when the modelled
 *   API server's output queue holds it: `sim/frontend`), counted when its last write is done.
 * - `servelab_sim_emit_lag_seconds` (histogram): that lag for every step, wall seconds.
 *
 * Wall time, not engine time: the lag is the simulator's, whatever `--time-scale` says. On a
 * virtual clock (`plan`) it is always 0. Kept apart from `metrics.ts`, whose names are vLLM's.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { BEHIND_MS } from '../engine/realtime-driver.js';

export const SIM_BEHIND_TOTAL = 'servelab_sim_behind_total';
export const SIM_EMIT_LAG_SECONDS = 'servelab_sim_emit_lag_seconds';

/** Buckets of the emit lag, seconds: sub-ms (keeping up) to seconds (hopelessly behind). */
export const EMIT_LAG_BUCKETS_S = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** Registers the two series on `registry`; returns the driver's `onLag` hook. */
export function registerLagMetrics(
  registry: Registry,
  modelName: string,
): (lagMs: number, behind: boolean) => void {
  const labels = { model_name: modelName };
  const behind = new Counter({
    name: SIM_BEHIND_TOTAL,
    help: `Steps the simulator delivered more than ${BEHIND_MS} ms (wall) after their planned release: it fell behind real time, so token times include its own lag.`,
    labelNames: ['model_name'],
    registers: [registry],
  });
  // Exposed from the start: 0 means "kept up", an absent series "not a simulator that says".
  behind.inc(labels, 0);
  const lag = new Histogram({
    name: SIM_EMIT_LAG_SECONDS,
    help: "Wall seconds from each step's planned release to the end of its writes to the sockets.",
    labelNames: ['model_name'],
    buckets: EMIT_LAG_BUCKETS_S,
    registers: [registry],
  });
  return (lagMs, isBehind) => {
    lag.observe(labels, lagMs / 1000);
    if (isBehind) behind.inc(labels, 1);
  };
}
