/**
 * @module report/charts
 * The report's charts as echarts options (pure builders, reusable by a browser dashboard that
 * runs echarts in the page) and their server-side rendering to inline SVG with echarts 6 SSR
 * (`init(null, null, {renderer: 'svg', ssr: true})` → `renderToSVGString()`; ECharts handbook: SSR).
 * Each builder returns `null` when the data does not allow the chart.
 */

import type { EChartsOption } from 'echarts';
import * as echarts from 'echarts';
import { chunkGaps, e2eMs, ttftMs } from '../analysis/request.js';
import { percentile } from '../analysis/stats.js';
import { groupAttempts } from '../analysis/summary.js';
import { attemptEndAt } from '../analysis/window.js';
import { type RequestRecord, SUCCESS_OUTCOMES } from '../record/types.js';
import { validityReasons } from './diagnose/validity.js';
import { throughputKnee } from './knee.js';
import type { LoadedRun } from './types.js';

/** Default rendered size, px. */
export const CHART_WIDTH = 720;
export const CHART_HEIGHT = 380;
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
  grid: { left: 70, right: 70, top: 78, bottom: 55 },
  legend: { top: 30, type: 'scroll' },
  tooltip: { trigger: 'axis' },
};

function withBase(title: string, o: EChartsOption): EChartsOption {
  return { ...BASE, title: { text: title, left: 'center', top: 4, textStyle: { fontSize: 14 } }, ...o };
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
export function cdfOption(runs: readonly LoadedRun[], metric: 'ttft_ms' | 'e2e_ms'): EChartsOption | null {
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
  const name = metric === 'ttft_ms' ? 'TTFT' : 'E2E latency';
  return withBase(`${name} CDF`, {
    xAxis: { type: 'value', name: `${metric}`, nameLocation: 'middle', nameGap: 30, scale: true },
    yAxis: { type: 'value', name: 'fraction ≤ x', min: 0, max: 1 },
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

/**
 * Output throughput (left axis) and TTFT/E2E p95/p99 (right axis) against concurrency or rate,
 * with the throughput knee marked.
 * @returns null without ≥ 2 runs sharing a load axis
 */
export function loadCurveOption(runs: readonly LoadedRun[]): EChartsOption | null {
  const lc = loadCurves(runs);
  if (!lc) return null;
  const { axis, curves } = lc;
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
      lineStyle: dashed ? { type: 'dashed' as const } : undefined,
      data: points.map((p) => [p.x, p[key] as number | null]),
    });
    const tput = {
      ...line('output tok/s', 'output_tok_s', 0),
      markLine:
        knee === null
          ? undefined
          : {
              symbol: 'none',
              label: { formatter: named(c, `knee ${xs[knee]}`) },
              data: [{ xAxis: xs[knee] }],
            },
    };
    return [
      tput,
      line('TTFT p95 ms', 'ttft_p95_ms', 1, true),
      line('TTFT p99 ms', 'ttft_p99_ms', 1, true),
      line('E2E p95 ms', 'e2e_p95_ms', 1),
      line('E2E p99 ms', 'e2e_p99_ms', 1),
    ];
  });
  return withBase(`Throughput and tail latency vs ${axis === 'concurrency' ? 'concurrency' : 'rate'}`, {
    xAxis: {
      type: 'value',
      name: axis === 'concurrency' ? 'concurrency' : 'rate (req/s)',
      nameLocation: 'middle',
      nameGap: 30,
    },
    yAxis: [
      { type: 'value', name: 'tok/s' },
      { type: 'value', name: 'ms', splitLine: { show: false } },
    ],
    series,
  });
}

/**
 * Goodput (requests/s meeting the SLO) and request throughput against load, one pair of lines
 * per target.
 * @returns null without ≥ 2 runs sharing a load axis, or with no goodput (no SLO)
 */
export function goodputOption(runs: readonly LoadedRun[]): EChartsOption | null {
  const lc = loadCurves(runs);
  if (!lc || lc.curves.every((c) => c.points.every((p) => p.goodput_rps === null))) return null;
  const named = (c: { name: string }, what: string) => (lc.curves.length > 1 ? `${c.name}: ${what}` : what);
  return withBase('Goodput vs load', {
    xAxis: {
      type: 'value',
      name: lc.axis === 'concurrency' ? 'concurrency' : 'rate (req/s)',
      nameLocation: 'middle',
      nameGap: 30,
    },
    yAxis: { type: 'value', name: 'req/s' },
    series: lc.curves.flatMap((c) => [
      { type: 'line', name: named(c, 'goodput req/s'), data: c.points.map((p) => [p.x, p.goodput_rps]) },
      {
        type: 'line',
        name: named(c, 'throughput req/s'),
        lineStyle: { type: 'dashed' },
        data: c.points.map((p) => [p.x, p.request_rps]),
      },
    ]),
  });
}

/**
 * TTFT against actual input length (usage.prompt_tokens, else the requested length), a scatter per run.
 * @returns null when no request has both
 */
export function ttftVsInputOption(runs: readonly LoadedRun[]): EChartsOption | null {
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
  return withBase('TTFT vs input length', {
    tooltip: { trigger: 'item' },
    xAxis: { type: 'value', name: 'input tokens', nameLocation: 'middle', nameGap: 30, scale: true },
    yAxis: { type: 'value', name: 'ttft_ms', scale: true },
    series: series.map(({ run, data }) => ({ type: 'scatter', name: run.label, symbolSize: 4, data })),
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
export function timelineOption(run: LoadedRun): EChartsOption | null {
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
      name: 'in flight (client)',
      step: 'end',
      showSymbol: false,
      data: inflight.map(([t, c]) => [t / 1000, c]),
    },
  ];
  const running = pick('running');
  const waiting = pick('waiting');
  const kv = pick('kv_usage', 100);
  if (running.length)
    series.push({ type: 'line', name: 'running (server)', showSymbol: false, data: running });
  if (waiting.length)
    series.push({ type: 'line', name: 'waiting (server)', showSymbol: false, data: waiting });
  if (kv.length)
    series.push({
      type: 'line',
      name: 'KV usage %',
      yAxisIndex: 1,
      showSymbol: false,
      lineStyle: { type: 'dotted' },
      data: kv,
    });
  return withBase(`Requests in flight — ${run.label}`, {
    xAxis: { type: 'value', name: 'run time (s)', nameLocation: 'middle', nameGap: 30 },
    yAxis: [
      { type: 'value', name: 'requests', minInterval: 1 },
      { type: 'value', name: 'KV %', min: 0, max: 100, splitLine: { show: false } },
    ],
    series,
  });
}

/**
 * Distribution of chunk gaps (ms) of one run's successful measured requests, log-scaled counts,
 * with the stall threshold ({@link stallThresholdMs}) marked.
 * @returns null with fewer than 2 gaps
 */
export function chunkGapOption(run: LoadedRun, bins = 40): EChartsOption | null {
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
  return withBase(`Chunk gaps — ${run.label} (${nStalls} stall(s) > ${threshold.toFixed(0)} ms)`, {
    tooltip: { trigger: 'item' },
    xAxis: { type: 'value', name: 'gap (ms)', nameLocation: 'middle', nameGap: 30, min: 0 },
    yAxis: { type: 'log', name: 'gaps', min: 1 },
    series: [
      {
        type: 'bar',
        name: 'gaps',
        barWidth: '90%',
        data: normal,
        markLine: { symbol: 'none', label: { formatter: 'stall threshold' }, data: [{ xAxis: threshold }] },
      },
      { type: 'bar', name: 'stalls', itemStyle: { color: '#c0392b' }, data: stalls },
    ],
  });
}

/**
 * Render an option to an SVG string with echarts' server-side SVG renderer (no DOM).
 * @param width px
 * @param height px
 */
export function renderSvg(option: EChartsOption, width = CHART_WIDTH, height = CHART_HEIGHT): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption(option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

const svgOrNull = (o: EChartsOption | null) => (o === null ? null : renderSvg(o));

/** The timeline of one run as SVG (null when nothing was sent). */
export const timelineSvg = (run: LoadedRun) => svgOrNull(timelineOption(run));

/** One chart of a report: a file-safe id, a title and its echarts option. */
export interface ChartSpec {
  id: string;
  title: string;
  option: EChartsOption;
}

const safeId = (s: string) => s.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 60);

/**
 * Every chart the data allows, in report order: CDFs, load curve, goodput, TTFT vs input,
 * then per run the timeline and the chunk-gap distribution.
 */
export function reportCharts(runs: readonly LoadedRun[]): ChartSpec[] {
  const out: ChartSpec[] = [];
  const add = (id: string, title: string, option: EChartsOption | null) => {
    if (option) out.push({ id, title, option });
  };
  add('ttft-cdf', 'TTFT CDF', cdfOption(runs, 'ttft_ms'));
  add('e2e-cdf', 'E2E CDF', cdfOption(runs, 'e2e_ms'));
  add('load-curve', 'Throughput and tail latency vs load', loadCurveOption(runs));
  add('goodput', 'Goodput vs load', goodputOption(runs));
  add('ttft-vs-input', 'TTFT vs input length', ttftVsInputOption(runs));
  runs.forEach((run, i) => {
    add(`timeline-${i}-${safeId(run.label)}`, `Timeline — ${run.label}`, timelineOption(run));
    add(`chunk-gaps-${i}-${safeId(run.label)}`, `Chunk gaps — ${run.label}`, chunkGapOption(run));
  });
  return out;
}
