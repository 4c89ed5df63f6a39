/**
 * @module report/answer-render
 * An experiment's answer (`report/answer`) on every surface, one structure in one order: the
 * question, the verdict sentence, the key table, notes, the simulator's interval, the lead chart
 * and the runs it rests on. The console gets text (columns aligned by display width, CJK = 2),
 * the HTML report and the dashboard a `<section id="answer">` (the chart as inline SVG through
 * echarts SSR, `report/chart-kit`), the Markdown write-up its lines with the chart as a file.
 * Pure: the caller writes what it returns.
 */
import type { EChartsOption } from 'echarts';
import { displayWidth, padColumns } from '../core/text-width.js';
import { type T, translator } from '../i18n/index.js';
import type { AnswerAxis, AnswerCell, AnswerChart, AnswerSeries, ExperimentAnswer } from './answer.js';
import { niceCeil, renderSvg, spanScale, valueAxis, withBase } from './chart-kit.js';
import { LEAD_HEIGHT, LEAD_WIDTH } from './charts.js';
import { escapeHtml, escapeMd } from './comparison-table.js';

const EN = translator('en');

/** The answer section's rules (the report embeds them with the other fragments; the dashboard serves them). */
export const ANSWER_CSS = `
.answer{border:2px solid #3b82f6;border-radius:8px;padding:10px 14px;margin:0 0 16px;background:#f7faff}
.answer .question{margin:0;font-size:13px;color:#555}
.answer .answer-verdict{margin:6px 0 10px;font-size:17px;font-weight:600}
.answer .answer-notes{font-size:13px;margin:8px 0}
.answer .interval,.answer .answer-runs{font-size:12px;color:#555;margin:6px 0}
/* Headers and text cells wrap, numbers do not: the key table fits 800 px without hiding its last columns (a verdict, a problem). */
.answer-table th,.answer-table td.l{white-space:normal}
/* Chinese headers break between characters; a short one is kept whole (answerHtml), one character per line reads badly. */
.answer-table th{word-break:normal}
.answer-table td.l{min-width:6em}
`;

/** Whether a column holds numbers (or figures written as text: `+1.6%`, `[1, 2]`): right-aligned. */
const numericColumn = (rows: readonly AnswerCell[][], i: number) =>
  rows.every(
    (r) =>
      r[i] === null || r[i] === undefined || typeof r[i] === 'number' || /^[[(]?[-+−]?\d/.test(String(r[i])),
  );

/** A cell as text: no data is `—`, numbers rounded for reading (at most 3 significant decimals below 100). */
export function answerCellText(c: AnswerCell): string {
  if (c === null) return '—';
  if (typeof c === 'string') return c;
  if (!Number.isFinite(c)) return String(c);
  if (Number.isInteger(c) || Math.abs(c) >= 100) return String(Math.round(c));
  return String(Number(c.toPrecision(3)));
}

/** An axis's name with its unit (`TTFT (ms)`), unless the name already carries it (`rate req/s`). */
const axisName = (a: AnswerAxis) => (a.unit && !a.name.includes(a.unit) ? `${a.name} (${a.unit})` : a.name);

/** The interval and the simulator's bands, a sentence each (none without them). */
function intervalTexts(a: ExperimentAnswer, t: T): string[] {
  return [a.interval, ...(a.bands ?? [])]
    .filter((i) => i !== null)
    .map((i) =>
      t('report.answer.interval', {
        what: i.what,
        low: answerCellText(i.low),
        high: answerCellText(i.high),
        note: i.note,
      }),
    );
}

/** The runs line. */
const runsText = (a: ExperimentAnswer, t: T) =>
  t('report.answer.runs', { runs: a.run_ids.join(', ') || t('common.missing') });

/**
 * The answer as console lines: the question, the verdict, the table (numbers right, text left,
 * aligned by display columns), the notes, the interval and the runs.
 */
export function answerTextLines(a: ExperimentAnswer, t: T = EN): string[] {
  const out = [
    t('report.answer.question', { question: a.question }),
    t('report.answer.verdict', { verdict: a.verdict }),
  ];
  const { columns, rows } = a.table;
  if (columns.length && rows.length) {
    const cells = rows.map((r) => columns.map((_, i) => answerCellText(r[i] ?? null)));
    const w = columns.map((h, i) => Math.max(displayWidth(h), ...cells.map((r) => displayWidth(r[i]))));
    // Numbers align right, text (the first column, verdicts) left.
    const right = columns.map((_, i) => i > 0 && numericColumn(rows, i));
    const line = (r: string[]) =>
      `  ${r.map((c, i) => padColumns(c, w[i], right[i] ? 'start' : 'end')).join('  ')}`.trimEnd();
    out.push(line(columns), ...cells.map(line));
  }
  for (const n of a.notes ?? []) out.push(`  ${n}`);
  for (const iv of intervalTexts(a, t)) out.push(`  ${iv}`);
  out.push(`  ${runsText(a, t)}`);
  return out;
}

/**
 * A value axis of the lead chart that holds every series drawn on it and every mark line
 * (a mark line does not stretch its axis): logarithmic when asked, or, on a line chart where
 * `log` is not said, when the values span more than two orders of magnitude.
 */
function answerValueAxis(
  c: AnswerChart,
  a: AnswerAxis,
  series: readonly AnswerSeries[],
  right: boolean,
): Record<string, unknown> {
  if (c.type === 'cdf' && !right) return valueAxis(axisName(a), { min: 0, max: 1 });
  const values = series.flatMap((s) => s.points.map((p) => p[1]));
  const marks = series.flatMap((s) => (s.marks ?? []).filter((m) => m.at === 'y').map((m) => m.value));
  const all = [...values, ...marks];
  const log = a.log ?? (c.type === 'line' && spanScale(all).type === 'log');
  const positive = all.filter((v): v is number => v !== null && v > 0);
  let range: Record<string, unknown> = {};
  if (log && positive.length)
    range = {
      type: 'log',
      logBase: 10,
      min: 10 ** Math.floor(Math.log10(Math.min(...positive))),
      max: 10 ** Math.ceil(Math.log10(Math.max(...positive))),
    };
  else if (log) range = { type: 'log' };
  else if (marks.length && positive.length && Math.max(...marks) >= Math.max(0, ...values.map((v) => v ?? 0)))
    range = { min: 0, max: niceCeil(Math.max(...positive) * 1.05) };
  return valueAxis(axisName(a), {
    ...range,
    ...(a.min !== undefined && !log ? { min: a.min } : {}),
    ...(a.max !== undefined && !log ? { max: a.max } : {}),
    ...(right ? { splitLine: { show: false } } : {}),
  });
}

/** A series' mark lines as an echarts `markLine` (in the series' colour), or undefined for none. */
function markLineOf(s: AnswerSeries): Record<string, unknown> | undefined {
  const marks = s.marks ?? [];
  if (!marks.length) return undefined;
  return {
    symbol: 'none',
    silent: true,
    lineStyle: { type: 'dotted', width: 2 },
    data: marks.map((m) => ({
      ...(m.at === 'x' ? { xAxis: m.value } : { yAxis: m.value }),
      label: {
        formatter: m.label,
        // A vertical line's label above the plot; a horizontal one's at the plot's left end,
        // under the line, away from the right axis' labels.
        position: m.at === 'x' ? 'end' : 'insideStartBottom',
        fontSize: 11,
      },
    })),
  };
}

/**
 * The lead chart as an echarts option (the report's common base): a value or category x axis,
 * the left y axis and, with `y2`, a right one for the series in another unit; each series'
 * marks (a knee, an SLO) as lines in its colour on its axis.
 */
export function answerChartOption(c: AnswerChart): EChartsOption {
  const cats = c.x.categories;
  const xAxis = cats
    ? { type: 'category', data: cats, name: axisName(c.x), nameLocation: 'middle', nameGap: 30 }
    : valueAxis(
        axisName(c.x),
        // A log axis ends at the data, not at the next power of ten (1 to 32, not 1 to 100).
        {
          scale: true,
          ...(c.x.integer ? { minInterval: 1 } : {}),
          ...(c.x.log ? { type: 'log', logBase: 2, min: 'dataMin', max: 'dataMax' } : {}),
        },
        true,
      );
  const left = c.series.filter((s) => s.axis !== 'y2');
  const right = c.series.filter((s) => s.axis === 'y2');
  const yAxis =
    c.y2 && right.length
      ? [answerValueAxis(c, c.y, left, false), answerValueAxis(c, c.y2, right, true)]
      : answerValueAxis(c, c.y, c.series, false);
  const series = c.series.map((s) => {
    const base = {
      name: s.name,
      showSymbol: c.type !== 'line' || s.points.length < 30,
      ...(c.y2 && s.axis === 'y2' ? { yAxisIndex: 1 } : {}),
      ...(s.dashed ? { lineStyle: { type: 'dashed' } } : {}),
      ...(s.marks?.length ? { markLine: markLineOf(s) } : {}),
    };
    if (cats) {
      const data: (number | null)[] = cats.map(() => null);
      for (const [x, y] of s.points) if (x >= 0 && x < data.length) data[x] = y;
      return { ...base, type: c.type === 'bar' ? 'bar' : 'line', data };
    }
    return c.type === 'bar'
      ? { ...base, type: 'bar', data: s.points }
      : {
          ...base,
          type: 'line',
          data: s.points,
          ...(c.type === 'cdf' ? { step: 'end', showSymbol: false } : {}),
        };
  });
  return withBase(c.title, { xAxis, yAxis, series } as EChartsOption);
}

/**
 * The report's charts less those an answer's chart already shows (`AnswerChart.replaces`): a
 * page that leads with the answer draws each chart once.
 */
export function chartsBesideAnswers<C extends { id: string }>(
  charts: readonly C[],
  answers: readonly ExperimentAnswer[] | undefined,
): C[] {
  const shown = new Set((answers ?? []).flatMap((a) => a.chart?.replaces ?? []));
  return charts.filter((c) => !shown.has(c.id));
}

/** The lead chart as SVG, at the report's lead size. */
export function answerChartSvg(c: AnswerChart): string {
  return renderSvg(answerChartOption(c), LEAD_WIDTH, LEAD_HEIGHT);
}

/** The answer as HTML (`<section id="answer">`): first on the report's page and on the dashboard's experiment page. */
export function answerHtml(a: ExperimentAnswer, t: T = EN): string {
  const { columns, rows } = a.table;
  // Text columns (the first, verdicts, finish reasons) align left, numbers right.
  const cls = columns.map((_, i) => (i && numericColumn(rows, i) ? '' : ' class="l"'));
  // A short header (two or three CJK characters, 输出) stays on one line; longer ones wrap.
  const th = (h: string, i: number) =>
    `<th${cls[i]}${displayWidth(h) <= 6 ? ' style="word-break:keep-all"' : ''}>${escapeHtml(h)}</th>`;
  const table =
    columns.length && rows.length
      ? `<div class="table-scroll"><table class="answer-table"><thead><tr>${columns.map(th).join('')}</tr></thead><tbody>${rows
          .map(
            (r) =>
              `<tr>${columns.map((_, i) => `<td${cls[i]}>${escapeHtml(answerCellText(r[i] ?? null))}</td>`).join('')}</tr>`,
          )
          .join('')}</tbody></table></div>`
      : '';
  const notes = (a.notes ?? []).length
    ? `<ul class="answer-notes">${(a.notes ?? []).map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>`
    : '';
  const iv = intervalTexts(a, t);
  const chart = a.chart
    ? `<div class="charts lead"><figure data-chart="answer" aria-label="${escapeHtml(a.chart.title)}">${answerChartSvg(a.chart)}</figure></div>`
    : '';
  return `<section class="answer" id="answer" data-kind="${escapeHtml(a.kind)}">
<p class="question">${escapeHtml(a.question)}</p>
<p class="answer-verdict" id="answer-verdict">${escapeHtml(a.verdict)}</p>
${table}
${notes}
${iv.map((x) => `<p class="interval">${escapeHtml(x)}</p>`).join('\n')}
${chart}
<p class="answer-runs">${escapeHtml(runsText(a, t))}</p>
</section>`;
}

/** Escape a Markdown table cell's pipes (and keep it on one line). */

/**
 * The answer as Markdown lines: the verdict in bold under the question, the table, the notes,
 * the interval, the chart (linked from `chartPath`, a file the caller writes with
 * {@link answerChartSvg}; none when null) and the runs.
 */
export function answerMarkdown(a: ExperimentAnswer, t: T = EN, chartPath: string | null = null): string[] {
  const L = [`## ${t('report.h.answer')}`, '', `_${a.question}_`, '', `**${a.verdict}**`, ''];
  const { columns, rows } = a.table;
  if (columns.length && rows.length) {
    L.push(
      `| ${columns.map(escapeMd).join(' | ')} |`,
      `|${columns.map((_, i) => (i && numericColumn(rows, i) ? ' ---: |' : ' --- |')).join('')}`,
    );
    for (const r of rows)
      L.push(`| ${columns.map((_, i) => escapeMd(answerCellText(r[i] ?? null))).join(' | ')} |`);
    L.push('');
  }
  for (const n of a.notes ?? []) L.push(`- ${n}`);
  if ((a.notes ?? []).length) L.push('');
  for (const iv of intervalTexts(a, t)) L.push(iv, '');
  if (a.chart && chartPath) L.push(`![${a.chart.title}](${chartPath})`, '');
  L.push(runsText(a, t), '');
  return L;
}
