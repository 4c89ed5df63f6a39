/**
 * @module sim/engine/realtime-driver
 * The real-time driver: steps the clock-free engine on a wall {@link Clock} and hands each
 * step's tokens to the HTTP layer at their planned release (the step's end, or later: see Release).
 *
 * Time: engine ms = clock ms × `timeScale` (`--time-scale X` runs X times faster than real time).
 *
 * Drift compensation: a step starts at the previous step's *planned* end, not at "now", so the
 * ~0.1–1 ms by which each timer fires late does not add up over thousands of steps and the
 * engine's timeline stays the one `plan` computes. If the driver falls further behind than
 * `lateToleranceMs` (wall ms; a GC pause or a blocked event loop), the next step starts now
 * instead, so tokens are not bunched while catching up. With `timeScale` > 1 the default
 * tolerance is infinite: a machine too slow for the scale then writes tokens as fast as it can
 * while the engine timeline stays exact, instead of inserting simulated idle gaps of
 * tolerance × scale into running requests.
 *
 * Release: a step's tokens leave when `release(step)` says (engine ms, never before the step's
 * end): the API server's output queue (`sim/frontend`), which under many streams lets chunks
 * leave after their step ended while the engine steps on. Released steps wait in a FIFO outbox,
 * drained by one precise sleep ({@link Clock.sleepUntil}) for the oldest, so a step's tokens go
 * out at their planned release, in step order, and the engine never waits for them. The lag
 * ({@link DriverOptions.onLag}, {@link DriverStats}) is measured against that planned release,
 * after `deliver` returned, i.e. after every chunk was handed to the kernel (the server writes
 * each socket corked, so `deliver` ends with its writes done).
 *
 * Arrivals are stamped on the engine timeline ({@link RealTimeDriver.timelineNow}): when the
 * driver lags behind the wall clock, "now" for the engine is the end of the step in flight.
 * Idle when the engine has no work; an arrival wakes it and the first step starts at once,
 * with every request that arrived at that same instant: vLLM's engine core, woken by a request,
 * drains its whole input queue before it schedules (`vllm-project/vllm:vllm/v1/engine/core.py`,
 * `_process_input_queue`), and `plan`'s fast path (`sim/batch-driver`) batches them the same way.
 */
import { setImmediate as yieldToIo } from 'node:timers/promises';
import type { Clock } from '../../runtime/clock.js';
import type { EngineRequest, SimEngine, StepResult } from './types.js';

/** How many recent steps' lateness {@link RealTimeDriver.stats} keeps. */
const LATE_WINDOW = 10_000;

export interface DriverOptions {
  /** Engine ms per wall ms (> 0). */
  timeScale: number;
  /**
   * Wall ms of lateness after which the next step restarts from now. Default 20 when
   * `timeScale` ≤ 1, infinite (never restart) when faster.
   */
  lateToleranceMs?: number;
  /**
   * Wall ms after its planned release by which a step's tokens must have been handed to the sockets;
   * a step later than this counts as the simulator falling behind ({@link DriverStats.behind}).
   * Default {@link BEHIND_MS}.
   */
  behindMs?: number;
  /**
   * Called after every step with its lag: wall ms from the step's planned release to the end of its
   * delivery (every token handed to the sockets), and whether that is behind.
   */
  onLag?: (lagMs: number, behind: boolean) => void;
  /**
   * Engine ms at which a step's tokens leave (the API server's output queue); called once per
   * step, in step order, right after the step is computed. Default: at the step's end.
   */
  release?: (step: StepResult) => number;
  /**
   * Engine ms before which the GPU is busy with other work (transcriptions colocated with the
   * LLM, `sim/server/audio`): a step never starts before it. Default: never busy.
   */
  gpuFreeAtMs?: () => number;
}

/**
 * Default lag, wall ms, past which a step counts as behind: 10 ms is well above what a keeping-up
 * server shows (docs/bench.md, sim-real: step lag p50 of 1–3 ms at 100 streams) and well below a
 * TPOT anyone measures, so it flags a simulator that distorts token times and not noise. Writing
 * one chunk to each of 1,000 sockets takes ~10 ms of one core (docs/sim.md), so at 1,000 streams
 * and more a single core is near this line.
 */
export const BEHIND_MS = 10;

/** Lateness of token delivery against the steps' planned release times. */
export interface DriverStats {
  steps: number;
  /** Steps that restarted from "now" because the driver was later than the tolerance. */
  resyncs: number;
  /** Steps whose writes ended more than `behindMs` after their planned release: the simulator fell behind. */
  behind: number;
  /** Wall ms by which each delivery started after its planned release (last 10,000 steps, oldest first). */
  lateMs: number[];
  /**
   * Wall ms from each delivery's planned release to the end of its writes (last 10,000 steps,
   * oldest first): what {@link DriverOptions.onLag} reports.
   */
  lagMs: number[];
}

/**
 * Runs the engine in real time. `deliver(step, plannedWallMs)` is called at each step's planned
 * release (`plannedWallMs`, on the driver's clock); it writes the tokens to the clients.
 */
export class RealTimeDriver {
  private readonly scale: number;
  private readonly toleranceMs: number;
  private running = false;
  private closed = false;
  /**
   * Cancels the sleeps in progress (the step loop's and the outbox's) on close. One controller for
   * the driver's life: both clocks stop waiting on the signal when a sleep ends (`whenAborted`'s
   * stop), so nothing piles up on it, and a controller per sleep cost ~2 µs of CPU and a signal
   * to collect for each of a `plan`'s ~10⁵ steps.
   */
  private readonly sleepCtl = new AbortController();
  /** Largest engine arrival time since the last step started (a step never starts before it). */
  private lastArrivalMs = 0;
  /** While running: engine ms up to which steps are planned (the end of the step in flight). */
  private cursorMs = 0;
  /** Engine ms at which the step in flight started (the earliest arrival it can still take). */
  private stepStartMs = 0;
  private steps = 0;
  private resyncs = 0;
  private behind = 0;
  private readonly behindMs: number;
  private readonly onLag?: (lagMs: number, behind: boolean) => void;
  /** Ring buffer of the last {@link LATE_WINDOW} delivery latenesses, wall ms. */
  private readonly late = new Float64Array(LATE_WINDOW);
  /** Ring buffer of the last {@link LATE_WINDOW} delivery lags (to the end of the writes), wall ms. */
  private readonly lag = new Float64Array(LATE_WINDOW);
  private readonly release?: (step: StepResult) => number;
  private readonly gpuFreeAtMs?: () => number;
  /** Steps computed whose release is still ahead (or behind an earlier one), oldest first. */
  private readonly outbox: { step: StepResult; wallMs: number }[] = [];
  private outboxHead = 0;
  private pumping = false;

  constructor(
    readonly engine: SimEngine,
    private readonly clock: Clock,
    opts: DriverOptions,
    private readonly deliver: (step: StepResult, plannedWallMs: number) => void,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    if (!(opts.timeScale > 0)) throw new RangeError('timeScale must be > 0');
    this.scale = opts.timeScale;
    this.toleranceMs = opts.lateToleranceMs ?? (opts.timeScale > 1 ? Number.POSITIVE_INFINITY : 20);
    this.behindMs = opts.behindMs ?? BEHIND_MS;
    this.onLag = opts.onLag;
    this.release = opts.release;
    this.gpuFreeAtMs = opts.gpuFreeAtMs;
  }

  /** End of the engine step in flight (engine ms), or 0 while idle: when other GPU work may start. */
  busyUntilMs(): number {
    return this.running ? this.cursorMs : 0;
  }

  /**
   * Whether the simulated GPU runs a step now: one is in flight and ends later than the present,
   * or work waits while the driver lags behind its clock. False from the instant the last step
   * ends; what `DCGM_FI_DEV_GPU_UTIL` reads (`sim/server/metrics`).
   */
  gpuBusyNow(): boolean {
    return this.running && (this.cursorMs > this.engineNow() || this.engine.hasWork());
  }

  /** Current engine time, ms. */
  engineNow(): number {
    return this.clock.now() * this.scale;
  }

  /** Wall ms on the driver's clock for engine time `engineMs`. */
  toWallMs(engineMs: number): number {
    return engineMs / this.scale;
  }

  /** Wall ms for an engine duration. */
  wallDuration(engineMs: number): number {
    return engineMs / this.scale;
  }

  /**
   * The engine's present, ms: the wall clock scaled, except while the driver lags behind it,
   * when it is the end of the step in flight (the engine cannot have seen anything later).
   */
  timelineNow(): number {
    const now = this.engineNow();
    return this.running ? Math.min(now, this.cursorMs) : now;
  }

  /**
   * Hand a request to the engine and wake the loop; returns its arrival (engine ms).
   *
   * The arrival is {@link timelineNow}, or `dueMs` when that is earlier: the engine time at which
   * the modelled front end would have handed the request over, when the simulator's own CPU
   * (parsing, tokenising a text its memo has not seen, a cold JIT) took longer in wall time. That
   * work is the simulator's, not the modelled server's, so it must not show in what it serves: a
   * cold request after `POST /reset_prefix_cache` (whose text the memo knows) would otherwise be
   * faster than the first one (issue 26 item 6). The engine's time never runs backwards: the
   * arrival is never before the start of the step in flight (the request joins the next step,
   * as it would have) nor, while idle, before the last step's end or arrival; an idle engine
   * then starts its first step at the backdated arrival, and its tokens leave at that step's
   * planned end, or at once if the simulator's work already ran past it.
   */
  add(req: Omit<EngineRequest, 'arrivalMs'>, dueMs?: number): number {
    const present = this.timelineNow();
    const floor = this.running ? this.stepStartMs : Math.max(this.cursorMs, this.lastArrivalMs);
    const now = dueMs === undefined ? present : Math.min(present, Math.max(dueMs, floor));
    this.lastArrivalMs = Math.max(this.lastArrivalMs, now);
    this.engine.add({ ...req, arrivalMs: now }, now);
    if (!this.running && !this.closed) {
      this.running = true;
      this.cursorMs = now;
      // Start after the current task, not inside it: on a VirtualClock the other timers due at
      // this instant (arrivals sent at the same moment) fire first and join the first step.
      queueMicrotask(() => void this.loop(now));
    }
    return now;
  }

  /** The client went away: free the request's KV blocks at once. */
  abort(reqId: string): void {
    this.engine.abort(reqId, this.timelineNow());
  }

  stats(): DriverStats {
    const n = Math.min(this.steps, LATE_WINDOW);
    const lateMs: number[] = new Array(n);
    const start = this.steps - n;
    const lagMs: number[] = new Array(n);
    for (let i = 0; i < n; i++) {
      lateMs[i] = this.late[(start + i) % LATE_WINDOW];
      lagMs[i] = this.lag[(start + i) % LATE_WINDOW];
    }
    return { steps: this.steps, resyncs: this.resyncs, behind: this.behind, lateMs, lagMs };
  }

  /** Stop stepping (pending sleeps are cancelled, unreleased steps dropped). */
  close(): void {
    this.closed = true;
    this.sleepCtl.abort(new Error('driver closed'));
    this.outbox.length = 0;
    this.outboxHead = 0;
  }

  private sleep(untilWallMs: number): Promise<void> {
    return this.clock.sleepUntil(untilWallMs, this.sleepCtl.signal);
  }

  /**
   * A step whose end has come: deliver it now if its release is due and nothing released
   * earlier waits, else queue it behind those (releases are in step order, so a step never
   * overtakes an earlier one, even one with a later release).
   */
  private offer(step: StepResult, releaseWallMs: number): void {
    const pending = this.outbox.length - this.outboxHead;
    if (pending === 0 && this.clock.now() >= releaseWallMs) {
      this.handOut(step, releaseWallMs);
      return;
    }
    const last = pending > 0 ? this.outbox[this.outbox.length - 1].wallMs : releaseWallMs;
    this.outbox.push({ step, wallMs: Math.max(releaseWallMs, last) });
    if (!this.pumping) void this.pump();
  }

  /** Drains the outbox: one sleep until the oldest step's release, deliver, repeat. */
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (!this.closed && this.outboxHead < this.outbox.length) {
        const next = this.outbox[this.outboxHead];
        if (this.clock.now() < next.wallMs) {
          await this.sleep(next.wallMs);
          if (this.closed) break;
        }
        this.outboxHead++;
        if (this.outboxHead === this.outbox.length) {
          this.outbox.length = 0;
          this.outboxHead = 0;
        }
        this.handOut(next.step, next.wallMs);
      }
    } catch (err) {
      if (!this.closed) this.onError(err);
    } finally {
      this.pumping = false;
    }
  }

  /** Deliver one step at (or after) its planned release and account for its lag. */
  private handOut(step: StepResult, plannedWall: number): void {
    const slot = this.steps % LATE_WINDOW;
    this.late[slot] = this.clock.now() - plannedWall;
    this.steps++;
    this.deliver(step, plannedWall);
    const lateAfter = this.clock.now() - plannedWall;
    this.lag[slot] = lateAfter;
    const behind = lateAfter > this.behindMs;
    if (behind) this.behind++;
    this.onLag?.(Math.max(0, lateAfter), behind);
  }

  private async loop(startMs: number): Promise<void> {
    try {
      let start = startMs;
      this.cursorMs = start;
      while (!this.closed && this.engine.hasWork()) {
        start = Math.max(start, this.lastArrivalMs);
        if (this.gpuFreeAtMs) start = Math.max(start, this.gpuFreeAtMs());
        this.stepStartMs = start;
        const computedWall = this.clock.now();
        const r = this.engine.step(start);
        this.cursorMs = r.endMs;
        const plannedWall = this.toWallMs(r.endMs);
        const releaseWall = this.release ? this.toWallMs(Math.max(r.endMs, this.release(r))) : plannedWall;
        if (r.endMs <= start && r.tokens.length === 0 && r.finished.length === 0) {
          // Nothing could run (should not happen with a sane engine): back off instead of spinning.
          await this.sleep(this.clock.now() + 1);
          start = this.engineNow();
          continue;
        }
        if (this.clock.now() >= plannedWall) {
          // Already due (behind, or a very fast --time-scale): sleepUntil would resolve without
          // leaving the microtask queue, so yield one event-loop turn to let sockets and new
          // arrivals in. This is scheduling, not measurement, so it does not go through the Clock.
          await yieldToIo();
        } else await this.sleep(plannedWall);
        if (this.closed) break;
        this.offer(r, releaseWall);
        // The engine's own timeline: restart from now when the engine itself (its wake-up plus
        // what was delivered at this step's end) is later than the tolerance. A step planned to
        // end before it was computed is catching up with an arrival backdated past the
        // simulator's own work (see `add`): the engine keeps its timeline until it is caught up.
        if (plannedWall > computedWall && this.clock.now() - plannedWall > this.toleranceMs) {
          this.resyncs++;
          start = this.engineNow();
        } else start = r.endMs;
      }
    } catch (err) {
      if (!this.closed) this.onError(err);
    } finally {
      this.running = false;
    }
    // An arrival raced with the loop's exit: keep going.
    if (!this.closed && this.engine.hasWork() && !this.running) {
      this.running = true;
      void this.loop(this.engineNow());
    }
  }
}
