/**
 * @module record/outcome
 * When a stop at the token limit is a truncation. The one rule that the HTTP client
 * (`client/stream`) and the virtual-time planner (`sim/batch-driver`) both apply when they classify a
 * record, so `outcome: "length"` means the same thing in `run`, `plan`, experiments, reports
 * and the diagnosis.
 */

/** What the rule reads: the finish, the expected length and the server's token count. */
export interface LengthStop {
  /** The response's `finish_reason`. */
  finish_reason: string | null;
  /** The record's expected output length (`output_len`): the workload's length, sent as max_tokens. */
  output_len: number | null;
  /** `usage.completion_tokens`, when the server sent it. */
  completion_tokens: number | null;
}

/**
 * Whether a response was cut short by a token limit (outcome `length`) rather than complete.
 *
 * A request that asked for an expected output length N (its spec's `output_len`, sent as
 * `max_tokens` N, with or without `ignore_eos`; or `max_tokens` N with `ignore_eos`, which tells
 * the server to run to N) and got at least N completion tokens by the
 * server's usage ended where it was asked to: complete, not truncated. Truncated are the
 * `finish_reason: "length"` stops that nobody planned: a request without an expected length
 * (its max_tokens was a generic cap such as `--max-tokens`, or the server's `max_model_len`
 * ended it), or one that stopped below its expected length. Without usage the length cannot be
 * confirmed, so such a stop stays truncated.
 * @example
 * isTruncated({ finish_reason: 'length', output_len: 128, completion_tokens: 128 }); // false
 * isTruncated({ finish_reason: 'length', output_len: null, completion_tokens: 128 }); // true
 */
export function isTruncated(s: LengthStop): boolean {
  if (s.finish_reason !== 'length') return false;
  if (s.output_len === null || s.completion_tokens === null) return true;
  return s.completion_tokens < s.output_len;
}
