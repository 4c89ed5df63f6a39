/**
 * The shared front-end: token ids and the natural output length.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Rng } from '../../src/runtime/rng.js';
import { EOS_MEDIAN_TOKENS, eosLength, promptTokenIds } from '../../src/sim/frontend.js';
import { approximateTokenizer } from '../../src/tokenizer/index.js';

const prompts = (n: number) => {
  const rng = new Rng(9);
  return Array.from({ length: n }, () => Array.from({ length: 40 }, () => rng.int(0, 150_000)));
};

describe('frontend', () => {
  it('tokenises with the shared tokenizer, identical prefixes giving identical ids', () => {
    const a = promptTokenIds(approximateTokenizer, 'The quick brown fox jumps over the lazy dog.');
    const b = promptTokenIds(approximateTokenizer, 'The quick brown fox jumps over the lazy cat.');
    assert.ok(a.length > 5);
    assert.deepEqual(a.slice(0, -2), b.slice(0, -2));
  });

  it('derives the output length from (prompt, seed) only', () => {
    const [p, q] = prompts(2);
    assert.equal(eosLength(p, 1, 4096), eosLength([...p], 1, 4096));
    const bySeed = new Set(Array.from({ length: 20 }, (_, s) => eosLength(p, s, 4096)));
    assert.ok(bySeed.size > 10, 'the seed changes the length');
    const byPrompt = new Set(prompts(20).map((x) => eosLength(x, 1, 4096)));
    assert.ok(byPrompt.size > 10, 'the prompt changes the length');
    // A string seed is hashed: the same string gives the same length, different ones vary.
    const byString = (seed: string) => eosLength(p, seed, 4096);
    assert.equal(byString('abc'), byString('abc'));
    assert.ok(Number.isInteger(byString('abc')) && byString('abc') >= 1 && byString('abc') <= 4096);
    assert.ok(
      new Set(Array.from({ length: 20 }, (_, i) => byString(`s${i}`))).size > 10,
      'the string seed matters',
    );
    assert.equal(eosLength(q, null, 4096), eosLength(q, 0, 4096));
  });

  it('follows a lognormal with median ~200 tokens, capped by max_tokens', () => {
    const lens = prompts(3000)
      .map((p) => eosLength(p, 7, 100_000))
      .sort((a, b) => a - b);
    const median = lens[1500];
    assert.ok(median > EOS_MEDIAN_TOKENS * 0.9 && median < EOS_MEDIAN_TOKENS * 1.1, `median ${median}`);
    assert.ok(lens[2700] > 2.5 * median, 'long right tail');
    assert.ok(lens[0] >= 1);
    const capped = prompts(500).map((p) => eosLength(p, 7, 64));
    assert.ok(Math.max(...capped) === 64 && capped.every((x) => x >= 1 && x <= 64));
  });
});
