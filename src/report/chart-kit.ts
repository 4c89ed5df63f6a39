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
    axisLine: { show: true },
    ...extra,
  };
}

/** Width the legend is laid out in when the chart's width is not known (the dashboard's narrowest cell), px. */
const LEGEND_WIDTH = 420;

/**
 * Width of `text` in px at `fontSize` px, as a browser draws it in its `sans-serif`: the
 * advance widths of DejaVu Sans (Debian's and most Linux browsers' sans-serif, wider than
 * Helvetica or Arial), grouped and rounded up, bold about 10% wider, a CJK character one em. A
 * layout from these widths leaves room for any common sans-serif, so legend items and labels
 * placed by it never run into each other. echarts' own estimate without a canvas uses
 * Helvetica's widths (zrender `platform.ts` `DEFAULT_TEXT_WIDTH_MAP`), which a browser's
 * DejaVu Sans overruns by 10–20%.
 */
export function textWidth(text: string, fontSize: number, bold = false): number {
  let em = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if (c >= 0x2e80) em += 1;
    else if (" il.,:;'|!j".includes(ch)) em += 0.32;
    else if ('ftr()[]{}/-"`'.includes(ch)) em += 0.42;
    else if ('mwMW@%'.includes(ch)) em += 1;
    else if (ch >= 'A' && ch <= 'Z') em += 0.76;
    else if (ch >= '0' && ch <= '9') em += 0.64;
    else em += 0.64;
  }
  return em * fontSize * (bold ? 1.1 : 1);
}

/** The px size and weight of a CSS font shorthand (`bold 13px sans-serif`). */
function fontOf(font: string | undefined): { size: number; bold: boolean } {
  const m = /(\d+(?:\.\d+)?)px/.exec(font ?? '');
  return { size: m ? Number(m[1]) : 12, bold: /bold|[6-9]00/.test(font ?? '') };
}

// Server-side rendering has no canvas to measure text with: lay text out with the browser's
// widths instead of echarts' Helvetica estimate (ECharts handbook, server-side rendering:
// `setPlatformAPI({ measureText })`).
echarts.setPlatformAPI({
  measureText: (text: string, font?: string) => {
    const f = fontOf(font);
    return { width: textWidth(text ?? '', f.size, f.bold) };
  },
});

/** Legend item layout of echarts' plain legend: icon width, gap icon → text, gap between items. */
const LEGEND_ICON = 25;
const LEGEND_TEXT_GAP = 5;
const LEGEND_ITEM_GAP = 10;
/** Height of one legend row, px (an 11 px text row and the gap between rows). */
const LEGEND_ROW = 24;
/** The plot's top under a title and one legend row, px. */
const ONE_ROW_TOP = 78;

/**
 * Rows a plain legend of these names takes in `width` px (an item is its icon, a gap and its
 * text at {@link textWidth}). The legend wraps instead of paging: an SVG cannot turn a legend's
 * pages, and a reader should see every series' name.
 */
export function legendRows(names: readonly string[], width = LEGEND_WIDTH): number {
  let rows = names.length ? 1 : 0;
  let x = 0;
  for (const n of names) {
    const w = LEGEND_ICON + LEGEND_TEXT_GAP + textWidth(n, 11) + LEGEND_ITEM_GAP;
    if (x > 0 && x + w > width) {
      rows += 1;
      x = 0;
    }
    x += w;
  }
  return rows;
}

/** The names a chart's legend lists: its series', once each, in order. */
function legendNames(o: EChartsOption): string[] {
  const series = (Array.isArray(o.series) ? o.series : o.series ? [o.series] : []) as { name?: string }[];
  return [...new Set(series.map((x) => x.name).filter((n): n is string => typeof n === 'string'))];
}

/** An option with the charts' common base (white, no animation) and its title above the legend. */
export function withBase(title: string, o: EChartsOption): EChartsOption {
  const legendShown = (o.legend as { show?: boolean } | undefined)?.show !== false;
  const rows = legendShown ? legendRows(legendNames(o)) : 0;
  const grid = { ...(BASE.grid as object), top: ONE_ROW_TOP + LEGEND_ROW * Math.max(0, rows - 1) };
  return {
    ...BASE,
    grid,
    title: { text: title, left: 'center', top: 4, textStyle: { fontSize: 13 } },
    ...o,
  };
}

/**
 * The option laid out for a `width` × `height` px chart: a title wider than the chart wraps, the
 * legend wraps at the chart's width (never onto the plot), the plot starts below both and keeps
 * the height the option asked for; the chart grows by what the wrapped title and legend take.
 * @returns the option and the chart's height
 */
export function fitToWidth(
  option: EChartsOption,
  width: number,
  height: number,
): { option: EChartsOption; height: number } {
  const title = (option.title ?? {}) as { text?: string; top?: number; textStyle?: { fontSize?: number } };
  const legend = (option.legend ?? {}) as { show?: boolean; top?: number };
  const grid = (option.grid ?? {}) as { top?: number; [k: string]: unknown };
  const fontSize = title.textStyle?.fontSize ?? 13;
  const lineWidth = width - 24;
  const titleLines = title.text
    ? Math.max(1, Math.ceil(textWidth(title.text, fontSize, true) / lineWidth))
    : 0;
  const titleBottom = titleLines ? 6 + titleLines * (fontSize + 6) : 0;
  const names = legend.show === false ? [] : legendNames(option);
  const rows = legendRows(names, width - 20);
  const legendTop = titleBottom + 4;
  // The builder's top, less what it set aside for legend rows past the first (estimated at
  // another width): the plot's height is the chart's height below that.
  const planned = Math.min(typeof grid.top === 'number' ? grid.top : ONE_ROW_TOP, ONE_ROW_TOP);
  // Below the legend, room for a mark line's label drawn above the plot (a knee, an SLO).
  const top = Math.max(planned, rows ? legendTop + rows * LEGEND_ROW + 18 : titleBottom + 12);
  return {
    option: {
      ...option,
      ...(title.text
        ? {
            title: {
              ...title,
              textStyle: { ...title.textStyle, fontSize, width: lineWidth, overflow: 'break' },
            },
          }
        : {}),
      ...(option.legend || names.length
        ? { legend: { ...legend, top: legendTop, left: 'center', width: width - 20 } }
        : {}),
      grid: { ...grid, top },
    } as EChartsOption,
    height: Math.round(height + top - planned),
  };
}

/**
 * An axis for values spanning `values`: linear, or log when the positive values span more than
 * two orders of magnitude (a linear axis would flatten all but the largest to its floor).
 * @returns the axis fields to spread into a value axis
 */
export function spanScale(values: readonly (number | null | undefined)[]): Record<string, unknown> {
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (const v of values) {
    if (v == null || !(v > 0)) continue;
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return hi > 0 && hi / lo > 100 ? { type: 'log', logBase: 10 } : {};
}

/** The smallest round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10ⁿ) at or above `v` (> 0): an axis end a reader can take in. */
export function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10])
    if (m * p >= v) return Number((m * p).toPrecision(6));
  return 10 * p;
}

/**
 * A number as an axis label shows it. A tick is a round multiple of the axis's step, so it is
 * shown whole with up to 3 decimals (`104.05`, `0.3`: a narrow axis keeps its ticks apart);
 * anything else (an axis end at a data extreme) gets at most 3 significant decimals, and no float
 * noise (`7.630594756000001` → `7.63`); thousands as `12k`.
 */
export function axisNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const round = (x: number, rest: (x: number) => string) => {
    const clean = Number(x.toPrecision(12));
    for (let d = 0; d <= 3; d++) if (Number(clean.toFixed(d)) === clean) return String(clean);
    return rest(x);
  };
  const a = Math.abs(v);
  if (a >= 10_000) return `${round(v / 1000, (x) => String(Number(x.toPrecision(3))))}k`;
  return round(v, (x) => (a >= 100 ? String(Math.round(x)) : String(Number(x.toPrecision(3)))));
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
 * Render an option to an SVG string with echarts' server-side SVG renderer (no DOM), laid out
 * for its width ({@link fitToWidth}: the SVG is taller when a title or legend wraps). Axis
 * labels are rounded for reading ({@link axisNumber}).
 * @param width px
 * @param height px
 */
export function renderSvg(option: EChartsOption, width = CHART_WIDTH, height = CHART_HEIGHT): string {
  const fit = fitToWidth(option, width, height);
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height: fit.height });
  try {
    chart.setOption(roundAxisLabels(fit.option));
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
