/**
 * @module runner/attempts
 * One planned request, from its plan to its records. The runner owns the invariant that **every
 * planned request ends as exactly one record per attempt**, whatever the target or the user
 * does, and this is where it is kept: each attempt is handed to the target and always comes
 * back as one record (a throwing target becomes an error record; a target that ignores an
 * abort is given up on after a grace period and recorded `cancelled`); retryable failures are
 * retried with back-off or the server's Retry-After; a request never sent (an interrupted or
 * failed-fast run, a late start) is recorded `cancelled` with `sent_at_ms: null`; the
 * fail-fast rule watches the first finished requests; observers see every record once and
 * never break the run. `runner/loops` extends {@link RunAttempts} with the loops that decide
 * when each request is planned. All timing goes through the injected {@link Clock}.
 */
import { FAIL_FAST_UNSENT, failFastReason } from '../analysis/errors.js';
import {
  CONNECT_BACKOFF_MAX_MS,
  CONNECT_BACKOFF_MS,
  SERVER_GONE_AFTER_MS,
  SERVER_GONE_UNSENT,
} from '../analysis/server-gone.js';
import type { AnswerSink, SendArgs, Target } from '../client/types.js';
import { emptyRecord, type Phase, type RequestRecord } from '../record/types.js';
import type { Clock } from '../runtime/clock.js';
import type { RequestSpec } from '../workload/types.js';
import type { RunObserver } from './events.js';
import type { RunLoadConfig, RunLoadDeps } from './load.js';

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

const DEFAULT_ABORT_GRACE_MS = 2_000;
const DEFAULT_RETRY_BACKOFF_MS = 250;
const DEFAULT_RETRY_MAX_WAIT_MS = 10_000;
const MAX_OBSERVER_ERRORS = 20;

/** One attempt in flight: its abort controller and what to do when the runner cancels it. */
interface Flight {
  ac: AbortController;
  /** Starts the abort grace period (set by `settle`). */
  onCancel: (() => void) | undefined;
}

/** One planned request (before any attempt). */
export interface Planned {
  planned_id: string;
  phase: Phase;
  spec: RequestSpec;
  planned_at_ms: number | null;
  /** The 0-based load stage of a staged open loop (`LoadMode` `stages`); absent otherwise. */
  stage?: number;
}

/**
 * The attempts of a run's planned requests and their records; the loops that plan them extend
 * it (`LoadRun` in `runner/loops`). Members the loops use are protected; the per-attempt
 * machinery (send, settle, skeleton, record) is private to it.
 */
export abstract class RunAttempts {
  protected readonly clock: Clock;
  private readonly target: Target;
  private readonly observers: readonly RunObserver[];
  private readonly prefix: string;
  protected readonly records: RequestRecord[] = [];
  protected readonly observerErrors: string[] = [];
  /** Aborted on interruption or at the drain deadline: no new sends, no retries. */
  protected readonly stopCtl = new AbortController();
  /** Attempts in flight. Cancelling goes through this set rather than an abort listener per request (cheaper). */
  private readonly inFlight = new Set<Flight>();
  private nextN = 0;
  protected interrupted = false;
  /** Fail fast: the measured requests to wait for, those finished so far, and the verdict. */
  protected failFastAfter = 0;
  private readonly failFastSeen: RequestRecord[] = [];
  protected failedFast: string | null = null;
  /**
   * Run-clock send time of the first of the connect errors since the last attempt that reached
   * the server (null: the last attempt reached it), and whether they lasted long enough to stop
   * the run ({@link SERVER_GONE_AFTER_MS}).
   */
  private connectErrorsSince: number | null = null;
  protected serverGoneAt: number | null = null;
  /** Run-clock time the latest measured record was written (the window's end). */
  protected lastMeasureRecordAt: number | null = null;
  /**
   * One shared chunk callback (not a closure per request: it runs per chunk, the hottest path),
   * or undefined when no observer wants chunks, so the client can skip the call entirely.
   */
  private readonly onChunk: ((rec: RequestRecord) => void) | undefined;
  private readonly hasSentObservers: boolean;

  constructor(
    protected readonly cfg: RunLoadConfig,
    protected readonly deps: RunLoadDeps,
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

  /** Stop sending and cancel everything in flight (SIGINT/SIGTERM). */
  protected interrupt(): void {
    if (this.interrupted) return;
    this.interrupted = true;
    this.cancelAll('interrupted');
  }

  protected cancelAll(why: string): void {
    if (!this.stopCtl.signal.aborted) this.stopCtl.abort(new Error(why));
    for (const f of this.inFlight) {
      f.ac.abort(new Error(why));
      f.onCancel?.();
    }
  }

  protected get stopped(): boolean {
    return this.stopCtl.signal.aborted;
  }

  protected plan(phase: Phase, spec: RequestSpec, planned_at_ms: number | null): Planned {
    return { planned_id: `${this.prefix}-${this.nextN++}`, phase, spec, planned_at_ms };
  }

  /**
   * Send one planned request, retrying retryable failures; every attempt is recorded. The
   * request keeps its concurrency slot (closed-loop worker or open-loop slot) during back-off,
   * as a user who retries would.
   */
  protected async attempts(p: Planned, deadlineMs: number | null): Promise<RequestRecord> {
    const last = await this.attemptsOf(p, deadlineMs);
    if (p.phase === 'measure') this.noteFinished(last);
    return last;
  }

  /**
   * A closed-loop worker's pause after its `streak`-th consecutive request that ended in a
   * connect error: {@link CONNECT_BACKOFF_MS} doubled per connect error, at most
   * {@link CONNECT_BACKOFF_MAX_MS}; none after a request that reached the server. Resolves early
   * when the run stops.
   */
  protected async connectBackoff(streak: number): Promise<void> {
    if (streak <= 0 || this.stopped) return;
    const wait = Math.min(CONNECT_BACKOFF_MS * 2 ** (streak - 1), CONNECT_BACKOFF_MAX_MS);
    await this.clock.sleepUntil(this.clock.now() + wait, this.stopCtl.signal).catch(() => undefined);
  }

  /**
   * Watch for a server that stopped answering: connect errors only, for
   * {@link SERVER_GONE_AFTER_MS} since the first of them, stop sending (requests in flight end on
   * their own; the unsent are recorded `cancelled` with {@link SERVER_GONE_UNSENT}).
   */
  private noteConnect(rec: RequestRecord): void {
    if (rec.sent_at_ms === null || rec.outcome === 'cancelled') return;
    if (rec.outcome !== 'connect_error') {
      this.connectErrorsSince = null;
      return;
    }
    this.connectErrorsSince ??= rec.sent_at_ms;
    if (this.serverGoneAt !== null || this.clock.now() - this.connectErrorsSince < SERVER_GONE_AFTER_MS)
      return;
    this.serverGoneAt = this.connectErrorsSince;
    if (!this.stopCtl.signal.aborted) this.stopCtl.abort(new Error(SERVER_GONE_UNSENT));
  }

  /**
   * A measured request finished (its final attempt is `rec`): feed the fail-fast rule until it
   * has seen its first `failFastAfter` requests; when it says stop, stop sending (requests in
   * flight end on their own and are recorded as usual).
   */
  protected noteFinished(rec: RequestRecord): void {
    if (this.failFastSeen.length >= this.failFastAfter || this.stopped) return;
    this.failFastSeen.push(rec);
    if (this.failFastSeen.length < this.failFastAfter) return;
    const why = failFastReason(this.failFastSeen, this.failFastAfter);
    if (why === null) return;
    this.failedFast = why;
    if (!this.stopCtl.signal.aborted) this.stopCtl.abort(new Error(`fail fast: ${why}`));
  }

  /** Every attempt of one planned request; resolves to the final attempt's record. */
  protected async attemptsOf(
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
        own = this.skeleton(ident, p, planned_at_ms);
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
    if (p.stage !== undefined) rec.stage = p.stage;
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

  /** A planned request that was never sent (interrupted run, a fail-fast stop, or a late start). */
  protected unsent(p: Planned, why?: string): void {
    const rec = this.skeleton(
      { id: p.planned_id, planned_id: p.planned_id, attempt: 1, phase: p.phase, index: p.spec.index },
      p,
      p.planned_at_ms,
    );
    rec.outcome = 'cancelled';
    rec.error =
      why ??
      (this.interrupted
        ? 'not sent: the run was interrupted'
        : this.failedFast !== null
          ? `${FAIL_FAST_UNSENT}: ${this.failedFast}`
          : this.serverGoneAt !== null
            ? `${SERVER_GONE_UNSENT} (connect errors only since t=${(this.serverGoneAt / 1000).toFixed(1)} s)`
            : 'not sent: the run was interrupted');
    this.record(rec);
  }

  private skeleton(
    ident: Pick<RequestRecord, 'id' | 'planned_id' | 'attempt' | 'phase' | 'index'>,
    p: Pick<Planned, 'spec' | 'stage'>,
    planned_at_ms: number | null,
  ): RequestRecord {
    const spec = p.spec;
    const rec = emptyRecord(ident);
    rec.planned_at_ms = planned_at_ms;
    rec.input_len = spec.input_len;
    rec.output_len = spec.output_len;
    if (spec.session_id !== undefined) {
      rec.session_id = spec.session_id;
      rec.turn = spec.turn ?? null;
    }
    if (p.stage !== undefined) rec.stage = p.stage;
    return rec;
  }

  private record(rec: RequestRecord): void {
    if (rec.phase === 'measure') this.lastMeasureRecordAt = this.clock.now();
    this.noteConnect(rec);
    this.records.push(rec);
    this.emit('onRecord', rec);
  }

  /** Call a hook on every observer; a throwing observer is noted, never allowed to break the run. */
  protected emit<K extends keyof RunObserver>(
    hook: K,
    ...args: Parameters<NonNullable<RunObserver[K]>>
  ): void {
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

  protected noteObserverError(hook: string, err: unknown): void {
    if (this.observerErrors.length < MAX_OBSERVER_ERRORS)
      this.observerErrors.push(`${hook}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
