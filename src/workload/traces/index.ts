/**
 * @module workload/traces
 * Public trace formats (docs/traces.md): Azure LLM inference CSV, BurstGPT CSV, Mooncake JSONL
 * with block hashes, and servelab's JSONL. {@link parseTrace} picks the parser from
 * `--trace-format`, or detects the format from the file's first line (a CSV header names its
 * columns; a JSON line its fields; a JSON line with neither Mooncake's nor servelab's fields is
 * read as servelab's), and returns every problem with its line plus every skipped
 * row, counted; {@link windowTrace} keeps the requests inside `--trace-window`.
 */
import type { Problem } from '../../core/errors.js';
import { type T, translator } from '../../i18n/index.js';
import { parseAzureTrace } from './azure.js';
import { parseBurstGptTrace } from './burstgpt.js';
import { columnIndex, splitCsvLine } from './csv.js';
import { MOONCAKE_BLOCK_SIZE, parseMooncakeTrace } from './mooncake.js';
import { parseServelabTrace } from './servelab.js';
import {
  type ParsedTrace,
  TRACE_FORMATS,
  type TraceEntry,
  type TraceFormat,
  type TraceSkip,
} from './types.js';

export { AZURE_COLUMNS, azureTimeMs } from './azure.js';
export { type BlockTextCache, blockTexts } from './blocks.js';
export { BURSTGPT_COLUMNS } from './burstgpt.js';
export { MOONCAKE_BLOCK_SIZE } from './mooncake.js';
export * from './types.js';

const EN = translator('en');
/** Problems listed per file before the rest are summed up in one line. */
export const MAX_TRACE_PROBLEMS = 20;

/** Whether `s` names a trace format. */
export function isTraceFormat(s: string): s is TraceFormat {
  return (TRACE_FORMATS as readonly string[]).includes(s);
}

/**
 * The format of a trace from its first non-blank line, or undefined when it names none.
 * A JSON object with `input_length` or `hash_ids` is Mooncake, with `timestamp_ms` servelab; a CSV
 * header with ContextTokens and GeneratedTokens is Azure, with Request tokens and Response
 * tokens BurstGPT.
 */
export function detectTraceFormat(text: string): TraceFormat | undefined {
  const nl = text.search(/\S/);
  if (nl < 0) return undefined;
  const end = text.indexOf('\n', nl);
  const first = text.slice(nl, end < 0 ? undefined : end).trim();
  if (first.startsWith('{')) {
    try {
      const v = JSON.parse(first) as Record<string, unknown>;
      if ('input_length' in v || 'hash_ids' in v) return 'mooncake';
      if ('timestamp_ms' in v) return 'servelab';
    } catch {
      return undefined;
    }
    return undefined;
  }
  const header = splitCsvLine(first.replace(/^\uFEFF/, '')).map((h) => h.trim());
  const has = (cols: readonly string[]) => cols.every((c) => columnIndex(header, c) >= 0);
  if (has(['ContextTokens', 'GeneratedTokens'])) return 'azure';
  if (has(['Request tokens', 'Response tokens'])) return 'burstgpt';
  return undefined;
}

/** Options of {@link parseTrace}. */
export interface ParseTraceOptions {
  /** `--trace-format`; undefined: detect. */
  format?: string;
  /** `--trace-block-size` (Mooncake; default 512). */
  blockSize?: number;
  /** Language of the problems (default English). */
  t?: T;
}

/**
 * Parse a trace file's text in its format (given, else detected).
 * @param path the file name, used in problems as `path:LINE`
 * @returns the parsed trace; `format` is undefined when it is unknown (a problem says so)
 */
export function parseTrace(
  text: string,
  path: string,
  opts: ParseTraceOptions = {},
): Omit<ParsedTrace, 'format'> & { format: TraceFormat | undefined; detected: boolean } {
  const t = opts.t ?? EN;
  const list = TRACE_FORMATS.join(', ');
  const failed = (problem: Problem) => ({
    format: undefined,
    detected: false,
    entries: [],
    skipped: [],
    problems: [problem],
  });
  if (opts.format !== undefined && !isTraceFormat(opts.format))
    return failed({
      path: '--trace-format',
      message: t('trace.format.unknown', { got: opts.format }),
      hint: t('trace.format.unknown_hint', { formats: list }),
    });
  // A JSON line that names no known field is read as servelab's JSONL (the `--trace` format
  // before the public ones), whose problems then say line by line what it lacks.
  const format =
    (opts.format as TraceFormat | undefined) ??
    detectTraceFormat(text) ??
    (text.trimStart().startsWith('{') ? 'servelab' : undefined);
  if (!format)
    return failed({
      // The first non-blank line, which names no format.
      path: `${path}:${Math.max(1, text.slice(0, Math.max(0, text.search(/\S/))).split('\n').length)}`,
      message: t('trace.detect.failed'),
      hint: t('trace.detect.failed_hint', { formats: list }),
    });
  const r = parseOne(format, text, path, t, opts.blockSize ?? MOONCAKE_BLOCK_SIZE);
  if (r.entries.length === 0 && r.problems.length === 0)
    r.problems.push({
      path,
      message: r.skipped.length ? t('trace.all_skipped') : t('trace.empty'),
      hint: t(`trace.${format}.hint`),
    });
  return { ...r, problems: capProblems(r.problems, t), detected: opts.format === undefined };
}

function parseOne(format: TraceFormat, text: string, path: string, t: T, blockSize: number): ParsedTrace {
  switch (format) {
    case 'azure':
      return parseAzureTrace(text, path, t);
    case 'burstgpt':
      return parseBurstGptTrace(text, path, t);
    case 'mooncake':
      return parseMooncakeTrace(text, path, t, blockSize);
    case 'servelab':
      return parseServelabTrace(text, path, t);
  }
}

/** The first {@link MAX_TRACE_PROBLEMS} problems, then one that counts the rest. */
function capProblems(problems: Problem[], t: T): Problem[] {
  if (problems.length <= MAX_TRACE_PROBLEMS) return problems;
  return [
    ...problems.slice(0, MAX_TRACE_PROBLEMS),
    { message: t('trace.problems.more', { n: problems.length - MAX_TRACE_PROBLEMS }) },
  ];
}

/** `--trace-window START:END`, seconds from the trace's first timestamp; `endS` null: to the end. */
export interface TraceWindow {
  startS: number;
  endS: number | null;
}

/**
 * The requests whose time since the trace's first timestamp lies in [start, end).
 * @returns the kept entries and the window's start on the trace's clock (ms), the origin replay
 *   offsets are taken from
 */
export function windowTrace(
  entries: readonly TraceEntry[],
  window: TraceWindow | null | undefined,
): { entries: TraceEntry[]; originMs: number } {
  if (entries.length === 0) return { entries: [], originMs: 0 };
  const t0 = entries[0].timestamp_ms;
  if (!window) return { entries: entries.slice(), originMs: t0 };
  const from = t0 + window.startS * 1000;
  const to = window.endS === null ? Number.POSITIVE_INFINITY : t0 + window.endS * 1000;
  return { entries: entries.filter((e) => e.timestamp_ms >= from && e.timestamp_ms < to), originMs: from };
}

/** The English notes that name every skipped row (the run's notes, stored with its report). */
export function skipNotes(skipped: readonly TraceSkip[], t: T = EN): string[] {
  return skipped.map((s) =>
    t(s.reason, { count: s.count, lines: `${s.lines.join(', ')}${s.count > s.lines.length ? ', …' : ''}` }),
  );
}
