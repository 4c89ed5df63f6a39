/**
 * @module runtime/clock
 * The only home of `performance.now`, `Date.now` and timers for measurement code.
 * Everything that needs time takes a {@link Clock}, so the load generator can run on the
 * wall clock while the simulator and tests run on a {@link VirtualClock}.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { whenAborted } from './abort.js';

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

/**
 * How long before the target the fine waker posts its wake-up, in ms. The hop from the
 * waker's thread to the event loop takes ~0.05–0.2 ms; the rest is a short setImmediate spin,
 * so a sleep resolves within µs of its target while spinning ~0.2 ms instead of ~1.5–3 ms.
 */
const FINE_LEAD_MS = 0.2;

/**
 * The waker's thread: sleeps on a futex (ns timeouts, unlike libuv's whole-ms timers) until the
 * armed CLOCK_MONOTONIC time, posts one message, then waits to be re-armed. Plain CommonJS
 * (`eval`), so it needs no loader. Shared memory: Int32 generation at 0, Float64 target at 8.
 */
const WAKER_SOURCE = `
const { workerData: sab, parentPort } = require('node:worker_threads');
const gen = new Int32Array(sab, 0, 1);
const target = new Float64Array(sab, 8, 1);
for (;;) {
  const g = Atomics.load(gen, 0);
  const t = target[0];
  if (!Number.isFinite(t)) { Atomics.wait(gen, 0, g); continue; }
  const left = t - Number(process.hrtime.bigint()) / 1e6;
  if (left > 0) { Atomics.wait(gen, 0, g, left); continue; }
  parentPort.postMessage(g);
  Atomics.wait(gen, 0, g);
}`;

/** A pending fine wake-up: `atPerfMs` in `performance.now()` units. */
interface FineEntry {
  atPerfMs: number;
  fire: () => void;
}

/**
 * Sub-millisecond wake-ups without a busy loop. Node's timers are whole-ms and start from a
 * loop time that can be ~1 ms stale, so a setTimeout fires anywhere from ~1.8 ms early to
 * ~1 ms late (measured); the old way out was to wake early and spin with setImmediate, which
 * cost ~30% of a core at 200 sleeps/s. One unref'd worker thread, shared by every RealClock,
 * waits on a futex for the earliest pending target and posts a message to wake the loop.
 * If the worker cannot start, callers fall back to their own timers (whole-ms precision).
 */
class FineWaker {
  private readonly sab = new SharedArrayBuffer(16);
  private readonly gen = new Int32Array(this.sab, 0, 1);
  private readonly target = new Float64Array(this.sab, 8, 1);
  /** CLOCK_MONOTONIC ms minus performance.now(): both read uv_hrtime, so the offset is fixed. */
  private readonly hrOffsetMs = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  private readonly pending = new Set<FineEntry>();
  private worker: Worker | null = null;
  /** Resolves when the worker runs (or could not start). */
  private online: Promise<void> = Promise.resolve();
  broken = false;

  constructor() {
    this.target[0] = Number.POSITIVE_INFINITY;
  }

  /** Wake `e.fire` at `e.atPerfMs` (minus {@link FINE_LEAD_MS}). */
  add(e: FineEntry): void {
    if (!this.start()) return;
    this.pending.add(e);
    this.arm();
  }

  remove(e: FineEntry): void {
    if (this.pending.delete(e)) this.arm();
  }

  /**
   * Start the worker if it is not running, and resolve when it runs (at once if it cannot
   * start): a thread takes tens of ms to boot, which the first sleeps would otherwise spend on
   * their whole-ms fallback timers.
   */
  ready(): Promise<void> {
    if (!this.start()) return Promise.resolve();
    // The worker is unref'd: hold the loop open while waiting for it (bounded, in case it hangs).
    const hold = setTimeout(() => {}, 5_000);
    return this.online.finally(() => clearTimeout(hold));
  }

  private start(): boolean {
    if (this.worker !== null) return true;
    if (this.broken) return false;
    try {
      // execArgv: [] so the waker does not load the parent's --import hooks (tsx): it needs none
      const w = new Worker(WAKER_SOURCE, { eval: true, workerData: this.sab, execArgv: [] });
      this.online = new Promise<void>((resolve) => {
        w.once('online', resolve);
        w.once('exit', () => resolve());
      });
      w.on('message', () => this.onWake());
      w.on('error', () => this.fail());
      w.on('exit', () => this.fail());
      // after the listener (adding a 'message' listener refs the port): an idle waker must
      // never keep the process alive; each sleeper's own timer does that
      w.unref();
      this.worker = w;
      return true;
    } catch {
      this.broken = true;
      return false;
    }
  }

  private fail(): void {
    this.broken = true;
    this.worker = null;
    this.pending.clear();
  }

  /** Point the worker at the earliest pending target (Infinity = idle); always bumps the generation. */
  private arm(): void {
    let min = Number.POSITIVE_INFINITY;
    for (const e of this.pending) if (e.atPerfMs < min) min = e.atPerfMs;
    this.target[0] = min - FINE_LEAD_MS + this.hrOffsetMs;
    Atomics.add(this.gen, 0, 1);
    Atomics.notify(this.gen, 0);
  }

  private onWake(): void {
    const due = performance.now() + FINE_LEAD_MS;
    const fired: FineEntry[] = [];
    for (const e of this.pending)
      if (e.atPerfMs <= due) {
        this.pending.delete(e);
        fired.push(e);
      }
    this.arm();
    for (const e of fired) e.fire();
  }
}

let fineWaker: FineWaker | null = null;

/**
 * Start the thread behind {@link RealClock}'s sub-millisecond sleeps now rather than at the
 * first sleep, and resolve when it runs. A real-time simulator calls it before it serves
 * (`sim/server/warm`), so that its first request's steps are woken as precisely as later ones.
 */
export function startFineWaker(): Promise<void> {
  fineWaker ??= new FineWaker();
  return fineWaker.ready();
}

/** Unix wall-clock ms now, on the same anchor as {@link RealClock}'s `originUnixMs`. */
export function unixNowMs(): number {
  return performance.timeOrigin + performance.now();
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
   * Resolves at `atMs`, never before, typically within µs (see {@link FineWaker}): the shared
   * waker thread wakes the loop ~0.2 ms early and a short setImmediate spin lands on the target.
   * A plain setTimeout runs alongside: it keeps the process alive during the sleep and is the
   * wake-up of last resort (whole-ms precision) when the waker is late or unavailable.
   */
  sleepUntil(atMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      if (this.now() >= atMs) return resolve();
      let timer: NodeJS.Timeout | undefined;
      let imm: NodeJS.Immediate | undefined;
      let settled = false;
      let stopWaiting = () => {};
      const entry: FineEntry = { atPerfMs: atMs + this.origin, fire: () => spin() };
      const cleanup = () => {
        settled = true;
        if (timer) clearTimeout(timer);
        if (imm) clearImmediate(imm);
        fineWaker?.remove(entry);
        stopWaiting();
      };
      const onAbort = () => {
        if (settled) return;
        cleanup();
        reject(signal?.reason);
      };
      const spin = () => {
        imm = undefined;
        if (settled) return;
        if (this.now() >= atMs) {
          cleanup();
          resolve();
        } else imm ??= setImmediate(spin);
      };
      // Fallback timer: fires within ~2 ms of atMs, possibly early (stale loop time), so it
      // re-checks and re-arms rather than trusting itself.
      const backstop = () => {
        timer = undefined;
        if (settled) return;
        const left = atMs - this.now();
        if (left <= 0) return spin();
        // without the waker, keep the old early wake + spin (whole-ms timers miss by ~1 ms)
        if (fineWaker === null || fineWaker.broken) {
          if (left > 2) timer = setTimeout(backstop, left - 1.5);
          else if (imm === undefined) spin();
        } else timer = setTimeout(backstop, left + 1);
      };
      if (signal) stopWaiting = whenAborted(signal, onAbort);
      fineWaker ??= new FineWaker();
      fineWaker.add(entry);
      backstop();
    });
  }
}

/** A pending {@link VirtualClock} timer; `fn` is null once cancelled (it stays in the heap until it surfaces). */
interface VirtualTimer {
  at: number;
  seq: number;
  fn: (() => void) | null;
}

/** Whether timer `a` fires before `b`: earlier time, then earlier insertion. */
function firesBefore(a: VirtualTimer, b: VirtualTimer): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/**
 * A clock that only moves when told to. Timers fire in (time, insertion) order as
 * {@link VirtualClock.advanceTo} passes them. Used by tests and by virtual-time drivers.
 *
 * The timers are a binary heap on (time, insertion), and a cancelled timer is only marked and
 * dropped when it reaches the top: `plan` sets and cancels a few timers per request and per
 * engine step (10⁵–10⁶ in a long run), and a scan of every pending timer per firing, as a list
 * takes, grows with the requests in flight.
 */
export class VirtualClock implements Clock {
  readonly originUnixMs: number;
  private t = 0;
  private seq = 0;
  private heap: VirtualTimer[] = [];
  /** Cancelled timers still in the heap; past half of it, the heap is rebuilt without them. */
  private cancelled = 0;

  constructor(originUnixMs = 0) {
    this.originUnixMs = originUnixMs;
  }

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const entry: VirtualTimer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.push(entry);
    return () => {
      if (entry.fn === null) return;
      entry.fn = null;
      if (++this.cancelled > 64 && this.cancelled * 2 > this.heap.length) this.compact();
    };
  }

  sleepUntil(atMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      let stopWaiting = () => {};
      const cancel = this.setTimer(() => {
        stopWaiting();
        resolve();
      }, atMs - this.t);
      if (signal)
        stopWaiting = whenAborted(signal, () => {
          cancel();
          reject(signal.reason);
        });
    });
  }

  /** Time of the next pending timer, or undefined. */
  nextTimerAt(): number | undefined {
    return this.top()?.at;
  }

  /** Move time forward to `atMs`, firing every timer due on the way in order. */
  advanceTo(atMs: number): void {
    for (;;) {
      const e = this.top();
      if (e === undefined || e.at > atMs) break;
      this.pop();
      const fn = e.fn as () => void;
      e.fn = null;
      this.t = Math.max(this.t, e.at);
      fn();
    }
    this.t = Math.max(this.t, atMs);
  }

  /** The earliest live timer (cancelled ones on top are dropped on the way), or undefined. */
  private top(): VirtualTimer | undefined {
    const h = this.heap;
    while (h.length > 0 && h[0].fn === null) {
      this.pop();
      this.cancelled--;
    }
    return h[0];
  }

  /** Drop every cancelled timer: re-push the live ones (their order is (time, insertion), unchanged). */
  private compact(): void {
    const live = this.heap.filter((e) => e.fn !== null);
    this.heap = [];
    this.cancelled = 0;
    for (const e of live) this.push(e);
  }

  private push(e: VirtualTimer): void {
    const h = this.heap;
    let i = h.length;
    h.push(e);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!firesBefore(e, h[p])) break;
      h[i] = h[p];
      i = p;
    }
    h[i] = e;
  }

  /** Remove the top of the heap. */
  private pop(): void {
    const h = this.heap;
    const last = h.pop() as VirtualTimer;
    const n = h.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && firesBefore(h[r], h[l]) ? r : l;
      if (!firesBefore(h[c], last)) break;
      h[i] = h[c];
      i = c;
    }
    h[i] = last;
  }
}

/**
 * How long, in wall milliseconds, {@link driveVirtual} waits with no virtual timer pending
 * before it calls the run stalled. Loading the workload reads files and may import a tokenizer
 * (real I/O on libuv's thread pool, not on this clock): such a wait is short but can outlast any
 * fixed number of event-loop turns, so the limit is wall time.
 */
export const VIRTUAL_STALL_MS = 10_000;

/**
 * Settle `p` on a {@link VirtualClock}: let every pending callback run (one event-loop turn),
 * then move the clock to its next timer, until `p` settles. Whatever `p` waits on must be driven
 * by this clock alone (the in-process simulator, virtual-time tests): a real socket or a wall
 * timer would be skipped past. Real I/O with no virtual timer pending (a file read, a module
 * import) is waited for; `p` is rejected as stalled only when nothing is pending on this clock
 * for {@link VIRTUAL_STALL_MS} of wall time.
 */
export async function driveVirtual<T>(clock: VirtualClock, p: Promise<T>): Promise<T> {
  let settled = false;
  const done = p.finally(() => {
    settled = true;
  });
  done.catch(() => {});
  let idleTurns = 0;
  let idleSince = 0;
  while (!settled) {
    // A few quick turns first (the usual case: a callback chain on this clock), then real sleeps
    // so the poll phase can deliver I/O without spinning the CPU.
    if (idleTurns < 100) await new Promise<void>((resolve) => setImmediate(resolve));
    else await new Promise<void>((resolve) => setTimeout(resolve, 1));
    if (settled) break;
    const next = clock.nextTimerAt();
    if (next === undefined) {
      if (idleTurns++ === 0) idleSince = performance.now();
      else if (performance.now() - idleSince > VIRTUAL_STALL_MS)
        throw new Error(`virtual time stalled at ${clock.now()} ms with nothing scheduled`);
      continue;
    }
    idleTurns = 0;
    clock.advanceTo(next);
  }
  return done;
}
