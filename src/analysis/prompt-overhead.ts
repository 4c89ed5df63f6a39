/**
 * @module analysis/prompt-overhead
 * What the server adds to each prompt beyond the length servelab built it to: the BOS token and,
 * on chat requests, the chat template's role markers. Read from the measured records themselves
 * (`usage.prompt_tokens` against the planned `input_len`), so the same run states both numbers
 * side by side (docs/metrics.md, "Prompt overhead").
 */
import type { RequestRecord } from '../record/types.js';
import { describe } from './stats.js';

/** The requested prompt length and the tokens the server counted beyond it, per prompt. */
export interface PromptOverhead {
  /** Median requested `input_len` of the records compared (tokens). */
  requested_tokens: number;
  /** Median of `usage.prompt_tokens − input_len` (tokens): BOS plus the chat template. */
  overhead_tokens: number;
  /** Records compared. */
  n: number;
}

/**
 * Median `usage.prompt_tokens − input_len` over measured records that have both; null when none
 * does (no usage, or prompts sent as given with no planned length).
 */
export function promptOverheadTokens(records: readonly RequestRecord[]): PromptOverhead | null {
  const requested: number[] = [];
  const extra: number[] = [];
  for (const r of records) {
    const p = r.usage?.prompt_tokens;
    if (r.phase !== 'measure' || r.input_len === null || typeof p !== 'number') continue;
    requested.push(r.input_len);
    extra.push(p - r.input_len);
  }
  const req = describe(requested).p50;
  const over = describe(extra).p50;
  if (req === null || over === null) return null;
  return { requested_tokens: req, overhead_tokens: over, n: extra.length };
}
