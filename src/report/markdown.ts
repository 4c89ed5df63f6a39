/**
 * @module report/markdown
 * The Markdown project write-up (`servelab report --md`) in the course's seven sections:
 * background and goals, system configuration, load design, metric results, the explanation of
 * the problem, what the source code showed, and the conclusion (背景与目标、系统配置、负载设计、
 * 指标结果、问题解释、源码发现、最终结论). It leads with the headline; §2 is filled from each
 * run's experiment record, config and probes (missing only for what none of them knows); the
 * results table is split so that no table is wider than about 12 columns; charts are SVG files
 * in the write-up's own folder (`NAME.charts/`, so two write-ups in one folder keep their own);
 * §6 lists the source notes the caller passes (`sourceNotes`). Every sentence goes through the
 * catalogue (`writeup.*`, `report.*`). Pure: it returns the text and the SVG files; the caller
 * writes them.
 */

import { runEngine } from '../analysis/diagnose/engine-terms.js';
import type { Diagnosis } from '../analysis/diagnose/types.js';
import { formatErrorGroup } from '../analysis/errors.js';
import type { LoadedRun } from '../analysis/loaded-run.js';
import { redactSecrets } from '../core/redact.js';
import { type T, translator } from '../i18n/index.js';
import type { ExperimentAnswer } from './answer.js';
import { answerChartSvg, answerMarkdown, chartsBesideAnswers } from './answer-render.js';
import { renderChartSvg, reportCharts } from './charts.js';
import {
  COLUMN_GROUPS,
  columnsFor,
  comparisonTable,
  escapeMd,
  renderTableMarkdown,
  type TableOptions,
} from './comparison-table.js';
import {
  groupedReasons,
  headlineDiagnosisText,
  headlineFocusText,
  headlineMet,
  headlineOf,
  headlineScopeText,
  headlineValue,
  recordFields,
  sourceStatsRows,
} from './html.js';
import { sourceNotes } from './source-map.js';

const EN = translator('en');

/**
 * One row of §6 (源码发现): where a mechanism lives in an engine's source, checked at a version.
 * The rows come from the caller (the source map); the write-up only renders them.
 */
export interface SourceNoteRow {
  /** `vllm`, `sglang`, `llama.cpp`, `servelab-sim` … */
  engine: string;
  /** Which of the course's objects: service entry, request state, scheduler, execution backend. */
  object: string;
  /** Path in the engine's repository. */
  path: string;
  /** Function, class or method at that path. */
  symbol: string;
  /** The commit or tag the path was checked at. */
  version: string;
  /** Optional: which finding or experiment kind the row explains. */
  note?: string;
}

/** Options for {@link renderMarkdownReport}. */
export interface MarkdownReportOptions extends TableOptions {
  /** Folder (relative to the Markdown file) the SVG charts are written to and linked from. */
  svgDir: string;
  title?: string;
  /** Language of the prose (default English). */
  t?: T;
  /**
   * §6's rows; by default the source map's rows (`report/source-map`) for the measured engine,
   * the rules that fired and the experiment kinds that ran ({@link measuredSourceNotes}).
   */
  sourceNotes?: readonly SourceNoteRow[];
  /**
   * Sections the experiments' kinds write about their own results (Markdown lines, e.g. the
   * team-assistant's answer), rendered at the head of §7; from the caller, as `sourceNotes`.
   */
  kindSections?: readonly (readonly string[])[];
  /** What the experiments among the runs answer (each kind's `answer`): the write-up leads with them. */
  answers?: readonly ExperimentAnswer[];
}

/** The write-up and the chart files to write next to it. */
export interface MarkdownReport {
  markdown: string;
  /** `path` is `svgDir/<chart id>.svg`, relative to the Markdown file. */
  files: { path: string; svg: string }[];
}

/** The chart folder of a write-up file: `w.md` → `w.charts` (its own, next to it). */
export function chartsDirFor(mdFileName: string): string {
  return `${mdFileName.replace(/\.(md|markdown)$/i, '')}.charts`;
}

/** Escape a table cell's pipes (and keep it on one line). */

/** A value as the write-up shows it: numbers rounded for reading (no float noise), objects as compact JSON. */
export function readable(v: unknown): string {
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || Number.isInteger(v)) return String(v);
    const a = Math.abs(v);
    return String(a >= 100 ? Math.round(v) : Number(v.toPrecision(3)));
  }
  if (v !== null && typeof v === 'object')
    return JSON.stringify(redactSecrets(v), (_k, x) =>
      typeof x === 'number' && !Number.isInteger(x) ? Number(readable(x)) : x,
    );
  return String(v);
}

const get = (o: unknown, path: string[]): unknown =>
  path.reduce<unknown>(
    (x, k) => (x && typeof x === 'object' ? (x as Record<string, unknown>)[k] : undefined),
    o,
  );

/** One fact of §2 and where it came from (`probed`, `declared`, `config`, `scrape`), or null when nothing knows it. */
export interface SystemFact {
  value: string;
  from: string;
}

/**
 * What §2 knows of a run's system: engine, engine version, model, GPU and GPU count, each from
 * the experiment record (probed or declared) first, then the run's config (a simulator target
 * names its model and GPU), then what the scrape read the server as. Null where none knows.
 */
export function systemFacts(
  run: LoadedRun,
): Record<'engine' | 'version' | 'model' | 'gpu' | 'count', SystemFact | null> {
  const rec = (field: string, key: string): SystemFact | null => {
    const f = run.record?.[field];
    const v = f?.value?.[key];
    return v === null || v === undefined || f?.source === 'missing'
      ? null
      : { value: readable(v), from: (f as { source: string }).source };
  };
  const cfg = (...paths: string[][]): SystemFact | null => {
    for (const p of paths) {
      const v = get(run.config, p);
      if (typeof v === 'string' || typeof v === 'number') return { value: String(v), from: 'config' };
    }
    return null;
  };
  const sim = get(run.config, ['target', 'sim']) ?? get(run.config, ['sim']);
  const engine =
    rec('engine', 'name') ??
    (run.engine ? { value: run.engine, from: 'scrape' } : null) ??
    (sim || run.config.target === 'sim' ? { value: 'servelab-sim', from: 'config' } : null);
  return {
    engine,
    version: rec('engine', 'version'),
    model:
      rec('model', 'id') ??
      cfg(
        ['model'],
        ['generation', 'model'],
        ['target', 'model'],
        ['target', 'sim', 'model'],
        ['sim', 'model'],
      ),
    gpu: rec('device', 'gpu') ?? cfg(['target', 'sim', 'gpu'], ['sim', 'gpu'], ['gpu']),
    count: rec('device', 'count') ?? cfg(['target', 'sim', 'tp'], ['sim', 'tp']),
  };
}

/** `key=value` pairs of an object, values rounded; nested objects as compact JSON. */
function pairs(o: unknown): string {
  if (o === null || o === undefined) return '—';
  if (typeof o !== 'object') return readable(o);
  const parts = Object.entries(redactSecrets(o) as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${readable(v)}`);
  return parts.join(', ') || '—';
}

/**
 * Render the Markdown write-up.
 * @param runs loaded runs, in display order
 * @param diagnosis from `diagnose(runs)`
 * @param opts `svgDir` for the chart files, price fallback, title, language, source notes
 */
export function renderMarkdownReport(
  runs: readonly LoadedRun[],
  diagnosis: Diagnosis,
  opts: MarkdownReportOptions,
): MarkdownReport {
  const t = opts.t ?? EN;
  const dir = opts.svgDir.replace(/\/+$/, '') || '.';
  // The server panels stay in the HTML report and the dashboard: a write-up keeps its figures few.
  // A chart the answer draws already is drawn once (`AnswerChart.replaces`).
  const charts = chartsBesideAnswers(reportCharts(runs, t), opts.answers).filter((c) => c.size !== 'panel');
  const files = charts.map((c) => ({ path: `${dir}/${c.id}.svg`, svg: renderChartSvg(c) }));
  const answers = (opts.answers ?? []).map((a, i) => {
    const path = a.chart ? `${dir}/answer-${i + 1}.svg` : null;
    if (a.chart && path) files.push({ path, svg: answerChartSvg(a.chart) });
    return answerMarkdown(a, t, path);
  });
  const todo = (what: string) => `> _${t('writeup.todo', { what })}_`;
  const missing = t('common.missing');
  const L: string[] = [];
  L.push(
    `# ${escapeMd(opts.title ?? t('writeup.title', { runs: runs.map((r) => r.label).join(', ') }))}`,
    '',
  );
  // What the experiment answers comes first; the evidence and the per-run detail follow.
  for (const a of answers) L.push(...a);

  // The headline: the verdict, the key numbers against the SLOs, the diagnosis in one line.
  L.push(`**${t(diagnosis.valid ? 'report.verdict.valid' : 'report.verdict.invalid')}**`, '');
  for (const g of groupedReasons(diagnosis, runs))
    L.push(
      `- \`${g.code}\` [${escapeMd(g.runs.join(', '))}] ${g.runs.length > 1 ? t('report.verdict.firstOf', { message: g.message }) : g.message}`,
    );
  if (diagnosis.reasons.length) L.push('');
  if (runs.length) {
    const h = headlineOf(runs, diagnosis, opts);
    const focus = headlineFocusText(h, t, runs);
    if (focus) L.push(focus, '');
    L.push(`| ${t('writeup.col.metric')} | ${t('writeup.col.value')} | SLO |`, '| --- | ---: | --- |');
    for (const x of h.metrics) {
      const slo =
        x.slo === null
          ? '—'
          : t(headlineMet(x) === false ? 'report.headline.sloOver' : 'report.headline.sloMet', {
              slo: `${x.slo} ${x.unit}`,
            });
      const scope = headlineScopeText(x, t);
      L.push(`| ${x.name}${scope ? ` (${escapeMd(scope)})` : ''} | ${headlineValue(x)} | ${slo} |`);
    }
    L.push('', headlineDiagnosisText(h, t), '');
  }

  // 1. Background and goals
  L.push(`## 1. ${t('writeup.s1')}`, '', todo(t('writeup.s1.todo')), '');
  L.push(
    t('writeup.runsLine', { runs: runs.map((r) => `\`${r.id}\`${r.kind ? ` (${r.kind})` : ''}`).join(', ') }),
    '',
  );

  // 2. System configuration
  L.push(`## 2. ${t('writeup.s2')}`, '');
  L.push(
    `| ${t('report.col.run')} | ${t('writeup.col.engine')} | ${t('writeup.col.version')} | ${t('writeup.col.model')} | GPU | ${t('writeup.col.count')} |`,
    '| --- | --- | --- | --- | --- | --- |',
  );
  const fact = (f: SystemFact | null) => (f ? `${escapeMd(f.value)} <sub>${f.from}</sub>` : missing);
  for (const r of runs) {
    const f = systemFacts(r);
    L.push(
      `| ${escapeMd(r.label)} | ${fact(f.engine)} | ${fact(f.version)} | ${fact(f.model)} | ${fact(f.gpu)} | ${fact(f.count)} |`,
    );
  }
  L.push('', t('writeup.s2.sources'), '', todo(t('writeup.s2.todo')), '');
  // The full record, once per distinct record (a sweep's levels share one). Its `metrics` are
  // results: they are §4's, not the system's.
  const systemFields = (r: LoadedRun) => recordFields(r).filter(([name]) => name !== 'metrics');
  const byRecord = new Map<string, LoadedRun[]>();
  for (const r of runs) {
    const key = r.record ? JSON.stringify(systemFields(r)) : '';
    byRecord.set(key, [...(byRecord.get(key) ?? []), r]);
  }
  for (const [key, group] of byRecord) {
    L.push(`### ${group.map((r) => escapeMd(r.label)).join(', ')}`, '');
    const r = group[0];
    if (!key || !r.record) {
      L.push(t('report.record.none'), '');
      continue;
    }
    L.push(
      `| ${t('report.record.field')} | ${t('report.record.source')} | ${t('report.record.value')} | ${missing} |`,
      '| --- | --- | --- | --- |',
    );
    for (const [name, f] of systemFields(r)) {
      const vals = Object.entries(f.value ?? {})
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([k, v]) => `${k}=${readable(v)}`)
        .join(', ');
      // A part with no value is missing whether or not the field lists it: never hidden.
      const miss = new Set(f.missing ?? []);
      for (const [k, v] of Object.entries(f.value ?? {})) if (v === null || v === undefined) miss.add(k);
      L.push(`| ${name} | ${f.source} | ${escapeMd(vals) || '—'} | ${[...miss].join(', ') || '—'} |`);
    }
    L.push('');
  }

  // 3. Load design
  L.push(`## 3. ${t('writeup.s3')}`, '');
  L.push(
    `| ${t('report.col.run')} | ${t('report.col.level')} | n | ${t('report.col.warmup')} | ${t('report.col.window')} | ${t('writeup.col.load')} |`,
    '| --- | --- | ---: | ---: | ---: | --- |',
  );
  const rows = comparisonTable(runs, opts);
  rows.forEach((row, i) => {
    L.push(
      `| ${escapeMd(row.label)} | ${row.level ?? '—'} | ${row.measured.value ?? '—'} | ${row.warmup.value ?? '—'} | ${row.window_s.value?.toFixed(1) ?? '—'} | ${escapeMd(pairs(runs[i].config.load ?? null))} |`,
    );
  });
  L.push('', todo(t('writeup.s3.todo')), '');

  // 4. Metric results: the table in groups of at most ~12 columns.
  L.push(`## 4. ${t('writeup.s4')}`, '');
  // A group none of whose columns apply (no GPU scraped) is left out, not drawn as a run column alone.
  const shown = columnsFor(rows);
  for (const g of COLUMN_GROUPS) {
    if (!shown.some((c) => c.group === g)) continue;
    L.push(`### ${t(`writeup.group.${g}`)}`, '', renderTableMarkdown(rows, t, g));
  }
  // The top errors of each run that had failures, with the hint for each (summary.errors; a
  // report.json from before it existed has none).
  const erring = runs.filter((r) => (r.summary.errors ?? []).length > 0);
  if (erring.length) {
    L.push(t('writeup.topErrors'), '');
    for (const r of erring)
      for (const g of r.summary.errors)
        L.push(
          `- ${escapeMd(r.label)}: ${escapeMd(formatErrorGroup(g))}${g.hint ? ` (${t('report.record.hint')}: ${escapeMd(g.hint)})` : ''}`,
        );
    L.push('');
  }
  // Runs read from a vLLM result file: whose definitions, what the file lacks, and every
  // statistic it gives (the table shows p50/p95/p99 only).
  const foreign = runs.filter((r) => r.source);
  if (foreign.length) {
    L.push(t('writeup.vllmDefinitions'), '');
    for (const d of foreign[0].source?.definitions ?? []) L.push(`- ${d}`);
    L.push('');
  }
  for (const r of foreign) {
    if (!r.source) continue;
    L.push(`**${escapeMd(r.label)}** (${t('report.source.definitions')}): ${t('writeup.vllmStats')}`, '');
    const st = sourceStatsRows(r);
    if (st) {
      L.push(
        `| ${st.header.map(escapeMd).join(' | ')} |`,
        `|${st.header.map((_, i) => (i ? ' ---: |' : ' --- |')).join('')}`,
      );
      for (const row of st.rows) L.push(`| ${row.map(escapeMd).join(' | ')} |`);
      L.push('');
    }
    for (const n of r.source.notes) L.push(`- ${escapeMd(n)}`);
    if (r.source.notes.length) L.push('');
  }
  if (charts.length) L.push(`### ${t('report.h.charts')}`, '');
  for (let i = 0; i < charts.length; i++) L.push(`![${escapeMd(charts[i].title)}](${files[i].path})`, '');

  // 5. Explanation of the problem: the diagnosis.
  L.push(`## 5. ${t('writeup.s5')}`, '');
  if (diagnosis.findings.length === 0) L.push(t('report.diag.noRule'), '');
  for (const f of diagnosis.findings) {
    L.push(
      `### ${escapeMd(f.symptom)}`,
      '',
      t('writeup.findingRuns', { runs: escapeMd(f.runs.join(', ')), rule: `\`${f.rule}\`` }),
      '',
    );
    for (const e of f.evidence) L.push(`- ${escapeMd(e)}`);
    if (f.request_ids.length)
      L.push(`- ${t('report.diag.requests')}: ${f.request_ids.map((x) => `\`${x}\``).join(', ')}`);
    L.push('', `**${t('report.diag.mechanism')}.** ${escapeMd(f.mechanism)}`, '');
  }
  if (diagnosis.unexplained.length) {
    L.push(`### ${t('report.diag.unexplained')}`, '');
    for (const u of diagnosis.unexplained) L.push(`- [${escapeMd(u.run)}] ${escapeMd(u.observation)}`);
    L.push('');
  }
  if ((diagnosis.skipped ?? []).length) {
    L.push(`### ${t('report.diag.notChecked')}`, '');
    for (const x of diagnosis.skipped)
      L.push(`- [${escapeMd(x.run)}] ${x.checks.map((c) => `\`${c}\``).join(', ')}: ${escapeMd(x.reason)}`);
    L.push('');
  }
  L.push(todo(t('writeup.s5.todo')), '');

  // 6. What the source code showed: the rows the caller passes (the source map's rows for the
  // measured engine).
  L.push(
    `## 6. ${t('writeup.s6')}`,
    '',
    ...sourceNotesMarkdown(opts.sourceNotes ?? measuredSourceNotes(runs, diagnosis, t), t),
    '',
  );
  L.push(todo(t('writeup.s6.todo')), '');

  // 7. Conclusion, with the next experiments the findings name.
  L.push(`## 7. ${t('writeup.s7')}`, '');
  for (const sec of opts.kindSections ?? []) L.push(...sec, '');
  L.push(todo(t('writeup.s7.todo')), '');
  L.push(`### ${t('writeup.next')}`, '');
  if (diagnosis.findings.length === 0) L.push(todo(t('writeup.next.todo')));
  // One line per distinct next step: several findings of one rule (one per run) name the same one.
  const next = new Set(diagnosis.findings.map((f) => `- ${f.rule}: \`${f.next.command}\`, ${f.next.change}`));
  for (const line of next) L.push(line);
  L.push('');
  return { markdown: L.join('\n'), files };
}

/**
 * The source map's rows for what was measured: the engine the runs name (config, probe or
 * scrape), the diagnosis rules that fired, and the runs' experiment kinds (a plain run is a
 * baseline). Only the measured engine's rows, as the course asks: a llama.cpp run is pointed to
 * llama.cpp's code, not vLLM's.
 */
export function measuredSourceNotes(
  runs: readonly LoadedRun[],
  diagnosis: Diagnosis,
  t: T = EN,
): SourceNoteRow[] {
  const engine = runs.map(runEngine).find((e) => e !== undefined);
  const kinds = [...new Set(runs.map((r) => r.kind ?? 'baseline'))];
  return sourceNotes(
    engine,
    diagnosis.findings.map((f) => f.rule),
    kinds,
  ).map((r) => ({
    engine: r.engine,
    object: t(`source.object.${r.object}`),
    path: r.path,
    symbol: r.symbol,
    version: r.version,
    note: t(r.note_key),
  }));
}

/**
 * §6's table: engine, object, path, symbol, version (and the note when a row has one); without
 * rows, one line saying there are none yet.
 */
export function sourceNotesMarkdown(rows: readonly SourceNoteRow[], t: T = EN): string[] {
  if (rows.length === 0) return [t('writeup.s6.none')];
  const note = rows.some((r) => r.note);
  const L = [
    `| ${t('writeup.col.engine')} | ${t('writeup.col.object')} | ${t('writeup.col.path')} | ${t('writeup.col.symbol')} | ${t('writeup.col.version')} |${note ? ` ${t('writeup.col.note')} |` : ''}`,
    `| --- | --- | --- | --- | --- |${note ? ' --- |' : ''}`,
  ];
  for (const r of rows)
    L.push(
      `| ${escapeMd(r.engine)} | ${escapeMd(r.object)} | \`${escapeMd(r.path)}\` | \`${escapeMd(r.symbol)}\` | ${escapeMd(r.version)} |${note ? ` ${escapeMd(r.note ?? '')} |` : ''}`,
    );
  return L;
}
