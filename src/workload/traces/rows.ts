/**
 * @module workload/traces/rows
 * The checks every trace format shares, so each parser only says where its fields are: a
 * length is an integer ≥ 0 (a negative one is an error at its line; a zero one is skipped and
 * counted, since a request needs a prompt and at least one output token), and timestamps never go
 * backwards. The CSV formats (Azure, BurstGPT) also share {@link parseCsvTrace}: they differ only
 * in their column names and time base.
 */
import type { Problem } from '../../core/errors.js';
import type { MessageKey, T } from '../../i18n/index.js';
import { columnIndex, readCsv } from './csv.js';
import { type ParsedTrace, skipRow, type TraceEntry, type TraceFormat, type TraceSkip } from './types.js';

/** A token length from a trace field: an integer ≥ 0, given as a number or a numeric string. */
export function lengthOf(
  raw: unknown,
  field: string,
  where: string,
  t: T,
  problems: Problem[],
): number | undefined {
  const s = typeof raw === 'string' ? raw.trim() : raw;
  const v = typeof s === 'number' ? s : typeof s === 'string' && s !== '' ? Number(s) : Number.NaN;
  const hint = t('trace.length.hint', { field });
  if (raw === undefined || raw === null || (typeof s === 'string' && s === '')) {
    problems.push({ path: where, message: t('trace.field.missing', { field }), hint });
    return undefined;
  }
  if (!Number.isFinite(v)) {
    problems.push({ path: where, message: t('trace.value.not_number', { field, got: String(raw) }), hint });
    return undefined;
  }
  if (v < 0) {
    problems.push({ path: where, message: t('trace.length.negative', { field, got: v }), hint });
    return undefined;
  }
  if (!Number.isInteger(v)) {
    problems.push({ path: where, message: t('trace.length.not_integer', { field, got: v }), hint });
    return undefined;
  }
  return v;
}

/** Checks that timestamps never go backwards, remembering the last line. */
export class MonotonicCheck {
  private last: { ts: number; line: number; shown: string } | undefined;

  constructor(
    private readonly field: string,
    private readonly t: T,
  ) {}

  /** Push a problem when `ts` is earlier than the previous row's; `shown` is the value as written. */
  check(ts: number, line: number, where: string, problems: Problem[], shown = String(ts)): void {
    if (this.last && ts < this.last.ts)
      problems.push({
        path: where,
        message: this.t('trace.time.backwards', {
          field: this.field,
          got: shown,
          line: this.last.line,
          prev: this.last.shown,
        }),
        hint: this.t('trace.time.backwards_hint', { field: this.field }),
      });
    this.last = { ts, line, shown };
  }
}

/** Where a CSV format keeps its fields, and how to read its time column. */
export interface CsvTraceSpec {
  format: TraceFormat;
  time: string;
  input: string;
  output: string;
  /** Other columns the format's header has (checked present, not read). */
  others?: readonly string[];
  /** The time field in ms on the trace's clock; undefined when unreadable (a problem is pushed). */
  parseTime(raw: string, where: string, t: T, problems: Problem[]): number | undefined;
  /** The skip reason for a row whose output length is 0. */
  zeroOutput: MessageKey;
}

/** Parse a CSV trace of `spec`'s format. */
export function parseCsvTrace(text: string, path: string, t: T, spec: CsvTraceSpec): ParsedTrace {
  const problems: Problem[] = [];
  const skipped: TraceSkip[] = [];
  const entries: TraceEntry[] = [];
  const table = readCsv(text);
  const out = { format: spec.format, entries, problems, skipped };
  if (!table) {
    problems.push({ path, message: t('trace.empty'), hint: t(`trace.${spec.format}.hint` as MessageKey) });
    return out;
  }
  const wanted = [spec.time, spec.input, spec.output, ...(spec.others ?? [])];
  const idx = wanted.map((c) => columnIndex(table.header, c));
  const missing = wanted.filter((_, i) => idx[i] < 0);
  for (const column of missing)
    problems.push({
      path: `${path}:${table.headerLine}`,
      message: t('trace.column.missing', { column, columns: table.header.join(', ') }),
      hint: t(`trace.${spec.format}.hint` as MessageKey),
    });
  if (missing.length) return out;
  const [ti, ii, oi] = idx;
  const clock = new MonotonicCheck(spec.time, t);
  for (const { line, cells } of table.rows) {
    const where = `${path}:${line}`;
    if (cells.length < table.header.length) {
      problems.push({
        path: where,
        message: t('trace.row.columns', { want: table.header.length, got: cells.length }),
        hint: t(`trace.${spec.format}.hint` as MessageKey),
      });
      continue;
    }
    const before = problems.length;
    const rawTime = cells[ti].trim();
    const ts = spec.parseTime(rawTime, where, t, problems);
    const input = lengthOf(cells[ii], spec.input, where, t, problems);
    const output = lengthOf(cells[oi], spec.output, where, t, problems);
    if (ts !== undefined) clock.check(ts, line, where, problems, rawTime);
    if (problems.length > before || ts === undefined || input === undefined || output === undefined) continue;
    if (input === 0) skipRow(skipped, 'trace.skip.zero_input', line);
    else if (output === 0) skipRow(skipped, spec.zeroOutput, line);
    else entries.push({ timestamp_ms: ts, input_len: input, output_len: output });
  }
  return out;
}
