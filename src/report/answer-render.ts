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
import type { AnswerAxis, AnswerCell, AnswerChart, ExperimentAnswer } from './answer.js';
import { renderSvg, valueAxis, withBase } from './chart-kit.js';
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

/** An axis's name with its unit (`ttft_ms (ms)`), unless the name already carries it. */
const axisName = (a: AnswerAxis) =>
  a.unit && !a.name.includes(`(${a.unit})`) ? `${a.name} (${a.unit})` : a.name;

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

/** The lead chart as an echarts option (the report's common base, value or category x axis). */
export function answerChartOption(c: AnswerChart): EChartsOption {
  const cats = c.x.categories;
  const xAxis = cats
    ? { type: 'category', data: cats, name: axisName(c.x), nameLocation: 'middle', nameGap: 30 }
    : valueAxis(axisName(c.x), { scale: true, ...(c.x.log ? { type: 'log' } : {}) }, true);
  const yAxis = valueAxis(
    axisName(c.y),
    c.type === 'cdf' ? { min: 0, max: 1 } : c.y.log ? { type: 'log' } : {},
  );
  const series = c.series.map((s) => {
    const base = { name: s.name, showSymbol: c.type !== 'line' || s.points.length < 30 };
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

/** The lead chart as SVG, at the report's lead size. */
export function answerChartSvg(c: AnswerChart): string {
  return renderSvg(answerChartOption(c), LEAD_WIDTH, LEAD_HEIGHT);
}

/** The answer as HTML (`<section id="answer">`): first on the report's page and on the dashboard's experiment page. */
export function answerHtml(a: ExperimentAnswer, t: T = EN): string {
  const { columns, rows } = a.table;
  // Text columns (the first, verdicts, finish reasons) align left, numbers right.
  const cls = columns.map((_, i) => (i && numericColumn(rows, i) ? '' : ' class="l"'));
  const table =
    columns.length && rows.length
      ? `<div class="table-scroll"><table class="answer-table"><thead><tr>${columns.map((h, i) => `<th${cls[i]}>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows
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
