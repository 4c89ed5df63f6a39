/**
 * @module exp/kinds/ab-result
 * What an A/B found (`AbResult`, the `ab` kind's result; `exp/kinds/ab` measures it) and what it
 * answers ({@link abAnswer}): A against B per metric with Δ, the 95% CI, the Holm-adjusted p and
 * "better / no difference", the quality check, and the lead chart, the distribution of A against
 * that of B (two lines, every block pooled, not one line per block).
 */
import type { SpeculativeSummary } from '../../analysis/speculative.js';
import type { T } from '../../i18n/index.js';
import type { ExperimentAnswer } from '../../report/answer.js';
import type { BootstrapDelta } from '../comparison-stats.js';
import type { QualityResult } from '../quality.js';

export type AbMetric = 'ttft_ms' | 'tpot_ms' | 'e2e_ms' | 'itl_ms' | 'output_tokens_per_s';

export interface AbMetricResult extends BootstrapDelta {
  /** The A/B metric, or a `SideMetric`'s name (`exp/kinds/ab`). */
  metric: AbMetric | (string & {});
  /** Holm-adjusted p-value. */
  p_holm: number;
  significant: boolean;
  /** Which side is better on this metric when significant (lower latency, higher tokens/s). */
  better: 'a' | 'b' | null;
}

/** One metric's distribution on each side, every block pooled: CDF points [value, fraction ≤ value]. */
export interface AbDistribution {
  metric: AbMetric;
  a: [number, number][];
  b: [number, number][];
}

export interface AbResult {
  kind: 'ab';
  a: string;
  b: string;
  /** What differs (the file's `switch`, else the fields that differ). */
  switch: string;
  alpha: number;
  min_effect_pct: number;
  resamples: number;
  /** Run ids per side, one per block. */
  runs: { a: (string | null)[]; b: (string | null)[] };
  metrics: AbMetricResult[];
  /**
   * Measured requests per side and how many failed. The metrics compare only the pairs where
   * both sides succeeded, so a side that fails often is faster on its survivors alone: a
   * warning says so.
   */
  requests: { a: { measured: number; failed: number }; b: { measured: number; failed: number } };
  /** Any metric significant. */
  significant: boolean;
  quality: QualityResult | null;
  /**
   * The first compared metric's distribution on A and on B (successful measured requests, every
   * block pooled), for the answer's chart; absent in results stored before it existed.
   */
  distribution?: AbDistribution | null;
  /** Speculative decoding on each side, its blocks pooled (`analysis/speculative`); absent in older results. */
  speculative?: { a: SpeculativeSummary; b: SpeculativeSummary } | null;
}

/** Units of the A/B metrics. */
/** A metric's human name on a chart (an axis or a title names no metric key). */
const CHART_NAME: Record<AbMetric, string> = {
  ttft_ms: 'TTFT',
  tpot_ms: 'TPOT',
  e2e_ms: 'E2E',
  itl_ms: 'ITL',
  output_tokens_per_s: 'output tok/s',
};

const UNIT: Record<AbMetric, string> = {
  ttft_ms: 'ms',
  tpot_ms: 'ms',
  e2e_ms: 'ms',
  itl_ms: 'ms',
  output_tokens_per_s: 'tok/s',
};

/**
 * A metric as the A/B shows it: its key, and for `output_tokens_per_s` that it is a per-request
 * figure (completion tokens / E2E of each request, averaged), not the aggregate output tok/s of
 * the run tables.
 */
export function abMetricLabel(metric: string, t: T): string {
  return metric === 'output_tokens_per_s' ? `${metric} (${t('exp.ab.per_request')})` : metric;
}

/** A metric's name on the answer's chart: human, and per request where that is what it is. */
function chartName(metric: AbMetric, t: T): string {
  const name = CHART_NAME[metric];
  return metric === 'output_tokens_per_s' ? `${name} (${t('exp.ab.per_request')})` : name;
}

/** The report's CDF chart (`report/charts` `reportCharts`) of the same metric, where it has one. */
const CDF_CHART: Partial<Record<AbMetric, string>> = { ttft_ms: 'ttft-cdf', e2e_ms: 'e2e-cdf' };

/** A number rounded for the answer's table: 2 decimals below 100, whole above. */
const round = (v: number | null): number | null =>
  v === null ? null : Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 100) / 100;

/** A signed percentage: `+3.1%`, `−41.4%`. */
const signedPct = (v: number | null): string =>
  v === null ? '—' : `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(1)}%`;

/** What the A/B answers: the verdict per metric, the quality check and A's distribution against B's. */
export function abAnswer(res: AbResult, t: T): ExperimentAnswer {
  const name = { a: res.a, b: res.b };
  const parts: string[] = [];
  for (const side of ['b', 'a'] as const) {
    const better = res.metrics.filter((m) => m.better === side);
    if (better.length)
      parts.push(
        t('exp.ab.answer.better', {
          side: side.toUpperCase(),
          name: name[side],
          metrics: better.map((m) => `${abMetricLabel(m.metric, t)} ${signedPct(m.delta_pct)}`).join(', '),
        }),
      );
  }
  const same = res.metrics.filter((m) => !m.significant);
  if (parts.length === 0)
    parts.push(t('exp.ab.answer.none', { a: res.a, b: res.b, alpha: res.alpha, min: res.min_effect_pct }));
  else if (same.length)
    parts.push(
      t('exp.ab.answer.no_difference_on', {
        metrics: same.map((m) => abMetricLabel(m.metric, t)).join(', '),
      }),
    );
  if (res.quality)
    parts.push(
      res.quality.passed
        ? t('exp.ab.answer.quality_passed')
        : t('exp.ab.answer.quality_failed', { n: res.quality.b.failures.length }),
    );
  const sentence = parts.join(t('exp.ab.answer.sep'));
  const verdict = t('exp.ab.answer.sentence', {
    parts: sentence.charAt(0).toUpperCase() + sentence.slice(1),
  });

  const notes: string[] = [
    t('exp.ab.header', { a: res.a, b: res.b, switch: res.switch, alpha: res.alpha, min: res.min_effect_pct }),
  ];
  for (const side of ['a', 'b'] as const) {
    const f = res.requests?.[side];
    if (f && f.failed > 0)
      notes.push(
        t('exp.ab.answer.failed', {
          side: side.toUpperCase(),
          name: name[side],
          failed: f.failed,
          measured: f.measured,
        }),
      );
  }
  if (res.quality) {
    const q = res.quality;
    notes.push(
      t('exp.ab.quality', {
        checks: q.checks.join(', '),
        result: t(q.passed ? 'exp.ab.passed' : 'exp.ab.failed'),
      }),
    );
    for (const side of ['a', 'b'] as const) {
      const s = q[side];
      notes.push(
        t('exp.ab.side', {
          name: `${side.toUpperCase()} ${name[side]}`,
          successes: s.successes,
          samples: s.samples,
          truncations: s.truncations,
          errors: s.errors,
          mismatches: s.exact_mismatches,
          regex: s.regex_failures,
          schema: s.schema_failures,
        }),
      );
    }
  }
  if (res.metrics.some((m) => m.metric === 'output_tokens_per_s')) notes.push(t('exp.ab.per_request_note'));
  for (const side of ['a', 'b'] as const) {
    const sp = res.speculative?.[side];
    if (sp && sp.source !== null)
      notes.push(
        t('exp.ab.speculative', {
          name: `${side.toUpperCase()} ${name[side]}`,
          rate: pctText(sp.acceptance_rate),
          length: sp.mean_accepted_length_tokens === null ? '-' : sp.mean_accepted_length_tokens.toFixed(2),
          eff: pctText(sp.draft_efficiency),
        }),
      );
  }

  const dist = res.distribution;
  return {
    kind: 'ab',
    question: t('exp.ab.answer.question', { switch: res.switch, a: res.a, b: res.b }),
    verdict,
    // The verdict stands next to the metric, so that it shows at 800 px; the means follow the
    // difference and its evidence.
    table: {
      columns: [
        t('exp.col.metric'),
        t('exp.col.verdict'),
        'Δ%',
        t('exp.ab.ci95'),
        'p (Holm)',
        t('exp.ab.a_mean'),
        t('exp.ab.b_mean'),
        'Δ',
      ],
      rows: res.metrics.map((m) => [
        abMetricLabel(m.metric, t),
        metricVerdict(m, res, t),
        m.delta_pct === null ? null : signedPct(m.delta_pct),
        m.ci_low === null || m.ci_high === null ? null : `[${round(m.ci_low)}, ${round(m.ci_high)}]`,
        Number(m.p_holm.toFixed(4)),
        round(m.mean_a),
        round(m.mean_b),
        round(m.delta),
      ]),
    },
    notes,
    chart:
      dist && dist.a.length > 0 && dist.b.length > 0
        ? {
            type: 'cdf',
            title: t('exp.ab.answer.chart', { metric: chartName(dist.metric, t) }),
            x: { name: chartName(dist.metric, t), unit: UNIT[dist.metric] },
            y: { name: t('report.axis.fraction'), unit: null },
            series: [
              { name: `A ${res.a}`, points: dist.a },
              { name: `B ${res.b}`, points: dist.b },
            ],
            // The report's own CDF of the metric pools the same requests: draw it once.
            ...(CDF_CHART[dist.metric] ? { replaces: [CDF_CHART[dist.metric] as string] } : {}),
          }
        : null,
    run_ids: [...res.runs.a, ...res.runs.b].filter((id): id is string => id !== null),
    interval: headlineInterval(res, t),
  };
}

/**
 * One metric's verdict, B being the change: "B better", "B worse", or no difference, said apart
 * when the difference is real (Holm-adjusted p < α) but smaller than the smallest effect asked
 * for, so that a CI clear of 0 beside "no difference" does not read as a contradiction.
 */
function metricVerdict(m: AbMetricResult, res: AbResult, t: T): string {
  if (m.significant) return t(m.better === 'a' ? 'exp.ab.b_worse' : 'exp.ab.b_better');
  return m.p_holm < res.alpha
    ? t('exp.ab.below_min_effect', { min: res.min_effect_pct })
    : t('exp.ab.no_difference');
}

/**
 * The interval of the headline difference: the 95% bootstrap CI of Δ (B − A) of the metric
 * the verdict leads with (the first significant one, else the first compared), in its unit.
 * Null without data on both sides.
 */
function headlineInterval(res: AbResult, t: T): ExperimentAnswer['interval'] {
  const m = res.metrics.find((x) => x.significant) ?? res.metrics[0];
  if (!m || m.ci_low === null || m.ci_high === null) return null;
  return {
    what: t('exp.ab.answer.interval_what', { metric: abMetricLabel(m.metric, t) }),
    low: round(m.ci_low) ?? m.ci_low,
    high: round(m.ci_high) ?? m.ci_high,
    note: t(m.paired ? 'exp.ab.answer.interval_paired' : 'exp.ab.answer.interval_unpaired', {
      n: Math.min(m.n_a, m.n_b),
      resamples: res.resamples,
    }),
  };
}

/** A fraction as a percentage with one decimal, `-` for no data. */
function pctText(v: number | null): string {
  return v === null ? '-' : `${(v * 100).toFixed(1)}%`;
}
