/**
 * @module runner/progress
 * The progress line, as a run observer. On a TTY it redraws one live line (done, in flight,
 * errors, rate, ETA) at most 4×/s; elsewhere (CI logs, pipes) it prints a plain line every ~5 s
 * so logs stay readable. Hooks only bump counters; drawing happens on a timer from the
 * injected clock, so the hot path never formats text.
 */
import { EN } from '../analysis/diagnose/default-lang.js';
import type { T } from '../i18n/index.js';
import { SUCCESS_OUTCOMES } from '../record/types.js';
import type { Clock } from '../runtime/clock.js';
import type { RunObserver, RunStartInfo } from './events.js';

/** Where progress goes: a writable stream such as `process.stderr`. */
export interface ProgressStream {
  write(s: string): unknown;
  isTTY?: boolean;
}

export interface ProgressOptions {
  stream: ProgressStream;
  clock: Clock;
  /** A `--duration` run's length in ms (gives the ETA when the request count is unknown). */
  durationMs?: number | null;
  /** Redraw interval in ms; default 250 on a TTY (≤ 4×/s), 5000 otherwise. */
  intervalMs?: number;
  /** The language of the line (default English). */
  t?: T;
}

/** Counters the line shows; exported for tests and other renderers. */
export interface ProgressState {
  planned: number | null;
  done: number;
  in_flight: number;
  errors: number;
  elapsed_ms: number;
}

export interface ProgressObserver extends RunObserver {
  /** Stop the redraw timer (also done by `onRunEnd`); idempotent. */
  stop(): void;
  state(): ProgressState;
}

/**
 * Create the progress observer. Pass it to `runLoad` among the observers.
 * @example runLoad(cfg, { target, clock, observers: [createProgress({ stream: process.stderr, clock })] })
 */
export function createProgress(opts: ProgressOptions): ProgressObserver {
  const { stream, clock } = opts;
  const tty = stream.isTTY === true;
  const intervalMs = opts.intervalMs ?? (tty ? 250 : 5000);
  let planned: number | null = null;
  let done = 0;
  let inFlight = 0;
  let errors = 0;
  let t0 = clock.now();
  let cancelTimer: (() => void) | undefined;
  let running = false;

  const state = (): ProgressState => ({
    planned,
    done,
    in_flight: inFlight,
    errors,
    elapsed_ms: clock.now() - t0,
  });

  const draw = (final: boolean) => {
    const line = formatProgress(state(), opts.durationMs ?? null, opts.t);
    if (tty) stream.write(`\r\x1b[2K${line}${final ? '\n' : ''}`);
    else stream.write(`${line}\n`);
  };

  const tick = () => {
    if (!running) return;
    draw(false);
    cancelTimer = clock.setTimer(tick, intervalMs);
  };

  const stop = () => {
    running = false;
    cancelTimer?.();
    cancelTimer = undefined;
  };

  return {
    onRunStart(info: RunStartInfo) {
      planned = info.planned;
      t0 = clock.now();
      running = true;
      cancelTimer = clock.setTimer(tick, intervalMs);
    },
    onSent() {
      inFlight++;
    },
    onRecord(rec) {
      done++;
      if (rec.sent_at_ms !== null) inFlight = Math.max(0, inFlight - 1);
      if (rec.outcome !== 'cancelled' && !SUCCESS_OUTCOMES.includes(rec.outcome)) errors++;
    },
    onRunEnd() {
      if (!running) return;
      stop();
      draw(true);
    },
    stop,
    state,
  };
}

/**
 * One progress line, e.g. `[  12.3s] 45/100 done · 8 in flight · 2 errors · 12.4 req/s · ETA 4s`.
 * Rate is records per second since the run started; ETA comes from the remaining count at that
 * rate, or from the remaining duration for a `--duration` run.
 */
export function formatProgress(s: ProgressState, durationMs: number | null, t: T = EN): string {
  const sec = s.elapsed_ms / 1000;
  const rate = sec > 0 ? s.done / sec : 0;
  let eta = '';
  if (s.planned !== null && rate > 0)
    eta = t('run.progress.eta', { eta: formatSeconds((s.planned - s.done) / rate) });
  else if (durationMs !== null)
    eta = t('run.progress.eta', { eta: formatSeconds(Math.max(0, durationMs / 1000 - sec)) });
  return t(s.errors === 1 ? 'run.progress.line_one_error' : 'run.progress.line', {
    elapsed: sec.toFixed(1).padStart(6),
    count: s.planned !== null ? `${s.done}/${s.planned}` : `${s.done}`,
    in_flight: s.in_flight,
    errors: s.errors,
    rate: rate.toFixed(1),
    eta,
  });
}

function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  const r = Math.max(0, Math.round(s));
  if (r < 60) return `${r}s`;
  const m = Math.floor(r / 60);
  return m < 60
    ? `${m}m${String(r % 60).padStart(2, '0')}s`
    : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
