/**
 * @module report/html
 * The self-contained HTML report. It leads with the headline (the verdict and why, the key
 * numbers against the SLOs, the one-line diagnosis) and, for a sweep or matrix, the load curve
 * with its knee; then the comparison table (it scrolls sideways, first column sticky), the
 * cross-run charts in a responsive grid of small multiples, each level's own charts (timeline,
 * chunk gaps, server panels) folded per level, the diagnosis and the full record of each run
 * with missing fields shown as missing. No scripts, no external URLs: it opens offline from a
 * file. Every sentence goes through the message catalogue (`report.*`), so it reads in English
 * or Chinese; metric names stay as they are.
 */

import type { Diagnosis, Finding } from '../analysis/diagnose/types.js';
import { formatErrorGroup } from '../analysis/errors.js';
import { findKnee, loadCurves, runCell, sloOf } from '../analysis/load-curve.js';
import type { LoadedRun, ReportRecordField } from '../analysis/loaded-run.js';
import { redactSecrets } from '../core/redact.js';
import { type T, translator } from '../i18n/index.js';
import type { ExperimentAnswer } from './answer.js';
import { ANSWER_CSS, answerHtml, chartsBesideAnswers } from './answer-render.js';
import { type ChartSpec, renderChartSvg, reportCharts } from './charts.js';
import {
  type ComparisonRow,
  comparisonTable,
  escapeHtml,
  renderTableHtml,
  type TableOptions,
  verdictCell,
  verdictText,
} from './comparison-table.js';
import { abMetrics, baselineMetrics, type HeadlineMetric, headlineMetric } from './headline-metrics.js';
import { abSides } from './run-groups.js';
import { stallCauseText } from './step-timeline-chart.js';

const EN = translator('en');

/**
 * The rules of the report's fragments (headline, table, chart grid, folded levels, findings):
 * the report embeds them, and the dashboard serves them (`/report.css`) for the same fragments.
 */
export const FRAGMENT_CSS = `
.headline{border:1px solid #d8d8d8;border-radius:8px;padding:12px 14px;background:#fcfcfc}
.verdict{padding:8px 12px;border-radius:6px;font-weight:600}
.valid{background:#e6f4ea;border:1px solid #8bc79b}.invalid{background:#fdecea;border:1px solid #e6a19a}
.reasons{margin:6px 0 0;font-size:13px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px;margin:10px 0}
.card{border:1px solid #e2e2e2;border-radius:6px;padding:6px 10px;background:#fff}
.card .k{font-size:12px;color:#555}.card .v{font-size:20px;font-weight:600;font-variant-numeric:tabular-nums}
.card .s{font-size:11px;color:#666}.card.over{border-color:#e6a19a;background:#fff5f4}.card.over .v{color:#b3261e}
.card.met{border-color:#8bc79b}
.card .v[data-side]{font-size:16px;white-space:nowrap}.card .v .side{font-size:12px;font-weight:600;color:#555;margin-right:4px}
.oneline{margin:6px 0 0;font-size:14px}.focus{font-size:12px;color:#555;margin:4px 0}
.table-scroll{overflow-x:auto;max-width:100%;border:1px solid #e5e5e5}
table{border-collapse:separate;border-spacing:0;font-size:12px;margin:0}
th,td{border-right:1px solid #ddd;border-bottom:1px solid #ddd;padding:3px 6px;text-align:right;white-space:nowrap;background:#fff}
th{background:#f3f3f3;position:sticky;top:0}th.l,td.l{text-align:left}
table.comparison tr>*:first-child{position:sticky;left:0;z-index:1;text-align:left;border-right:2px solid #ccc;white-space:normal;min-width:12em;max-width:18em;overflow-wrap:anywhere}
table.comparison th:first-child{z-index:2}
tr.invalid td{color:#777;background:#f4f4f4}
td.unreliable{color:#a15c00;background:#fff6e5}
.note{font-size:12px;color:#a15c00}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,560px),1fr));gap:12px}
.charts.panels{grid-template-columns:repeat(auto-fill,minmax(min(100%,300px),1fr))}
.charts.lead{grid-template-columns:minmax(0,960px)}
figure{margin:0;border:1px solid #eee;min-width:0}
figure svg{display:block;width:100%;height:auto}
details.level{border:1px solid #e5e5e5;border-radius:6px;margin:8px 0;padding:4px 10px}
details.level>summary{cursor:pointer;font-weight:600}
.finding{border-left:4px solid #e0a800;padding:4px 12px;margin:12px 0;background:#fffdf3;overflow-wrap:anywhere}
.finding.critical{border-color:#c0392b}.finding.info{border-color:#3b82f6}
code{background:#f3f3f3;padding:1px 4px;border-radius:3px;overflow-wrap:anywhere}
.missing{color:#c0392b;font-style:italic}
pre{background:#f7f7f7;padding:8px;font-size:12px;overflow:auto;max-width:100%}
table.record td:last-child{white-space:normal;text-align:left;overflow-wrap:anywhere}
.src-probed{color:#1b7f3b}.src-declared{color:#555}.src-missing{color:#c0392b}
${ANSWER_CSS}`;

/** The whole page's rules: the body, headings and {@link FRAGMENT_CSS}. */
export const PAGE_CSS = `
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI","PingFang SC","Noto Sans CJK SC",sans-serif;margin:0 auto;padding:16px clamp(10px,2vw,28px);color:#222;max-width:1600px}
h1{font-size:22px;margin:6px 0 12px;overflow-wrap:anywhere}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px}
${FRAGMENT_CSS}`;

/**
 * The validity reasons grouped by code, in first-seen order: one entry per code with the runs
 * it holds for and the first run's message (a sweep's levels often share a reason).
 */
export function groupedReasons(
  d: Diagnosis,
  runs: readonly LoadedRun[] = [],
): { code: string; runs: string[]; message: string }[] {
  const label = new Map(runs.map((r) => [r.id, r.label]));
  const by = new Map<string, { code: string; runs: string[]; message: string }>();
  for (const r of d.reasons) {
    const g = by.get(r.code);
    const name = label.get(r.run) ?? r.run;
    if (g) {
      if (!g.runs.includes(name)) g.runs.push(name);
    } else by.set(r.code, { code: r.code, runs: [name], message: r.message });
  }
  return [...by.values()];
}

/** The verdict banner's HTML. */
export function verdictHtml(d: Diagnosis, t: T = EN, runs: readonly LoadedRun[] = []): string {
  const partly = (d.skipped ?? []).length ? ` ${t('report.verdict.partly')}` : '';
  const head = `<div class="verdict ${d.valid ? 'valid' : 'invalid'}" id="verdict">${escapeHtml(t(d.valid ? 'report.verdict.valid' : 'report.verdict.invalid'))}${escapeHtml(partly)}</div>`;
  if (d.reasons.length === 0) return head;
  const items = groupedReasons(d, runs).map(
    (g) =>
      `<li><code>${escapeHtml(g.code)}</code> [${escapeHtml(g.runs.join(', '))}] ${escapeHtml(g.runs.length > 1 ? t('report.verdict.firstOf', { message: g.message }) : g.message)}</li>`,
  );
  return `${head}\n<ul class="reasons">${items.join('')}</ul>`;
}

/** The findings and unexplained observations as HTML. */
export function diagnosisHtml(d: Diagnosis, t: T = EN): string {
  const f = d.findings.map(
    (x) => `<div class="finding ${x.severity}" data-rule="${escapeHtml(x.rule)}">
<p><strong>${escapeHtml(x.symptom)}</strong> <small>(${escapeHtml(x.rule)}; ${escapeHtml(x.runs.join(', '))})</small></p>
<ul>${x.evidence.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>
${x.request_ids.length ? `<p>${escapeHtml(t('report.diag.requests'))}: ${x.request_ids.map((id) => `<code>${escapeHtml(id)}</code>`).join(' ')}</p>` : ''}
<p>${escapeHtml(t('report.diag.mechanism'))}: ${escapeHtml(x.mechanism)}</p>
<p>${escapeHtml(t('report.diag.next'))}: <code>${escapeHtml(x.next.command)}</code> — ${escapeHtml(x.next.change)}</p>
</div>`,
  );
  const u = d.unexplained.map(
    (x) =>
      `<li>[${escapeHtml(x.run)}] ${escapeHtml(x.observation)}${x.request_ids.length ? ` (${x.request_ids.map(escapeHtml).join(', ')})` : ''}</li>`,
  );
  const s = (d.skipped ?? []).map(
    (x) =>
      `<li>[${escapeHtml(x.run)}] ${x.checks.map((c) => `<code>${escapeHtml(c)}</code>`).join(' ')}: ${escapeHtml(x.reason)}</li>`,
  );
  return [
    f.length ? f.join('\n') : `<p>${escapeHtml(t('report.diag.noRule'))}</p>`,
    u.length ? `<h3>${escapeHtml(t('report.diag.unexplained'))}</h3><ul>${u.join('')}</ul>` : '',
    s.length
      ? `<h3>${escapeHtml(t('report.diag.notChecked'))}</h3><ul class="skipped">${s.join('')}</ul>`
      : '',
  ].join('\n');
}

/** What the headline shows: the verdict, the run it speaks for, its key numbers, the diagnosis in one line. */
export interface Headline {
  valid: boolean;
  /** Some checks could not run (the diagnosis's `skipped`). */
  partly: boolean;
  /** The run whose numbers the cards show, and why that one. */
  focus: {
    run: LoadedRun;
    row: ComparisonRow;
    why: 'only' | 'knee' | 'best' | 'last' | 'sides' | 'answer' | 'baseline';
  };
  /** An A/B's two sides (targets and blocks) when the cards set A against B; null otherwise. */
  sides: { a: string; b: string; blocks: number } | null;
  /** The knee of the first load curve, as a level, when the runs form one and it bent. */
  knee: { axis: 'concurrency' | 'rate_rps'; level: number } | null;
  /** Whether the runs form a load curve (a sweep; a matrix's cells are a grid of short curves, no one knee). */
  curve: boolean;
  /** Levels that are valid, of all (for a sweep). */
  validLevels: number;
  metrics: HeadlineMetric[];
  /** The most severe finding, and how many more there are. */
  finding: Finding | null;
  more: number;
}

const SEVERITY_RANK = { critical: 0, warn: 1, info: 2 } as const;

/**
 * The headline of a report over `runs`: the run it speaks for is the only one, else the run the
 * experiment's answer names, else the knee level of the load curve (not a matrix's: a grid has no
 * one knee), else the valid run with the highest output tok/s, else the last.
 */
export function headlineOf(runs: readonly LoadedRun[], d: Diagnosis, opts: HeadlineOptions = {}): Headline {
  const rows = comparisonTable(runs, opts);
  const invalid = new Set(d.reasons.map((r) => r.run));
  let focus = runs.length - 1;
  let why: Headline['focus']['why'] = runs.length === 1 ? 'only' : 'last';
  let knee: Headline['knee'] = null;
  // A matrix's runs are a grid (cell × level): each cell's curve has a knee of its own or none,
  // and the grid as a whole has none to name; its answer names the cell the numbers are of.
  const grid = runs.some((r) => runCell(r) !== null);
  const lc = runs.length > 1 && !grid ? loadCurves(runs) : null;
  // A curve needs two levels: runs at one level (a baseline's targets) have no knee to reach.
  const curve = lc?.curves.find((c) => new Set(c.points.map((p) => p.x)).size > 1);
  if (lc && curve) {
    const k = findKnee(
      curve.points.map((p) => p.x),
      curve.points.map((p) => (p.valid ? p.output_tok_s : null)),
    );
    if (k !== null) {
      knee = { axis: lc.axis, level: curve.points[k].x };
      const i = runs.findIndex((r) => r.label === curve.points[k].run && r.level?.[lc.axis] === knee?.level);
      if (i >= 0) [focus, why] = [i, 'knee'];
    }
  }
  // The run an experiment's answer speaks of (e.g. the largest team meeting the SLO) leads.
  const answered = (opts.answers ?? []).map((a) => a.focus_run_id).find((id) => id != null);
  const ai = answered ? runs.findIndex((r) => r.id === answered) : -1;
  if (ai >= 0) [focus, why] = [ai, 'answer'];
  if (why === 'last') {
    let best = -1;
    runs.forEach((r, i) => {
      const v = r.summary.output_throughput_tok_s;
      if (
        !invalid.has(r.id) &&
        v !== null &&
        (best < 0 || v > (runs[best].summary.output_throughput_tok_s ?? 0))
      )
        best = i;
    });
    if (best >= 0) [focus, why] = [best, 'best'];
  }
  // A baseline has one level: its cards are the warm requests at that concurrency, the cold
  // first request apart; there is no "level" to have picked.
  if (runs[focus].kind === 'baseline' && (why === 'best' || why === 'last')) why = 'baseline';
  const run = runs[focus];
  const s = run.summary;
  const slo = sloOf([run]) ?? {};
  const m = headlineMetric;
  const sides = abSides(runs);
  const metrics = sides
    ? abMetrics(sides, slo)
    : run.kind === 'baseline'
      ? baselineMetrics(run, slo)
      : [
          m('ttft_ms p50', s.ttft_ms.p50, 'ms', 0, slo.ttft_ms),
          m('ttft_ms p99', s.ttft_ms.p99, 'ms', 0, slo.ttft_ms),
          m('tpot_ms p50', s.tpot_ms.p50, 'ms', 2, slo.tpot_ms),
          m('tpot_ms p99', s.tpot_ms.p99, 'ms', 2, slo.tpot_ms),
          m('goodput', s.goodput.rps, 'req/s', 2),
          m('error_rate', s.error_rate === null ? null : s.error_rate * 100, '%', 1),
          m('output tok/s', s.output_throughput_tok_s, 'tok/s', 0),
        ];
  const findings = [...d.findings].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]);
  return {
    valid: d.valid,
    partly: (d.skipped ?? []).length > 0,
    focus: { run, row: rows[focus], why: sides ? 'sides' : why },
    sides: sides
      ? {
          a: sides[0].target,
          b: sides[1].target,
          blocks: Math.max(sides[0].runs.length, sides[1].runs.length),
        }
      : null,
    knee,
    curve: curve !== undefined,
    validLevels: runs.filter((r) => !invalid.has(r.id)).length,
    metrics,
    finding: findings[0] ?? null,
    more: Math.max(0, findings.length - 1),
  };
}

/** A headline number as text: rounded, with its unit; `—` for no data. */
export function headlineValue(x: HeadlineMetric): string {
  const v = (n: number | null) => (n === null ? '—' : `${n.toFixed(x.digits)} ${x.unit}`);
  return x.b ? `A ${v(x.value)} · B ${v(x.b.value)}` : v(x.value);
}

/** Whether a headline number meets its objective: an A/B card misses when either side does, meets when both do. */
export function headlineMet(x: HeadlineMetric): boolean | null {
  const mets = x.b ? [x.met, x.b.met] : [x.met];
  return mets.includes(false) ? false : mets.every((v) => v === true) ? true : null;
}

/** Which requests a headline number covers (a baseline's cold request or warm ones), in words; '' for all. */
export function headlineScopeText(x: HeadlineMetric, t: T): string {
  return x.scope ? t(x.scope === 'cold' ? 'report.headline.scopeCold' : 'report.headline.scopeWarm') : '';
}

/** What the headline is chosen with: the table's options, and the experiments' answers (their `focus_run_id`). */
export interface HeadlineOptions extends TableOptions {
  answers?: readonly ExperimentAnswer[];
}

/** Why the headline speaks for this run, in a sentence. */
export function headlineFocusText(h: Headline, t: T, runs: readonly LoadedRun[]): string {
  const label = h.focus.run.label;
  if (h.focus.why === 'only') return '';
  if (h.sides) return t('report.headline.focusSides', h.sides);
  const base =
    h.focus.why === 'answer'
      ? t('report.headline.focusAnswer', { run: label })
      : h.focus.why === 'knee'
        ? t('report.headline.focusKnee', { run: label, level: h.knee?.level ?? '' })
        : h.focus.why === 'baseline'
          ? t('report.headline.focusBaseline', {
              run: label,
              c: h.focus.run.level?.concurrency ?? 1,
            })
          : h.focus.why === 'best'
            ? t('report.headline.focusBest', { run: label })
            : t('report.headline.focusLast', { run: label });
  const join = (a: string, b: string) => t('report.headline.join', { a, b });
  const levels = join(base, t('report.headline.levels', { valid: h.validLevels, all: runs.length }));
  return h.curve && h.knee === null ? join(levels, t('report.headline.noKnee')) : levels;
}

/** The one-line diagnosis. */
export function headlineDiagnosisText(h: Headline, t: T): string {
  if (!h.finding) return t('report.headline.noFinding');
  const f = h.finding;
  const more = h.more ? t('report.headline.more', { n: h.more }) : '';
  return `${t('report.headline.diagnosis', { symptom: f.symptom, rule: f.rule })}${more}`;
}

/** The headline as HTML (`<section id="headline">`), for the report and the dashboard's run and experiment pages. */
export function headlineHtml(
  runs: readonly LoadedRun[],
  d: Diagnosis,
  t: T = EN,
  opts: HeadlineOptions = {},
): string {
  if (runs.length === 0) return '';
  const h = headlineOf(runs, d, opts);
  const cards = h.metrics.map((x) => {
    const met = headlineMet(x);
    const cls = met === null ? '' : met ? ' met' : ' over';
    const slo =
      x.slo === null
        ? ''
        : `<div class="s">${escapeHtml(t(met === false ? 'report.headline.sloOver' : 'report.headline.sloMet', { slo: `${x.slo} ${x.unit}` }))}</div>`;
    const scope = x.scope ? `<div class="s scope">${escapeHtml(headlineScopeText(x, t))}</div>` : '';
    const one = (v: number | null) => headlineValue({ ...x, value: v, b: undefined });
    const values = x.b
      ? `<div class="v" data-side="a"><span class="side">A</span> ${escapeHtml(one(x.value))}</div><div class="v" data-side="b"><span class="side">B</span> ${escapeHtml(one(x.b.value))}</div>`
      : `<div class="v">${escapeHtml(headlineValue(x))}</div>`;
    return `<div class="card${cls}" data-metric="${escapeHtml(x.name)}"${x.scope ? ` data-scope="${x.scope}"` : ''}><div class="k">${escapeHtml(x.name)}</div>${scope}${values}${slo}</div>`;
  });
  const focus = headlineFocusText(h, t, runs);
  return `<section class="headline" id="headline">
${verdictHtml(d, t, runs)}
${focus ? `<p class="focus">${escapeHtml(focus)}</p>` : ''}
<div class="cards">${cards.join('')}</div>
<p class="oneline" id="oneline">${escapeHtml(headlineDiagnosisText(h, t))}</p>
</section>`;
}

/**
 * The statistics of a run read from another tool's file, as the file gives them: one row per
 * metric, one column per statistic (`mean`, `median`, `std`, each `pNN`), ms.
 */
export function sourceStatsRows(run: LoadedRun): { header: string[]; rows: string[][] } | null {
  const stats = run.source?.stats ?? {};
  const metrics = Object.keys(stats);
  if (!metrics.length) return null;
  const rank = (k: string) =>
    k === 'mean' ? -3 : k === 'median' ? -2 : k === 'std' ? -1 : Number(k.slice(1)) || 0;
  const keys = [...new Set(metrics.flatMap((m) => Object.keys(stats[m])))].sort((a, b) => rank(a) - rank(b));
  return {
    header: ['metric (ms)', ...keys],
    rows: metrics.map((m) => [
      m,
      ...keys.map((k) => (stats[m][k] == null ? '—' : (stats[m][k] as number).toFixed(2))),
    ]),
  };
}

/** A run read from another tool's result file: whose definitions, what it lacks, its statistics. */
export function runSourceHtml(run: LoadedRun, t: T = EN): string {
  const src = run.source;
  if (!src) return '';
  const st = sourceStatsRows(run);
  const table = st
    ? `<div class="table-scroll"><table class="source-stats"><thead><tr>${st.header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${st.rows
        .map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`)
        .join('')}</tbody></table></div>`
    : '';
  return `<p><strong>${escapeHtml(t('report.source.definitions'))}</strong>: ${escapeHtml(t('report.source.readFrom'))} (<code>vllm bench serve --save-result</code>)</p>
<ul class="definitions">${src.definitions.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>
${table}
${src.notes.length ? `<p>${escapeHtml(t('report.source.notes'))}</p><ul class="source-notes">${src.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : ''}`;
}

const missingHtml = (t: T) => `<span class="missing">${escapeHtml(t('common.missing'))}</span>`;

const show = (v: unknown, t: T): string =>
  v === null || v === undefined
    ? missingHtml(t)
    : escapeHtml(typeof v === 'object' ? JSON.stringify(redactSecrets(v)) : String(v));

/**
 * The record's fields, in order. The stored experiment record carries bookkeeping beside them
 * (`schema_version`, `target`); only entries shaped as a field (an object with a `source`) are
 * fields.
 */
export function recordFields(run: LoadedRun): [string, ReportRecordField][] {
  return Object.entries(run.record ?? {}).filter(
    (e): e is [string, ReportRecordField] =>
      typeof e[1] === 'object' && e[1] !== null && typeof (e[1] as { source?: unknown }).source === 'string',
  );
}

/** One run's full record (every field, missing parts marked), config and environment. */
export function runRecordHtml(run: LoadedRun, t: T = EN): string {
  const rows = run.record
    ? recordFields(run).map(([name, f]) => {
        const missing = new Set(f.missing ?? []);
        const parts = Object.entries(f.value ?? {}).map(
          ([k, v]) =>
            `${escapeHtml(k)}: ${missing.has(k) || v === null || v === undefined ? missingHtml(t) : show(v, t)}`,
        );
        return `<tr><td>${escapeHtml(name)}</td><td class="src-${escapeHtml(f.source)}">${escapeHtml(f.source)}</td><td>${parts.join('<br>') || missingHtml(t)}</td></tr>`;
      })
    : [];
  const table = rows.length
    ? `<div class="table-scroll"><table class="record"><thead><tr><th class="l">${escapeHtml(t('report.record.field'))}</th><th class="l">${escapeHtml(t('report.record.source'))}</th><th class="l">${escapeHtml(t('report.record.value'))}</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`
    : `<p class="missing">${escapeHtml(t('report.record.none'))}</p>`;
  const errors = run.summary.errors ?? [];
  return `<details class="level"><summary>${escapeHtml(run.label)} (${escapeHtml(run.id)})</summary>
${runSourceHtml(run, t)}
${table}
<p>${escapeHtml(t('report.record.configuration'))}</p><pre>${escapeHtml(JSON.stringify(redactSecrets(run.config), null, 2))}</pre>
<p>${escapeHtml(t('report.record.environment'))}</p><pre>${escapeHtml(JSON.stringify(redactSecrets(run.environment), null, 2))}</pre>
${errors.length ? `<p>${escapeHtml(t('report.record.topErrors'))}</p><ul>${errors.map((g) => `<li>${escapeHtml(formatErrorGroup(g))}${g.hint ? ` <small>(${escapeHtml(t('report.record.hint'))}: ${escapeHtml(g.hint)})</small>` : ''}</li>`).join('')}</ul>` : ''}
${run.summary.warnings.length ? `<p>${escapeHtml(t('report.record.warnings'))}</p><ul>${run.summary.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>` : ''}
</details>`;
}

/**
 * One chart as a `<figure>` with its inline SVG. The chart draws its own title, so the figure
 * has no caption repeating it; the title names the figure for a screen reader.
 */
export function figureHtml(c: ChartSpec): string {
  return `<figure data-chart="${escapeHtml(c.id)}" aria-label="${escapeHtml(c.title)}">${renderChartSvg(c)}</figure>`;
}

/**
 * The charts of one run (timeline, chunk gaps, then its server panels in their own smaller
 * grid), for a run's folded detail.
 */
export function runChartsHtml(charts: readonly ChartSpec[]): string {
  const big = charts.filter((c) => c.size !== 'panel');
  const panels = charts.filter((c) => c.size === 'panel');
  return [
    big.length ? `<div class="charts">${big.map(figureHtml).join('\n')}</div>` : '',
    panels.length ? `<div class="charts panels">${panels.map(figureHtml).join('\n')}</div>` : '',
  ].join('\n');
}

/** A self-contained page's start, up to and including its `<h1>` title: head, inline CSS ({@link PAGE_CSS}), no scripts. */
export function pageStart(title: string, t: T): string {
  return `<!doctype html>
<html lang="${t.lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>${PAGE_CSS}</style></head>
<body>
<h1>${escapeHtml(title)}</h1>`;
}

/** Options for {@link renderHtmlReport}. */
export interface HtmlReportOptions extends TableOptions {
  title?: string;
  /**
   * What the experiments among the runs answer (each kind's `answer`): first on the page, before
   * the headline, the findings and the per-run detail.
   */
  answers?: readonly ExperimentAnswer[];
  /** What the experiments among the runs answer (each kind's conclusion), shown under the headline. */
  conclusions?: readonly (readonly string[])[];
  /** Language of the prose (default English). */
  t?: T;
  /** The request the step timeline is drawn for (`report --request`); default: the worst stall. */
  stepRequest?: string;
}

/** Under the charts: what made each run's worst stall, from its engine steps; '' without steps. */
function stepCausesHtml(runs: readonly LoadedRun[], t: T, wanted?: string): string {
  const lines = runs.flatMap((r) => {
    const text = stallCauseText(r, t, wanted);
    return text ? [`<li>${escapeHtml(runs.length > 1 ? `${r.label}: ${text}` : text)}</li>`] : [];
  });
  return lines.length
    ? `<h3>${escapeHtml(t('steps.h.timeline'))}</h3>\n<ul class="step-causes">${lines.join('')}</ul>`
    : '';
}

/** The experiments' answers (`<section id="conclusion">`), one list per experiment; '' for none. */
export function conclusionsHtml(conclusions: readonly (readonly string[])[], t: T = EN): string {
  const lists = conclusions.filter((c) => c.length > 0);
  if (!lists.length) return '';
  return `<section class="conclusion" id="conclusion">
<h2>${escapeHtml(t('report.h.conclusion'))}</h2>
${lists.map((c) => `<ul>${c.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`).join('\n')}
</section>`;
}

/**
 * Render the whole report as one self-contained HTML document (inline CSS and SVG only).
 * @param runs loaded runs, in display order
 * @param diagnosis from `diagnose(runs)`
 */
export function renderHtmlReport(
  runs: readonly LoadedRun[],
  diagnosis: Diagnosis,
  opts: HtmlReportOptions = {},
): string {
  const t = opts.t ?? EN;
  const title = opts.title ?? t('report.title', { runs: runs.map((r) => r.label).join(', ') });
  // A chart the answer draws already (a sweep's load curve, an A/B's TTFT CDF) is drawn once.
  const all = chartsBesideAnswers(reportCharts(runs, t, { stepRequest: opts.stepRequest }), opts.answers);
  const lead = all.find((c) => c.id === 'load-curve');
  const shared = all.filter((c) => c.run === undefined && c !== lead);
  // A single run's own charts sit in the main grid; a sweep's fold per level.
  const single = runs.length === 1;
  const perRun = runs.map((r) => ({ run: r, charts: all.filter((c) => c.run === r.id) }));
  const rows = comparisonTable(runs, opts);
  const levels = single
    ? runChartsHtml(perRun[0]?.charts ?? [])
    : perRun
        .filter((x) => x.charts.length > 0)
        .map((x, i) => {
          const verdict = verdictCell(rows[runs.indexOf(x.run)]?.verdict ?? verdictText([]), t);
          return `<details class="level" data-run="${escapeHtml(x.run.id)}"${i === 0 ? ' open' : ''}><summary>${escapeHtml(x.run.label)} · ${escapeHtml(verdict)}</summary>
${runChartsHtml(x.charts)}
</details>`;
        })
        .join('\n');
  return `${pageStart(title, t)}
${(opts.answers ?? []).map((a) => answerHtml(a, t)).join('\n')}
${headlineHtml(runs, diagnosis, t, opts)}
${conclusionsHtml(opts.conclusions ?? [], t)}
${lead ? `<div class="charts lead">${figureHtml(lead)}</div>` : ''}
<h2>${escapeHtml(t('report.h.results'))}</h2>
${renderTableHtml(rows, t)}
<h2>${escapeHtml(t('report.h.charts'))}</h2>
${shared.length ? `<div class="charts">${shared.map(figureHtml).join('\n')}</div>` : ''}
${single ? levels : levels ? `<h3>${escapeHtml(t('report.h.levels'))}</h3>\n${levels}` : ''}
${all.length ? '' : `<p>${escapeHtml(t('report.noCharts'))}</p>`}
${stepCausesHtml(runs, t, opts.stepRequest)}
<h2>${escapeHtml(t('report.h.diagnosis'))}</h2>
${diagnosisHtml(diagnosis, t)}
<h2>${escapeHtml(t('report.h.runs'))}</h2>
${runs.map((r) => runRecordHtml(r, t)).join('\n')}
</body></html>
`;
}
