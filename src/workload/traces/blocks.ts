/**
 * @module workload/traces/blocks
 * Mooncake's block hashes turned back into text, so that a trace's prefix sharing replays on a
 * real engine and on the simulator. Each hash gets its own token-exact text of one block
 * (`blockSize` tokens of vocabulary words from a stream seeded by the hash), built once and
 * cached, so requests with equal leading hash_ids begin with exactly the same text; a prompt is
 * its blocks joined by single spaces. The last block holds the remainder of input_length: the
 * first words of the same hash's stream fitted to that many tokens, so a partial block is a
 * prefix of the full one.
 *
 * Why the blocks stay identical as tokens: every vocabulary word is one token with and without
 * a leading space (`workload/vocab`), and pre-tokenisers split before a space, so no token
 * spans two blocks; the prefix cache (the simulator's, vLLM's) sees the same token ids for the
 * same leading blocks. Block boundaries need not align with the engine's block size (16 tokens
 * in vLLM): the cache hits on its own blocks that lie wholly inside the shared prefix.
 */
import { hashString, Rng } from '../../runtime/rng.js';
import { type FittedText, fitText, type TokenCounter, WordStream } from '../exact.js';
import type { TraceEntry } from './types.js';

/** Fitted block texts by `hash` (a full block) or `hash:tokens` (a last, partial one). */
export type BlockTextCache = Map<string, Promise<FittedText>>;

/** The word stream of hash `h`: distinct for distinct hashes below 2³² (an XOR with the seed's hash). */
function hashStream(seed: number, h: number): WordStream {
  const base = hashString(`${seed}:mooncake-block`);
  const mixed = h >= 0 && h < 2 ** 32 ? (base ^ h) >>> 0 : hashString(`${seed}:mooncake-block:${h}`);
  return new WordStream(new Rng(mixed));
}

/**
 * The prompt of each entry with hash_ids (others get ''), built from cached per-hash blocks.
 * @param blockSize tokens per block (the trace's; Mooncake 512)
 * @param cache shared across calls to reuse blocks (one per workload by default)
 * @returns the texts, how many blocks missed their count (normally 0) and the distinct blocks built
 */
export async function blockTexts(
  entries: readonly TraceEntry[],
  blockSize: number,
  counter: TokenCounter,
  seed: number,
  cache: BlockTextCache = new Map(),
): Promise<{ texts: string[]; inexact: number; blocks: number }> {
  let inexact = 0;
  const block = (h: number, tokens: number): Promise<FittedText> => {
    const key = tokens === blockSize ? String(h) : `${h}:${tokens}`;
    let p = cache.get(key);
    if (!p) {
      p = fitText(counter, hashStream(seed, h), tokens).then((fit) => {
        if (fit.tokens !== tokens) inexact++;
        return fit;
      });
      cache.set(key, p);
    }
    return p;
  };
  const texts: string[] = [];
  for (const e of entries) {
    const ids = e.hash_ids;
    if (!ids || ids.length === 0 || e.input_len === undefined) {
      texts.push('');
      continue;
    }
    const last = e.input_len - (ids.length - 1) * blockSize;
    const parts = await Promise.all(ids.map((h, j) => block(h, j === ids.length - 1 ? last : blockSize)));
    texts.push(parts.map((p) => p.text).join(' '));
  }
  return { texts, inexact, blocks: cache.size };
}
