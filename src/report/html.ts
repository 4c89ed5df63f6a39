/**
 * @module report/html
 * The self-contained HTML report: validity verdict first, then the comparison table, the
 * charts (echarts SSR, inline SVG), the diagnosis and the full record of each run with missing
 * fields shown as missing. No scripts, no external URLs: it opens offline from a file.
 */
import { formatErrorGroup } from '../analysis/errors.js';
import { redactSecrets } from '../core/redact.js';
import { renderSvg, reportCharts } from './charts.js';
import { comparisonTable, escapeHtml, renderTableHtml, type TableOptions } from './table.js';
import type { Diagnosis, LoadedRun, ReportRecordField } from './types.js';

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;max-width:1560px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}
.verdict{padding:10px 14px;border-radius:6px;font-weight:600}
.valid{background:#e6f4ea;border:1px solid #8bc79b}.invalid{background:#fdecea;border:1px solid #e6a19a}
table{border-collapse:collapse;font-size:12px;margin:8px 0}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;white-space:nowrap}
th{background:#f3f3f3}td:first-child,td:nth-child(2){text-align:left}
td.unreliable{color:#a15c00;background:#fff6e5}
.note{font-size:12px;color:#a15c00}
.charts{display:flex;flex-wrap:wrap;gap:12px}
figure{margin:0;border:1px solid #eee}figcaption{font-size:12px;text-align:center;color:#555}
.finding{border-left:4px solid #e0a800;padding:4px 12px;margin:12px 0;background:#fffdf3}
.finding.critical{border-color:#c0392b}.finding.info{border-color:#3b82f6}
code{background:#f3f3f3;padding:1px 4px;border-radius:3px}
.missing{color:#c0392b;font-style:italic}
pre{background:#f7f7f7;padding:8px;font-size:12px;overflow:auto}
.src-probed{color:#1b7f3b}.src-declared{color:#555}.src-missing{color:#c0392b}
`;

/** The verdict banner's HTML. */
export function verdictHtml(d: Diagnosis): string {
  const partly = (d.skipped ?? []).length ? ' (some checks could not run: see Diagnosis, not checked)' : '';
  const head = `<div class="verdict ${d.valid ? 'valid' : 'invalid'}" id="verdict">valid: ${d.valid}${partly}</div>`;
  if (d.reasons.length === 0) return head;
  const items = d.reasons.map(
    (r) => `<li><code>${escapeHtml(r.code)}</code> [${escapeHtml(r.run)}] ${escapeHtml(r.message)}</li>`,
  );
  return `${head}\n<ul class="reasons">${items.join('')}</ul>`;
}

/** The findings and unexplained observations as HTML. */
export function diagnosisHtml(d: Diagnosis): string {
  const f = d.findings.map(
    (x) => `<div class="finding ${x.severity}" data-rule="${escapeHtml(x.rule)}">
<p><strong>${escapeHtml(x.symptom)}</strong> <small>(${escapeHtml(x.rule)}; ${escapeHtml(x.runs.join(', '))})</small></p>
<ul>${x.evidence.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul>
${x.request_ids.length ? `<p>requests: ${x.request_ids.map((id) => `<code>${escapeHtml(id)}</code>`).join(' ')}</p>` : ''}
<p>likely mechanism: ${escapeHtml(x.mechanism)}</p>
<p>next: <code>${escapeHtml(x.next.command)}</code> — ${escapeHtml(x.next.change)}</p>
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
    f.length ? f.join('\n') : '<p>No rule matched.</p>',
    u.length ? `<h3>Unexplained</h3><ul>${u.join('')}</ul>` : '',
    s.length ? `<h3>Not checked</h3><ul class="skipped">${s.join('')}</ul>` : '',
  ].join('\n');
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
export function runSourceHtml(run: LoadedRun): string {
  const src = run.source;
  if (!src) return '';
  const t = sourceStatsRows(run);
  const table = t
    ? `<table class="source-stats"><thead><tr>${t.header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${t.rows
        .map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`)
        .join('')}</tbody></table>`
    : '';
  return `<p><strong>definitions: vLLM</strong>: read from a vLLM result file (<code>vllm bench serve --save-result</code>)</p>
<ul class="definitions">${src.definitions.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>
${table}
${src.notes.length ? `<p>notes</p><ul class="source-notes">${src.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : ''}`;
}

const show = (v: unknown): string =>
  v === null || v === undefined
    ? '<span class="missing">missing</span>'
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
export function runRecordHtml(run: LoadedRun): string {
  const rows = run.record
    ? recordFields(run).map(([name, f]) => {
        const missing = new Set(f.missing ?? []);
        const parts = Object.entries(f.value ?? {}).map(
          ([k, v]) =>
            `${escapeHtml(k)}: ${missing.has(k) || v === null || v === undefined ? '<span class="missing">missing</span>' : show(v)}`,
        );
        return `<tr><td>${escapeHtml(name)}</td><td class="src-${escapeHtml(f.source)}">${escapeHtml(f.source)}</td><td style="text-align:left;white-space:normal">${parts.join('<br>') || '<span class="missing">missing</span>'}</td></tr>`;
      })
    : [];
  const table = rows.length
    ? `<table class="record"><thead><tr><th>field</th><th>source</th><th>value</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
    : '<p class="missing">missing: no experiment record for this run</p>';
  return `<details open><summary><strong>${escapeHtml(run.label)}</strong> (${escapeHtml(run.id)})</summary>
${runSourceHtml(run)}
${table}
<p>configuration</p><pre>${escapeHtml(JSON.stringify(redactSecrets(run.config), null, 2))}</pre>
<p>environment</p><pre>${escapeHtml(JSON.stringify(redactSecrets(run.environment), null, 2))}</pre>
${(run.summary.errors ?? []).length ? `<p>top errors</p><ul>${run.summary.errors.map((g) => `<li>${escapeHtml(formatErrorGroup(g))}${g.hint ? ` <small>(hint: ${escapeHtml(g.hint)})</small>` : ''}</li>`).join('')}</ul>` : ''}
${run.summary.warnings.length ? `<p>summary warnings</p><ul>${run.summary.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>` : ''}
</details>`;
}

/** Options for {@link renderHtmlReport}. */
export interface HtmlReportOptions extends TableOptions {
  title?: string;
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
  const title = opts.title ?? `servelab report: ${runs.map((r) => r.label).join(', ')}`;
  const charts = reportCharts(runs).map(
    (c) =>
      `<figure data-chart="${escapeHtml(c.id)}">${renderSvg(c.option)}<figcaption>${escapeHtml(c.title)}</figcaption></figure>`,
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style></head>
<body>
<h1>${escapeHtml(title)}</h1>
${verdictHtml(diagnosis)}
<h2>Comparison</h2>
${renderTableHtml(comparisonTable(runs, opts))}
<h2>Charts</h2>
<div class="charts">${charts.join('\n') || '<p>Not enough data for any chart.</p>'}</div>
<h2>Diagnosis</h2>
${diagnosisHtml(diagnosis)}
<h2>Runs</h2>
${runs.map(runRecordHtml).join('\n')}
</body></html>
`;
}
