import assert from 'node:assert/strict';
import { it } from 'node:test';
import { tokenizerFor } from '../../src/tokenizer/index.js';
import { buildWorkload } from '../../src/workload/build.js';

// One test: loading the Qwen3 tokenizer takes about a second.
it('synthetic prompts are token-exact under the real Qwen3 tokenizer, shared prefixes included', async () => {
  const w = await buildWorkload({
    seed: 7,
    count: 24,
    model: 'Qwen/Qwen3-8B',
    inputLen: 'uniform:40-400',
    sharedPrefixLen: 32,
    numPrefixGroups: 3,
  });
  assert.equal(w.method, 'tokenizer');
  assert.equal(w.inexact, 0);
  const tok = await tokenizerFor('qwen3');
  const prefixes = new Map<number, number[]>();
  for (const s of w.specs) {
    const ids = tok.encode(s.prompt!);
    assert.equal(ids.length, s.input_len, `request ${s.index}`);
    const head = ids.slice(0, 32);
    const seen = prefixes.get(s.prefix_group!);
    if (seen) assert.deepEqual(head, seen, `group ${s.prefix_group} prefix`);
    else prefixes.set(s.prefix_group!, head);
  }
  assert.equal(prefixes.size, 3);
  assert.equal(
    new Set([...prefixes.values()].map((p) => p[0])).size,
    3,
    'groups differ from the first token',
  );
});
