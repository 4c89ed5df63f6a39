/**
 * @module report/server-charts
 * The engine's side of a run as panels: each scraped series (vocabulary name) one small chart
 * over run time, the GPU's utilisation and memory first and under their own names. The run
 * report's charts (`report/charts`) and the live dashboard draw them.
 */
import type { EChartsOption } from 'echarts';
import type { LoadedRun } from '../analysis/loaded-run.js';
import { type MessageKey, type T, translator } from '../i18n/index.js';
import { BASE, valueAxis } from './chart-kit.js';

/** The English translator, the default of every builder that takes one. */
const EN = translator('en');

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
 * The GPU series, drawn first and under their own names rather than their vocabulary keys:
 * utilisation in % on a 0–100 axis (DCGM's or nvidia-smi's busy share of the sample period),
 * memory in GiB (scraped in MiB) from 0. One line per GPU (label set) and source.
 */
export const GPU_PANELS = {
  gpu_util_pct: { title: 'report.chart.gpuUtil', unit: '%', scale: 1, max: 100 },
  gpu_memory_used_mib: { title: 'report.chart.gpuMemory', unit: 'GiB', scale: 1 / 1024, max: undefined },
} as const satisfies Record<string, { title: MessageKey; unit: string; scale: number; max?: number }>;
type GpuPanelName = keyof typeof GPU_PANELS;
const isGpuPanel = (name: string): name is GpuPanelName => Object.hasOwn(GPU_PANELS, name);

/** One server panel over lines of `[run time s, value]`, as {@link serverSeriesOptions} draws them. */
function panelOption(name: string, lines: Map<string, [number, number][]>, t: T): EChartsOption | null {
  const counter = name.endsWith('_total');
  const gpu = isGpuPanel(name) ? GPU_PANELS[name] : null;
  const series = [...lines].map(([line, raw]) => {
    raw.sort((a, b) => a[0] - b[0]);
    let data: [number, number][] = gpu ? raw.map(([x, v]) => [x, v * gpu.scale]) : raw;
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
  if (series.every((x) => x.data.length === 0)) return null;
  return {
    ...BASE,
    title: {
      text: gpu ? t(gpu.title) : counter ? t('report.chart.counterRate', { name }) : name,
      left: 'center',
      top: 4,
      textStyle: { fontSize: 12 },
    },
    legend: { show: false },
    grid: { left: 60, right: 20, top: 34, bottom: 46 },
    xAxis: valueAxis(t('report.axis.runTime'), { min: 0 }, true),
    yAxis: gpu
      ? valueAxis(gpu.unit, { min: 0, ...(gpu.max !== undefined ? { max: gpu.max } : {}) })
      : valueAxis(seriesUnit(name, t), { scale: !counter, min: counter ? 0 : undefined }),
    series,
  };
}

/** A run's scraped points grouped by vocabulary name, then by line (source and label set), `[run time s, value]`. */
function seriesLines(run: LoadedRun): Map<string, Map<string, [number, number][]>> {
  const groups = new Map<string, Map<string, [number, number][]>>();
  for (const p of run.series ?? []) {
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
  return groups;
}

/**
 * The GPU panel `name` of one run ("GPU utilisation (%)", "GPU memory (GiB)"), as the report and
 * the live dashboard draw it.
 * @returns null when that series was not scraped
 */
export function gpuPanelOption(run: LoadedRun, name: GpuPanelName, t: T = EN): EChartsOption | null {
  const lines = seriesLines(run).get(name);
  return lines ? panelOption(name, lines, t) : null;
}

/**
 * The scraped server series of one run as small panels, one per vocabulary name (one line per
 * source and label set): the GPU's first, under their names ({@link GPU_PANELS}); counters
 * (`*_total`) drawn as their rate per second between readings (a counter reset is skipped, not
 * drawn as a negative rate), gauges as their values. What the timeline already draws
 * (`running`, `waiting`, `kv_usage`) is left out, and so is `server_tokens_per_s` when
 * `generation_tokens_total` is there (it is that counter's rate). Time is run time in seconds,
 * the timeline's axis.
 */
export function serverSeriesOptions(run: LoadedRun, t: T = EN): { name: string; option: EChartsOption }[] {
  const groups = seriesLines(run);
  const order = (name: string) => {
    const i = Object.keys(GPU_PANELS).indexOf(name);
    return i < 0 ? Number.POSITIVE_INFINITY : i;
  };
  const out: { name: string; option: EChartsOption }[] = [];
  const names = [...groups.keys()]
    .filter((n) => !ON_TIMELINE.has(n))
    .filter((n) => !(n === 'server_tokens_per_s' && groups.has('generation_tokens_total')))
    .sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  for (const name of names) {
    const option = panelOption(name, groups.get(name) as Map<string, [number, number][]>, t);
    if (option) out.push({ name, option });
  }
  return out;
}
