/**
 * @module pipeline/endpoint
 * Where a measurement sends its requests: an OpenAI-compatible server at a URL, or the
 * simulator in this process. Both are reached through the same HTTP client, scraper and probes;
 * an in-process simulator only swaps the socket for an undici dispatcher
 * (`sim/server/inprocess`), so the numbers come from one code path whichever it is.
 *
 * Clocks: a URL is measured on the wall clock, a fresh {@link RealClock} per run (its t = 0 is the
 * run's start). An in-process simulator brings its own clock: a {@link VirtualClock} for `plan`
 * and virtual-clock experiments (the run then takes as long as the CPU needs, not as long as the
 * engine would), or a wall clock. Each run sees that clock through {@link runClock}, so its
 * times also start at 0.
 */
import type { Dispatcher } from 'undici';
import { type Clock, driveVirtual, RealClock, VirtualClock } from '../runtime/clock.js';
import type { SimServerOptions } from '../sim/server/index.js';
import { type InProcessSim, startInProcessSim } from '../sim/server/inprocess.js';

export interface EngineEndpoint {
  /** Base URL ending in /v1. */
  baseUrl: string;
  /** The in-process simulator's dispatcher; null for a real socket. */
  dispatcher: Dispatcher | null;
  /** True when time is virtual: runs are driven by {@link settle}, there is no client lag to judge. */
  virtual: boolean;
  /** True when the server runs on this machine (its GPU can be read with nvidia-smi). */
  local: boolean;
  /** The clock of the next run, t = 0 now. */
  runClock(): Clock;
  /** Await `p`, moving virtual time while it is pending. */
  settle<T>(p: Promise<T>): Promise<T>;
  /** The in-process simulator, when that is the target. */
  sim: InProcessSim | null;
  close(): Promise<void>;
}

/** An OpenAI-compatible server at `baseUrl` (ending in /v1). */
export function urlEndpoint(baseUrl: string, opts: { local?: boolean } = {}): EngineEndpoint {
  return {
    baseUrl,
    dispatcher: null,
    virtual: false,
    local: opts.local ?? false,
    runClock: () => new RealClock(),
    settle: (p) => p,
    sim: null,
    close: async () => {},
  };
}

/**
 * A view of `base` whose origin is the moment it was made: `now()` starts at 0 and every time
 * passed in or out is shifted, so a run on a long-lived clock reads like a run on a fresh one.
 */
export function runClockOf(base: Clock): Clock {
  const offset = base.now();
  return {
    originUnixMs: base.originUnixMs + offset,
    now: () => base.now() - offset,
    sleepUntil: (atMs, signal) => base.sleepUntil(atMs + offset, signal),
    setTimer: (fn, ms) => base.setTimer(fn, ms),
  };
}

/**
 * The simulator in this process, on a virtual clock (`virtual: true`, what `plan` uses) or on the
 * wall clock. Its prefix cache and counters live as long as the endpoint, like a server's.
 */
export async function simEndpoint(
  opts: SimServerOptions,
  how: { virtual: boolean; log?: (line: string) => void },
): Promise<EngineEndpoint> {
  const clock: Clock = how.virtual ? new VirtualClock() : new RealClock();
  const sim = await startInProcessSim(opts, { clock, log: how.log });
  const settle = <T>(p: Promise<T>) => (clock instanceof VirtualClock ? driveVirtual(clock, p) : p);
  return {
    baseUrl: `${sim.url}/v1`,
    dispatcher: sim.dispatcher,
    virtual: how.virtual,
    local: false,
    runClock: () => runClockOf(clock),
    settle,
    sim,
    close: () => sim.close(),
  };
}
