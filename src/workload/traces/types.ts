/**
 * @module workload/traces/types
 * What every trace parser returns: the requests in trace order, each on its own clock in ms,
 * plus every problem (with its line) and every row it skipped (counted and named, never silent).
 */
import type { Problem } from '../../core/errors.js';
import type { MessageKey } from '../../i18n/index.js';
import type { PromptEntry } from '../files.js';

/** Trace formats `--trace-format` accepts (docs/traces.md). */
export const TRACE_FORMATS = ['azure', 'burstgpt', 'mooncake', 'servelab'] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];

/** One request of a trace. */
export interface TraceEntry extends PromptEntry {
  /**
   * Arrival time in ms on the trace's own clock: Azure's datetimes as ms since the Unix epoch
   * (UTC), BurstGPT's seconds × 1000, Mooncake's and servelab's ms as written. Only differences
   * are ever used.
   */
  timestamp_ms: number;
  /** Input length (tokens) when the line gives no text; the prompt is generated to this length. */
  input_len?: number;
  /** Mooncake: the chained hash of each block of the prompt (`--trace-block-size` tokens each). */
  hash_ids?: readonly number[];
}

/** Rows a parser left out, by reason: the count and the first few line numbers. */
export interface TraceSkip {
  /** The catalogue key that names the reason (`{count}` and `{lines}` placeholders). */
  reason: MessageKey;
  count: number;
  /** Line numbers of the first skipped rows (at most {@link SKIP_LINES_KEPT}). */
  lines: number[];
}

/** Line numbers kept per skip reason, for the note. */
export const SKIP_LINES_KEPT = 5;

/** A parsed trace. */
export interface ParsedTrace {
  format: TraceFormat;
  entries: TraceEntry[];
  problems: Problem[];
  skipped: TraceSkip[];
}

/** Count one skipped row under `reason`. */
export function skipRow(skipped: TraceSkip[], reason: MessageKey, line: number): void {
  let s = skipped.find((x) => x.reason === reason);
  if (!s) {
    s = { reason, count: 0, lines: [] };
    skipped.push(s);
  }
  s.count++;
  if (s.lines.length < SKIP_LINES_KEPT) s.lines.push(line);
}
