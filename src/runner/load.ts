/**
 * @module runner/load
 * What a load run is asked to do and what it hands back: the load modes (closed loop, open loop
 * over an arrival schedule, sessions), the run's configuration and its validation (every
 * problem at once, before anything is sent), the count of a load's planned requests that the
 * runner, the shard report and the shard plan share, and the run's result. No timing here:
 * `runner/loops` runs a load.
 */

import type { Target } from '../client/types.js';
import type { Problem } from '../core/errors.js';
import type { RequestRecord } from '../record/types.js';
import type { Clock } from '../runtime/clock.js';
import type { ArrivalList } from '../schedule/arrivals.js';
import type { ChatMessage, RequestSpec, SpecList } from '../workload/types.js';
import type { RunEndReason, RunObserver } from './events.js';
import type { ClientHealthReading, HealthProbe } from './health.js';

/** How load is applied during the measurement phase. */
export type LoadMode =
  | {
      kind: 'closed';
      /** Number of concurrent workers (≥ 1). */
      concurrency: number;
      /** Measured requests to send (excluding warm-up). Give this or `durationMs`. */
      requests?: number | null;
      /** Stop starting requests this many ms after the measurement window opens. */
      durationMs?: number | null;
    }
  | {
      kind: 'open';
      /**
       * Planned send offsets in ms from the start of the measurement window, non-decreasing,
       * one per measured request (from the schedule, or a trace replay already sped up): an
       * array, or a schedule streamed as it is read (`schedule/arrivals` `streamArrivals`, a
       * `--duration` run). A streamed schedule plans each request when it falls due: stopped
       * early (interrupted, failed fast), the requests not yet due get no record, as a closed
       * `--duration` loop plans none past its stop.
       */
      arrivalsMs: ArrivalList;
      /** Cap on requests in flight; a request that waits for a slot keeps its planned time. null = no cap. */
      maxConcurrency?: number | null;
      /**
       * A `--duration` schedule's length (ms from the window's start): requests still in flight
       * after it (or after the last send, when that is later) drain for `drainTimeoutMs`, then
       * are cancelled. null or absent (a request count, a trace): they end on their own.
       */
      durationMs?: number | null;
      /**
       * Load stages (`schedule/stages`): `arrivalsMs` holds each stage's offsets from its own
       * start, `counts[s]` of them for stage s in order; stage s + 1 starts `pauseMs` after every
       * request of stage s has ended. Absent: one schedule from the window's start.
       */
      stages?: { counts: readonly number[]; pauseMs: number } | null;
    }
  | {
      kind: 'sessions';
      /** One per user: a closed loop over its turns (see {@link SessionLoad}). */
      sessions: readonly SessionLoad[];
      /**
       * Cap on turns in flight across all users (a gateway's limit): a turn that waits for a slot
       * keeps its planned time, so the wait counts in the user's time to first content. null = none.
       */
      maxConcurrency?: number | null;
    };

/**
 * One user's session in the sessions load mode. Turn k is sent at its planned time: the
 * session's start for the first turn, then the moment the previous answer ended plus that
 * turn's think time. Its messages are `prefix`, every earlier question and the answer the server
 * actually returned, then its own question. A turn that fails (after its retries) ends the
 * session: the turns after it are recorded `cancelled` with the reason ({@link SESSION_ENDED}).
 */
export interface SessionLoad {
  /** The first turn's offset from the start of the measurement window (ms, ≥ 0). */
  startMs: number;
  /** Messages every turn starts with (a shared document as a system message), or none. */
  prefix: readonly ChatMessage[];
  /** The turns in order: each spec's `messages` is its question; `thinkMs` the think after its answer. */
  turns: readonly { spec: RequestSpec; thinkMs: number }[];
}

/** The start of the error of a turn never sent because an earlier turn of its session failed. */
export const SESSION_ENDED = 'session ended';

export interface RunLoadConfig {
  load: LoadMode;
  /**
   * Workload for measured requests; measured request i uses `specs[i % specs.length]` (a
   * `--duration` run cycles through them). A {@link SpecList}: an array, or specs streamed as
   * they are read.
   */
  specs: SpecList;
  /** Warm-up requests sent before the measurement window, on top of the measured ones (default 0). */
  warmup?: number;
  /**
   * Specs for warm-up requests (cycled); defaults to `specs`. Give distinct prompts when the
   * server caches prefixes, so warm-up does not pre-warm the measured prompts.
   */
  warmupSpecs?: SpecList;
  /**
   * Warm-up runs as a closed loop with this many workers. Default: the closed loop's
   * concurrency, or the open loop's `maxConcurrency` (1 when uncapped).
   */
  warmupConcurrency?: number;
  /** Extra attempts for a retryable failure (see {@link isRetryable}); default 0. Each attempt is its own record. */
  retries?: number;
  /** Wait before a retry when the server sent no Retry-After, in ms; doubles per attempt (default 250). */
  retryBackoffMs?: number;
  /** Upper bound on any wait before a retry (including Retry-After), in ms (default 10 000). */
  retryMaxWaitMs?: number;
  /**
   * After a duration run's end (the closed loop's `durationMs`, the open loop's `durationMs` or
   * its last send when later), in-flight requests may finish for this long, in ms (default
   * 30 000); then they are cancelled and the run ends with reason `drain_timeout`.
   */
  drainTimeoutMs?: number;
  /**
   * After aborting a request, how long to wait for the target to hand back its record before
   * the runner writes a `cancelled` record itself, in ms (default 2 000).
   */
  abortGraceMs?: number;
  /** Prefix of request ids (`${runPrefix}-${n}`); default: derived from the clock's origin. */
  runPrefix?: string;
  /**
   * Awaited after the warm-up and before the measurement window opens (monitoring takes a
   * reading there, so the window's counter deltas start at it). Must settle on its own.
   */
  beforeMeasure?: () => Promise<void>;
  /**
   * Stop the run when the first `after` finished measured requests (all of them, when fewer
   * were planned) failed with the same non-retryable class (`failFastReason` in
   * `analysis/errors`): no more sends, in-flight requests end on their own, and every unsent
   * request is recorded as `cancelled` with the reason. null or absent: off.
   */
  failFast?: { after?: number } | null;
  /**
   * A common start (sharded runs): the measured window opens at `atMs` on the run clock (the
   * warm-up runs before it). A start more than `lateLimitMs` late either sends nothing and
   * ends with reason `late_start` (`fail`), or records the arrivals already missed as
   * `cancelled` with the reason `late start` and sends the rest on schedule (`truncate`).
   */
  start?: {
    atMs: number;
    lateLimitMs: number;
    policy: 'fail' | 'truncate';
    /**
     * A coordinator picks the start (`run --workers`): awaited after the warm-up, it says this
     * run is ready and resolves to the common start (run-clock ms), which replaces `atMs`.
     */
    ready?: () => Promise<number>;
  } | null;
}

/** The error of a request a late shard never sent (`--late-policy`). */
export const LATE_START = 'late start';

export interface RunLoadDeps {
  target: Target;
  /** Run clock; every record time is `clock.now()` (ms since the clock's origin). */
  clock: Clock;
  observers?: readonly RunObserver[];
  /** Aborting it (SIGINT/SIGTERM, wired by the CLI) interrupts the run. */
  signal?: AbortSignal;
  /**
   * Client-health probe factory; default `startClientHealth` in `runner/health` (event-loop delay
   * + CPU%), given the run's clock to stamp the lag intervals with.
   */
  health?: (opts: { timeline: Clock }) => HealthProbe;
}

export type { RunEndReason } from './events.js';

export interface RunResult {
  /** Every record, warm-up included, in the order they ended. */
  records: RequestRecord[];
  /**
   * The measurement window in run-clock ms: from the moment the measured phase starts (after
   * warm-up) to the moment its last record ended (or the run was interrupted).
   */
  window: { start_ms: number; end_ms: number };
  /** Unix ms of the run clock's origin: the anchor for every `*_ms` time in the records. */
  started_at_unix_ms: number;
  interrupted: boolean;
  reason: RunEndReason;
  /** With reason `failed_fast`: why, e.g. `20 × HTTP 401: Invalid or missing API key`; else null. */
  failed_fast: string | null;
  /** With a common start: how late the measured window opened (ms, ≥ 0); else null. */
  late_ms?: number | null;
  /** With a common start: the start the window was planned to open at (run-clock ms); else null. */
  start_at_ms?: number | null;
  client_health: ClientHealthReading;
  /**
   * Messages of observer hooks that threw (first 20; an observer failure never stops the run),
   * and, with reason `error`, the runner's own failure as `runner: …`.
   */
  observer_errors: string[];
}

/** Validate a run configuration; every problem at once. */
export function validateRunLoadConfig(cfg: RunLoadConfig): Problem[] {
  const problems: Problem[] = [];
  const posInt = (v: number | null | undefined, path: string, min: number, hint: string) => {
    if (v === undefined || v === null) return;
    if (!Number.isInteger(v) || v < min)
      problems.push({ path, message: `must be an integer ≥ ${min}, got ${v}`, hint });
  };
  if (cfg.specs.length === 0)
    problems.push({
      path: 'workload',
      message: 'no requests to send',
      hint: 'give --prompt, --prompts, --dataset or --input-len',
    });
  posInt(cfg.warmup, '--warmup', 0, 'e.g. --warmup 5');
  posInt(cfg.retries, '--retries', 0, 'e.g. --retries 2');
  posInt(cfg.warmupConcurrency, 'warmup concurrency', 1, 'at least one worker');
  posInt(cfg.failFast?.after, 'fail fast', 1, 'look at one request at least');
  if (cfg.warmupSpecs !== undefined && cfg.warmupSpecs.length === 0 && (cfg.warmup ?? 0) > 0)
    problems.push({
      path: '--warmup',
      message: 'warm-up requested but no warm-up prompts',
      hint: 'omit warmupSpecs to reuse the workload',
    });
  for (const [k, v] of [
    ['--drain-timeout', cfg.drainTimeoutMs],
    ['abort grace', cfg.abortGraceMs],
    ['retry backoff', cfg.retryBackoffMs],
    ['retry max wait', cfg.retryMaxWaitMs],
  ] as const) {
    if (v !== undefined && !(Number.isFinite(v) && v >= 0))
      problems.push({
        path: k,
        message: `must be a number ≥ 0, got ${v}`,
        hint: 'use a non-negative duration',
      });
  }
  const load = cfg.load;
  if (load.kind === 'closed') {
    posInt(load.concurrency, '--concurrency', 1, 'e.g. --concurrency 8');
    const hasReq = load.requests !== undefined && load.requests !== null;
    const hasDur = load.durationMs !== undefined && load.durationMs !== null;
    if (hasReq === hasDur)
      problems.push({
        path: '--requests/--duration',
        message: hasReq
          ? 'give only one of --requests and --duration'
          : 'closed loop needs --requests or --duration',
        hint: 'e.g. --requests 200, or --duration 60',
      });
    posInt(load.requests, '--requests', 1, 'e.g. --requests 200');
    if (hasDur && !(Number.isFinite(load.durationMs) && (load.durationMs as number) > 0))
      problems.push({
        path: '--duration',
        message: `must be > 0, got ${load.durationMs}`,
        hint: 'seconds, e.g. --duration 60',
      });
  } else if (load.kind === 'sessions') {
    posInt(load.maxConcurrency, '--max-concurrency', 1, 'e.g. --max-concurrency 16, or omit for no cap');
    if (load.sessions.length === 0)
      problems.push({ path: '--users', message: 'no sessions to run', hint: 'e.g. --users 8' });
    for (let i = 0; i < load.sessions.length; i++) {
      const s = load.sessions[i];
      const bad =
        !(Number.isFinite(s.startMs) && s.startMs >= 0) ||
        s.turns.length === 0 ||
        s.turns.some((t) => !(Number.isFinite(t.thinkMs) && t.thinkMs >= 0));
      if (bad) {
        problems.push({
          path: `sessions[${i}]`,
          message: 'a session needs a start ≥ 0, at least one turn, and think times ≥ 0',
          hint: 'check --turns, --think-time and --ramp-up',
        });
        break;
      }
    }
  } else {
    posInt(load.maxConcurrency, '--max-concurrency', 1, 'e.g. --max-concurrency 64, or omit for no cap');
    if (load.arrivalsMs.length === 0)
      problems.push({
        path: 'schedule',
        message: 'the arrival schedule is empty',
        hint: 'give --requests or --duration with --rate',
      });
    // A streamed schedule is generated non-decreasing; reading it here would cost its whole length.
    let prev = 0;
    // With stages, each stage's offsets start again from its own start.
    const restarts = new Set<number>();
    let at = 0;
    for (const n of load.stages?.counts ?? []) {
      at += n;
      restarts.add(at);
    }
    let i = 0;
    for (const t of Array.isArray(load.arrivalsMs) ? load.arrivalsMs : []) {
      if (restarts.has(i)) prev = 0;
      if (!Number.isFinite(t) || t < prev) {
        problems.push({
          path: `schedule[${i}]`,
          message: `arrival offsets must be finite, ≥ 0 and non-decreasing (got ${t} after ${prev})`,
          hint: 'sort trace lines by timestamp_ms',
        });
        break;
      }
      prev = t;
      i++;
    }
  }
  return problems;
}

/** Planned turns of a sessions load. */
export function sessionTurns(load: { sessions: readonly SessionLoad[] }): number {
  let n = 0;
  for (const s of load.sessions) n += s.turns.length;
  return n;
}

/** Measured requests a load plans: its arrivals, its sessions' turns, or its count (null: a `--duration` closed loop). */
export function plannedRequests(load: LoadMode): number | null {
  if (load.kind === 'open') return load.arrivalsMs.length;
  if (load.kind === 'sessions') return sessionTurns(load);
  return load.requests ?? null;
}
