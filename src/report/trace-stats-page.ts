/**
 * @module report/trace-stats-page
 * `servelab trace stats` as text and as a self-contained HTML page: the statistics of
 * `analysis/trace-stats` (rate over time, length distributions, burstiness, prefix sharing)
 * and their charts, rendered with echarts SSR like the run report (`report/charts`). Every
 * sentence goes through the catalogue (`trace.*`); metric names stay English.
 */
import type { EChartsOption } from 'echarts';
import type { Stats } from '../analysis/stats.js';
import type { TraceStats } from '../analysis/trace-stats.js';
import { interArrivalGapsMs } from '../analysis/trace-stats.js';
import { type T, translator } from '../i18n/index.js';
import { axisNumber, histogram, niceCeil, renderSvg, valueAxis, withBase } from './chart-kit.js';
import { escapeHtml } from './comparison-table.js';
import { pageStart } from './html.js';

const EN = translator('en');
/** Bins of the length and gap histograms. */
const BINS = 40;

/** What the statistics are of: the file, its format and whether it was detected. */
export interface TraceMeta {
  file: string;
  format: string;
  detected: boolean;
  /** The notes naming skipped rows (in the reader's language). */
  skipped: string[];
}

const r2 = (v: number | null) => (v === null ? '-' : axisNumber(v));

function lengthLine(what: string, s: Stats, t: T): string {
  return t('trace.stats.lengths', {
    what,
    p50: r2(s.p50),
    p90: r2(s.p90),
    p99: r2(s.p99),
    max: r2(s.max),
    mean: r2(s.mean),
  });
}

/** The reason a statistic is missing, in words. */
function reasonText(reason: string, format: string, t: T): string {
  if (reason === 'no_hashes') return t('trace.stats.reason.no_hashes', { format });
  if (reason === 'same_time') return t('trace.stats.reason.same_time');
  return t('trace.stats.reason.few_gaps');
}

/** The summary lines `trace stats` prints. */
export function traceStatsLines(s: TraceStats, meta: TraceMeta, t: T = EN): string[] {
  const how = t(meta.detected ? 'trace.how.detected' : 'trace.how.given');
  const lines = [
    t('trace.stats.header', {
      file: meta.file,
      format: meta.format,
      how,
      n: s.requests,
      span: Number(s.span_s.toFixed(3)),
      rate: r2(s.mean_rate_rps),
    }),
    ...meta.skipped,
  ];
  const rot = s.rate_over_time;
  if (rot && rot.rps.length > 1) {
    const sorted = [...rot.rps].sort((a, b) => a - b);
    lines.push(
      t('trace.stats.rate', {
        bin: rot.bin_s,
        min: r2(sorted[0]),
        median: r2(sorted[Math.floor((sorted.length - 1) / 2)]),
        max: r2(sorted[sorted.length - 1]),
      }),
    );
  }
  const noLen = (what: string) => t('trace.stats.na', { what, reason: t('trace.stats.reason.no_lengths') });
  lines.push(
    s.input_tokens.n ? lengthLine(t('trace.stats.input'), s.input_tokens, t) : noLen(t('trace.stats.input')),
  );
  lines.push(
    s.output_tokens.n
      ? lengthLine(t('trace.stats.output'), s.output_tokens, t)
      : noLen(t('trace.stats.output')),
  );
  const cv = s.burstiness_cv;
  lines.push(
    cv.value !== null
      ? t('trace.stats.burstiness', { cv: cv.value.toFixed(2) })
      : t('trace.stats.na', {
          what: t('trace.stats.burstiness_label'),
          reason: reasonText(cv.reason, meta.format, t),
        }),
  );
  const ps = s.prefix_sharing;
  lines.push(
    ps.value !== null
      ? t('trace.stats.sharing', {
          pct: (ps.value.ratio * 100).toFixed(1),
          seen: ps.value.blocks_seen,
          blocks: ps.value.blocks,
          size: ps.value.block_size,
        })
      : t('trace.stats.na', {
          what: t('trace.stats.sharing_label'),
          reason: reasonText(ps.reason, meta.format, t),
        }),
  );
  return lines;
}

/** The arrival rate over time, one bar per bin. Null with fewer than 2 bins. */
export function rateChartOption(s: TraceStats, t: T = EN): EChartsOption | null {
  const rot = s.rate_over_time;
  if (!rot || rot.rps.length < 2) return null;
  return withBase(t('trace.chart.rate'), {
    legend: { show: false },
    xAxis: valueAxis(t('trace.axis.time'), { min: 0 }, true),
    yAxis: valueAxis(t('trace.axis.rate'), { min: 0 }),
    series: [
      {
        type: 'bar',
        name: t('trace.axis.rate'),
        barMaxWidth: 24,
        data: rot.t_s.map((x, i) => [x + rot.bin_s / 2, rot.rps[i]]),
      },
    ],
  });
}

/** A histogram chart of `values`. Null with no values. */
export function histogramOption(
  title: string,
  xName: string,
  values: readonly number[],
  t: T = EN,
): EChartsOption | null {
  if (values.length === 0) return null;
  const h = histogram(values, BINS);
  // Every bin, empty ones as 0: echarts sizes bars on a value axis by the closest two points, so
  // one lone bin (every gap equal) would otherwise be as wide as the axis.
  const counts = new Map(h.points.map(([x, c]) => [Math.round(x / h.width - 0.5), c]));
  const data = Array.from({ length: BINS + 1 }, (_, i) => [(i + 0.5) * h.width, counts.get(i) ?? 0]);
  return withBase(title, {
    legend: { show: false },
    tooltip: { trigger: 'item' },
    xAxis: valueAxis(xName, { min: 0, max: niceCeil((BINS + 1) * h.width) }, true),
    yAxis: valueAxis(t('trace.axis.requests'), { min: 0 }),
    series: [{ type: 'bar', name: t('trace.axis.requests'), barWidth: '90%', data }],
  });
}

/** The charts of a trace: rate over time, input and output lengths, inter-arrival times. */
export function traceCharts(
  s: TraceStats,
  requests: readonly { timestamp_ms: number; input_len?: number | null; output_len?: number | null }[],
  t: T = EN,
): { id: string; option: EChartsOption }[] {
  const nums = (k: 'input_len' | 'output_len') =>
    requests.map((r) => r[k]).filter((v): v is number => typeof v === 'number');
  const out: { id: string; option: EChartsOption | null }[] = [
    { id: 'rate', option: rateChartOption(s, t) },
    {
      id: 'input',
      option: histogramOption(t('trace.chart.input'), t('trace.axis.tokens'), nums('input_len'), t),
    },
    {
      id: 'output',
      option: histogramOption(t('trace.chart.output'), t('trace.axis.tokens'), nums('output_len'), t),
    },
    {
      id: 'gaps',
      option: histogramOption(
        t('trace.chart.gaps'),
        t('trace.axis.gap'),
        interArrivalGapsMs(requests.map((r) => r.timestamp_ms)),
        t,
      ),
    },
  ];
  return out.filter((c): c is { id: string; option: EChartsOption } => c.option !== null);
}

/** The whole page: the summary lines as a table, then the charts (inline SVG; no scripts, no URLs). */
export function renderTraceStatsHtml(
  s: TraceStats,
  meta: TraceMeta,
  requests: readonly { timestamp_ms: number; input_len?: number | null; output_len?: number | null }[],
  t: T = EN,
): string {
  const title = t('trace.html.title', { file: meta.file });
  const rows: [string, string][] = [
    [
      t('trace.html.format'),
      `${meta.format} (${t(meta.detected ? 'trace.how.detected' : 'trace.how.given')})`,
    ],
    [t('trace.html.requests'), String(s.requests)],
    [t('trace.html.span'), axisNumber(s.span_s)],
    [t('trace.html.mean_rate'), r2(s.mean_rate_rps)],
  ];
  const lines = traceStatsLines(s, { ...meta, skipped: [] }, t).slice(1);
  const charts = traceCharts(s, requests, t);
  return `${pageStart(title, t)}
<h2>${escapeHtml(t('trace.html.summary'))}</h2>
<div><table class="trace-summary"><tr><th class="l">${escapeHtml(t('trace.html.metric'))}</th><th class="l">${escapeHtml(t('trace.html.value'))}</th></tr>
${rows.map(([k, v]) => `<tr><td class="l">${escapeHtml(k)}</td><td class="l">${escapeHtml(v)}</td></tr>`).join('\n')}
</table></div>
<ul class="trace-lines">${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>
${meta.skipped.length ? `<p>${escapeHtml(t('trace.html.skipped'))}</p><ul>${meta.skipped.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>` : ''}
<h2>${escapeHtml(t('trace.html.charts'))}</h2>
<div class="charts">${charts.map((c) => `<figure data-chart="${c.id}" aria-label="${escapeHtml(String((c.option.title as { text?: string }).text ?? c.id))}">${renderSvg(c.option)}</figure>`).join('\n')}</div>
</body></html>
`;
}
