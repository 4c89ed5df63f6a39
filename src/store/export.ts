/**
 * @module store/export
 * Exports of one stored run in formats DuckDB and pandas read without help:
 * - `csv`: one row per request record, flat columns (RFC 4180 quoting, empty cell = null;
 *   `chunk_times_ms` and `timings` are JSON text in their cell, `chunk_kinds` a string like `rrcc`);
 * - `jsonl`: one request record per line, as stored, with `run_id` and `seq` added;
 * - `json`: one object `{format, schema_version, run, records, series}`;
 * - `chrome-trace`: the run's engine steps (`--record-steps`) as a Chrome Trace Event Format JSON
 *   for the Perfetto UI (`report/step-trace`).
 * Output is written with backpressure, so a million-record run does not sit in memory.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { UsageError } from '../core/errors.js';
import { translator } from '../i18n/index.js';
import type { RequestRecord } from '../record/types.js';
import { stepTrace } from '../report/step-trace.js';
import { parseRecordRow } from './rows.js';
import { getRunSteps } from './steps.js';
import type { Store } from './store.js';

export const EXPORT_FORMATS = ['csv', 'jsonl', 'json', 'chrome-trace'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Version of the export layout (bumped when columns or keys change meaning). */
export const EXPORT_SCHEMA_VERSION = 1;

/** CSV columns, in order. Times are ms on the run clock; token counts are tokens. */
export const CSV_COLUMNS = [
  'run_id',
  'seq',
  'id',
  'planned_id',
  'attempt',
  'phase',
  'index',
  'outcome',
  'finish_reason',
  'done',
  'has_content',
  'http_status',
  'error',
  'retry_after_s',
  'planned_at_ms',
  'sent_at_ms',
  'headers_at_ms',
  'first_chunk_at_ms',
  'first_token_at_ms',
  'first_reasoning_at_ms',
  'first_content_at_ms',
  'last_token_at_ms',
  'last_content_at_ms',
  'end_at_ms',
  'n_chunks',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'reasoning_tokens',
  'cached_tokens',
  'input_len',
  'output_len',
  'session_id',
  'turn',
  'stage',
  'chunk_times_ms',
  'chunk_kinds',
  'timings',
] as const;

/** Flatten one record into the CSV column values (null = empty cell). */
export function flattenRecord(
  runId: string,
  seq: number,
  r: RequestRecord,
): Record<(typeof CSV_COLUMNS)[number], unknown> {
  return {
    run_id: runId,
    seq,
    id: r.id,
    planned_id: r.planned_id,
    attempt: r.attempt,
    phase: r.phase,
    index: r.index,
    outcome: r.outcome,
    finish_reason: r.finish_reason,
    done: r.done,
    has_content: r.has_content,
    http_status: r.http_status,
    error: r.error,
    retry_after_s: r.retry_after_s,
    planned_at_ms: r.planned_at_ms,
    sent_at_ms: r.sent_at_ms,
    headers_at_ms: r.headers_at_ms,
    first_chunk_at_ms: r.first_chunk_at_ms,
    first_token_at_ms: r.first_token_at_ms,
    first_reasoning_at_ms: r.first_reasoning_at_ms,
    first_content_at_ms: r.first_content_at_ms,
    last_token_at_ms: r.last_token_at_ms,
    last_content_at_ms: r.last_content_at_ms,
    end_at_ms: r.end_at_ms,
    n_chunks: r.chunk_times_ms.length,
    prompt_tokens: r.usage?.prompt_tokens ?? null,
    completion_tokens: r.usage?.completion_tokens ?? null,
    total_tokens: r.usage?.total_tokens ?? null,
    reasoning_tokens: r.usage?.reasoning_tokens ?? null,
    cached_tokens: r.usage?.cached_tokens ?? null,
    input_len: r.input_len,
    output_len: r.output_len,
    session_id: r.session_id ?? null,
    turn: r.turn ?? null,
    stage: r.stage ?? null,
    chunk_times_ms: JSON.stringify(r.chunk_times_ms),
    chunk_kinds: r.chunk_kinds.join(''),
    timings: r.timings === null ? null : JSON.stringify(r.timings),
  };
}

/** One CSV cell: empty for null, quoted when it holds a comma, quote, or line break. */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s =
    typeof v === 'string'
      ? v
      : typeof v === 'number' || typeof v === 'boolean'
        ? String(v)
        : JSON.stringify(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** Writes strings to a stream, honouring backpressure, in ~64 KiB pieces. */
class Sink {
  private buf: string[] = [];
  private size = 0;
  constructor(private readonly out: Writable) {}
  async write(s: string): Promise<void> {
    this.buf.push(s);
    this.size += s.length;
    if (this.size >= 65536) await this.drain();
  }
  async drain(): Promise<void> {
    if (this.buf.length === 0) return;
    const s = this.buf.join('');
    this.buf = [];
    this.size = 0;
    if (!this.out.write(s)) await once(this.out, 'drain');
  }
}

/**
 * Write run `id` (or a unique id prefix) to `out` in `format`. Does not end `out`.
 * @throws UsageError for an unknown format or run.
 * @example
 * await exportRun(store, 'k3f9', 'csv', fs.createWriteStream('run.csv'));
 * // duckdb: SELECT outcome, count(*) FROM 'run.csv' GROUP BY 1
 */
export async function exportRun(
  store: Store,
  id: string,
  format: ExportFormat,
  out: Writable,
): Promise<void> {
  if (!(EXPORT_FORMATS as readonly string[]).includes(format))
    throw new UsageError([
      {
        path: '--format',
        message: `unknown export format ${format}`,
        hint: `use one of ${EXPORT_FORMATS.join(', ')}`,
      },
    ]);
  const run = store.getRun(id);
  if (!run)
    throw new UsageError([
      { message: `no run ${id} in ${store.path}`, hint: 'servelab runs list shows the stored ones' },
    ]);
  const sink = new Sink(out);
  if (format === 'chrome-trace') {
    const steps = getRunSteps(store, run.id);
    const t = translator('en');
    if (!steps.length)
      throw new UsageError([
        { message: t('steps.no_steps', { id: run.id }), hint: t('steps.no_steps_hint') },
      ]);
    await sink.write(`${JSON.stringify(stepTrace(steps, run.label ?? run.id))}\n`);
  } else if (format === 'csv') {
    await sink.write(`${CSV_COLUMNS.join(',')}\n`);
    for (const row of store.getRecordRows(run.id)) {
      const flat = flattenRecord(run.id, row.seq, parseRecordRow(store.path, run.id, row));
      await sink.write(`${CSV_COLUMNS.map((c) => csvCell(flat[c])).join(',')}\n`);
    }
  } else if (format === 'jsonl') {
    for (const row of store.getRecordRows(run.id)) {
      parseRecordRow(store.path, run.id, row); // never a line that is not JSON
      await sink.write(`{"run_id":${JSON.stringify(run.id)},"seq":${row.seq},${row.record.slice(1)}\n`);
    }
  } else {
    const { status, stored_status, records, ...rest } = run;
    const head = {
      format: 'servelab-run',
      schema_version: EXPORT_SCHEMA_VERSION,
      run: { ...rest, status, stored_status, records },
    };
    await sink.write(`${JSON.stringify(head).slice(0, -1)},"records":[`);
    let first = true;
    for (const row of store.getRecordRows(run.id)) {
      parseRecordRow(store.path, run.id, row);
      await sink.write(first ? `\n${row.record}` : `,\n${row.record}`);
      first = false;
    }
    await sink.write(`\n],"series":${JSON.stringify(store.getSeries(run.id))}}\n`);
  }
  await sink.drain();
}
