/**
 * @module report/chart-kit
 * What every chart of servelab shares, whatever it draws: the common echarts base (white, no
 * animation, title above the legend), value axes and round axis numbers, the legend's height,
 * equal-width binning for histograms, and the server-side rendering of an option to inline
 * SVG with echarts 6 SSR (`init(null, null, {renderer: 'svg', ssr: true})` →
 * `renderToSVGString()`; ECharts handbook: SSR). The run report's charts (`report/charts`),
 * the trace statistics page and the voice waterfall are built on it.
 */
import type { EChartsOption } from 'echarts';
import * as echarts from 'echarts';

/** Default rendered size, px: one cell of the report's chart grid (small multiples). */
export const CHART_WIDTH = 600;
export const CHART_HEIGHT = 340;

/** The common base of every chart: white, no animation, legend and title on top. */
export const BASE: EChartsOption = {
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
