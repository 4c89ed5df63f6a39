/**
 * An experiment's answer on each surface (report/answer-render): the console table aligned by
 * display columns (CJK = 2), numbers right and text left, no data as `—`; the HTML section with
 * its chart as inline SVG; the Markdown lines; the chart option for value and category axes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { displayWidth } from '../../src/core/text-width.js';
import { translator } from '../../src/i18n/index.js';
import type { ExperimentAnswer } from '../../src/report/answer.js';
import {
  answerCellText,
  answerChartOption,
  answerHtml,
  answerMarkdown,
  answerTextLines,
  chartsBesideAnswers,
} from '../../src/report/answer-render.js';

const answer = (over: Partial<ExperimentAnswer> = {}): ExperimentAnswer => ({
  kind: 'baseline',
  question: 'How fast is the first request?',
  verdict: 'h100: cold TTFT 106 ms against 96.1 ms warm <1.1×>.',
  table: {
    columns: ['目标', 'cold TTFT ms', 'finish'],
    rows: [
      ['h100', 106.4, 'length:4 stop:1'],
      ['甲一百', null, 'stop:5'],
    ],
  },
  notes: ['a note'],
  chart: {
    type: 'bar',
    title: 'TTFT: cold against warm',
    x: { name: 'target', unit: null, categories: ['h100', 'a100'] },
    y: { name: 'TTFT', unit: 'ms' },
    series: [
      {
        name: 'cold',
        points: [
          [0, 106],
          [1, 126],
        ],
      },
      {
        name: 'warm',
        points: [
          [0, 96],
          [1, null],
        ],
      },
    ],
  },
  run_ids: ['run1', 'run2'],
  interval: null,
  ...over,
});

describe('the answer on the console', () => {
  it('leads with the question and the verdict, then a table aligned by display columns', () => {
    const lines = answerTextLines(answer(), translator('en'));
    assert.equal(lines[0], 'Question: How fast is the first request?');
    assert.equal(lines[1], `Answer: ${answer().verdict}`);
    const table = lines.slice(2, 5);
    // Every row ends its number column at the same display column (the CJK header is 4 wide).
    const end = (l: string, cell: string) => displayWidth(l.slice(0, l.indexOf(cell) + cell.length));
    assert.equal(end(table[1], '106'), end(table[0], 'cold TTFT ms'));
    assert.equal(end(table[2], '—'), end(table[0], 'cold TTFT ms'));
    // Text columns start at the same display column.
    const start = (l: string, cell: string) => displayWidth(l.slice(0, l.indexOf(cell)));
    assert.equal(start(table[1], 'length:4'), start(table[0], 'finish'));
    assert.equal(start(table[2], 'stop:5'), start(table[0], 'finish'));
    assert.ok(lines.includes('  a note'));
    assert.equal(lines.at(-1), '  rests on runs: run1, run2');
  });

  it('shows no data as —, never 0, and rounds numbers for reading', () => {
    assert.equal(answerCellText(null), '—');
    assert.equal(answerCellText(0), '0');
    assert.equal(answerCellText(7.630594756000001), '7.63');
    assert.equal(answerCellText(1234.56), '1235');
  });

  it('says the interval of a number that comes from the simulator', () => {
    const lines = answerTextLines(
      answer({ interval: { what: 'max_rps', low: 4.2, high: 5.1, note: 'the simulator fit' } }),
      translator('zh-CN'),
    );
    assert.ok(
      lines.some((l) => l.includes('max_rps：介于 4.2 与 5.1 之间（the simulator fit）')),
      lines.join('\n'),
    );
    assert.match(lines[0], /^问题：/);
  });
});

describe('the answer in HTML and Markdown', () => {
  it('is one section: escaped verdict, the table, the chart as inline SVG, the runs', () => {
    const html = answerHtml(answer());
    assert.match(html, /^<section class="answer" id="answer" data-kind="baseline">/);
    assert.ok(html.includes('&lt;1.1×&gt;'), 'the verdict is escaped');
    assert.ok(html.indexOf('answer-verdict') < html.indexOf('<table class="answer-table">'));
    assert.match(html, /<figure data-chart="answer" aria-label="TTFT: cold against warm"><svg/);
    assert.doesNotMatch(html, /<figcaption/, "one title per chart: the chart's own");
    assert.match(html, /<td>106<\/td><td class="l">length:4 stop:1<\/td>/);
    assert.doesNotMatch(answerHtml(answer({ chart: null })), /<figure/);
  });

  it('is Markdown lines: the verdict in bold, a table with numbers right-aligned, the chart file', () => {
    const md = answerMarkdown(answer(), translator('en'), 'w.charts/answer-1.svg').join('\n');
    assert.ok(md.includes(`**${answer().verdict}**`));
    assert.ok(md.includes('| --- | ---: | --- |'), md);
    assert.ok(md.includes('![TTFT: cold against warm](w.charts/answer-1.svg)'));
    assert.ok(!answerMarkdown(answer()).join('\n').includes('!['), 'no chart link without a file');
  });
});

describe('the lead chart', () => {
  it('draws a category axis from its labels, a missing value as a gap', () => {
    const o = answerChartOption(answer().chart as NonNullable<ExperimentAnswer['chart']>) as Record<
      string,
      // biome-ignore lint/suspicious/noExplicitAny: the option is checked field by field
      any
    >;
    assert.deepEqual(o.xAxis.data, ['h100', 'a100']);
    assert.deepEqual(
      o.series.map((s: { type: string; data: unknown }) => [s.type, s.data]),
      [
        ['bar', [106, 126]],
        ['bar', [96, null]],
      ],
    );
    assert.equal(o.yAxis.name, 'TTFT (ms)');
  });

  it('draws a CDF as steps on a 0..1 axis', () => {
    const o = answerChartOption({
      type: 'cdf',
      title: 'ttft_ms: A against B',
      x: { name: 'ttft_ms', unit: 'ms' },
      y: { name: 'fraction ≤ x', unit: null },
      series: [
        {
          name: 'A',
          points: [
            [10, 0.5],
            [20, 1],
          ],
        },
        {
          name: 'B',
          points: [
            [8, 0.5],
            [18, 1],
          ],
        },
      ],
      // biome-ignore lint/suspicious/noExplicitAny: the option is checked field by field
    }) as Record<string, any>;
    assert.equal(o.series.length, 2, 'two lines: A and B');
    assert.equal(o.series[0].step, 'end');
    assert.equal(o.yAxis.max, 1);
  });
});

describe('two axes, mark lines and charts drawn once', () => {
  it('puts a series in another unit on the right axis, each mark on its own series and axis, the axis reaching the mark', () => {
    const o = answerChartOption({
      type: 'line',
      title: 'Throughput and p99 latency against load',
      x: { name: 'concurrency', unit: null, log: true },
      y: { name: 'output throughput', unit: 'tok/s', log: false },
      y2: { name: 'p99 latency', unit: 'ms' },
      series: [
        {
          name: 'throughput tok/s',
          points: [
            [1, 600],
            [8, 4000],
          ],
          marks: [{ at: 'x', value: 8, label: 'knee' }],
        },
        {
          name: 'p99 TTFT ms',
          points: [
            [1, 70],
            [8, 400],
          ],
          axis: 'y2',
          marks: [{ at: 'y', value: 1000, label: 'SLO TTFT ≤ 1000 ms' }],
        },
      ],
      // biome-ignore lint/suspicious/noExplicitAny: the option is checked field by field
    }) as Record<string, any>;
    assert.equal(o.yAxis.length, 2);
    assert.equal(o.yAxis[0].name, 'output throughput (tok/s)');
    assert.equal(o.yAxis[1].name, 'p99 latency (ms)');
    // A mark line does not stretch its axis: the latency axis is set to reach the SLO.
    assert.ok(o.yAxis[1].max >= 1000, String(o.yAxis[1].max));
    assert.equal(o.series[1].yAxisIndex, 1);
    assert.equal(o.series[0].yAxisIndex, undefined);
    assert.deepEqual(
      o.series[0].markLine.data.map((d: Record<string, unknown>) => d.xAxis),
      [8],
    );
    assert.equal(o.series[1].markLine.data[0].yAxis, 1000);
    assert.equal(o.series[1].markLine.data[0].label.formatter, 'SLO TTFT ≤ 1000 ms');
  });

  it('leaves out the report charts an answer draws already', () => {
    const charts = [{ id: 'load-curve' }, { id: 'goodput' }, { id: 'ttft-cdf' }];
    const a = answer();
    const chart = { ...(a.chart as NonNullable<ExperimentAnswer['chart']>), replaces: ['load-curve'] };
    assert.deepEqual(
      chartsBesideAnswers(charts, [{ ...a, chart }]).map((c) => c.id),
      ['goodput', 'ttft-cdf'],
    );
    assert.deepEqual(
      chartsBesideAnswers(charts, undefined).map((c) => c.id),
      ['load-curve', 'goodput', 'ttft-cdf'],
    );
  });
});
