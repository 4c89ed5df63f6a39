/**
 * @module report/comparison-table
 * The comparison table: one row per run (or load level) with actual lengths, outcome counts,
 * latency percentiles, throughput, goodput, peak GPU memory, cost, sample size, warm-up count
 * and measurement window; and its three renderers (console text, Markdown, HTML).
 * A p99 from fewer than 100 samples or a p95 from fewer than 20 is marked unreliable. A run read
 * from a vLLM result file is marked `definitions: vLLM`, with a footnote; what such a file does
 * not record (truncation, warm-up) is — rather than a placeholder 0.
 */

import type { LoadedRun } from '../analysis/loaded-run.js';
import { runSeriesSummary } from '../analysis/series.js';
import { describe, type Stats } from '../analysis/stats.js';
import { groupAttempts } from '../analysis/summary.js';
import { validityReasons, validitySkipped } from '../analysis/validity.js';
import { measurementWindow } from '../analysis/window.js';
import { displayWidth, padColumns } from '../core/text-width.js';
import type { MessageKey, T } from '../i18n/index.js';
import { OUTCOMES, type Outcome, SUCCESS_OUTCOMES } from '../record/types.js';
import { VLLM_DEFINITIONS_NOTE } from './vllm-result.js';

/** Fewest samples for which a p99 is shown as reliable. */
export const MIN_SAMPLES_P99 = 100;
/** Fewest samples for which a p95 is shown as reliable. */
export const MIN_SAMPLES_P95 = 20;

/** One table cell: a number (or null = no data) and whether it rests on too few samples. */
export interface Cell {
  value: number | null;
  unreliable?: boolean;
}

/** One row of the comparison table. Units are in the key names. */
export interface ComparisonRow {
  id: string;
  label: string;
  /** `c=16` or `rate=4 rps`, when the run has a level. */
  level: string | null;
  /** Whose metric definitions the numbers follow: servelab's, or vLLM's for a vLLM result file. */
  definitions: 'servelab' | 'vllm';
  input_tokens_mean: Cell;
  input_tokens_p50: Cell;
  output_tokens_mean: Cell;
  output_tokens_p50: Cell;
  succeeded: Cell;
  /** Successful but cut by a token limit before the length asked for, or with none asked (outcome `length`). */
  truncated: Cell;
  failed: Cell;
  /** Failed requests by outcome class (only classes that occurred). */
  failed_by_class: Partial<Record<Outcome, number>>;
  ttft_ms_p50: Cell;
  ttft_ms_p95: Cell;
  ttft_ms_p99: Cell;
  e2e_ms_p50: Cell;
  e2e_ms_p95: Cell;
  e2e_ms_p99: Cell;
  tpot_ms_p50: Cell;
  tpot_ms_p99: Cell;
  output_tok_s: Cell;
  /** Server's generation-token rate from the scraped counter, when scraped. */
  server_tok_s: Cell;
  /** Share of prompt tokens the server found in its prefix cache (%), from its counters. */
  prefix_hit_pct: Cell;
  /**
   * The validity verdict: `valid`, `INVALID:` and the codes of the reasons the run cannot bear
   * weight, or `partly checked` when some checks could not run on its data (the diagnosis says
   * which).
   */
  verdict: string;
  goodput_rps: Cell;
  peak_gpu_memory_gib: Cell;
  /** Mean GPU utilisation over the readings that cover the window (%), when scraped. */
  mean_gpu_util_pct: Cell;
  usd_per_1m_output_tokens: Cell;
  usd_per_1k_requests: Cell;
  /** Measured requests (the sample size). */
  measured: Cell;
  warmup: Cell;
  window_s: Cell;
}

/**
 * A run's verdict as one table cell: `INVALID:` and its reasons' codes (each once); else
 * `partly checked` when some checks could not run (`unchecked`), else `valid`.
 */
export function verdictText(reasons: readonly { code: string }[], unchecked = false): string {
  if (reasons.length) return `INVALID: ${[...new Set(reasons.map((r) => r.code))].join(', ')}`;
  return unchecked ? 'partly checked' : 'valid';
}

/** Options for {@link comparisonTable}. */
export interface TableOptions {
  /** GPU-hour price (US$) for runs that carry none. */
  gpu_hour_usd?: number;
}

const cell = (value: number | null | undefined, unreliable = false): Cell =>
  unreliable && value != null ? { value, unreliable } : { value: value ?? null };

/** p50/p95/p99 cells of a stats block, with the sample-size marks. */
function pct(s: Stats, p: 'p50' | 'p95' | 'p99'): Cell {
  const thin = (p === 'p99' && s.n < MIN_SAMPLES_P99) || (p === 'p95' && s.n < MIN_SAMPLES_P95);
  return cell(s[p], thin);
}

function levelText(run: LoadedRun): string | null {
  const l = run.level;
  if (!l) return null;
  if (l.concurrency != null) return `c=${l.concurrency}`;
  if (l.rate_rps != null) return `rate=${l.rate_rps} rps`;
  if (l.users != null) return `users=${l.users}`;
  return null;
}

/** GPUs the price applies to: explicit, else the record's device count, else 1. */
function gpuCount(run: LoadedRun): number {
  if (run.gpu_count != null && run.gpu_count > 0) return run.gpu_count;
  const c = run.record?.device?.value?.count;
  return typeof c === 'number' && c > 0 ? c : 1;
}

/**
 * Build one table row per run. Lengths are the server-reported usage of successful measured
 * requests (what was actually processed, not what was asked for).
 * @param runs loaded runs, in display order
 * @param opts fallback GPU-hour price
 */
export function comparisonTable(runs: readonly LoadedRun[], opts: TableOptions = {}): ComparisonRow[] {
  return runs.map((run) => {
    const s = run.summary;
    const groups = [...groupAttempts(run.records).values()];
    const measured = groups.filter((g) => g.final.phase === 'measure');
    const ok = measured.filter((g) => SUCCESS_OUTCOMES.includes(g.final.outcome));
    const inLens = ok.map((g) => g.final.usage?.prompt_tokens).filter((v): v is number => v != null);
    const outLens = ok.map((g) => g.final.usage?.completion_tokens).filter((v): v is number => v != null);
    // Without records (a vLLM result file, a report.json without its requests.jsonl) the
    // summary's means are all there is.
    const noRecords = run.records.length === 0;
    const inStats = describe(inLens);
    const outStats = describe(outLens);
    // A vLLM result file has no outcome classes and no warm-up count: unknown, not 0.
    const foreign = run.source !== undefined;
    const byClass: Partial<Record<Outcome, number>> = {};
    for (const o of OUTCOMES)
      if (!SUCCESS_OUTCOMES.includes(o) && s.outcomes[o] > 0) byClass[o] = s.outcomes[o];
    const window = run.window ?? measurementWindow(run.records) ?? null;
    const series = runSeriesSummary(run);
    const price = run.gpu_hour_usd ?? opts.gpu_hour_usd;
    const usdPerS = price != null ? (price * gpuCount(run)) / 3600 : null;
    const tok = s.output_throughput_tok_s;
    const rps = s.request_throughput_rps;
    return {
      id: run.id,
      label: run.label,
      level: levelText(run),
      definitions: run.source?.tool ?? 'servelab',
      input_tokens_mean: cell(noRecords ? s.input_tokens.mean : inStats.mean),
      input_tokens_p50: cell(inStats.p50),
      output_tokens_mean: cell(noRecords ? s.output_tokens.mean : outStats.mean),
      output_tokens_p50: cell(outStats.p50),
      succeeded: cell(s.requests.succeeded),
      truncated: cell(foreign ? null : s.outcomes.length),
      failed: cell(s.requests.failed),
      failed_by_class: byClass,
      ttft_ms_p50: pct(s.ttft_ms, 'p50'),
      ttft_ms_p95: pct(s.ttft_ms, 'p95'),
      ttft_ms_p99: pct(s.ttft_ms, 'p99'),
      e2e_ms_p50: pct(s.e2e_ms, 'p50'),
      e2e_ms_p95: pct(s.e2e_ms, 'p95'),
      e2e_ms_p99: pct(s.e2e_ms, 'p99'),
      tpot_ms_p50: pct(s.tpot_ms, 'p50'),
      tpot_ms_p99: pct(s.tpot_ms, 'p99'),
      output_tok_s: cell(tok),
      server_tok_s: cell(series?.server_tokens_per_s),
      prefix_hit_pct: cell(series?.prefix_hit_rate != null ? series.prefix_hit_rate * 100 : null),
      verdict: verdictText(validityReasons(run), validitySkipped(run).length > 0),
      goodput_rps: cell(s.goodput.rps),
      peak_gpu_memory_gib: cell(series?.peak_gpu_memory_gib),
      mean_gpu_util_pct: cell(series?.mean_gpu_util_pct),
      usd_per_1m_output_tokens: cell(usdPerS !== null && tok ? (usdPerS / tok) * 1e6 : null),
      usd_per_1k_requests: cell(usdPerS !== null && rps ? (usdPerS / rps) * 1000 : null),
      measured: cell(s.requests.measured),
      warmup: cell(
        foreign
          ? null
          : noRecords
            ? s.requests.planned - s.requests.measured
            : groups.length - measured.length,
      ),
      window_s: cell(window ? (window.end_ms - window.start_ms) / 1000 : null),
    };
  });
}

/** A displayed column: header, unit and how to read its cell. */
export interface Column {
  /** English header (the console's, and the key metric names keep in every language). */
  header: string;
  /** Catalogue key of the header in other languages; absent when the header is a metric name. */
  key?: MessageKey;
  get(r: ComparisonRow): Cell | string;
  digits: number;
  /** A text column (left-aligned). */
  text?: boolean;
  /** Which group the write-up's split tables put it in ({@link COLUMN_GROUPS}). */
  group: ColumnGroup;
}

/** The write-up splits the table into these groups (each ≤ 12 columns with the run column). */
export type ColumnGroup = 'run' | 'requests' | 'latency' | 'throughput' | 'gpu';

const num = (
  key: keyof ComparisonRow,
  header: string,
  group: ColumnGroup,
  digits = 1,
  msg?: MessageKey,
): Column => ({ header, get: (r) => r[key] as Cell, digits, group, ...(msg ? { key: msg } : {}) });

/**
 * Columns in display order (shared by all renderers so they never disagree; `definitions` only
 * when a row has another tool's, {@link columnsFor}).
 */
export const COLUMNS: readonly Column[] = [
  { header: 'run', key: 'report.col.run', get: (r) => r.label, digits: 0, text: true, group: 'run' },
  {
    header: 'level',
    key: 'report.col.level',
    get: (r) => r.level ?? '',
    digits: 0,
    text: true,
    group: 'requests',
  },
  // The key numbers first (each metric's median, then output throughput, then the tails), so a
  // narrow window shows them before it scrolls; the request and token bookkeeping after.
  num('ttft_ms_p50', 'TTFT p50 ms', 'latency'),
  num('tpot_ms_p50', 'TPOT p50 ms', 'latency', 2),
  num('e2e_ms_p50', 'E2E p50 ms', 'latency'),
  num('output_tok_s', 'out tok/s', 'throughput', 1, 'report.col.outTokS'),
  num('ttft_ms_p95', 'TTFT p95 ms', 'latency'),
  num('ttft_ms_p99', 'TTFT p99 ms', 'latency'),
  num('tpot_ms_p99', 'TPOT p99 ms', 'latency', 2),
  num('e2e_ms_p95', 'E2E p95 ms', 'latency'),
  num('e2e_ms_p99', 'E2E p99 ms', 'latency'),
  {
    header: 'definitions',
    key: 'report.col.definitions',
    get: (r) => (r.definitions === 'vllm' ? 'vLLM' : 'servelab'),
    digits: 0,
    text: true,
    group: 'requests',
  },
  num('input_tokens_mean', 'in tok mean', 'throughput', 1, 'report.col.inMean'),
  num('input_tokens_p50', 'in tok p50', 'throughput', 0, 'report.col.inP50'),
  num('output_tokens_mean', 'out tok mean', 'throughput', 1, 'report.col.outMean'),
  num('output_tokens_p50', 'out tok p50', 'throughput', 0, 'report.col.outP50'),
  num('succeeded', 'ok', 'requests', 0, 'report.col.ok'),
  num('truncated', 'truncated', 'requests', 0, 'report.col.truncated'),
  {
    header: 'failed (by class)',
    key: 'report.col.failed',
    get: (r) => {
      const parts = Object.entries(r.failed_by_class).map(([k, v]) => `${k} ${v}`);
      return parts.length ? `${r.failed.value} (${parts.join(', ')})` : String(r.failed.value ?? 0);
    },
    digits: 0,
    text: true,
    group: 'requests',
  },
  num('server_tok_s', 'server tok/s', 'throughput', 1, 'report.col.serverTokS'),
  num('prefix_hit_pct', 'cache hit %', 'throughput', 1, 'report.col.cacheHit'),
  num('goodput_rps', 'goodput rps', 'throughput', 2, 'report.col.goodput'),
  num('peak_gpu_memory_gib', 'peak GPU GiB', 'gpu', 1, 'report.col.peakGpu'),
  num('mean_gpu_util_pct', 'GPU util %', 'gpu', 0, 'report.col.gpuUtil'),
  num('usd_per_1m_output_tokens', '$/1M out tok', 'throughput', 3, 'report.col.usdPer1m'),
  num('usd_per_1k_requests', '$/1k req', 'throughput', 3, 'report.col.usdPer1k'),
  num('measured', 'n', 'requests', 0),
  num('warmup', 'warm-up', 'requests', 0, 'report.col.warmup'),
  num('window_s', 'window s', 'requests', 1, 'report.col.window'),
  {
    header: 'verdict',
    key: 'report.col.verdict',
    get: (r) => r.verdict,
    digits: 0,
    text: true,
    group: 'requests',
  },
];

/** The write-up's split tables, in order: each group's columns after the run column. */
export const COLUMN_GROUPS: readonly Exclude<ColumnGroup, 'run'>[] = [
  'requests',
  'latency',
  'throughput',
  'gpu',
];

/** A verdict cell (`valid`, `INVALID: codes`, `partly checked`) in `t`'s language; the codes stay as they are. */
export function verdictCell(verdict: string, t?: T): string {
  if (!t) return verdict;
  if (verdict.startsWith('INVALID: '))
    return t('report.cell.invalid', { codes: verdict.slice('INVALID: '.length) });
  if (verdict === 'valid') return t('report.cell.valid');
  if (verdict === 'partly checked') return t('report.cell.partly');
  return verdict;
}

/** A column's header in `t`'s language (metric names stay as they are). */
export function columnHeader(c: Column, t?: T): string {
  return c.key && t ? t(c.key) : c.header;
}

/** Marker appended to an unreliable percentile. */
export const UNRELIABLE_MARK = '*';
/** The footnote that explains {@link UNRELIABLE_MARK}. */
export const UNRELIABLE_NOTE = `${UNRELIABLE_MARK} unreliable: a p99 from fewer than ${MIN_SAMPLES_P99} samples or a p95 from fewer than ${MIN_SAMPLES_P95}`;

/** Format one cell for display: `—` for no data, the mark for too few samples. */
export function formatCell(c: Cell | string, digits: number): string {
  if (typeof c === 'string') return c;
  if (c.value === null) return '—';
  const text = digits === 0 && Number.isInteger(c.value) ? String(c.value) : c.value.toFixed(digits);
  return c.unreliable ? `${text}${UNRELIABLE_MARK}` : text;
}

/**
 * The columns shown for these rows: all of {@link COLUMNS}, less `definitions` when every row
 * has servelab's (a table of servelab runs reads as it always did), and less the GPU columns
 * when no row's GPU was scraped (the target exposed no DCGM gauges and nvidia-smi was not local).
 */
export function columnsFor(rows: readonly ComparisonRow[]): readonly Column[] {
  const foreign = rows.some((r) => r.definitions !== 'servelab');
  const gpu = rows.some((r) => r.peak_gpu_memory_gib.value !== null || r.mean_gpu_util_pct.value !== null);
  return COLUMNS.filter((c) => (foreign || c.header !== 'definitions') && (gpu || c.group !== 'gpu'));
}

function grid(rows: readonly ComparisonRow[], cols: readonly Column[], t?: T): string[][] {
  return rows.map((r) =>
    cols.map((col) => {
      const c = col.get(r);
      return col.header === 'verdict' && typeof c === 'string'
        ? verdictCell(c, t)
        : formatCell(c, col.digits);
    }),
  );
}

const anyUnreliable = (rows: readonly ComparisonRow[]) =>
  rows.some((r) =>
    Object.values(r).some((v) => typeof v === 'object' && v !== null && 'unreliable' in v && v.unreliable),
  );

/** The table's footnotes: the unreliable mark, and vLLM's definitions when a row has them. */
export function tableNotes(rows: readonly ComparisonRow[], t?: T): string[] {
  const notes: string[] = [];
  if (anyUnreliable(rows))
    notes.push(
      t
        ? t('report.note.unreliable', { mark: UNRELIABLE_MARK, p99: MIN_SAMPLES_P99, p95: MIN_SAMPLES_P95 })
        : UNRELIABLE_NOTE,
    );
  if (rows.some((r) => r.definitions === 'vllm'))
    notes.push(t ? t('report.note.vllm_definitions') : VLLM_DEFINITIONS_NOTE);
  return notes;
}

/**
 * Console rendering. Transposed (one line per metric, one column per run) because ~25 columns
 * side by side do not fit a terminal. Headers, verdicts and notes in `t`'s language (English
 * without one).
 */
export function renderTableText(rows: readonly ComparisonRow[], t?: T): string {
  const cols = columnsFor(rows);
  const g = grid(rows, cols, t);
  const names = cols.map((c) => columnHeader(c, t));
  // Widths in terminal columns: a Chinese header takes two per character.
  const w0 = Math.max(...names.map(displayWidth));
  const widths = rows.map((_, j) => Math.max(...g[j].map(displayWidth)));
  const lines = cols.map((_, i) =>
    [padColumns(names[i], w0), ...rows.map((_, j) => padColumns(g[j][i], widths[j], 'start'))]
      .join('  ')
      .trimEnd(),
  );
  const notes = tableNotes(rows, t);
  if (notes.length) lines.push('', ...notes);
  return `${lines.join('\n')}\n`;
}

/**
 * Text from a run (a model id, a label, a title, an error) made safe for Markdown, the one
 * escaping of every Markdown this tool writes: HTML is escaped as {@link escapeHtml} does for the
 * HTML report (a server's `<img onerror=…>` stays text), a `|` cannot end a table cell and a
 * line break cannot end a table row.
 */
export function escapeMd(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('|', '\\|')
    .replaceAll('\n', ' ');
}

/**
 * Markdown rendering: one row per run; `only` keeps the run column and that group's columns
 * (the write-up splits the table so that none is wider than about 12 columns).
 */
export function renderTableMarkdown(
  rows: readonly ComparisonRow[],
  t?: T,
  only?: Exclude<ColumnGroup, 'run'>,
): string {
  const cols = columnsFor(rows).filter((c) => !only || c.group === 'run' || c.group === only);
  const head = `| ${cols.map((c) => escapeMd(columnHeader(c, t))).join(' | ')} |`;
  // Text columns (run, level, failed-by-class) align left, numbers right.
  const sep = `|${cols.map((c) => (c.text ? ' --- |' : ' ---: |')).join('')}`;
  const body = grid(rows, cols, t).map((r) => `| ${r.map(escapeMd).join(' | ')} |`);
  // The notes are about percentiles and definitions: under the whole table, or the latency part.
  const note = (only && only !== 'latency' ? [] : tableNotes(rows, t))
    .map((n) => `\n\n${escapeMd(n)}`)
    .join('');
  return `${[head, sep, ...body].join('\n')}${note}\n`;
}

/** Escape text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/**
 * HTML rendering: a `<table class="comparison">` inside a `<div class="table-scroll">` (it
 * scrolls sideways, first column sticky, so no column is cut off); unreliable cells get
 * `class="unreliable"`, an invalid run's row `class="invalid"`.
 */
export function renderTableHtml(rows: readonly ComparisonRow[], t?: T): string {
  const cols = columnsFor(rows);
  const head = `<tr>${cols.map((c) => `<th${c.text ? ' class="l"' : ''}>${escapeHtml(columnHeader(c, t))}</th>`).join('')}</tr>`;
  const body = rows
    .map((r) => {
      const tds = cols.map((col) => {
        const raw = col.get(r);
        const c = col.header === 'verdict' && typeof raw === 'string' ? verdictCell(raw, t) : raw;
        const cls =
          typeof c === 'object' && c.unreliable ? ' class="unreliable" title="too few samples"' : '';
        const l = col.text ? ' class="l"' : '';
        return `<td${cls || l}>${escapeHtml(formatCell(c, col.digits))}</td>`;
      });
      // Only the exception is marked: a row with another tool's definitions.
      const defs = r.definitions === 'servelab' ? '' : ` data-definitions="${r.definitions}"`;
      const bad = r.verdict.startsWith('INVALID') ? ' class="invalid"' : '';
      return `<tr data-run="${escapeHtml(r.id)}"${defs}${bad}>${tds.join('')}</tr>`;
    })
    .join('\n');
  const note = tableNotes(rows, t)
    .map((n) => `<p class="note">${escapeHtml(n)}</p>`)
    .join('');
  return `<div class="table-scroll"><table class="comparison">\n<thead>${head}</thead>\n<tbody>\n${body}\n</tbody>\n</table></div>${note}`;
}
