/**
 * @module schedule/arrivals
 * Open-loop arrival schedules, computed up front as absolute offsets (ms from the schedule's
 * start), as vLLM's `get_request` does, so the runner sends request i at t0 + offsets[i] and
 * never slides the schedule when it falls behind.
 *
 * - `constant`: offset_i = i / rate.
 * - `poisson`: cumulative exponential gaps with mean 1 / rate.
 * - `gamma`: cumulative Gamma(shape k = burstiness, scale 1 / (rate·k)) gaps: mean 1 / rate,
 *   coefficient of variation 1 / √k (k < 1 is burstier than Poisson, k = 1 is Poisson).
 *
 * Rescaling (always on for the random kinds): N gaps are drawn and the first request goes at 0,
 * the next at the first gap, and so on; the sums are then scaled so the N-th gap ends exactly at
 * the schedule's period P = N / rate. The N requests thus fill [0, P) at exactly the target mean
 * rate, like `constant` (whose next, N+1-th, request would fall at P too). vLLM rescales the same
 * way for the same reason (a 1–2% rate error between seeds otherwise) but lets its first request
 * wait one gap; starting at 0 keeps the three kinds aligned. Statistically this is the Poisson
 * process conditioned on its count, so gap shapes are kept.
 *
 * With a duration instead of a count, N = ceil(rate × duration) and every offset lies inside the
 * duration: `constant` keeps i / rate; the random kinds use P = duration, so their mean rate is
 * N / duration, above the target by less than 1 / duration when rate × duration is not whole.
 *
 * Streamed ({@link streamArrivals}, every `--duration` open loop): the same offsets, generated as
 * they are read. Rescaling needs the sum of all N gaps, so the gaps are drawn once to sum them
 * (in slices, yielding between them, so an interrupt is heard) and drawn again from the same seed
 * as the offsets are read: the same numbers as {@link arrivalOffsetsMs}, in O(1) memory.
 */
import { type Problem, UsageError } from '../core/errors.js';
import { MAX_STREAMED_REQUESTS, plannedCountProblem } from '../core/limits.js';
import { type T, translator } from '../i18n/index.js';
import { hashString, Rng } from '../runtime/rng.js';

const EN = translator('en');

export const ARRIVAL_KINDS = ['constant', 'poisson', 'gamma'] as const;
export type ArrivalKind = (typeof ARRIVAL_KINDS)[number];

/** Open-loop schedule options. Give exactly one of `count` and `durationS`. */
export interface ArrivalOptions {
  /** Target mean send rate (requests/s), > 0; `Infinity` sends every request at t = 0 (needs `count`). */
  rateRps: number;
  arrival: ArrivalKind;
  /** Gamma shape k (> 0; 1 = Poisson). Only `gamma` uses it; other kinds accept only 1 or undefined. */
  burstiness?: number;
  /** Number of requests. */
  count?: number;
  /** Open-loop run length (s): count = ceil(rate × duration), all within the duration. */
  durationS?: number;
  /** Seed for the gaps (a seed reproduces the schedule). */
  seed: number;
}

/**
 * Check schedule options.
 * @returns every problem found, each with a hint (empty when usable).
 */
export function arrivalProblems(opts: ArrivalOptions, t: T = EN): Problem[] {
  const problems: Problem[] = [];
  const { rateRps, arrival, burstiness, count, durationS, seed } = opts;
  if (rateRps === Number.POSITIVE_INFINITY) {
    // vLLM bench's `--request-rate inf`: every request at t = 0 (a cap still holds them back).
    if (count === undefined)
      problems.push({
        path: '--rate',
        message: t('cli.rate.inf_duration'),
        hint: t('cli.rate.inf_duration_hint'),
      });
  } else if (!(typeof rateRps === 'number' && Number.isFinite(rateRps) && rateRps > 0))
    problems.push({
      path: '--rate',
      message: t('schedule.rate.bad', { got: String(rateRps) }),
      hint: t('schedule.rate.bad_hint'),
    });
  if (!(ARRIVAL_KINDS as readonly string[]).includes(arrival))
    problems.push({
      path: '--arrival',
      message: t('schedule.arrival.unknown', { got: arrival }),
      hint: t('schedule.arrival.unknown_hint', { kinds: ARRIVAL_KINDS.join(', ') }),
    });
  if (burstiness !== undefined) {
    if (!(Number.isFinite(burstiness) && burstiness > 0))
      problems.push({
        path: '--burstiness',
        message: t('schedule.burstiness.bad', { got: burstiness }),
        hint: t('schedule.burstiness.bad_hint'),
      });
    else if (arrival !== 'gamma' && burstiness !== 1)
      problems.push({
        path: '--burstiness',
        message: t('schedule.burstiness.not_gamma', { got: burstiness, arrival }),
        hint: t('schedule.burstiness.not_gamma_hint'),
      });
  }
  if ((count === undefined) === (durationS === undefined))
    problems.push({
      message: t('schedule.count_or_duration'),
      hint: t('schedule.count_or_duration_hint'),
    });
  if (count !== undefined && !(Number.isInteger(count) && count >= 1))
    problems.push({
      path: '--requests',
      message: t('schedule.requests.bad', { got: count }),
      hint: t('schedule.requests.bad_hint'),
    });
  if (durationS !== undefined && !(Number.isFinite(durationS) && durationS > 0))
    problems.push({
      path: '--duration',
      message: t('schedule.duration.bad', { got: durationS }),
      hint: t('schedule.duration.bad_hint'),
    });
  const planned =
    count ??
    (durationS !== undefined && rateRps > 0 && durationS > 0 ? openLoopCount(rateRps, durationS) : 0);
  // A count is built whole; a duration's schedule is streamed (see the module comment).
  const tooMany =
    count !== undefined
      ? plannedCountProblem(planned, '--requests')
      : plannedCountProblem(planned, '--rate × --duration', undefined, MAX_STREAMED_REQUESTS);
  if (tooMany) problems.push(tooMany);
  if (!Number.isInteger(seed))
    problems.push({
      path: '--seed',
      message: t('schedule.seed.bad', { got: seed }),
      hint: t('schedule.seed.bad_hint'),
    });
  return problems;
}

/** Requests an open-loop run of `durationS` at `rateRps` plans: ceil(rate × duration). */
export function openLoopCount(rateRps: number, durationS: number): number {
  // Round away float noise first (0.1 × 30 = 3.0000000000000004 must plan 3 requests, not 4).
  return Math.ceil(Number((rateRps * durationS).toPrecision(12)));
}

/**
 * The schedule: absolute send offsets (ms from the schedule's start), non-decreasing, first 0.
 * See the module comment for the rescaling.
 * @throws UsageError listing every problem in the options.
 * @example arrivalOffsetsMs({ rateRps: 4, arrival: 'constant', count: 3, seed: 1 }) // [0, 250, 500]
 */
export function arrivalOffsetsMs(opts: ArrivalOptions): number[] {
  const s = scheduleOf(opts);
  s.sumSlice(s.count);
  return [...s.offsets()];
}

/**
 * Offsets read in order, with their number: an array is one, and so is a {@link StreamedArrivals}.
 * The runner reads a schedule through this, front to back.
 */
export type ArrivalList = Iterable<number> & { readonly length: number };

/** A schedule generated as it is read (see the module comment): `length` offsets, equal to {@link arrivalOffsetsMs}'s. */
export interface StreamedArrivals extends ArrivalList {
  readonly streamed: true;
}

/** Gaps summed per slice before yielding to the event loop (about 10 ms of Poisson draws). */
const SUM_SLICE = 250_000;

/**
 * The schedule of `opts`, streamed: its gaps are summed first (in slices, `pause` awaited between
 * them; an aborted `signal` stops early, and the schedule may then not be read: the runner, stopped,
 * reads none of it), then each read draws the offsets again from the seed. Equal, offset for
 * offset, to {@link arrivalOffsetsMs}.
 * @throws UsageError listing every problem in the options.
 */
export async function streamArrivals(
  opts: ArrivalOptions,
  pause: () => Promise<void>,
  signal?: AbortSignal,
): Promise<StreamedArrivals> {
  const s = scheduleOf(opts);
  let left = s.count;
  while (left > 0 && !signal?.aborted) {
    left -= s.sumSlice(Math.min(left, SUM_SLICE));
    if (left > 0) await pause();
  }
  return { streamed: true, length: s.count, [Symbol.iterator]: () => s.offsets() };
}

/**
 * One schedule's draws: `sumSlice(n)` draws the next n gaps into the rescaling sum (returns n),
 * `offsets()` a fresh pass over the offsets once every gap was summed.
 */
function scheduleOf(opts: ArrivalOptions): {
  count: number;
  sumSlice(n: number): number;
  offsets(): IterableIterator<number>;
} {
  const problems = arrivalProblems(opts);
  if (problems.length > 0) throw new UsageError(problems);
  const { rateRps, arrival } = opts;
  if (rateRps === Number.POSITIVE_INFINITY) {
    const count = opts.count as number;
    return { count, sumSlice: (n) => n, offsets: () => repeat(count, () => 0) };
  }
  const count = opts.count ?? openLoopCount(rateRps, opts.durationS!);
  // i·1000/rate rather than i·gap: exact for every i instead of accumulating the gap's rounding.
  if (arrival === 'constant')
    return { count, sumSlice: (n) => n, offsets: () => repeat(count, (i) => (i * 1000) / rateRps) };
  const gapMs = 1000 / rateRps;
  const k = opts.burstiness ?? 1;
  const gaps = () => {
    const rng = new Rng(hashString(`${opts.seed}:arrivals`));
    return arrival === 'poisson' ? () => rng.exponential(gapMs) : () => rng.gamma(k, gapMs / k);
  };
  const summing = gaps();
  let total = 0;
  let summed = 0;
  const periodMs = opts.durationS !== undefined ? opts.durationS * 1000 : count * gapMs;
  return {
    count,
    sumSlice(n) {
      for (let i = 0; i < n; i++) total += summing();
      summed += n;
      return n;
    },
    offsets() {
      if (summed < count) throw new Error('arrivals: read before every gap was summed');
      // total > 0 always (gaps are > 0 almost surely); guard anyway so a degenerate draw cannot give NaN.
      const scale = total > 0 ? periodMs / total : 0;
      const draw = gaps();
      let sum = 0;
      return repeat(count, () => {
        const at = sum * scale;
        sum += draw();
        return at;
      });
    },
  };
}

/** An iterator over `n` values, the i-th `value(i)`, each computed when read. */
function* repeat(n: number, value: (i: number) => number): IterableIterator<number> {
  for (let i = 0; i < n; i++) yield value(i);
}

/** How a trace is replayed: {@link traceOffsetsMs}. */
export interface TraceReplay {
  /** Replay speed (> 0; 2 = twice as fast): `--trace-speedup`. */
  speedup?: number;
  /**
   * Arrival-rate multiplier (> 0; 2 = twice the rate): `--trace-rate-scale`. Scaling a replayed
   * trace's rate means dividing every gap by it, which is what a speedup does too; the two
   * flags are equivalent and multiply (no request is thinned out or duplicated).
   */
  rateScale?: number;
  /** The trace time the replay starts at (ms; default the first request's): a `--trace-window` start. */
  originMs?: number;
}

/**
 * Offsets for trace replay: each timestamp relative to the origin (the first request, or the
 * window's start), divided by speedup × rate scale.
 * @param specs anything with `timestamp_ms` (trace specs from `buildWorkload`), in trace order
 * @param replay the speedup (a number, for short) or the full {@link TraceReplay}
 * @returns absolute offsets in ms from the replay's start
 * @throws UsageError on a bad speedup or rate scale, or a spec without a timestamp.
 * @example traceOffsetsMs([{ timestamp_ms: 1000 }, { timestamp_ms: 3000 }], { speedup: 2 }) // [0, 1000]
 */
export function traceOffsetsMs(
  specs: readonly { timestamp_ms?: number }[],
  replay: number | TraceReplay = 1,
  t: T = EN,
): number[] {
  const { speedup = 1, rateScale = 1, originMs } = typeof replay === 'number' ? { speedup: replay } : replay;
  const problems: Problem[] = [];
  if (!(Number.isFinite(speedup) && speedup > 0))
    problems.push({
      path: '--trace-speedup',
      message: t('schedule.positive.bad', { got: speedup }),
      hint: t('schedule.speedup.hint'),
    });
  if (!(Number.isFinite(rateScale) && rateScale > 0))
    problems.push({
      path: '--trace-rate-scale',
      message: t('schedule.positive.bad', { got: rateScale }),
      hint: t('schedule.rate_scale.hint'),
    });
  const missing = specs.findIndex((s) => typeof s.timestamp_ms !== 'number');
  if (missing >= 0)
    problems.push({
      message: t('schedule.trace.no_timestamp', { index: missing }),
      hint: t('schedule.trace.no_timestamp_hint'),
    });
  if (problems.length > 0) throw new UsageError(problems);
  if (specs.length === 0) return [];
  const t0 = originMs ?? specs[0].timestamp_ms!;
  const k = speedup * rateScale;
  return specs.map((s) => (s.timestamp_ms! - t0) / k);
}
