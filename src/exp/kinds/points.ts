/**
 * @module exp/kinds/points
 * The numbers every load-shaped kind tabulates for one run (a sweep level, a matrix cell),
 * taken from the run's summary and verdict, and the stop rules shared by both sweeps.
 */
import { EN } from '../../analysis/diagnose/default-lang.js';
import type { T } from '../../i18n/index.js';
import {
  MIN_SAMPLES_P95,
  MIN_SAMPLES_P99,
  UNRELIABLE_MARK,
  verdictCell,
  verdictText,
} from '../../report/comparison-table.js';
import type { RequestSpec } from '../../workload/types.js';
import type { RunInfo } from './context.js';

/** One run, reduced to its headline numbers (ms, tokens/s, requests/s). */
export interface RunHeadline {
  run_id: string | null;
  requests: number;
  error_rate: number | null;
  request_throughput_rps: number | null;
  output_throughput_tok_s: number | null;
  ttft_ms: Pct;
  tpot_ms: Pct;
  e2e_ms: Pct;
  itl_ms: Pct;
  /** The run's validity verdict: empty = valid. A level with reasons is left out of the knee. */
  validity: { code: string; message: string }[];
  /** The server's prefix-cache hit rate over the run (0..1); null when it has no such counters. */
  cache_hit_rate: number | null;
  /** The server's generation rate over the run, tokens/s (from its counter); null when not scraped. */
  server_tokens_per_s: number | null;
}

/** p50/p95/p99 of one metric (ms); null without data. */
export interface Pct {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  /** Samples behind them: a p99 from fewer than 100 or a p95 from fewer than 20 is unreliable. */
  n: number;
}

/**
 * `p50/p95/p99` as the experiment tables print them, each unreliable percentile marked with
 * {@link UNRELIABLE_MARK} (the report's rule: p99 from < 100 samples, p95 from < 20).
 */
export function formatPct(p: Pct, digits = 1, withP99 = true): string {
  const f = (v: number | null, thin: boolean) =>
    `${fmt(v, digits)}${thin && v !== null ? UNRELIABLE_MARK : ''}`;
  const head = `${f(p.p50, false)}/${f(p.p95, p.n < MIN_SAMPLES_P95)}`;
  return withP99 ? `${head}/${f(p.p99, p.n < MIN_SAMPLES_P99)}` : head;
}

/** Whether {@link formatPct} marks anything in `p`. */
export const pctUnreliable = (p: Pct): boolean =>
  (p.p95 !== null && p.n < MIN_SAMPLES_P95) || (p.p99 !== null && p.n < MIN_SAMPLES_P99);

/** Headline numbers of a run. */
export function pointOf(run: RunInfo): RunHeadline {
  const s = run.summary;
  const pct = (k: 'ttft_ms' | 'tpot_ms' | 'e2e_ms' | 'itl_ms'): Pct => ({
    p50: s[k].p50,
    p95: s[k].p95,
    p99: s[k].p99,
    n: s[k].n,
  });
  return {
    run_id: run.run_id,
    requests: s.requests.measured,
    error_rate: s.error_rate,
    request_throughput_rps: s.request_throughput_rps,
    output_throughput_tok_s: s.output_throughput_tok_s,
    ttft_ms: pct('ttft_ms'),
    tpot_ms: pct('tpot_ms'),
    e2e_ms: pct('e2e_ms'),
    itl_ms: pct('itl_ms'),
    validity: run.validity.map((r) => ({ code: r.code, message: r.message })),
    cache_hit_rate: run.cache?.hit_rate ?? null,
    server_tokens_per_s: run.server_tokens_per_s,
  };
}

/** A level's verdict as the experiment tables print it: `valid`, or the reasons' codes (in `t`'s language). */
export function verdictOf(p: Pick<RunHeadline, 'validity'>, t?: T): string {
  return verdictCell(verdictText(p.validity), t);
}

/** The note under a table with {@link UNRELIABLE_MARK}s, in `t`'s language (the report's words). */
export function unreliableNote(t: T): string {
  return t('report.note.unreliable', { mark: UNRELIABLE_MARK, p99: MIN_SAMPLES_P99, p95: MIN_SAMPLES_P95 });
}

/** Stop rules of a sweep: its section's `stop` (defaults in `exp/kinds/sweep`: DEFAULT_STOP_*). */
export interface StopRules {
  error_rate: number;
  ttft_p99_factor: number;
  e2e_p99_factor: number;
}

/** Which stop rule a level tripped, with the measured value and the limit it passed. */
export interface StopTrip {
  rule: 'error_rate' | 'ttft_p99' | 'e2e_p99';
  /** The level's error rate (a fraction) or p99 (ms). */
  value: number;
  /** The error-rate limit (a fraction), or the first level's p99 (ms) the factor multiplies. */
  base: number;
  /** The factor K of a p99 rule; null for the error rate. */
  factor: number | null;
}

/**
 * Which stop rule `p` trips (null = go on): the error rate passed the limit, or p99 TTFT or E2E
 * passed K × the first level's p99. The one judgement behind {@link stopReason} and the sweep's
 * answer, which words it in the reader's language.
 */
export function stopTrip(p: RunHeadline, first: RunHeadline, rules: StopRules): StopTrip | null {
  if (p.error_rate !== null && p.error_rate > rules.error_rate)
    return { rule: 'error_rate', value: p.error_rate, base: rules.error_rate, factor: null };
  const over = (now: number | null, base: number | null, k: number): now is number =>
    now !== null && base !== null && base > 0 && now > k * base;
  if (over(p.ttft_ms.p99, first.ttft_ms.p99, rules.ttft_p99_factor))
    return {
      rule: 'ttft_p99',
      value: p.ttft_ms.p99,
      base: first.ttft_ms.p99 as number,
      factor: rules.ttft_p99_factor,
    };
  if (over(p.e2e_ms.p99, first.e2e_ms.p99, rules.e2e_p99_factor))
    return {
      rule: 'e2e_p99',
      value: p.e2e_ms.p99,
      base: first.e2e_ms.p99 as number,
      factor: rules.e2e_p99_factor,
    };
  return null;
}

/**
 * Why a sweep stops at `p` (null = go on), as the sentence stored with the level (English, like
 * every reason kept in a result): {@link stopTrip} in words.
 */
export function stopReason(p: RunHeadline, first: RunHeadline, rules: StopRules): string | null {
  const s = stopTrip(p, first, rules);
  if (!s) return null;
  if (s.rule === 'error_rate')
    return EN('exp.reason.stop.error_rate', {
      pct: (s.value * 100).toFixed(1),
      max: (s.base * 100).toFixed(1),
    });
  return EN(s.rule === 'ttft_p99' ? 'exp.reason.stop.ttft' : 'exp.reason.stop.e2e', {
    now: fmt(s.value),
    k: s.factor,
    first: fmt(s.base),
  });
}

/** Specs re-indexed 0..n−1 (records are matched to specs by index). */
export function reindex(specs: readonly RequestSpec[]): RequestSpec[] {
  return specs.map((s, i) => ({ ...s, index: i }));
}

/** A fraction as a percentage with one decimal, `-` without data. */
export function pctOf(v: number | null | undefined): string {
  return v === null || v === undefined ? '-' : `${(v * 100).toFixed(1)}%`;
}

export function fmt(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined ? '-' : v.toFixed(digits);
}
