/**
 * Chart option builders and SVG rendering: each returns null when the data does not allow the
 * chart, draws what the data says when it does, and renders to a standalone SVG string.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EChartsOption } from 'echarts';
import type { LoadedRun } from '../../src/analysis/loaded-run.js';
import { parseSlo } from '../../src/analysis/slo.js';
import { stallThresholdMs } from '../../src/analysis/stalls.js';
import { translator } from '../../src/i18n/index.js';
import {
  axisNumber,
  fitToWidth,
  legendRows,
  renderSvg,
  spanScale,
  textWidth,
} from '../../src/report/chart-kit.js';
import {
  cdfOption,
  cdfPoints,
  chunkGapOption,
  goodputOption,
  inFlightSeries,
  loadCurveOption,
  reportCharts,
  timelineOption,
  timelineSvg,
  ttftVsInputOption,
} from '../../src/report/charts.js';
import { gpuPanelOption, serverSeriesOptions } from '../../src/report/server-charts.js';
import { handRecord, handRun, many, simRun } from '../diagnose/helpers.js';

const recs = (n: number) =>
  Array.from({ length: n }, (_, i) => handRecord(`q${i}`, i * 100, 20 + i, 10, 10, 100 + 10 * i));
// biome-ignore lint/suspicious/noExplicitAny: reading back echarts' loose option shape
const series = (o: any): any[] => o.series;

describe('chart builders', () => {
  it('CDF: one monotone line per run, ending at fraction 1; null with fewer than 2 samples', () => {
    const pts = cdfPoints([5, 1, 3, 2, 4]);
    assert.deepEqual(pts, [
      [1, 0.2],
      [2, 0.4],
      [3, 0.6],
      [4, 0.8],
      [5, 1],
    ]);
    const big = cdfPoints(Array.from({ length: 10_000 }, (_, i) => 10_000 - i));
    assert.ok(big.length <= 401);
    assert.deepEqual(big.at(-1), [10_000, 1]);
    for (let i = 1; i < big.length; i++) assert.ok(big[i][0] >= big[i - 1][0] && big[i][1] > big[i - 1][1]);
    const o = cdfOption([handRun('a', recs(10)), handRun('b', recs(1))], 'ttft_ms');
    assert.equal(series(o).length, 1);
    assert.equal(series(o)[0].name, 'a');
    assert.deepEqual(series(o)[0].data[0], [20, 0.1]);
    assert.equal(cdfOption([handRun('b', recs(1))], 'e2e_ms'), null);
  });

  it('load curve and goodput need at least two runs on one load axis; the knee is marked', () => {
    const slo = parseSlo('ttft_ms=1000');
    const runs: LoadedRun[] = [1, 2, 4, 8, 16].map((c) =>
      simRun({
        label: `c${c}`,
        engine: { model: 'qwen3-8b', gpu: 'h100', gpuMemoryUtilization: 0.5 },
        shapes: many(48, { input: 1024, output: 128 }),
        load: { kind: 'closed', concurrency: c },
        level: { concurrency: c },
        ctx: { slo },
        seriesPoints: 0,
      }),
    );
    const o = loadCurveOption(runs);
    assert.ok(o);
    assert.deepEqual(
      series(o)[0].data.map((p: number[]) => p[0]),
      [1, 2, 4, 8, 16],
    );
    const g = goodputOption(runs);
    assert.ok(g);
    assert.equal(series(g)[0].data.length, 5);
    assert.equal(loadCurveOption(runs.slice(0, 1)), null);
    assert.equal(
      goodputOption([
        handRun('x', recs(5), {}, { level: { concurrency: 1 } }),
        handRun('y', recs(5), {}, { level: { concurrency: 2 } }),
      ]),
      null,
    );
    // A knee where throughput flattens shows as a vertical mark line.
    const flat = [1, 2, 4, 8].map((c, i) => {
      const r = handRun(`f${c}`, recs(20), {}, { level: { concurrency: c } });
      r.summary = { ...r.summary, output_throughput_tok_s: [100, 200, 390, 400][i] };
      return r;
    });
    assert.deepEqual(series(loadCurveOption(flat))[0].markLine.data, [{ xAxis: 4 }]);
    // An invalid level is drawn but left out of the knee, as the sweep's conclusion leaves it
    // out: c=4 (client lag) looks like a plateau; over the valid levels throughput rises until
    // 8 → 16 adds 2.5% on a doubling, so the knee is 8.
    const lagged = [1, 2, 4, 8, 16].map((c, i) => {
      const r = handRun(`l${c}`, recs(20), {}, { level: { concurrency: c } });
      r.summary = {
        ...r.summary,
        output_throughput_tok_s: [100, 200, 205, 800, 820][i],
        client: {
          event_loop_delay_ms: { p50: 1, p99: c === 4 ? 40 : 1, max: 50 },
          cpu_percent: 10,
        },
      };
      return r;
    });
    assert.deepEqual(series(loadCurveOption(lagged))[0].data.length, 5, 'every level is drawn');
    assert.deepEqual(series(loadCurveOption(lagged))[0].markLine.data, [{ xAxis: 8 }]);
  });

  it('load curve and goodput: one line per target, never one line zig-zagging between targets', () => {
    const slo = parseSlo('ttft_ms=1000');
    const target = (name: string, gpu: string) =>
      [1, 2, 4].map((c) =>
        simRun({
          label: `${name} c${c}`,
          engine: { model: 'qwen3-8b', gpu },
          shapes: many(24, { input: 256, output: 64 }),
          load: { kind: 'closed', concurrency: c },
          level: { concurrency: c },
          config: { target: name, model: 'qwen3-8b' },
          ctx: { slo },
          seriesPoints: 0,
        }),
      );
    const runs = [...target('fast', 'h100'), ...target('slow', 'l40s')];
    for (const o of [loadCurveOption(runs), goodputOption(runs)]) {
      assert.ok(o);
      for (const s of series(o))
        assert.deepEqual(
          s.data.map((p: number[]) => p[0]),
          [1, 2, 4],
          s.name,
        );
    }
    const names = series(loadCurveOption(runs)).map((s) => s.name);
    assert.ok(names.includes('fast: output tok/s') && names.includes('slow: output tok/s'), names.join());
  });

  it('TTFT vs input length: one point per successful request', () => {
    const o = ttftVsInputOption([handRun('a', recs(7))]);
    assert.deepEqual(series(o)[0].data[3], [130, 23]);
    const failed = recs(3).map((r) => ({ ...r, outcome: 'timeout' as const }));
    assert.equal(ttftVsInputOption([handRun('z', failed)]), null);
  });

  it('timeline: in-flight counts from the records, server series overlaid when scraped', () => {
    // Three overlapping requests: [0, 110], [50, 160], [100, 210].
    const rs = [0, 50, 100].map((t, i) => handRecord(`t${i}`, t, 20, 10, 10));
    const inflight = inFlightSeries(rs, 5);
    assert.deepEqual(inflight, [
      [0, 1],
      [52.5, 2],
      [105, 3],
      [157.5, 2],
      [210, 0],
    ]);
    const plain = timelineOption(handRun('p', rs));
    assert.equal(series(plain).length, 1);
    const withSeries = timelineOption(
      handRun(
        's',
        rs,
        {},
        {
          series: [
            { t_ms: 0, source: 'x', name: 'running', value: 1 },
            { t_ms: 100, source: 'x', name: 'waiting', value: 2 },
            { t_ms: 100, source: 'x', name: 'kv_usage', value: 0.5 },
          ],
        },
      ),
    );
    assert.deepEqual(
      series(withSeries).map((s) => s.name),
      ['in flight (client)', 'running (server)', 'waiting (server)', 'KV usage %'],
    );
    assert.deepEqual(series(withSeries)[3].data, [[0.1, 50]]);
    assert.equal(timelineOption(handRun('e', [])), null);
  });

  it('chunk gaps: stalls above max(5 × median, 50 ms) drawn apart and counted in the title', () => {
    assert.equal(stallThresholdMs([10, 10, 10, 500]), 50);
    assert.equal(stallThresholdMs([20, 20, 20]), 100);
    assert.equal(stallThresholdMs([]), null);
    const gaps = Array.from({ length: 49 }, (_, j) => (j === 20 ? 400 : 10));
    const o = chunkGapOption(handRun('g', [handRecord('g0', 0, 20, 50, gaps)]));
    // biome-ignore lint/suspicious/noExplicitAny: echarts title
    assert.match((o as any).title.text, /1 stall\(s\) > 50 ms/);
    assert.equal(series(o)[1].data.length, 1);
    assert.equal(series(o)[1].data[0][1], 1);
    assert.equal(chunkGapOption(handRun('one', [handRecord('x', 0, 20, 2, 10)])), null);
  });
});

describe('SVG rendering', () => {
  it('renders an option to a standalone SVG string with the title inside', () => {
    const svg = timelineSvg(handRun('svg-run', recs(10)));
    assert.ok(svg);
    assert.match(svg, /^<svg[^>]*width="600"[^>]*height="340"/);
    assert.match(svg, /Requests in flight — svg-run/);
    assert.match(svg, /<\/svg>$/);
    assert.equal(timelineSvg(handRun('none', [])), null);
    assert.match(renderSvg({ title: { text: 'x' }, series: [] }, 100, 50), /width="100" height="50"/);
  });

  it('reportCharts lists only the charts the data allows; a load curve comes first', () => {
    const ids = reportCharts([handRun('only', recs(10))]).map((c) => c.id);
    assert.deepEqual(ids, ['ttft-cdf', 'e2e-cdf', 'ttft-vs-input', 'timeline-0-only', 'chunk-gaps-0-only']);
    const sweep = [1, 2].map((c) => handRun(`c${c}`, recs(10), {}, { level: { concurrency: c } }));
    const specs = reportCharts(sweep);
    assert.equal(specs[0].id, 'load-curve');
    assert.equal(specs[0].size, 'lead');
    // Per-run charts carry their run, so a report can fold them per level.
    assert.deepEqual(
      specs.filter((c) => c.run === 'c2').map((c) => c.id),
      ['timeline-1-c2', 'chunk-gaps-1-c2'],
    );
  });

  it('a stall bar of one gap draws with a height (a log axis starting at 1 would draw nothing)', () => {
    const gaps = Array.from({ length: 49 }, (_, j) => (j === 20 ? 400 : 10));
    const svg = renderSvg(chunkGapOption(handRun('g', [handRecord('g0', 0, 20, 50, gaps)])) as EChartsOption);
    const red = [...svg.matchAll(/<path d="([^"]+)"[^>]*fill="#c0392b"/g)].map((m) => m[1]);
    assert.ok(red.length >= 1, 'a red stall bar is drawn');
    const heights = red.map((d) => {
      const ys = [...d.matchAll(/[ML][\d.]+ ([\d.]+)/g)].map((m) => Number(m[1]));
      return Math.max(...ys) - Math.min(...ys);
    });
    assert.ok(Math.max(...heights) >= 3, `stall bar height ${heights}`);
  });

  it('axis labels are rounded for reading, never float noise', () => {
    assert.deepEqual([7.630594756000001, 0.30000000000000004, 12, 1234.5, 25_000, -0.5].map(axisNumber), [
      '7.63',
      '0.3',
      '12',
      '1234.5',
      '25k',
      '-0.5',
    ]);
    const o = timelineOption(handRun('n', recs(10))) as EChartsOption;
    const svg = renderSvg({
      ...o,
      xAxis: { ...(o.xAxis as object), max: 7.630594756000001 },
    } as EChartsOption);
    assert.doesNotMatch(svg, /7\.6305/);
    assert.match(svg, />7\.63</);
  });

  it('legends wrap onto rows instead of paging, and the plot starts below them', () => {
    assert.equal(legendRows([]), 0);
    assert.equal(legendRows(['a', 'b']), 1);
    assert.ok(legendRows(Array.from({ length: 12 }, (_, i) => `run number ${i}`)) >= 3);
    const many12 = Array.from({ length: 12 }, (_, i) => handRun(`run number ${i}`, recs(5)));
    // biome-ignore lint/suspicious/noExplicitAny: echarts grid/legend
    const o = cdfOption(many12, 'ttft_ms') as any;
    assert.equal(o.legend.type, 'plain');
    assert.ok(o.grid.top >= 44 + 20 * 3, String(o.grid.top));
  });
});

describe('small multiples', () => {
  it('TTFT with a single input length: a histogram for one run, a strip per run for several', () => {
    const same = (id: string) =>
      handRun(
        id,
        Array.from({ length: 20 }, (_, i) => handRecord(`${id}${i}`, i * 50, 20 + i, 10, 10, 256)),
      );
    // biome-ignore lint/suspicious/noExplicitAny: echarts option
    const one = ttftVsInputOption([same('a')]) as any;
    assert.match(one.title.text, /TTFT distribution \(every prompt 256 tokens\)/);
    assert.equal(one.series[0].type, 'bar');
    assert.equal(
      one.series[0].data.reduce((n: number, p: number[]) => n + p[1], 0),
      20,
      'every request counted once',
    );
    // biome-ignore lint/suspicious/noExplicitAny: echarts option
    const two = ttftVsInputOption([same('a'), same('b')]) as any;
    assert.equal(two.yAxis.type, 'category');
    assert.deepEqual(two.yAxis.data, ['a', 'b']);
    assert.deepEqual(two.series[1].data[0], [20, 'b']);
    // Varied lengths stay a scatter.
    assert.equal(series(ttftVsInputOption([handRun('v', recs(7))]))[0].type, 'scatter');
  });

  it('server series: one small panel per name, counters as rates per second, gauges as values', () => {
    const run = handRun(
      's',
      recs(5),
      {},
      {
        series: [
          { t_ms: 0, source: 'm', name: 'generation_tokens_total', value: 0 },
          { t_ms: 1000, source: 'm', name: 'generation_tokens_total', value: 100 },
          { t_ms: 2000, source: 'm', name: 'generation_tokens_total', value: 300 },
          // A counter reset is not a negative rate.
          { t_ms: 3000, source: 'm', name: 'generation_tokens_total', value: 10 },
          { t_ms: 0, source: 'm', name: 'gpu_memory_used_mib', value: 2048 },
          { t_ms: 1000, source: 'm', name: 'gpu_memory_used_mib', value: 4096 },
          { t_ms: 0, source: 'm', name: 'running', value: 3 },
        ],
      },
    );
    const panels = serverSeriesOptions(run);
    // The GPU's panels come first, under their names; the rest by vocabulary name.
    assert.deepEqual(
      panels.map((p) => p.name),
      ['gpu_memory_used_mib', 'generation_tokens_total'],
      'running is on the timeline',
    );
    assert.deepEqual(series(panels[1].option)[0].data, [
      [1, 100],
      [2, 200],
    ]);
    // Scraped in MiB, drawn in GiB.
    assert.deepEqual(series(panels[0].option)[0].data, [
      [0, 2],
      [1, 4],
    ]);
    // biome-ignore lint/suspicious/noExplicitAny: echarts axis
    assert.match((panels[1].option as any).yAxis.name, /rate \(\/s\)/);
    // biome-ignore lint/suspicious/noExplicitAny: echarts option
    const mem = panels[0].option as any;
    assert.equal(mem.title.text, 'GPU memory (GiB)');
    assert.equal(mem.yAxis.name, 'GiB');
    assert.equal(mem.yAxis.min, 0);
    assert.ok(
      reportCharts([run]).some((c) => c.id === 'server-0-s-generation_tokens_total' && c.size === 'panel'),
    );
  });

  it('GPU utilisation is a named panel on a 0–100 % axis, one line per GPU, in the run language', () => {
    const util = (gpu: string, t_ms: number, value: number) => ({
      t_ms,
      source: 'http://sim/metrics',
      name: 'gpu_util_pct' as const,
      value,
      labels: { gpu },
    });
    const run = handRun(
      'g',
      recs(5),
      {},
      { series: [util('0', 0, 0), util('0', 1000, 80), util('1', 1000, 60)] },
    );
    const opt = gpuPanelOption(run, 'gpu_util_pct');
    assert.ok(opt);
    // biome-ignore lint/suspicious/noExplicitAny: echarts option
    const o = opt as any;
    assert.equal(o.title.text, 'GPU utilisation (%)');
    assert.equal(o.yAxis.name, '%');
    assert.equal(o.yAxis.min, 0);
    assert.equal(o.yAxis.max, 100);
    assert.equal(series(opt).length, 2, 'one line per GPU');
    assert.deepEqual(series(opt)[0].data, [
      [0, 0],
      [1, 80],
    ]);
    const zh = gpuPanelOption(run, 'gpu_util_pct', translator('zh-CN')) as { title: { text: string } };
    assert.equal(zh.title.text, 'GPU 利用率（%）');
    assert.equal(gpuPanelOption(run, 'gpu_memory_used_mib'), null, 'not scraped: no panel');
    assert.ok(reportCharts([run]).some((c) => c.title === 'GPU utilisation (%)' && c.size === 'panel'));
  });

  it('load curve: the SLO drawn as a line on the latency axis, invalid levels greyed', () => {
    const slo = parseSlo('ttft_ms=100');
    const runs = [1, 2, 4].map((c, i) => {
      const r = handRun(`c${c}`, recs(20), { slo }, { level: { concurrency: c } });
      r.summary = {
        ...r.summary,
        output_throughput_tok_s: [100, 200, 300][i],
        ttft_ms: { ...r.summary.ttft_ms, p99: [40, 60, 90][i] },
        client: { event_loop_delay_ms: { p50: 1, p99: c === 2 ? 40 : 1, max: 50 }, cpu_percent: 10 },
      };
      return r;
    });
    const ss = series(loadCurveOption(runs));
    const ttft = ss.find((s) => s.name === 'TTFT p99 (ms)');
    assert.deepEqual(ttft.markLine.data, [{ yAxis: 100 }]);
    assert.equal(ttft.yAxisIndex, 1);
    // The latency axis reaches the SLO, or its line would be drawn off the chart, and every
    // drawn tail (E2E p99 is the highest), or it would be clipped.
    // biome-ignore lint/suspicious/noExplicitAny: echarts axis
    const max = (loadCurveOption(runs) as any).yAxis[1].max;
    const top = Math.max(100, ...runs.map((r) => r.summary.e2e_ms.p99 ?? 0));
    assert.ok(max >= top && max <= 1.5 * top, `latency axis max ${max}, highest drawn ${top}`);
    const grey = ss.find((s) => s.type === 'scatter');
    assert.deepEqual(grey.data, [[2, 200]]);
    assert.equal(grey.itemStyle.color, '#b0b0b0');
  });

  it('load curve: the latency axis reaches every drawn tail, log when they span more than 100x; one level is no curve', () => {
    const runs = [1, 4, 16, 64].map((c, i) => {
      const r = handRun(`c${c}`, recs(20), {}, { level: { concurrency: c } });
      r.summary = {
        ...r.summary,
        ttft_ms: { ...r.summary.ttft_ms, p99: [40, 400, 10_312, 40_000][i] },
        e2e_ms: { ...r.summary.e2e_ms, p99: [90, 900, 20_000, 62_019][i] },
      };
      return r;
    });
    // biome-ignore lint/suspicious/noExplicitAny: echarts axis
    const axis = (loadCurveOption(runs) as any).yAxis[1];
    assert.equal(axis.type, 'log');
    assert.ok(axis.min <= 40 && axis.max >= 62_019, JSON.stringify(axis));
    assert.equal(axis.name, 'latency (ms, log scale)');
    // Every run at one level (repeats): no load curve, no goodput chart.
    const same = [1, 2, 3].map((i) => handRun(`rep${i}`, recs(20), {}, { level: { concurrency: 1 } }));
    assert.equal(loadCurveOption(same), null);
    assert.equal(goodputOption(same), null);
    assert.ok(!reportCharts(same).some((c) => c.id === 'load-curve'), 'no load curve');
  });

  it('axes have human names, ticks stay apart on a narrow axis, a value span over 100x is log', () => {
    const run = handRun('a', recs(20));
    // biome-ignore lint/suspicious/noExplicitAny: echarts axis
    assert.equal((cdfOption([run], 'ttft_ms') as any).xAxis.name, 'TTFT (ms)');
    // biome-ignore lint/suspicious/noExplicitAny: echarts axis
    assert.equal((cdfOption([run], 'e2e_ms') as any).xAxis.name, 'E2E latency (ms)');
    assert.deepEqual([104, 104.05, 104.1, 104.15].map(axisNumber), ['104', '104.05', '104.1', '104.15']);
    assert.deepEqual(spanScale([5, 600]), { type: 'log', logBase: 10 });
    assert.deepEqual(spanScale([5, 400, null, 0]), {});
  });

  it('text is laid out at a browser sans-serif width; a long title and legend wrap and the chart grows', () => {
    // DejaVu Sans, Debian's sans-serif, is wider than echarts' Helvetica estimate; CJK is one em.
    const w = textWidth('in flight (client)', 11);
    assert.ok(w >= 85, `in flight (client) at 11 px: ${w}`);
    assert.equal(textWidth('首字延迟', 12), 48);
    const names = Array.from(
      { length: 8 },
      (_, i) => `llama-3.1-8b-instruct-bf16-kv-cache side=a block=${i}/8`,
    );
    const option = {
      title: { text: `Chunk gaps — ${names[0]} (0 stall(s) > 50 ms)`, textStyle: { fontSize: 13 } },
      legend: {},
      grid: { top: 78, bottom: 52 },
      xAxis: { type: 'value' },
      yAxis: { type: 'value' },
      series: names.map((name, i) => ({
        type: 'line' as const,
        name,
        data: [
          [0, i],
          [1, i + 1],
        ],
      })),
    } as EChartsOption;
    const fit = fitToWidth(option, 600, 340);
    const top = (fit.option.grid as { top: number }).top;
    assert.equal(legendRows(names, 580), 8);
    assert.ok(top >= 2 * 19 + 8 * 24, `the plot starts below two title lines and eight legend rows: ${top}`);
    // The plot keeps the height it asked for (340 - 78 - 52).
    assert.equal(fit.height - top - 52, 340 - 78 - 52);
    const svg = renderSvg(option);
    assert.match(svg, new RegExp(`height="${fit.height}"`));
  });
});
