/**
 * @module runner/loops
 * The load loops: closed loop (N workers, each finished request starts the next) and open loop
 * (an absolute, precomputed arrival schedule with an optional concurrency cap), plus warm-up,
 * retries, the duration drain, interruption and the fail-fast stop. The runner owns the invariant that **every
 * planned request ends as exactly one record per attempt**, whatever the target or the user does:
 * a throwing target becomes an error record, an interrupted (or failed-fast) run records every
 * unsent request as `cancelled` with `sent_at_ms: null`, and a target that ignores an abort is given up on after a
 * grace period. All timing goes through the injected {@link Clock}, so tests run in virtual time.
 */
import { FAIL_FAST_AFTER, FAIL_FAST_UNSENT, failFastReason } from '../analysis/errors.js';
import type { AnswerSink, SendArgs, Target } from '../client/types.js';
import { type Problem, UsageError } from '../core/errors.js';
import { emptyRecord, type Phase, type RequestRecord, SUCCESS_OUTCOMES } from '../record/types.js';
import type { Clock } from '../runtime/clock.js';
import type { ChatMessage, RequestSpec } from '../workload/types.js';
import type { RunObserver } from './events.js';
import { type ClientHealth, type HealthProbe, startClientHealth } from './health.js';

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
       * one per measured request (from the schedule, or a trace replay already sped up).
       */
      arrivalsMs: readonly number[];
      /** Cap on requests in flight; a request that waits for a slot keeps its planned time. null = no cap. */
      maxConcurrency?: number | null;
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

/**
 * Outcomes that a retry is allowed to repeat. Only failures where the server most likely did no
 * work for this request: the connection could not be made, 429 (rate limited) or a 5xx. A
 * `timeout` is deliberately not retried: the server may still be generating for it, so a retry
 * would add hidden load and make the run measure its own pile-up.
 */
export function isRetryable(rec: RequestRecord): boolean {
  if (rec.outcome === 'connect_error') return true;
  if (rec.outcome === 'http_error' && rec.http_status !== null)
    return rec.http_status === 429 || rec.http_status >= 500;
  return false;
}

export interface RunLoadConfig {
  load: LoadMode;
  /**
   * Workload for measured requests; measured request i uses `specs[i % specs.length]` (a
   * `--duration` run cycles through them).
   */
  specs: readonly RequestSpec[];
  /** Warm-up requests sent before the measurement window, on top of the measured ones (default 0). */
  warmup?: number;
  /**
   * Specs for warm-up requests (cycled); defaults to `specs`. Give distinct prompts when the
   * server caches prefixes, so warm-up does not pre-warm the measured prompts.
   */
  warmupSpecs?: readonly RequestSpec[];
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
  /** After a `durationMs` run ends, in-flight requests may finish for this long, in ms (default 30 000). */
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
  /** Client-health probe factory; default {@link startClientHealth} (event-loop delay + CPU%). */
  health?: () => HealthProbe;
}

export type RunEndReason = 'completed' | 'duration' | 'interrupted' | 'error' | 'failed_fast' | 'late_start';

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
  client_health: ClientHealth;
  /**
   * Messages of observer hooks that threw (first 20; an observer failure never stops the run),
   * and, with reason `error`, the runner's own failure as `runner: …`.
   */
  observer_errors: string[];
}

const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
const DEFAULT_ABORT_GRACE_MS = 2_000;
const DEFAULT_RETRY_BACKOFF_MS = 250;
const DEFAULT_RETRY_MAX_WAIT_MS = 10_000;
const MAX_OBSERVER_ERRORS = 20;

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
    let prev = 0;
    for (let i = 0; i < load.arrivalsMs.length; i++) {
      const t = load.arrivalsMs[i];
      if (!Number.isFinite(t) || t < prev) {
        problems.push({
          path: `schedule[${i}]`,
          message: `arrival offsets must be finite, ≥ 0 and non-decreasing (got ${t} after ${prev})`,
          hint: 'sort trace lines by timestamp_ms',
        });
        break;
      }
      prev = t;
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

/** One attempt in flight: its abort controller and what to do when the runner cancels it. */
interface Flight {
  ac: AbortController;
  /** Starts the abort grace period (set by `settle`). */
  onCancel: (() => void) | undefined;
}

/** One planned request (before any attempt). */
interface Planned {
  planned_id: string;
  phase: Phase;
  spec: RequestSpec;
  planned_at_ms: number | null;
}

/**
 * Run a load test: warm-up (if any), then the measured phase, recording every attempt.
 *
 * Guarantees, whatever happens: each planned request yields exactly one record per attempt;
 * observers' `onRecord` sees each record once; the promise resolves (it rejects only on an
 * invalid configuration, with a {@link UsageError}, before anything is sent).
 *
 * @example
 * const res = await runLoad(
 *   { load: { kind: 'closed', concurrency: 4, requests: 100 }, specs },
 *   { target, clock: new RealClock(), signal },
 * );
 */
export async function runLoad(cfg: RunLoadConfig, deps: RunLoadDeps): Promise<RunResult> {
  const problems = validateRunLoadConfig(cfg);
  if (problems.length > 0) throw new UsageError(problems);
  return new LoadRun(cfg, deps).run();
}

class LoadRun {
  private readonly clock: Clock;
  private readonly target: Target;
  private readonly observers: readonly RunObserver[];
  private readonly prefix: string;
  private readonly records: RequestRecord[] = [];
  private readonly observerErrors: string[] = [];
  /** Aborted on interruption or at the drain deadline: no new sends, no retries. */
  private readonly stopCtl = new AbortController();
  /** Attempts in flight. Cancelling goes through this set rather than an abort listener per request (cheaper). */
  private readonly inFlight = new Set<Flight>();
  private nextN = 0;
  private interrupted = false;
  /** The common start was missed under `--late-policy fail`: nothing measured is sent. */
  private lateStart = false;
  /** Fail fast: the measured requests to wait for, those finished so far, and the verdict. */
  private failFastAfter = 0;
  private readonly failFastSeen: RequestRecord[] = [];
  private failedFast: string | null = null;
  /** Run-clock time the latest measured record was written (the window's end). */
  private lastMeasureRecordAt: number | null = null;
  /**
   * One shared chunk callback (not a closure per request: it runs per chunk, the hottest path),
   * or undefined when no observer wants chunks, so the client can skip the call entirely.
   */
  private readonly onChunk: ((rec: RequestRecord) => void) | undefined;
  private readonly hasSentObservers: boolean;

  constructor(
    private readonly cfg: RunLoadConfig,
    private readonly deps: RunLoadDeps,
  ) {
    this.clock = deps.clock;
    this.target = deps.target;
    this.observers = deps.observers ?? [];
    this.prefix = cfg.runPrefix ?? Math.floor(deps.clock.originUnixMs).toString(36).slice(-5);
    this.hasSentObservers = this.observers.some((o) => o.onSent);
    const chunkObservers = this.observers.filter((o) => o.onChunk);
    this.onChunk =
      chunkObservers.length === 0
        ? undefined
        : (rec) => {
            for (const o of chunkObservers) {
              try {
                o.onChunk?.(rec);
              } catch (err) {
                this.noteObserverError('onChunk', err);
              }
            }
          };
  }

  async run(): Promise<RunResult> {
    const { cfg, clock } = this;
    const probe = this.deps.health ?? startClientHealth;
    let health = probe();
    const warmup = cfg.warmup ?? 0;
    const load = cfg.load;
    const measuredPlanned = plannedRequests(load);
    if (cfg.failFast) {
      const after = cfg.failFast.after ?? FAIL_FAST_AFTER;
      this.failFastAfter = measuredPlanned === null ? after : Math.min(after, measuredPlanned);
    }
    this.emit('onRunStart', {
      started_at_unix_ms: clock.originUnixMs,
      planned: measuredPlanned === null ? null : warmup + measuredPlanned,
    });

    const signal = this.deps.signal;
    const onAbort = () => this.interrupt();
    if (signal?.aborted) this.interrupt();
    else signal?.addEventListener('abort', onAbort, { once: true });

    let reason: RunEndReason = 'completed';
    let windowStart = clock.now();
    let lateMs: number | null = null;
    let startAtMs: number | null = null;
    try {
      if (warmup > 0) {
        const wc =
          cfg.warmupConcurrency ?? (load.kind === 'closed' ? load.concurrency : (load.maxConcurrency ?? 1));
        await this.closedPhase('warmup', cfg.warmupSpecs ?? cfg.specs, wc, warmup, null);
      }
      if (cfg.beforeMeasure && !this.stopped) await cfg.beforeMeasure();
      const start =
        cfg.start?.ready && !this.stopped
          ? { ...cfg.start, atMs: await this.untilStopped(cfg.start.ready()) }
          : (cfg.start ?? null);
      windowStart = clock.now();
      if (start) {
        startAtMs = start.atMs;
        if (windowStart < start.atMs)
          await clock.sleepUntil(start.atMs, this.stopCtl.signal).catch(() => undefined);
        lateMs = Math.max(0, clock.now() - start.atMs);
        // On time: the window opens at the common start exactly, so every shard's planned
        // times are start + the schedule's offsets, with no per-process skew added.
        windowStart = lateMs <= start.lateLimitMs ? start.atMs : clock.now();
        if (lateMs > start.lateLimitMs && start.policy === 'fail') {
          this.lateStart = true;
          this.unsentMeasured(load, start.atMs);
        }
      }
      // The client's health over the measured window: not its warm-up, nor a wait for the start.
      health.stop();
      health = probe();
      if (this.lateStart) {
        // nothing is sent: every measured request was recorded as not sent above
      } else if (load.kind === 'closed') {
        const deadline = load.durationMs != null ? windowStart + load.durationMs : null;
        await this.closedPhase('measure', cfg.specs, load.concurrency, load.requests ?? null, deadline);
        if (deadline !== null) reason = 'duration';
      } else if (load.kind === 'sessions') {
        await this.sessionsPhase(start ? start.atMs : windowStart, load);
      } else {
        const t0 = start ? start.atMs : windowStart;
        await this.openPhase(t0, load.arrivalsMs, load.maxConcurrency ?? null, start ? clock.now() : null);
      }
    } catch (err) {
      // A bug inside the runner: still hand back what was recorded, and say so.
      reason = 'error';
      this.observerErrors.push(`runner: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (this.failedFast !== null && reason !== 'error') reason = 'failed_fast';
    if (this.interrupted) reason = 'interrupted';
    if (this.lateStart) reason = 'late_start';
    const windowEnd = this.lastMeasureRecordAt ?? clock.now();
    this.emit('onRunEnd', reason);
    return {
      records: this.records,
      window: { start_ms: windowStart, end_ms: Math.max(windowStart, windowEnd) },
      started_at_unix_ms: clock.originUnixMs,
      interrupted: this.interrupted,
      reason,
      failed_fast: this.failedFast,
      late_ms: lateMs,
      start_at_ms: startAtMs,
      client_health: health.stop(),
      observer_errors: this.observerErrors,
    };
  }

  /** Stop sending and cancel everything in flight (SIGINT/SIGTERM). */
  private interrupt(): void {
    if (this.interrupted) return;
    this.interrupted = true;
    this.cancelAll('interrupted');
  }

  private cancelAll(why: string): void {
    if (!this.stopCtl.signal.aborted) this.stopCtl.abort(new Error(why));
    for (const f of this.inFlight) {
      f.ac.abort(new Error(why));
      f.onCancel?.();
    }
  }

  private get stopped(): boolean {
    return this.stopCtl.signal.aborted;
  }

  private plan(phase: Phase, spec: RequestSpec, planned_at_ms: number | null): Planned {
    return { planned_id: `${this.prefix}-${this.nextN++}`, phase, spec, planned_at_ms };
  }

  /**
   * Closed loop: `concurrency` workers, each starting its next request when the previous one
   * (all its attempts) ended. Bounded by `count` requests, or by `deadlineMs` after which
   * in-flight requests drain for `drainTimeoutMs` and are then cancelled.
   */
  private async closedPhase(
    phase: Phase,
    specs: readonly RequestSpec[],
    concurrency: number,
    count: number | null,
    deadlineMs: number | null,
  ): Promise<void> {
    let started = 0;
    let cancelDrain: (() => void) | undefined;
    if (deadlineMs !== null) {
      const drainMs = this.cfg.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
      cancelDrain = this.clock.setTimer(
        () => this.cancelAll('drain timeout'),
        deadlineMs + drainMs - this.clock.now(),
      );
    }
    const canStart = () =>
      !this.stopped &&
      (count === null || started < count) &&
      (deadlineMs === null || this.clock.now() < deadlineMs);
    const worker = async () => {
      while (canStart()) {
        const p = this.plan(phase, specs[started % specs.length], this.clock.now());
        started++;
        await this.attempts(p, deadlineMs);
      }
    };
    const n = count === null ? concurrency : Math.min(concurrency, count);
    await Promise.all(Array.from({ length: n }, worker));
    cancelDrain?.();
    // Interrupted: the requests that were planned but never sent still get their record.
    if (count !== null)
      for (let i = started; i < count; i++) this.unsent(this.plan(phase, specs[i % specs.length], null));
  }

  /**
   * Open loop: request i is due at `t0 + arrivalsMs[i]` and is sent then, or as soon as a slot
   * frees under `maxConcurrency`, keeping its planned time either way. The schedule never
   * slides: the dispatcher sleeps until absolute times and never waits for a slot itself.
   */
  private async openPhase(
    t0: number,
    arrivalsMs: readonly number[],
    cap: number | null,
    openedAt: number | null,
  ): Promise<void> {
    const specs = this.cfg.specs;
    const queue: Planned[] = [];
    let active = 0;
    // Resolved when the last request in flight ends after the dispatcher is done (a counter,
    // not a list of promises, so a long schedule holds no per-request state once it ended).
    let onIdle: (() => void) | undefined;
    const launch = (p: Planned) => {
      active++;
      void this.attempts(p, null)
        .catch((err) => this.noteObserverError('runner', err))
        .finally(() => {
          active--;
          const next = this.stopped ? undefined : queue.shift();
          if (next) launch(next);
          else if (active === 0) onIdle?.();
        });
    };
    let i = 0;
    // A late start (`--late-policy truncate`): arrivals more than the limit before the window
    // opened were missed; they are recorded, never sent late in a burst.
    const limit = this.cfg.start?.lateLimitMs ?? 0;
    if (openedAt !== null)
      for (; i < arrivalsMs.length && t0 + arrivalsMs[i] < openedAt - limit; i++)
        this.unsent(this.plan('measure', specs[i % specs.length], t0 + arrivalsMs[i]), LATE_START);
    for (; i < arrivalsMs.length; i++) {
      const at = t0 + arrivalsMs[i];
      if (this.stopped) break;
      if (at > this.clock.now()) {
        try {
          await this.clock.sleepUntil(at, this.stopCtl.signal);
        } catch {
          break; // interrupted while waiting
        }
      }
      if (this.stopped) break;
      const p = this.plan('measure', specs[i % specs.length], at);
      if (cap === null || active < cap) launch(p);
      else queue.push(p);
    }
    if (active > 0)
      await new Promise<void>((resolve) => {
        onIdle = resolve;
      });
    for (const p of queue.splice(0)) this.unsent(p);
    for (; i < arrivalsMs.length; i++)
      this.unsent(this.plan('measure', specs[i % specs.length], t0 + arrivalsMs[i]));
  }

  /**
   * Sessions: every user runs its own closed loop over its turns (see {@link SessionLoad}),
   * all from `t0`; with a cap, turns wait for a slot in order of arrival, keeping their planned time.
   */
  private async sessionsPhase(t0: number, load: Extract<LoadMode, { kind: 'sessions' }>): Promise<void> {
    const cap = load.maxConcurrency ?? null;
    let active = 0;
    const waiters: (() => void)[] = [];
    const wakeAll = () => {
      for (const w of waiters.splice(0)) w();
    };
    this.stopCtl.signal.addEventListener('abort', wakeAll, { once: true });
    const slot = {
      acquire: async (): Promise<void> => {
        if (cap === null || active < cap) {
          active++;
          return;
        }
        // The slot is handed over by `release` (active stays the same), or the run stopped.
        await new Promise<void>((resolve) => waiters.push(resolve));
      },
      release: () => {
        const next = this.stopped ? undefined : waiters.shift();
        if (next) next();
        else active--;
      },
    };
    try {
      await Promise.all(load.sessions.map((s) => this.session(t0, s, slot)));
    } finally {
      this.stopCtl.signal.removeEventListener('abort', wakeAll);
    }
  }

  /** One user's session: its turns in order, each carrying the history so far. */
  private async session(
    t0: number,
    s: SessionLoad,
    slot: { acquire(): Promise<void>; release(): void },
  ): Promise<void> {
    const history: ChatMessage[] = [...s.prefix];
    let at = t0 + s.startMs;
    let k = 0;
    let ended: string | undefined;
    for (; k < s.turns.length; k++) {
      const turn = s.turns[k];
      if (this.stopped) break;
      if (at > this.clock.now()) {
        try {
          await this.clock.sleepUntil(at, this.stopCtl.signal);
        } catch {
          break; // interrupted while thinking
        }
      }
      if (this.stopped) break;
      const p = this.plan(
        'measure',
        { ...turn.spec, messages: [...history, ...(turn.spec.messages ?? [])] },
        at,
      );
      await slot.acquire();
      if (this.stopped) {
        slot.release();
        break;
      }
      const answer: AnswerSink = { parts: [] };
      let last: RequestRecord;
      try {
        last = await this.attemptsOf(p, null, answer);
      } finally {
        slot.release();
      }
      this.noteFinished(last);
      if (!SUCCESS_OUTCOMES.includes(last.outcome)) {
        const why = last.error ? `${last.outcome}: ${last.error}` : last.outcome;
        ended = `${SESSION_ENDED}: turn ${k} failed (${why})`;
        k++;
        break;
      }
      history.push(...(turn.spec.messages ?? []), { role: 'assistant', content: answer.parts.join('') });
      at = (last.end_at_ms ?? this.clock.now()) + turn.thinkMs;
    }
    // Every planned turn has its record: the rest of an ended (or interrupted) session, never sent.
    for (; k < s.turns.length; k++) this.unsent(this.plan('measure', s.turns[k].spec, null), ended);
  }

  /**
   * Send one planned request, retrying retryable failures; every attempt is recorded. The
   * request keeps its concurrency slot (closed-loop worker or open-loop slot) during back-off,
   * as a user who retries would.
   */
  private async attempts(p: Planned, deadlineMs: number | null): Promise<void> {
    const last = await this.attemptsOf(p, deadlineMs);
    if (p.phase === 'measure') this.noteFinished(last);
  }

  /**
   * A measured request finished (its final attempt is `rec`): feed the fail-fast rule until it
   * has seen its first `failFastAfter` requests; when it says stop, stop sending (requests in
   * flight end on their own and are recorded as usual).
   */
  private noteFinished(rec: RequestRecord): void {
    if (this.failFastSeen.length >= this.failFastAfter || this.stopped) return;
    this.failFastSeen.push(rec);
    if (this.failFastSeen.length < this.failFastAfter) return;
    const why = failFastReason(this.failFastSeen, this.failFastAfter);
    if (why === null) return;
    this.failedFast = why;
    if (!this.stopCtl.signal.aborted) this.stopCtl.abort(new Error(`fail fast: ${why}`));
  }

  /** Every attempt of one planned request; resolves to the final attempt's record. */
  private async attemptsOf(
    p: Planned,
    deadlineMs: number | null,
    answer?: AnswerSink,
  ): Promise<RequestRecord> {
    const retries = this.cfg.retries ?? 0;
    let planned_at_ms = p.planned_at_ms;
    for (let attempt = 1; ; attempt++) {
      if (answer) answer.parts.length = 0;
      const rec = await this.sendOnce(p, attempt, planned_at_ms, answer);
      this.record(rec);
      if (attempt > retries || !isRetryable(rec) || this.stopped) return rec;
      if (deadlineMs !== null && this.clock.now() >= deadlineMs) return rec;
      const backoff = (this.cfg.retryBackoffMs ?? DEFAULT_RETRY_BACKOFF_MS) * 2 ** (attempt - 1);
      const wait = Math.min(
        rec.retry_after_s !== null ? rec.retry_after_s * 1000 : backoff,
        this.cfg.retryMaxWaitMs ?? DEFAULT_RETRY_MAX_WAIT_MS,
      );
      // A retry whose back-off ends after --duration would be a new send after the run's end
      // (and the wait would hold the phase open into the drain): the last attempt stands.
      if (deadlineMs !== null && this.clock.now() + wait >= deadlineMs) return rec;
      try {
        await this.clock.sleepUntil(this.clock.now() + wait, this.stopCtl.signal);
      } catch {
        return rec; // interrupted during the back-off: the last attempt's record stands
      }
      if (this.stopped) return rec;
      // A retry is planned for the moment its back-off ends, so each record's
      // "from planned" latencies describe that attempt alone.
      planned_at_ms = this.clock.now();
    }
  }

  /** One attempt: hand it to the target and always come back with exactly one record. */
  private async sendOnce(
    p: Planned,
    attempt: number,
    planned_at_ms: number | null,
    answer?: AnswerSink,
  ): Promise<RequestRecord> {
    const ac = new AbortController();
    const flight: Flight = { ac, onCancel: undefined };
    this.inFlight.add(flight);
    if (this.stopped) ac.abort(this.stopCtl.signal.reason);
    const id = attempt === 1 ? p.planned_id : `${p.planned_id}.${attempt}`;
    const ident = { id, planned_id: p.planned_id, attempt, phase: p.phase, index: p.spec.index };
    const sent = this.clock.now();
    // The runner's own record of the attempt: shown to `onSent` observers, and the record that
    // stands when the target fails to produce one. Built lazily: most runs never need it.
    let own: RequestRecord | undefined;
    const provisional = () => {
      if (!own) {
        own = this.skeleton(ident, p.spec, planned_at_ms);
        own.sent_at_ms = sent;
      }
      return own;
    };
    if (this.hasSentObservers)
      this.emit('onSent', provisional(), planned_at_ms === null ? null : sent - planned_at_ms);

    const args: SendArgs = {
      ...ident,
      spec: p.spec,
      planned_at_ms,
      signal: ac.signal,
      onChunk: this.onChunk,
    };
    if (answer) args.answer = answer;
    let rec: RequestRecord;
    try {
      let pending: Promise<RequestRecord>;
      try {
        pending = this.target.send(args);
      } catch (err) {
        pending = Promise.reject(err);
      }
      rec = await this.settle(pending, flight, provisional);
      if (rec === null || typeof rec !== 'object') throw new Error('target resolved without a record');
    } catch (err) {
      rec = provisional();
      rec.end_at_ms = this.clock.now();
      // No outcome class means "our own client failed"; stream_error ("failed in flight") is the
      // closest, and the message says what happened. An abort still wins, as always.
      rec.outcome = ac.signal.aborted ? 'cancelled' : 'stream_error';
      rec.error = `client failure: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      this.inFlight.delete(flight);
    }
    // The identity is the runner's, whatever the target wrote.
    Object.assign(rec, ident);
    rec.planned_at_ms = planned_at_ms;
    if (p.spec.session_id !== undefined) {
      rec.session_id = p.spec.session_id;
      rec.turn = p.spec.turn ?? null;
    }
    return rec;
  }

  /**
   * The target's record, or, when the request was aborted and the target has not answered
   * within the grace period, a `cancelled` record of our own (a late answer is ignored).
   */
  private settle(
    pending: Promise<RequestRecord>,
    flight: Flight,
    provisional: () => RequestRecord,
  ): Promise<RequestRecord> {
    return new Promise<RequestRecord>((resolve, reject) => {
      let done = false;
      let cancelGrace: (() => void) | undefined;
      const onCancel = () => {
        if (done || cancelGrace) return;
        cancelGrace = this.clock.setTimer(() => {
          if (done) return;
          done = true;
          const rec = provisional();
          rec.end_at_ms = this.clock.now();
          rec.outcome = 'cancelled';
          rec.error = 'the client did not end the request after it was cancelled';
          resolve(rec);
        }, this.cfg.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS);
      };
      if (flight.ac.signal.aborted) onCancel();
      else flight.onCancel = onCancel;
      const finish = () => {
        done = true;
        cancelGrace?.();
      };
      pending.then(
        (r) => {
          if (done) return;
          finish();
          resolve(r);
        },
        (e) => {
          if (done) return;
          finish();
          reject(e);
        },
      );
    });
  }

  /** `p`'s value, or now when the run is stopped first (an interrupt must not wait on a coordinator). */
  private untilStopped(p: Promise<number>): Promise<number> {
    const signal = this.stopCtl.signal;
    if (signal.aborted) return Promise.resolve(this.clock.now());
    return new Promise((resolve, reject) => {
      const onStop = () => resolve(this.clock.now());
      signal.addEventListener('abort', onStop, { once: true });
      p.then(
        (v) => {
          signal.removeEventListener('abort', onStop);
          resolve(v);
        },
        (err) => {
          signal.removeEventListener('abort', onStop);
          reject(err);
        },
      );
    });
  }

  /** Every measured request of the load, recorded as not sent because the start was missed. */
  private unsentMeasured(load: LoadMode, t0: number): void {
    if (load.kind === 'sessions') {
      for (const s of load.sessions)
        for (const t of s.turns) this.unsent(this.plan('measure', t.spec, null), LATE_START);
      return;
    }
    const specs = this.cfg.specs;
    const n = load.kind === 'open' ? load.arrivalsMs.length : (load.requests ?? 0);
    for (let i = 0; i < n; i++)
      this.unsent(
        this.plan('measure', specs[i % specs.length], load.kind === 'open' ? t0 + load.arrivalsMs[i] : null),
        LATE_START,
      );
  }

  /** A planned request that was never sent (interrupted run, a fail-fast stop, or a late start). */
  private unsent(p: Planned, why?: string): void {
    const rec = this.skeleton(
      { id: p.planned_id, planned_id: p.planned_id, attempt: 1, phase: p.phase, index: p.spec.index },
      p.spec,
      p.planned_at_ms,
    );
    rec.outcome = 'cancelled';
    rec.error =
      why ??
      (this.failedFast !== null && !this.interrupted
        ? `${FAIL_FAST_UNSENT}: ${this.failedFast}`
        : 'not sent: the run was interrupted');
    this.record(rec);
  }

  private skeleton(
    ident: Pick<RequestRecord, 'id' | 'planned_id' | 'attempt' | 'phase' | 'index'>,
    spec: RequestSpec,
    planned_at_ms: number | null,
  ): RequestRecord {
    const rec = emptyRecord(ident);
    rec.planned_at_ms = planned_at_ms;
    rec.input_len = spec.input_len;
    rec.output_len = spec.output_len;
    if (spec.session_id !== undefined) {
      rec.session_id = spec.session_id;
      rec.turn = spec.turn ?? null;
    }
    return rec;
  }

  private record(rec: RequestRecord): void {
    if (rec.phase === 'measure') this.lastMeasureRecordAt = this.clock.now();
    this.records.push(rec);
    this.emit('onRecord', rec);
  }

  /** Call a hook on every observer; a throwing observer is noted, never allowed to break the run. */
  private emit<K extends keyof RunObserver>(hook: K, ...args: Parameters<NonNullable<RunObserver[K]>>): void {
    for (const o of this.observers) {
      const fn = o[hook] as ((...a: unknown[]) => void) | undefined;
      if (!fn) continue;
      try {
        fn.apply(o, args);
      } catch (err) {
        this.noteObserverError(hook, err);
      }
    }
  }

  private noteObserverError(hook: string, err: unknown): void {
    if (this.observerErrors.length < MAX_OBSERVER_ERRORS)
      this.observerErrors.push(`${hook}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
