/**
 * @module sim/frontend
 * What happens to a request before the engine sees it, shared by the HTTP server and `plan` so
 * both give identical numbers: tokenisation, the output length the "model" will choose, and the
 * fixed front-end overhead (tokenisation + HTTP handling) added before the engine's arrival time.
 */
import { hashString, Rng } from '../runtime/rng.js';
import type { Tokenizer } from '../tokenizer/index.js';

/**
 * Front-end overhead, ms: HTTP parsing, chat templating and tokenisation in vLLM's API server
 * before the request reaches the engine core. Measured vLLM TTFT for Llama-3.1-8B on H100 at
 * concurrency 1 is 14.0 ms for short prompts (yobitelcomm.github.io/bench "concurrency sweep",
 * vLLM 0.21) while the cost model puts the
 * prefill step at ~7 ms; we attribute 5 ms of the rest to the server front-end and leave the
 * remainder to client and network time.
 */
export const FRONTEND_OVERHEAD_MS = 5;

/** Median output length (tokens) of a request that stops on its own. */
export const EOS_MEDIAN_TOKENS = 200;
/**
 * Log-space standard deviation of output lengths. With median 200, σ = 0.9 gives a mean of
 * ~300 and a p90 of ~630 tokens: the long right tail of chat outputs (ShareGPT-like).
 */
export const EOS_SIGMA = 0.9;

/** Prompt token ids as the simulated server counts them (usage.prompt_tokens, /tokenize, cost model). */
export function promptTokenIds(tokenizer: Tokenizer, text: string): number[] {
  return tokenizer.encode(text);
}

export interface EosOptions {
  /** Median natural output length, tokens (default {@link EOS_MEDIAN_TOKENS}). */
  medianTokens?: number;
  /** Log-space σ (default {@link EOS_SIGMA}). */
  sigma?: number;
}

/** 32-bit hash of a token-id sequence (FNV-1a over the ids' 32-bit values). */
function hashIds(ids: ArrayLike<number>): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < ids.length; i++) {
    h = Math.imul(h ^ (ids[i] & 0xffff), 0x01000193);
    h = Math.imul(h ^ (ids[i] >>> 16), 0x01000193);
  }
  return h >>> 0;
}

/**
 * Number of tokens a request generates before it emits EOS. Lognormal (median
 * {@link EOS_MEDIAN_TOKENS}, σ {@link EOS_SIGMA}), drawn from a hash of (prompt ids, seed) only,
 * never from arrival order, so both arms of an A/B get the same lengths. At least 1, at most
 * `maxTokens` (a request that reaches `maxTokens` finishes with `length`). With `ignore_eos` the
 * caller uses `maxTokens` instead.
 *
 * @param seed the request's `seed` field (null/undefined = 0).
 * @param maxTokens the request's max_tokens, tokens.
 */
export function eosLength(
  promptIds: ArrayLike<number>,
  seed: number | string | null | undefined,
  maxTokens: number,
  opts: EosOptions = {},
): number {
  const seedHash = typeof seed === 'string' ? hashString(seed) : (seed ?? 0) >>> 0;
  const rng = new Rng((hashIds(promptIds) ^ Math.imul(seedHash, 0x9e3779b1)) >>> 0);
  const median = opts.medianTokens ?? EOS_MEDIAN_TOKENS;
  const sigma = opts.sigma ?? EOS_SIGMA;
  const len = Math.round(median * Math.exp(sigma * rng.normal()));
  return Math.max(1, Math.min(maxTokens, len));
}
