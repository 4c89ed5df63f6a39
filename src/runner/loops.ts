/**
 * @module runner/loops
 * The load loops, which decide when each request is planned: closed loop (N workers, each
 * finished request starts the next), open loop (an absolute, precomputed arrival schedule with
 * an optional concurrency cap), sessions (each user a closed loop over its turns, carrying the
 * conversation), plus warm-up, the common start of a sharded run, the duration drain and
 * interruption. What a run is asked to do is `runner/load`; how each planned request becomes
 * exactly one record per attempt (retries, the abort grace, unsent requests, fail fast) is
 * `runner/attempts`. All timing goes through the injected clock (`runtime/clock`), so tests
 * run in virtual time.
 */
import { FAIL_FAST_AFTER } from '../analysis/errors.js';
import { stageOfIndex } from '../analysis/stage-summary.js';
import type { ClientPrepared } from '../analysis/summary.js';
import type { AnswerSink } from '../client/types.js';
import { UsageError } from '../core/errors.js';
import { type Phase, type RequestRecord, SUCCESS_OUTCOMES } from '../record/types.js';
import { whenAborted } from '../runtime/abort.js';
import type { ChatMessage, RequestSpec, SpecList } from '../workload/types.js';
import { type Planned, RunAttempts } from './attempts.js';
import { startClientHealth } from './health.js';
import {
  LATE_START,
  type LoadMode,
  plannedRequests,
  type RunEndReason,
  type RunLoadConfig,
  type RunLoadDeps,
  type RunResult,
  SESSION_ENDED,
  type SessionLoad,
  validateRunLoadConfig,
} from './load.js';

const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

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

/**
 * Connections to open before the measured window: twice a closed loop's concurrency (see below),
 * or the cap of an open loop or of sessions; no more than the requests planned; 0 for an
 * uncapped open loop, whose concurrency is the server's to decide.
 */
function poolSize(load: LoadMode, planned: number | null): number {
  // Twice the requests in flight: a stream is done at its [DONE] while undici still holds its
  // connection (freed after the last bytes, back in the pool on the next check phase; nodejs/undici
  // lib/dispatcher/client-h1.js), so a closed-loop worker's next request takes a spare instead of
  // a connect inside its TTFT (c = 100: 76 connects in the window with c connections opened).
  const n = load.kind === 'closed' ? 2 * load.concurrency : (load.maxConcurrency ?? 0);
  return planned === null ? n : Math.min(n, planned);
}

/** Spec `i` of a list: an array's at once, a streamed workload's when it is built. */
function specAt(specs: SpecList, i: number): RequestSpec | Promise<RequestSpec> {
  return 'streamed' in specs ? specs.at(i % specs.length) : specs[i % specs.length];
}

/** Spec `i`, awaited only when streamed (an array's is read with no turn of the event loop). */
async function specOf(specs: SpecList, i: number): Promise<RequestSpec> {
  return specAt(specs, i);
}

class LoadRun extends RunAttempts {
  /** The common start was missed under `--late-policy fail`: nothing measured is sent. */
  private lateStart = false;
  /** The drain after a duration run's end ran out and cancelled what was still in flight. */
  private drainTimedOut = false;

  async run(): Promise<RunResult> {
    const { cfg, clock } = this;
    const probe = this.deps.health ?? startClientHealth;
    let health = probe({ timeline: clock });
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
    let prepared: ClientPrepared | undefined;
    try {
      if (warmup > 0) {
        const wc =
          cfg.warmupConcurrency ?? (load.kind === 'closed' ? load.concurrency : (load.maxConcurrency ?? 1));
        await this.closedPhase('warmup', cfg.warmupSpecs ?? cfg.specs, wc, warmup, null);
      }
      if (cfg.beforeMeasure && !this.stopped) await cfg.beforeMeasure();
      // Get the client ready before the window opens: the first wave's TTFT must not carry a
      // TCP connect each, nor the client's first run of its own code (c = 100 against a
      // constant-latency server: the first 100 requests read 2.2× the rest's TTFT p50 with
      // neither; docs/bench.md, "first wave"). What it did is reported with the client's health.
      const pool = poolSize(load, measuredPlanned);
      if (pool > 0 && this.deps.target.preconnect && !this.stopped)
        prepared = (await this.deps.target.preconnect(pool).catch(() => null)) ?? undefined;
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
          await this.unsentMeasured(load, start.atMs);
        }
      }
      // The client's health over the measured window: not its warm-up, nor a wait for the start.
      health.stop();
      health = probe({ timeline: clock });
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
        await this.openPhase(t0, load, start ? clock.now() : null);
        if (load.durationMs != null) reason = 'duration';
      }
    } catch (err) {
      // A bug inside the runner: still hand back what was recorded, and say so.
      reason = 'error';
      this.observerErrors.push(`runner: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (this.drainTimedOut && reason === 'duration') reason = 'drain_timeout';
    if (this.failedFast !== null && reason !== 'error') reason = 'failed_fast';
    else if (this.serverGoneAt !== null && reason !== 'error') reason = 'server_gone';
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
      client_health: prepared ? { ...health.stop(), prepared } : health.stop(),
      observer_errors: this.observerErrors,
    };
  }

  /**
   * Closed loop: `concurrency` workers, each starting its next request when the previous one
   * (all its attempts) ended. Bounded by `count` requests, or by `deadlineMs` after which
   * in-flight requests drain for `drainTimeoutMs` and are then cancelled.
   */
  private async closedPhase(
    phase: Phase,
    specs: SpecList,
    concurrency: number,
    count: number | null,
    deadlineMs: number | null,
  ): Promise<void> {
    let started = 0;
    const cancelDrain = deadlineMs !== null ? this.armDrain(deadlineMs) : undefined;
    const canStart = () =>
      !this.stopped &&
      (count === null || started < count) &&
      (deadlineMs === null || this.clock.now() < deadlineMs);
    const worker = async () => {
      // Consecutive requests of this worker that ended in a connect error: it backs off.
      let refused = 0;
      while (canStart()) {
        const s = specAt(specs, started++);
        const p = this.plan(phase, s instanceof Promise ? await s : s, this.clock.now());
        const last = await this.attempts(p, deadlineMs);
        refused = last.outcome === 'connect_error' ? refused + 1 : 0;
        await this.connectBackoff(refused);
      }
    };
    const n = count === null ? concurrency : Math.min(concurrency, count);
    await Promise.all(Array.from({ length: n }, worker));
    cancelDrain?.();
    // Interrupted: the requests that were planned but never sent still get their record.
    if (count !== null)
      for (let i = started; i < count; i++) {
        const s = specAt(specs, i);
        this.unsent(this.plan(phase, s instanceof Promise ? await s : s, null));
      }
  }

  /**
   * The one drain rule of every loop: from `endMs` (a duration's end, or the last send when
   * later) requests in flight may finish for `drainTimeoutMs`; then everything still in flight
   * is cancelled (recorded `cancelled`) and the run ends with reason `drain_timeout`. Returns the
   * timer's cancel, for a phase that ended first.
   */
  private armDrain(endMs: number): () => void {
    const drainMs = this.cfg.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    return this.clock.setTimer(
      () => {
        // The phase is still waiting on a request (in flight or in a retry's back-off).
        if (!this.interrupted) this.drainTimedOut = true;
        this.cancelAll('drain timeout');
      },
      Math.max(0, endMs + drainMs - this.clock.now()),
    );
  }

  /**
   * Open loop: request i is due at `t0 + arrivalsMs[i]` and is sent then, or as soon as a slot
   * frees under `maxConcurrency`, keeping its planned time either way. The schedule never
   * slides: the dispatcher sleeps until absolute times and never waits for a slot itself.
   */
  private async openPhase(
    t0: number,
    load: Extract<LoadMode, { kind: 'open' }>,
    openedAt: number | null,
  ): Promise<void> {
    const { arrivalsMs } = load;
    const streamed = 'streamed' in arrivalsMs;
    const arrivals = arrivalsMs[Symbol.iterator]();
    // Offsets from the stage's base: t0, or with load stages the end of the previous stage's drain.
    const nextOff = (): number | null => {
      const r = arrivals.next();
      return r.done ? null : r.value;
    };
    let base = t0;
    const cap = load.maxConcurrency ?? null;
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
    // A planned request of a staged run carries its stage (the record's `stage`), sent or not.
    const stagedAt = (p: Planned, index: number): Planned => {
      if (load.stages) p.stage = stageOfIndex(load.stages.counts, index);
      return p;
    };
    let i = 0;
    // A streamed schedule stopped before it opened is not read at all (nothing of it fell due).
    let off = streamed && this.stopped ? null : nextOff();
    // A late start (`--late-policy truncate`): arrivals more than the limit before the window
    // opened were missed; they are recorded, never sent late in a burst.
    const limit = this.cfg.start?.lateLimitMs ?? 0;
    if (openedAt !== null)
      for (; off !== null && base + off < openedAt - limit; i++, off = nextOff())
        this.unsent(stagedAt(this.plan('measure', await specOf(specs, i), base + off), i), LATE_START);
    // Load stages: the next stage's base is set when the previous one has drained, plus a pause.
    let stageEnd = load.stages
      ? (load.stages.counts[0] ?? Number.POSITIVE_INFINITY)
      : Number.POSITIVE_INFINITY;
    let stage = 0;
    for (; off !== null; i++, off = nextOff()) {
      if (load.stages && i === stageEnd) {
        if (active > 0 || queue.length > 0)
          await new Promise<void>((resolve) => {
            onIdle = resolve;
          });
        onIdle = undefined;
        if (this.stopped) break;
        base = this.clock.now() + load.stages.pauseMs;
        stageEnd += load.stages.counts[++stage] ?? 0;
      }
      const at = base + off;
      if (this.stopped) break;
      // Asked for before the wait: a streamed workload builds it meanwhile.
      const s = specAt(specs, i);
      if (at > this.clock.now()) {
        try {
          await this.clock.sleepUntil(at, this.stopCtl.signal);
        } catch {
          break; // interrupted while waiting
        }
      }
      if (this.stopped) break;
      const p = this.plan('measure', s instanceof Promise ? await s : s, at);
      if (load.stages) p.stage = stage;
      if (cap === null || active < cap) launch(p);
      else queue.push(p);
    }
    // A duration schedule drains from its end (or its last send, when the dispatcher fell behind).
    const cancelDrain =
      load.durationMs != null && active > 0
        ? this.armDrain(Math.max(t0 + load.durationMs, this.clock.now()))
        : undefined;
    if (active > 0)
      await new Promise<void>((resolve) => {
        onIdle = resolve;
      });
    cancelDrain?.();
    for (const p of queue.splice(0)) this.unsent(p);
    // What a stop left unsent: every planned arrival of a schedule given whole; a streamed one
    // plans a request when it falls due, so those not yet due were never planned (see LoadMode).
    if (!streamed)
      for (; off !== null; i++, off = nextOff())
        this.unsent(stagedAt(this.plan('measure', await specOf(specs, i), base + off), i));
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

  /** `p`'s value, or now when the run is stopped first (an interrupt must not wait on a coordinator). */
  private untilStopped(p: Promise<number>): Promise<number> {
    const signal = this.stopCtl.signal;
    if (signal.aborted) return Promise.resolve(this.clock.now());
    return new Promise((resolve, reject) => {
      const stopWaiting = whenAborted(signal, () => resolve(this.clock.now()));
      p.then(
        (v) => {
          stopWaiting();
          resolve(v);
        },
        (err) => {
          stopWaiting();
          reject(err);
        },
      );
    });
  }

  /** Every measured request of the load, recorded as not sent because the start was missed. */
  private async unsentMeasured(load: LoadMode, t0: number): Promise<void> {
    if (load.kind === 'sessions') {
      for (const s of load.sessions)
        for (const t of s.turns) this.unsent(this.plan('measure', t.spec, null), LATE_START);
      return;
    }
    const specs = this.cfg.specs;
    if (load.kind === 'open') {
      // A streamed schedule plans nothing before it falls due (see LoadMode).
      if ('streamed' in load.arrivalsMs) return;
      let i = 0;
      for (const at of load.arrivalsMs)
        this.unsent(this.plan('measure', await specOf(specs, i++), t0 + at), LATE_START);
      return;
    }
    for (let i = 0; i < (load.requests ?? 0); i++)
      this.unsent(this.plan('measure', await specOf(specs, i), null), LATE_START);
  }
}
