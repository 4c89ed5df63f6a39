/**
 * @module report/headline-metrics
 * The report headline's key numbers (its cards): one number judged against its SLO, and the
 * card sets of runs that are not one measurement each: an A/B's sides set against each other
 * (each pooled over its blocks) and a baseline's cold first request apart from the warm ones.
 * The runs' grouping and pooled values come from `report/run-groups`.
 */
import type { LoadedRun } from '../analysis/loaded-run.js';
import { requestMetrics } from '../analysis/request.js';
import type { Stats } from '../analysis/stats.js';
import { type RequestRecord, SUCCESS_OUTCOMES } from '../record/types.js';
import { type AbSideGroup, coldRequestOf, pooledOutputTokS, pooledStats } from './run-groups.js';

/** One key number of the headline, judged against its SLO when there is one. */
export interface HeadlineMetric {
  /** The metric's name as the summary keys it (`ttft_ms p99`, `error_rate`): never translated. */
  name: string;
  value: number | null;
  /** What the value is shown in (`ms`, `%`, `tok/s`, `req/s`). */
  unit: string;
  digits: number;
  /** The objective it is judged against (same unit), when the run had one. */
  slo: number | null;
  /** Whether it meets the objective; null without one (or without a value). */
  met: boolean | null;
  /** Which requests it covers when not all measured ones: a baseline's cold first request, or the warm rest. */
  scope?: 'cold' | 'warm';
  /** An A/B's side B, pooled over its blocks (`value` is then side A's). */
  b?: { value: number | null; met: boolean | null };
}

/** The latency objectives a headline judges against (ms), as `analysis/load-curve` `sloOf` gives them. */
export interface HeadlineSlo {
  ttft_ms?: number;
  tpot_ms?: number;
  e2e_ms?: number;
}

const judged = (v: number | null, o: number | null, higherIsBetter: boolean): boolean | null =>
  v === null || o === null ? null : higherIsBetter ? v >= o : v <= o;

/** A headline number: `value` rounded to `digits` in `unit`, judged against `objective` when given. */
export function headlineMetric(
  name: string,
  value: number | null | undefined,
  unit: string,
  digits: number,
  objective?: number,
  higherIsBetter = false,
): HeadlineMetric {
  const v = value ?? null;
  const o = objective ?? null;
  return { name, value: v, unit, digits, slo: o, met: judged(v, o, higherIsBetter) };
}

/**
 * An A/B's cards: TTFT p50/p99, TPOT p50, E2E p50/p99 and output tok/s, side A against side B,
 * each side pooled over all its blocks (never one block's numbers).
 */
export function abMetrics(sides: readonly [AbSideGroup, AbSideGroup], slo: HeadlineSlo): HeadlineMetric[] {
  const [a, b] = sides;
  const stats = (g: AbSideGroup) => ({
    ttft_ms: pooledStats(g.runs, 'ttft_ms'),
    tpot_ms: pooledStats(g.runs, 'tpot_ms'),
    e2e_ms: pooledStats(g.runs, 'e2e_ms'),
  });
  const sa = stats(a);
  const sb = stats(b);
  const pair = (metric: keyof HeadlineSlo, p: 'p50' | 'p99', digits: number): HeadlineMetric => {
    const x = headlineMetric(`${metric} ${p}`, sa[metric][p], 'ms', digits, slo[metric]);
    const vb = sb[metric][p];
    return { ...x, b: { value: vb, met: judged(vb, x.slo, false) } };
  };
  const tokA = headlineMetric('output tok/s', pooledOutputTokS(a.runs), 'tok/s', 0);
  const tokB = pooledOutputTokS(b.runs);
  return [
    pair('ttft_ms', 'p50', 0),
    pair('ttft_ms', 'p99', 0),
    pair('tpot_ms', 'p50', 2),
    pair('e2e_ms', 'p50', 0),
    pair('e2e_ms', 'p99', 0),
    { ...tokA, b: { value: tokB, met: null } },
  ];
}

/**
 * A baseline run's cards: the cold (first) request's TTFT on its own card, then TTFT p50/p99,
 * TPOT p50 and E2E p50 over the warm requests only (the cold one left out, never mixed into a
 * percentile), then the run's goodput, error rate and output tok/s.
 */
export function baselineMetrics(run: LoadedRun, slo: HeadlineSlo): HeadlineMetric[] {
  const cold = coldRequestOf(run);
  const coldOk = cold !== null && SUCCESS_OUTCOMES.includes(cold.outcome) ? requestMetrics(cold) : null;
  const warm = (r: RequestRecord) => r !== cold;
  const w = (metric: keyof HeadlineSlo): Stats => pooledStats([run], metric, warm);
  const s = run.summary;
  const scoped = (x: HeadlineMetric, scope: 'cold' | 'warm'): HeadlineMetric => ({ ...x, scope });
  const warmTtft = w('ttft_ms');
  return [
    scoped(headlineMetric('ttft_ms', coldOk?.ttft_ms, 'ms', 0, slo.ttft_ms), 'cold'),
    scoped(headlineMetric('ttft_ms p50', warmTtft.p50, 'ms', 0, slo.ttft_ms), 'warm'),
    scoped(headlineMetric('ttft_ms p99', warmTtft.p99, 'ms', 0, slo.ttft_ms), 'warm'),
    scoped(headlineMetric('tpot_ms p50', w('tpot_ms').p50, 'ms', 2, slo.tpot_ms), 'warm'),
    scoped(headlineMetric('e2e_ms p50', w('e2e_ms').p50, 'ms', 0, slo.e2e_ms), 'warm'),
    headlineMetric('goodput', s.goodput.rps, 'req/s', 2),
    headlineMetric('error_rate', s.error_rate === null ? null : s.error_rate * 100, '%', 1),
    headlineMetric('output tok/s', s.output_throughput_tok_s, 'tok/s', 0),
  ];
}
