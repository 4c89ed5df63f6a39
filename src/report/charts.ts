/**
 * @module report/charts
 * The report's charts as echarts options (pure builders, reusable by a browser dashboard that
 * runs echarts in the page) and their server-side rendering to inline SVG with echarts 6 SSR
 * (`init(null, null, {renderer: 'svg', ssr: true})` → `renderToSVGString()`; ECharts handbook: SSR).
 * Each builder returns `null` when the data does not allow the chart.
 */

import type { EChartsOption } from 'echarts';
import * as echarts from 'echarts';
import { throughputKnee } from '../analysis/knee.js';
import type { LoadedRun } from '../analysis/loaded-run.js';
import { chunkGaps, e2eMs, ttftMs } from '../analysis/request.js';
import { percentile } from '../analysis/stats.js';
import { groupAttempts } from '../analysis/summary.js';
import { validityReasons } from '../analysis/validity.js';
import { attemptEndAt } from '../analysis/window.js';
import { type T, translator } from '../core/i18n/index.js';
import { type RequestRecord, SUCCESS_OUTCOMES } from '../record/types.js';

/** Default rendered size, px: one cell of the report's chart grid (small multiples). */
export const CHART_WIDTH = 600;
export const CHART_HEIGHT = 340;
/** The English translator, the default of every builder that takes one. */
const EN = translator('en');
/** Most points drawn per line (CDFs and timelines are resampled to this). */
const MAX_POINTS = 400;

/** A gap counts as a stall when above this multiple of the run's median chunk gap… */
export const STALL_FACTOR = 5;
/** …and above this floor, ms (so a 2 ms median does not make 10 ms gaps "stalls"). */
export const STALL_MIN_MS = 50;

/**
 * Stall threshold for a run's chunk gaps: max({@link STALL_FACTOR} × median gap, {@link STALL_MIN_MS}), ms.
 * @returns null with no gaps
 */
export function stallThresholdMs(gapsMs: readonly number[]): number | null {
  if (gapsMs.length === 0) return null;
  const med = percentile(Float64Array.from(gapsMs).sort(), 50) as number;
  return Math.max(STALL_FACTOR * med, STALL_MIN_MS);
}

/** Successful measured final attempts of a run. */
export function measuredSuccesses(records: readonly RequestRecord[]): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (const g of groupAttempts(records).values()) {
    if (g.final.phase === 'measure' && SUCCESS_OUTCOMES.includes(g.final.outcome)) out.push(g.final);
  }
  return out;
}

const BASE: EChartsOption = {
  animation: false,
  backgroundColor: '#ffffff',
  textStyle: { fontFamily: 'sans-serif' },
  grid: { left: 64, right: 64, top: 74, bottom: 52 },
  legend: { top: 26, type: 'plain', textStyle: { fontSize: 11 } },
  tooltip: { trigger: 'axis' },
};

/**
 * A value axis with its unit in the name (`unit` is appended in parentheses, unless it is
 * already there), placed along the axis so that it never overlaps the tick labels.
 */
export function valueAxis(
  name: string,
  extra: Record<string, unknown> = {},
  x = false,
): Record<string, unknown> {
  return {
    type: 'value',
    name,
    nameLocation: 'middle',
    nameGap: x ? 30 : 44,
    nameTextStyle: { fontSize: 11 },
    ...extra,
  };
}

/** Width the legend is laid out in, px: the narrowest chart cell of the report's grid and the dashboard's. */
const LEGEND_WIDTH = 420;

/**
 * Rows a plain legend of these names takes at {@link LEGEND_WIDTH} (an item is its symbol plus
 * its text at ~6.5 px a Latin character, twice that for a CJK one). The legend wraps instead of
 * paging: an SVG cannot turn a legend's pages, and a reader should see every series' name.
 */
export function legendRows(names: readonly string[]): number {
  let rows = names.length ? 1 : 0;
  let x = 0;
  for (const n of names) {
    let w = 36;
    for (const ch of n) w += ch.charCodeAt(0) > 0x2e80 ? 12 : 6.5;
    if (x > 0 && x + w > LEGEND_WIDTH) {
      rows += 1;
      x = 0;
    }
    x += w;
  }
  return rows;
}

/** An option with the charts' common base (white, no animation) and its title above the legend. */
export function withBase(title: string, o: EChartsOption): EChartsOption {
  const series = (Array.isArray(o.series) ? o.series : o.series ? [o.series] : []) as { name?: string }[];
  const names = [...new Set(series.map((x) => x.name).filter((n): n is string => typeof n === 'string'))];
  const legendShown = (o.legend as { show?: boolean } | undefined)?.show !== false;
  const rows = legendShown ? legendRows(names) : 0;
  const grid = { ...(BASE.grid as object), top: 44 + 20 * Math.max(1, rows) + 10 };
  return {
    ...BASE,
    grid,
    title: { text: title, left: 'center', top: 4, textStyle: { fontSize: 13 } },
    ...o,
  };
}

/** The smallest round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10ⁿ) at or above `v` (> 0): an axis end a reader can take in. */
export function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10])
    if (m * p >= v) return Number((m * p).toPrecision(6));
  return 10 * p;
}

/**
 * A number as an axis label shows it: at most 3 significant decimals, no float noise
 * (`7.630594756000001` → `7.63`), thousands as `12k`.
 */
export function axisNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 10_000) return `${Number((v / 1000).toPrecision(3))}k`;
  if (a >= 100 || Number.isInteger(v)) return String(Math.round(v));
  return String(Number(v.toPrecision(3)));
}

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

/**
 * CDF of TTFT or E2E per run (successful measured requests), ms on x.
 * @returns null when no run has 2 or more samples
 */
export function cdfOption(
  runs: readonly LoadedRun[],
  metric: 'ttft_ms' | 'e2e_ms',
  t: T = EN,
): EChartsOption | null {
  const series = runs
    .map((run) => {
      const vals: number[] = [];
      const of = metric === 'ttft_ms' ? ttftMs : e2eMs;
      for (const r of measuredSuccesses(run.records)) {
        const v = of(r);
        if (v !== undefined) vals.push(v);
      }
      return { run, vals };
    })
    .filter((x) => x.vals.length >= 2);
  if (series.length === 0) return null;
  return withBase(t(metric === 'ttft_ms' ? 'report.chart.ttftCdf' : 'report.chart.e2eCdf'), {
    xAxis: valueAxis(`${metric} (ms)`, { scale: true }, true),
    yAxis: valueAxis(t('report.axis.fraction'), { min: 0, max: 1 }),
    series: series.map(({ run, vals }) => ({
      type: 'line',
      name: run.label,
      step: 'end',
      showSymbol: false,
      data: cdfPoints(vals),
    })),
  });
}

/** One point of a load curve (one run at one level). */
export interface LoadPoint {
  run: string;
  /** Concurrency or rate (rps). */
  x: number;
  output_tok_s: number | null;
  request_rps: number | null;
  goodput_rps: number | null;
  ttft_p95_ms: number | null;
  ttft_p99_ms: number | null;
  e2e_p95_ms: number | null;
  e2e_p99_ms: number | null;
  /** The run's verdict: an invalid level is drawn but left out of the knee, as the experiment does. */
  valid: boolean;
}

/** Which load axis the runs share: concurrency if every run has one, else rate, else null. */
export function loadAxis(runs: readonly LoadedRun[]): 'concurrency' | 'rate_rps' | null {
  if (runs.length >= 2 && runs.every((r) => r.level?.concurrency != null)) return 'concurrency';
  if (runs.length >= 2 && runs.every((r) => r.level?.rate_rps != null)) return 'rate_rps';
  return null;
}

/**
 * Which curve a run belongs to: its target (an experiment's target name, or `servelab run`'s
 * URL) and model. Runs of different targets are different curves: drawn or judged as one, a
 * slow target's levels interleave with a fast one's and the curve zig-zags.
 */
export function curveKey(run: LoadedRun): string {
  return JSON.stringify([curveTarget(run), run.config.model ?? null]);
}

function curveTarget(run: LoadedRun): string | null {
  const t = run.config.target;
  if (typeof t === 'string') return t;
  if (t !== null && typeof t === 'object') return String((t as { url?: unknown }).url ?? JSON.stringify(t));
  return null;
}

/** Runs grouped by {@link curveKey}, in first-seen order, each with a display name. */
export function curvesOf(runs: readonly LoadedRun[]): { name: string; runs: LoadedRun[] }[] {
  const m = new Map<string, { name: string; runs: LoadedRun[] }>();
  for (const r of runs) {
    const k = curveKey(r);
    const c = m.get(k);
    if (c) c.runs.push(r);
    else m.set(k, { name: curveTarget(r) ?? String(r.config.model ?? r.label), runs: [r] });
  }
  return [...m.values()];
}

/** One load curve per target (see {@link curvesOf}); null without ≥ 2 runs that share a load axis. */
export function loadCurves(
  runs: readonly LoadedRun[],
): { axis: 'concurrency' | 'rate_rps'; curves: { name: string; points: LoadPoint[] }[] } | null {
  const axis = loadAxis(runs);
  if (!axis) return null;
  return {
    axis,
    curves: curvesOf(runs).map((c) => ({ name: c.name, points: pointsOn(c.runs, axis) })),
  };
}

/** Load-curve points sorted by level; null without ≥ 2 runs that share a load axis. */
export function loadPoints(
  runs: readonly LoadedRun[],
): { axis: 'concurrency' | 'rate_rps'; points: LoadPoint[] } | null {
  const axis = loadAxis(runs);
  if (!axis) return null;
  return { axis, points: pointsOn(runs, axis) };
}

function pointsOn(runs: readonly LoadedRun[], axis: 'concurrency' | 'rate_rps'): LoadPoint[] {
  return runs
    .map((r) => ({
      run: r.label,
      x: r.level?.[axis] as number,
      output_tok_s: r.summary.output_throughput_tok_s,
      request_rps: r.summary.request_throughput_rps,
      goodput_rps: r.summary.goodput.rps,
      ttft_p95_ms: r.summary.ttft_ms.p95,
      ttft_p99_ms: r.summary.ttft_ms.p99,
      e2e_p95_ms: r.summary.e2e_ms.p95,
      e2e_p99_ms: r.summary.e2e_ms.p99,
      valid: validityReasons(r).length === 0,
    }))
    .sort((a, b) => a.x - b.x);
}

/**
 * The knee of a load curve: the last level before throughput stops rising (the experiment's
 * rule, {@link throughputKnee}, so the chart marks the level the experiment result names).
 * @param xs ascending load levels
 * @param ys throughput at each level
 * @returns the index of the knee, or null when throughput still rose at the last level
 */
export function findKnee(xs: readonly number[], ys: readonly (number | null)[]): number | null {
  return throughputKnee(
    ys,
    ys.map(() => null),
    xs,
  ).index;
}

/** The SLO the runs were judged by (the first run's that has one), or null. */
export function sloOf(runs: readonly LoadedRun[]): Record<string, number> | null {
  for (const r of runs) {
    const slo = r.summary.goodput?.slo;
    if (slo && Object.keys(slo).length) return slo as Record<string, number>;
  }
  return null;
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
    const line = (name: string, key: keyof LoadPoint, yAxisIndex: number, dashed = false) => ({
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
  return withBase(t(axis === 'concurrency' ? 'report.chart.loadCurveC' : 'report.chart.loadCurveR'), {
    xAxis: valueAxis(t(axis === 'concurrency' ? 'report.axis.concurrency' : 'report.axis.rate'), {}, true),
    yAxis: [
      valueAxis(t('report.axis.tokS')),
      valueAxis(t('report.axis.ms'), {
        splitLine: { show: false },
        ...(latencyTop > 0 ? { max: niceCeil(latencyTop * 1.1) } : {}),
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

/** Counts of `values` in `bins` equal bins from 0 to the largest: [bin middle, count], empty bins left out. */
export function histogram(
  values: readonly number[],
  bins: number,
): { width: number; points: [number, number][] } {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  const width = max / bins || 1;
  const counts = new Array<number>(bins + 1).fill(0);
  for (const v of values) counts[Math.min(bins, Math.floor(v / width))] += 1;
  const points: [number, number][] = [];
  counts.forEach((c, i) => {
    if (c > 0) points.push([(i + 0.5) * width, c]);
  });
  return { width, points };
}

/**
 * TTFT against actual input length (usage.prompt_tokens, else the requested length), a scatter
 * per run. When every prompt has the same length a scatter is one vertical line, so the chart
 * is then the TTFT histogram of each run instead (the title names the one length).
 * @returns null when no request has both
 */
export function ttftVsInputOption(runs: readonly LoadedRun[], t: T = EN): EChartsOption | null {
  const series = runs
    .map((run) => ({
      run,
      data: measuredSuccesses(run.records)
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
        xAxis: valueAxis('ttft_ms (ms)', { min: 0 }, true),
        yAxis: valueAxis(t('report.axis.requests'), { minInterval: 1 }),
        series: [
          {
            type: 'bar',
            name: series[0].run.label,
            barWidth: '90%',
            barMinHeight: 2,
            data: histogram(vals, bins).points,
          },
        ],
      });
    }
    // Several runs: a strip per run (one row each, every request a point).
    return withBase(t('report.chart.ttftStrip', { tokens }), {
      tooltip: { trigger: 'item' },
      legend: { show: false },
      grid: { left: 110, right: 30, top: 40, bottom: 52 },
      xAxis: valueAxis('ttft_ms (ms)', { min: 0 }, true),
      yAxis: { type: 'category', data: series.map((s) => s.run.label), inverse: true },
      series: series.map(({ run, data }) => ({
        type: 'scatter',
        name: run.label,
        symbolSize: 6,
        itemStyle: { opacity: 0.5 },
        data: data.map((p) => [p[1], run.label]),
      })),
    });
  }
  return withBase(t('report.chart.ttftVsInput'), {
    tooltip: { trigger: 'item' },
    xAxis: valueAxis(t('report.axis.inputTokens'), { scale: true }, true),
    yAxis: valueAxis('ttft_ms (ms)', { scale: true }),
    series: series.map(({ run, data }) => ({ type: 'scatter', name: run.label, symbolSize: 5, data })),
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

/** Series drawn on the timeline (not again as server panels). */
const ON_TIMELINE = new Set(['running', 'waiting', 'kv_usage']);

/** A server series' unit, from its vocabulary name. */
function seriesUnit(name: string, t: T): string {
  if (name.endsWith('_total')) return t('report.axis.perS');
  if (name.endsWith('_mib')) return 'MiB';
  if (name.endsWith('_pct')) return '%';
  if (name.endsWith('_per_s')) return t('report.axis.perS');
  return t('report.axis.value');
}

/**
 * The scraped server series of one run as small panels, one per vocabulary name (one line per
 * source and label set): counters (`*_total`) drawn as their rate per second between readings
 * (a counter reset is skipped, not drawn as a negative rate), gauges as their values. What the
 * timeline already draws (`running`, `waiting`, `kv_usage`) is left out, and so is
 * `server_tokens_per_s` when `generation_tokens_total` is there (it is that counter's rate).
 * Time is run time in seconds, the timeline's axis.
 */
export function serverSeriesOptions(run: LoadedRun, t: T = EN): { name: string; option: EChartsOption }[] {
  const points = run.series ?? [];
  const names = new Set(points.map((p) => p.name));
  const groups = new Map<string, Map<string, [number, number][]>>();
  for (const p of points) {
    if (ON_TIMELINE.has(p.name)) continue;
    if (p.name === 'server_tokens_per_s' && names.has('generation_tokens_total')) continue;
    const labels = (p as { labels?: Record<string, string> }).labels ?? {};
    const lab = Object.entries(labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const line = `${p.source}${lab ? ` {${lab}}` : ''}`;
    const g = groups.get(p.name) ?? new Map<string, [number, number][]>();
    groups.set(p.name, g);
    const d = g.get(line) ?? [];
    g.set(line, d);
    d.push([p.t_ms / 1000, p.value]);
  }
  const out: { name: string; option: EChartsOption }[] = [];
  for (const [name, lines] of [...groups].sort((a, b) => a[0].localeCompare(b[0]))) {
    const counter = name.endsWith('_total');
    const series = [...lines].map(([line, raw]) => {
      raw.sort((a, b) => a[0] - b[0]);
      let data: [number, number][] = raw;
      if (counter) {
        data = [];
        for (let i = 1; i < raw.length; i++) {
          const dt = raw[i][0] - raw[i - 1][0];
          const dv = raw[i][1] - raw[i - 1][1];
          if (dt > 0 && dv >= 0) data.push([raw[i][0], dv / dt]);
        }
      }
      return { type: 'line' as const, name: line, showSymbol: data.length < 3, data };
    });
    if (series.every((x) => x.data.length === 0)) continue;
    out.push({
      name,
      option: {
        ...BASE,
        title: {
          text: counter ? t('report.chart.counterRate', { name }) : name,
          left: 'center',
          top: 4,
          textStyle: { fontSize: 12 },
        },
        legend: { show: false },
        grid: { left: 60, right: 20, top: 34, bottom: 46 },
        xAxis: valueAxis(t('report.axis.runTime'), { min: 0 }, true),
        yAxis: valueAxis(seriesUnit(name, t), { scale: !counter, min: counter ? 0 : undefined }),
        series,
      },
    });
  }
  return out;
}

/** Labels of every value and log axis through {@link axisNumber}, unless the option formats its own. */
function roundAxisLabels(option: EChartsOption): EChartsOption {
  const fix = (axis: unknown): unknown => {
    if (Array.isArray(axis)) return axis.map(fix);
    if (!axis || typeof axis !== 'object') return axis;
    const a = axis as { type?: string; axisLabel?: { formatter?: unknown } };
    if ((a.type ?? 'value') !== 'value' && a.type !== 'log') return axis;
    if (a.axisLabel?.formatter !== undefined) return axis;
    return { ...a, axisLabel: { ...a.axisLabel, formatter: (v: number) => axisNumber(v) } };
  };
  return { ...option, xAxis: fix(option.xAxis), yAxis: fix(option.yAxis) } as EChartsOption;
}

/**
 * Render an option to an SVG string with echarts' server-side SVG renderer (no DOM). Axis
 * labels are rounded for reading ({@link axisNumber}).
 * @param width px
 * @param height px
 */
export function renderSvg(option: EChartsOption, width = CHART_WIDTH, height = CHART_HEIGHT): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption(roundAxisLabels(option));
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
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
export function reportCharts(runs: readonly LoadedRun[], t: T = EN): ChartSpec[] {
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
    add(`chunk-gaps-${k}`, chunkGapOption(run, 40, t), run.id);
    for (const p of serverSeriesOptions(run, t))
      add(`server-${k}-${safeId(p.name)}`, p.option, run.id, 'panel');
  });
  return out;
}
