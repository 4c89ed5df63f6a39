/**
 * @module workload/traces/mooncake
 * Mooncake traces (kvcache-ai/Mooncake: FAST25-release/README.md, FAST25-release/traces/
 * conversation_trace.jsonl, synthetic_trace.jsonl and toolagent_trace.jsonl). JSONL, one request
 * per line: `{"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, …]}`,
 * the arrival time in ms since the first request, the input and output lengths in tokens, and
 * the "remapped block hash" of each block of the prompt. Hashes are chained (a block's hash
 * depends on every block before it, as in a prefix cache), so two requests with equal leading
 * hash_ids share exactly that prefix. The published traces cut prompts into blocks of 512
 * tokens (ai-dynamo/dynamo: benchmarks/data_generator/README.md documents the same format with
 * `block_size` 512): hash_ids has ⌈input_length / 512⌉ entries, the last block holding the
 * remainder. `workload/traces/blocks` turns the hashes back into token-exact text.
 *
 * Time base: ms, as written.
 */
import type { Problem } from '../../core/errors.js';
import type { T } from '../../i18n/index.js';
import { jsonLines } from '../files.js';
import { lengthOf, MonotonicCheck } from './rows.js';
import { type ParsedTrace, skipRow, type TraceEntry, type TraceSkip } from './types.js';

/** Block size of Mooncake's published traces, tokens. */
export const MOONCAKE_BLOCK_SIZE = 512;

/**
 * Parse a Mooncake trace.
 * @param blockSize tokens per hash block (`--trace-block-size`, default 512): each line's hash_ids
 *   must number ⌈input_length / blockSize⌉
 */
export function parseMooncakeTrace(
  text: string,
  path: string,
  t: T,
  blockSize = MOONCAKE_BLOCK_SIZE,
): ParsedTrace {
  const hint = t('trace.mooncake.hint');
  const { rows, problems } = jsonLines(text, path, hint);
  const skipped: TraceSkip[] = [];
  const entries: TraceEntry[] = [];
  const clock = new MonotonicCheck('timestamp', t);
  for (const { line, value } of rows) {
    const where = `${path}:${line}`;
    const v = value as Record<string, unknown>;
    const before = problems.length;
    let ts: number | undefined;
    if (v.timestamp === undefined)
      problems.push({ path: where, message: t('trace.field.missing', { field: 'timestamp' }), hint });
    else if (typeof v.timestamp !== 'number' || !Number.isFinite(v.timestamp) || v.timestamp < 0)
      problems.push({
        path: where,
        message: t('trace.seconds.bad', { field: 'timestamp', got: JSON.stringify(v.timestamp) }),
        hint,
      });
    else ts = v.timestamp;
    const input = lengthOf(v.input_length, 'input_length', where, t, problems);
    const output = lengthOf(v.output_length, 'output_length', where, t, problems);
    let hashes: number[] | undefined;
    if (v.hash_ids !== undefined) {
      if (!Array.isArray(v.hash_ids) || !v.hash_ids.every((h) => Number.isSafeInteger(h)))
        problems.push({ path: where, message: t('trace.mooncake.hash_bad'), hint });
      else hashes = v.hash_ids as number[];
    }
    if (hashes && input !== undefined && hashes.length !== Math.ceil(input / blockSize))
      problems.push({
        path: where,
        message: t('trace.mooncake.blocks', {
          got: hashes.length,
          input,
          want: Math.ceil(input / blockSize),
          block: blockSize,
        }),
        hint: t('trace.mooncake.blocks_hint'),
      });
    if (ts !== undefined) clock.check(ts, line, where, problems);
    if (problems.length > before || ts === undefined || input === undefined || output === undefined) continue;
    if (input === 0) skipRow(skipped, 'trace.skip.zero_input', line);
    else if (output === 0) skipRow(skipped, 'trace.skip.zero_output', line);
    else
      entries.push({
        timestamp_ms: ts,
        input_len: input,
        output_len: output,
        ...(hashes ? { hash_ids: hashes } : {}),
      });
  }
  return { format: 'mooncake', entries, problems: problems as Problem[], skipped };
}
