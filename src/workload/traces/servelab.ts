/**
 * @module workload/traces/servelab
 * servelab's own trace JSONL (docs/traces.md): one request per line,
 * `{"timestamp_ms": N, "input_len": N | "prompt": "..." | "messages": [...], "output_len": N}`.
 * The only format that can carry prompt text. Time base: ms.
 */
import { z } from 'zod';
import type { T } from '../../i18n/index.js';
import { byLine, jsonLines, pickText, promptLineSchema, zodProblems } from '../files.js';
import { MonotonicCheck } from './rows.js';
import type { ParsedTrace, TraceEntry } from './types.js';

const traceLineSchema = promptLineSchema.extend({
  timestamp_ms: z.number().min(0),
  input_len: z.number().int().min(1).optional(),
});

/**
 * Parse a servelab trace. Timestamps must not go backwards, so offsets taken from the first line
 * are never negative.
 */
export function parseServelabTrace(text: string, path: string, t: T): ParsedTrace {
  const hint = t('trace.servelab.hint');
  const { rows, problems } = jsonLines(text, path, hint);
  const entries: TraceEntry[] = [];
  const clock = new MonotonicCheck('timestamp_ms', t);
  for (const { line, value } of rows) {
    const where = `${path}:${line}`;
    const r = traceLineSchema.safeParse(value);
    if (!r.success) {
      problems.push(...zodProblems(where, r.error.issues, hint));
      continue;
    }
    const p = pickText(r.data, where, hint, true);
    if (p) problems.push(p);
    clock.check(r.data.timestamp_ms, line, where, problems);
    if (p) continue;
    entries.push({
      timestamp_ms: r.data.timestamp_ms,
      prompt: r.data.prompt,
      messages: r.data.messages,
      input_len: r.data.input_len,
      output_len: r.data.output_len ?? null,
    });
  }
  problems.sort(byLine);
  return { format: 'servelab', entries, problems, skipped: [] };
}
