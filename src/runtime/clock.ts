/**
 * @module runtime/clock
 * The only home of `performance.now`, `Date.now` and timers for measurement code.
 * Everything that needs time takes a {@link Clock}, so the load generator can run on the
 * wall clock while the simulator and tests run on a {@link VirtualClock}.
 */
import { performance } from 'node:perf_hooks';

/** A monotonic clock with millisecond units and sub-millisecond (µs or better) resolution. */
export interface Clock {
  /** Milliseconds since this clock's origin (monotonic, fractional). */
  now(): number;
  /** Unix wall-clock milliseconds at this clock's origin (the anchor that lines a run up with server logs). */
  readonly originUnixMs: number;
  /** Resolve at `atMs` on this clock (immediately when it is already past). Rejects with the signal's reason on abort. */
  sleepUntil(atMs: number, signal?: AbortSignal): Promise<void>;
  /** Call `fn` after `ms`; returns a cancel function. */
  setTimer(fn: () => void, ms: number): () => void;
}

/** Wall clock: `performance.now()` relative to construction. */
export class RealClock implements Clock {
  readonly originUnixMs: number;
  private readonly origin: number;

  constructor() {
    this.origin = performance.now();
    this.originUnixMs = performance.timeOrigin + this.origin;
  }

  now(): number {
    return performance.now() - this.origin;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const t = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(t);
  }

  /**
   * setTimeout fires up to ~1 ms late and never early on Node, so we wake ~1.5 ms before the
   * target and finish with setImmediate turns; this keeps open-loop lateness p99 near 1 ms
   * without burning a core on a busy wait.
   */
  sleepUntil(atMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      let timer: NodeJS.Timeout | undefined;
      let imm: NodeJS.Immediate | undefined;
      const onAbort = () => {
        if (timer) clearTimeout(timer);
        if (imm) clearImmediate(imm);
        reject(signal?.reason);
      };
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const spin = () => {
        imm = undefined;
        if (this.now() >= atMs) return done();
        imm = setImmediate(spin);
      };
      const wait = () => {
        timer = undefined;
        const left = atMs - this.now();
        if (left <= 0) return done();
        if (left > 2) timer = setTimeout(wait, left - 1.5);
        else spin();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      wait();
    });
  }
}

/**
 * A clock that only moves when told to. Timers fire in (time, insertion) order as
 * {@link VirtualClock.advanceTo} passes them. Used by tests and by virtual-time drivers.
 */
export class VirtualClock implements Clock {
  readonly originUnixMs: number;
  private t = 0;
  private seq = 0;
  private timers: { at: number; seq: number; fn: () => void }[] = [];

  constructor(originUnixMs = 0) {
    this.originUnixMs = originUnixMs;
  }

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const entry = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(entry);
    return () => {
      const i = this.timers.indexOf(entry);
      if (i >= 0) this.timers.splice(i, 1);
    };
  }

  sleepUntil(atMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        cancel();
        reject(signal?.reason);
      };
      const cancel = this.setTimer(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, atMs - this.t);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Time of the next pending timer, or undefined. */
  nextTimerAt(): number | undefined {
    let best: number | undefined;
    for (const e of this.timers) if (best === undefined || e.at < best) best = e.at;
    return best;
  }

  /** Move time forward to `atMs`, firing every timer due on the way in order. */
  advanceTo(atMs: number): void {
    for (;;) {
      let idx = -1;
      for (let i = 0; i < this.timers.length; i++) {
        const e = this.timers[i];
        if (e.at > atMs) continue;
        if (
          idx < 0 ||
          e.at < this.timers[idx].at ||
          (e.at === this.timers[idx].at && e.seq < this.timers[idx].seq)
        )
          idx = i;
      }
      if (idx < 0) break;
      const [e] = this.timers.splice(idx, 1);
      this.t = Math.max(this.t, e.at);
      e.fn();
    }
    this.t = Math.max(this.t, atMs);
  }
}
