/**
 * @module sim/server/logprobs
 * Simulated log-probabilities: for each output token, its logprob and `k` alternatives, a pure
 * function of (text seed, token index), so the same request gives the same numbers streamed or
 * not. The shapes are OpenAI's: chat `choices[].logprobs.content[]` entries
 * `{token, logprob, bytes, top_logprobs}` and the legacy completions object
 * `{tokens, token_logprobs, top_logprobs, text_offset}`.
 *
 * Model: the candidates' logprobs descend from the top one (−0.05 … −1.5) in steps of 0.3–2.5.
 * Greedy (temperature 0): the chosen token is the top candidate. Sampled: it is the top one
 * three times in four, otherwise the 2nd–4th (kept inside the `k` returned, so `top_logprobs`
 * always contains it when `k ≥ 1`). Alternatives are vocabulary words other than the chosen token.
 */
import { mix32, VOCABULARY } from './text.js';

/** Largest `top_logprobs` / completions `logprobs` accepted (vLLM's default `--max-logprobs`). */
export const MAX_LOGPROBS = 20;

export interface TopLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

/** One chat `logprobs.content[]` entry. */
export interface TokenLogprob extends TopLogprob {
  top_logprobs: TopLogprob[];
}

const bytesOf = (s: string) => Array.from(Buffer.from(s, 'utf8'));

/**
 * The logprob entry of output token `index` (text `token`), with `k` alternatives.
 * @example tokenLogprob(seed, 0, ' the', 3, true).top_logprobs[0].token === ' the'
 */
export function tokenLogprob(
  seed: number,
  index: number,
  token: string,
  k: number,
  greedy: boolean,
): TokenLogprob {
  const h = (j: number) => mix32(seed ^ 0x10a9, index * 64 + j);
  const count = Math.max(k, 1);
  // Descending logprobs of the candidates.
  const lps: number[] = [];
  let lp = -(0.05 + (h(0) / 4294967296) * 1.45);
  for (let j = 0; j < Math.max(count, 4); j++) {
    lps.push(Math.round(lp * 1e4) / 1e4);
    lp -= 0.3 + (h(j + 1) / 4294967296) * 2.2;
  }
  let rank = 0;
  if (!greedy && h(40) % 4 === 0) rank = 1 + (h(41) % 3);
  if (rank >= count) rank = count - 1;
  // Alternatives: distinct vocabulary words, none equal to the chosen token.
  const alts: string[] = [];
  const used = new Set([token]);
  for (let j = 0; alts.length < count - 1 && j < count * 8; j++) {
    const w = VOCABULARY[h(42 + j) % VOCABULARY.length];
    if (!used.has(w)) {
      used.add(w);
      alts.push(w);
    }
  }
  const cands: string[] = [...alts.slice(0, rank), token, ...alts.slice(rank)];
  const top: TopLogprob[] = [];
  for (let j = 0; j < k && j < cands.length; j++)
    top.push({ token: cands[j], logprob: lps[j], bytes: bytesOf(cands[j]) });
  return { token, logprob: lps[rank], bytes: bytesOf(token), top_logprobs: top };
}

/** Chat `choice.logprobs` for these entries. */
export function chatLogprobs(entries: readonly TokenLogprob[]): { content: TokenLogprob[] } {
  return { content: [...entries] };
}

/**
 * The legacy completions `logprobs` object for these entries; `startOffset` is the character
 * offset of the first token in the completion text (streamed chunks continue the count).
 */
export function completionLogprobs(
  entries: readonly TokenLogprob[],
  startOffset: number,
): {
  tokens: string[];
  token_logprobs: number[];
  top_logprobs: Record<string, number>[];
  text_offset: number[];
} {
  const tokens: string[] = [];
  const tokenLogprobs: number[] = [];
  const top: Record<string, number>[] = [];
  const offsets: number[] = [];
  let at = startOffset;
  for (const e of entries) {
    tokens.push(e.token);
    tokenLogprobs.push(e.logprob);
    const m: Record<string, number> = {};
    for (const t of e.top_logprobs) m[t.token] = t.logprob;
    top.push(m);
    offsets.push(at);
    at += e.token.length;
  }
  return { tokens, token_logprobs: tokenLogprobs, top_logprobs: top, text_offset: offsets };
}
