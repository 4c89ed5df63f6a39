/**
 * @module report/charts
 * The run report's charts as echarts options (pure builders, reusable by a browser dashboard
 * that runs echarts in the page): latency CDFs, the load curve and goodput, TTFT against input,
 * the timeline, chunk gaps and the server panels, and the report's chart list rendered to SVG.
 * The data they draw comes from `analysis/` (load curves, stalls); the common base and the SSR
 * rendering from `report/chart-kit`. Each builder returns `null` when the data does not allow
 * the chart.
 */

import type { EChartsOption } from 'echarts';
import { findKnee, type LoadCurvePoint, loadCurves, sloOf } from '../analysis/load-curve.js';
import type { LoadedRun } from '../analysis/loaded-run.js';
import { chunkGaps, ttftMs } from '../analysis/request.js';
import { stallThresholdMs } from '../analysis/stalls.js';
import { measuredSuccesses } from '../analysis/summary.js';
import { attemptEndAt } from '../analysis/window.js';
import { type T, translator } from '../i18n/index.js';
import type { RequestRecord } from '../record/types.js';
import { histogram, niceCeil, renderSvg, spanScale, textWidth, valueAxis, withBase } from './chart-kit.js';
import { coldRequestOf, distributionGroups, pooledValues } from './run-groups.js';
import { serverSeriesOptions } from './server-charts.js';
import { stepTimelineOption } from './step-timeline-chart.js';

/** The English translator, the default of every builder that takes one. */
const EN = translator('en');
/** Most points drawn per line (CDFs and timelines are resampled to this). */
const MAX_POINTS = 400;

/** Empirical CDF of `values`, resampled to at most {@link MAX_POINTS} points: [value, fraction ≤ value]. */
export function cdfPoints(values: readonly number[]): [number, number][] {
  const s = Float64Array.from(values).sort();
  const n = s.length;
  if (n === 0) return [];
  const step = Math.max(1, Math.ceil(n / MAX_POINTS));
  const pts: [number, number][] = [];
  for (let i = 0; i < n; i += step) pts.push([s[i], (i + 1) / n]);
  if (pts[pts.length - 1][0] !== s[n - 1] || pts[pts.length - 1][1] !== 1) pts.push([s[n - 1], 1]);
  return pts;
}

/** Keeps every request of `runs` but each run's cold one (`report/run-groups` `coldRequestOf`). */
function warmFilter(runs: readonly LoadedRun[]): (r: RequestRecord) => boolean {
  const cold = new Set(runs.map((r) => coldRequestOf(r)?.id).filter((id) => id !== undefined));
  return (r) => !cold.has(r.id);
}

/**
 * CDF of TTFT or E2E per run (successful measured requests), ms on x; an A/B's blocks are
 * pooled into one line per side (`report/run-groups` `distributionGroups`).
 * @returns null when no line has 2 or more samples
 */
export function cdfOption(
  runs: readonly LoadedRun[],
  metric: 'ttft_ms' | 'e2e_ms',
  t: T = EN,
): EChartsOption | null {
  // A baseline's cold request is its own card: its CDFs draw the warm requests only.
  const warmOnly = runs.length > 0 && runs.every((r) => r.kind === 'baseline');
  const series = distributionGroups(runs)
    .map((g) => ({
      name: g.name,
      vals: pooledValues(g.runs, metric, warmOnly ? warmFilter(g.runs) : undefined),
    }))
    .filter((x) => x.vals.length >= 2);
  if (series.length === 0) return null;
  const title = t(metric === 'ttft_ms' ? 'report.chart.ttftCdf' : 'report.chart.e2eCdf');
  return withBase(warmOnly ? t('report.chart.warmOnly', { title }) : title, {
    xAxis: valueAxis(
      t(metric === 'ttft_ms' ? 'report.axis.ttftMs' : 'report.axis.e2eMs'),
      { scale: true, ...spanScale(series.flatMap((x) => x.vals)) },
      true,
    ),
    yAxis: valueAxis(t('report.axis.fraction'), { min: 0, max: 1 }),
    series: series.map(({ name, vals }) => ({
      type: 'line',
      name,
      step: 'end',
      showSymbol: false,
      data: cdfPoints(vals),
    })),
  });
}

/** Grey of a level that is drawn but left out of the knee (its numbers cannot bear weight). */
export const INVALID_COLOR = '#b0b0b0';

/**
 * Output throughput (left axis) and TTFT/E2E p99 (right axis) against concurrency or rate: the
 * throughput knee marked, the TTFT and E2E SLO drawn as horizontal lines when they fall within
 * the chart (at most 3 × the highest tail), invalid levels greyed (drawn, but left out of the
 * knee, as the experiment leaves them out).
 * @returns null without ≥ 2 runs sharing a load axis
 */
export function loadCurveOption(runs: readonly LoadedRun[], t: T = EN): EChartsOption | null {
  const lc = loadCurves(runs);
  if (!lc) return null;
  const { axis, curves } = lc;
  const slo = sloOf(runs);
  /** The highest SLO drawn on the latency axis (0: none). */
  let latencyTop = 0;
  // One target: plain names (as before); several: each line names its target.
  const named = (c: { name: string }, what: string) => (curves.length > 1 ? `${c.name}: ${what}` : what);
  const series = curves.flatMap((c) => {
    const { points } = c;
    const xs = points.map((p) => p.x);
    const knee = findKnee(
      xs,
      points.map((p) => (p.valid ? p.output_tok_s : null)),
    );
    const line = (name: string, key: keyof LoadCurvePoint, yAxisIndex: number, dashed = false) => ({
      type: 'line' as const,
      name: named(c, name),
      yAxisIndex,
      symbolSize: 7,
      lineStyle: dashed ? { type: 'dashed' as const } : undefined,
      data: points.map((p) => [p.x, p[key] as number | null]),
    });
    const sloLine = (metric: 'ttft_ms' | 'e2e_ms', key: 'ttft_p99_ms' | 'e2e_p99_ms') => {
      const v = slo?.[metric];
      let top = 0;
      for (const p of points) top = Math.max(top, (p[key] as number | null) ?? 0);
      if (v === undefined || top === 0 || v > 3 * top) return undefined;
      // A mark line does not stretch its axis: the axis must reach the SLO for it to show.
      latencyTop = Math.max(latencyTop, v);
      return {
        symbol: 'none',
        lineStyle: { color: '#c0392b', type: 'dotted' as const, width: 2 },
        label: {
          formatter: t('report.chart.sloLine', { metric, value: v }),
          position: 'insideEndTop' as const,
        },
        data: [{ yAxis: v }],
      };
    };
    const tput = {
      ...line(t('report.series.outputTokS'), 'output_tok_s', 0),
      lineStyle: { width: 3 },
      markLine:
        knee === null
          ? undefined
          : {
              symbol: 'none',
              lineStyle: { color: '#1b7f3b', width: 2 },
              label: { formatter: named(c, t('report.chart.knee', { level: xs[knee] })) },
              data: [{ xAxis: xs[knee] }],
            },
    };
    const invalid = points.filter((p) => !p.valid);
    return [
      tput,
      { ...line('TTFT p99 (ms)', 'ttft_p99_ms', 1, true), markLine: sloLine('ttft_ms', 'ttft_p99_ms') },
      { ...line('E2E p99 (ms)', 'e2e_p99_ms', 1, true), markLine: sloLine('e2e_ms', 'e2e_p99_ms') },
      ...(invalid.length
        ? [
            {
              type: 'scatter' as const,
              name: named(c, t('report.series.invalid')),
              yAxisIndex: 0,
              symbolSize: 14,
              z: 5,
              itemStyle: { color: INVALID_COLOR, borderColor: '#666', borderWidth: 1 },
              data: invalid.map((p) => [p.x, p.output_tok_s]),
            },
          ]
        : []),
    ];
  });
  // The latency axis holds every drawn tail and SLO line: log when they span more than two
  // orders of magnitude (a queue's TTFT grows from ms to minutes), else linear from 0.
  const latencies = curves.flatMap((c) => c.points.flatMap((p) => [p.ttft_p99_ms, p.e2e_p99_ms]));
  const drawn = [...latencies, latencyTop || null];
  const log = spanScale(drawn);
  let latencyRange: Record<string, unknown> = {};
  const positive = drawn.filter((v): v is number => v !== null && v > 0);
  if (positive.length && log.type === 'log')
    latencyRange = {
      ...log,
      min: 10 ** Math.floor(Math.log10(Math.min(...positive))),
      max: 10 ** Math.ceil(Math.log10(Math.max(...positive))),
    };
  else if (positive.length) latencyRange = { min: 0, max: niceCeil(Math.max(...positive) * 1.05) };
  return withBase(t(axis === 'concurrency' ? 'report.chart.loadCurveC' : 'report.chart.loadCurveR'), {
    xAxis: valueAxis(t(axis === 'concurrency' ? 'report.axis.concurrency' : 'report.axis.rate'), {}, true),
    yAxis: [
      valueAxis(t('report.axis.tokS')),
      valueAxis(t(log.type === 'log' ? 'report.axis.latencyLog' : 'report.axis.ms'), {
        splitLine: { show: false },
        ...latencyRange,
      }),
    ],
    series,
  });
}

/**
 * Goodput (requests/s meeting the SLO) and request throughput against load, one pair of lines
 * per target.
 * @returns null without ≥ 2 runs sharing a load axis, or with no goodput (no SLO)
 */
export function goodputOption(runs: readonly LoadedRun[], t: T = EN): EChartsOption | null {
  const lc = loadCurves(runs);
  if (!lc || lc.curves.every((c) => c.points.every((p) => p.goodput_rps === null))) return null;
  const named = (c: { name: string }, what: string) => (lc.curves.length > 1 ? `${c.name}: ${what}` : what);
  return withBase(t('report.chart.goodput'), {
    xAxis: valueAxis(t(lc.axis === 'concurrency' ? 'report.axis.concurrency' : 'report.axis.rate'), {}, true),
    yAxis: valueAxis(t('report.axis.rps')),
    series: lc.curves.flatMap((c) => [
      {
        type: 'line',
        name: named(c, t('report.series.goodput')),
        data: c.points.map((p) => [p.x, p.goodput_rps]),
      },
      {
        type: 'line',
        name: named(c, t('report.series.throughputRps')),
        lineStyle: { type: 'dashed' },
        data: c.points.map((p) => [p.x, p.request_rps]),
      },
    ]),
  });
}

/**
 * TTFT against actual input length (usage.prompt_tokens, else the requested length), a scatter
 * per run (an A/B's blocks pooled per side, as in the CDFs). When every prompt has the same
 * length a scatter is one vertical line, so the chart is then the TTFT histogram of each run
 * instead (the title names the one length).
 * @returns null when no request has both
 */
export function ttftVsInputOption(runs: readonly LoadedRun[], t: T = EN): EChartsOption | null {
  const series = distributionGroups(runs)
    .map((g) => ({
      name: g.name,
      data: g.runs
        .flatMap((run) => measuredSuccesses(run.records))
        .map((r) => {
          const len = r.usage?.prompt_tokens ?? r.input_len;
          const ttft = ttftMs(r);
          return len != null && ttft !== undefined ? [len, ttft] : null;
        })
        .filter((p): p is number[] => p !== null),
    }))
    .filter((s) => s.data.length > 0);
  if (series.length === 0) return null;
  const lengths = new Set(series.flatMap((s) => s.data.map((p) => p[0])));
  if (lengths.size === 1) {
    const tokens = [...lengths][0];
    if (series.length === 1) {
      // One run: the TTFT histogram.
      const vals = series[0].data.map((p) => p[1]);
      const bins = Math.min(30, Math.max(5, Math.ceil(Math.sqrt(vals.length))));
      return withBase(t('report.chart.ttftHist', { tokens }), {
        tooltip: { trigger: 'item' },
        xAxis: valueAxis(t('report.axis.ttftMs'), { min: 0 }, true),
        yAxis: valueAxis(t('report.axis.requests'), { minInterval: 1 }),
        series: [
          {
            type: 'bar',
            name: series[0].name,
            barWidth: '90%',
            barMinHeight: 2,
            data: histogram(vals, bins).points,
          },
        ],
      });
    }
    // Several runs: a strip per run (one row each, every request a point). Long run names wrap
    // within the label column (at most 40% of the chart) instead of running off its left edge.
    const labels = series.map((s) => s.name);
    // Some slack over the estimate: a label that fits is never broken.
    const labelWidth = Math.min(240, Math.ceil(Math.max(...labels.map((l) => textWidth(l, 12)))) + 8);
    return withBase(t('report.chart.ttftStrip', { tokens }), {
      tooltip: { trigger: 'item' },
      legend: { show: false },
      grid: { left: labelWidth + 16, right: 30, top: 40, bottom: 52 },
      xAxis: valueAxis(t('report.axis.ttftMs'), { min: 0 }, true),
      yAxis: {
        type: 'category',
        data: labels,
        inverse: true,
        axisLabel: { interval: 0, width: labelWidth, overflow: 'break', lineHeight: 13 },
      },
      series: series.map(({ name, data }) => ({
        type: 'scatter',
        name,
        symbolSize: 6,
        itemStyle: { opacity: 0.5 },
        data: data.map((p) => [p[1], name]),
      })),
    });
  }
  return withBase(t('report.chart.ttftVsInput'), {
    tooltip: { trigger: 'item' },
    xAxis: valueAxis(t('report.axis.inputTokens'), { scale: true }, true),
    yAxis: valueAxis(t('report.axis.ttftMs'), { scale: true }),
    series: series.map(({ name, data }) => ({ type: 'scatter', name, symbolSize: 5, data })),
  });
}

/**
 * Requests in flight (client view, sent → end) over run time, resampled on a uniform grid.
 * @returns [t_ms, count] pairs; empty when nothing was sent
 */
export function inFlightSeries(
  records: readonly RequestRecord[],
  maxPoints = MAX_POINTS,
): [number, number][] {
  const ev: [number, number][] = [];
  for (const r of records) {
    const end = attemptEndAt(r);
    if (r.sent_at_ms === null || end === null) continue;
    ev.push([r.sent_at_ms, 1], [end, -1]);
  }
  if (ev.length === 0) return [];
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const t0 = ev[0][0];
  const t1 = ev[ev.length - 1][0];
  const n = Math.max(2, Math.min(maxPoints, ev.length));
  const out: [number, number][] = [];
  let k = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const t = t1 > t0 ? t0 + ((t1 - t0) * i) / (n - 1) : t0;
    while (k < ev.length && ev[k][0] <= t) count += ev[k++][1];
    out.push([t, count]);
  }
  return out;
}

/**
 * Timeline of one run: requests in flight (client), with the server's `running`, `waiting`
 * (same axis) and KV usage in % (right axis) overlaid when scraped. Time in seconds.
 * @returns null when nothing was sent
 */
export function timelineOption(run: LoadedRun, t: T = EN): EChartsOption | null {
  const inflight = inFlightSeries(run.records);
  if (inflight.length === 0) return null;
  const pick = (name: string, scale = 1) =>
    (run.series ?? [])
      .filter((p) => p.name === name)
      .sort((a, b) => a.t_ms - b.t_ms)
      .map((p) => [p.t_ms / 1000, p.value * scale]);
  const series: NonNullable<EChartsOption['series']> = [
    {
      type: 'line',
      name: t('report.series.inFlightClient'),
      step: 'end',
      showSymbol: false,
      data: inflight.map(([x, c]) => [x / 1000, c]),
    },
  ];
  const running = pick('running');
  const waiting = pick('waiting');
  const kv = pick('kv_usage', 100);
  if (running.length)
    series.push({ type: 'line', name: t('report.series.running'), showSymbol: false, data: running });
  if (waiting.length)
    series.push({ type: 'line', name: t('report.series.waiting'), showSymbol: false, data: waiting });
  if (kv.length)
    series.push({
      type: 'line',
      name: t('report.series.kvUsage'),
      yAxisIndex: 1,
      showSymbol: false,
      lineStyle: { type: 'dotted' },
      data: kv,
    });
  return withBase(t('report.chart.timeline', { run: run.label }), {
    xAxis: valueAxis(t('report.axis.runTime'), {}, true),
    yAxis: [
      valueAxis(t('report.axis.requests'), { minInterval: 1 }),
      valueAxis(t('report.axis.kvPct'), { min: 0, max: 100, splitLine: { show: false } }),
    ],
    series,
  });
}

/**
 * Distribution of chunk gaps (ms) of one run's successful measured requests, log-scaled counts,
 * with the stall threshold ({@link stallThresholdMs}) marked. The log axis starts at 0.5 and
 * every bar has a minimum height, so a bin holding one stall (log 1 = 0) still draws.
 * @returns null with fewer than 2 gaps
 */
export function chunkGapOption(run: LoadedRun, bins = 40, t: T = EN): EChartsOption | null {
  const gaps = measuredSuccesses(run.records).flatMap(chunkGaps);
  if (gaps.length < 2) return null;
  const threshold = stallThresholdMs(gaps) as number;
  let max = 0;
  for (const g of gaps) if (g > max) max = g;
  const width = Math.max(max, threshold) / bins || 1;
  const counts = new Array<number>(bins + 1).fill(0);
  for (const g of gaps) counts[Math.min(bins, Math.floor(g / width))] += 1;
  const normal: [number, number][] = [];
  const stalls: [number, number][] = [];
  counts.forEach((c, i) => {
    if (c === 0) return; // a log axis cannot show 0
    const mid = (i + 0.5) * width;
    (mid > threshold ? stalls : normal).push([mid, c]);
  });
  const nStalls = gaps.filter((g) => g > threshold).length;
  return withBase(
    t('report.chart.chunkGaps', { run: run.label, stalls: nStalls, threshold: Math.round(threshold) }),
    {
      tooltip: { trigger: 'item' },
      xAxis: valueAxis(t('report.axis.gapMs'), { min: 0 }, true),
      yAxis: valueAxis(t('report.axis.gapsLog'), { type: 'log', min: 0.5, logBase: 10 }),
      series: [
        {
          type: 'bar',
          name: t('report.series.gaps'),
          barWidth: '90%',
          barMinHeight: 3,
          data: normal,
          markLine: {
            symbol: 'none',
            label: { formatter: t('report.chart.stallThreshold') },
            data: [{ xAxis: threshold }],
          },
        },
        {
          type: 'bar',
          name: t('report.series.stalls'),
          barWidth: '90%',
          barMinHeight: 6,
          barGap: '-100%',
          itemStyle: { color: '#c0392b' },
          data: stalls,
        },
      ],
    },
  );
}

const svgOrNull = (o: EChartsOption | null) => (o === null ? null : renderSvg(o));

/** The timeline of one run as SVG (null when nothing was sent). */
export const timelineSvg = (run: LoadedRun) => svgOrNull(timelineOption(run));

/** Size of a server panel, px: half a chart, so that several sit in one row. */
export const PANEL_WIDTH = 420;
export const PANEL_HEIGHT = 240;
/** Size of the load curve a sweep leads with, px. */
export const LEAD_WIDTH = 960;
export const LEAD_HEIGHT = 420;

/** One chart of a report: a file-safe id, a title and its echarts option. */
export interface ChartSpec {
  id: string;
  title: string;
  option: EChartsOption;
  /** Set on the charts of one run (its timeline, gaps, server panels): the run's id. */
  run?: string;
  /**
   * `panel`: a small server-series panel ({@link PANEL_WIDTH} × {@link PANEL_HEIGHT}); `lead`:
   * the load curve a sweep leads with ({@link LEAD_WIDTH} × {@link LEAD_HEIGHT}).
   */
  size?: 'chart' | 'panel' | 'lead';
}

const safeId = (s: string) => s.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 60);

/** Render a chart spec to SVG at its size. */
export function renderChartSvg(c: ChartSpec): string {
  if (c.size === 'panel') return renderSvg(c.option, PANEL_WIDTH, PANEL_HEIGHT);
  if (c.size === 'lead') return renderSvg(c.option, LEAD_WIDTH, LEAD_HEIGHT);
  return renderSvg(c.option);
}

/**
 * Every chart the data allows, in report order: the load curve first (a sweep or matrix leads
 * with it), goodput, the CDFs, TTFT vs input; then per run (`run` set) the timeline, the
 * chunk-gap distribution and the server series panels.
 */
export function reportCharts(
  runs: readonly LoadedRun[],
  t: T = EN,
  opts: { stepRequest?: string } = {},
): ChartSpec[] {
  const out: ChartSpec[] = [];
  const add = (id: string, option: EChartsOption | null, run?: string, size?: 'panel' | 'lead') => {
    if (!option) return;
    const title = (option.title as { text?: string } | undefined)?.text ?? id;
    out.push({ id, title, option, ...(run !== undefined ? { run } : {}), ...(size ? { size } : {}) });
  };
  add('load-curve', loadCurveOption(runs, t), undefined, 'lead');
  add('goodput', goodputOption(runs, t));
  add('ttft-cdf', cdfOption(runs, 'ttft_ms', t));
  add('e2e-cdf', cdfOption(runs, 'e2e_ms', t));
  add('ttft-vs-input', ttftVsInputOption(runs, t));
  runs.forEach((run, i) => {
    const k = `${i}-${safeId(run.label)}`;
    add(`timeline-${k}`, timelineOption(run, t), run.id);
    add(`steps-${k}`, stepTimelineOption(run, t, opts.stepRequest), run.id);
    add(`chunk-gaps-${k}`, chunkGapOption(run, 40, t), run.id);
    for (const p of serverSeriesOptions(run, t))
      add(`server-${k}-${safeId(p.name)}`, p.option, run.id, 'panel');
  });
  return out;
}
