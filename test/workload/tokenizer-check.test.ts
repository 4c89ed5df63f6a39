/**
 * A named offline tokenizer is exact only when the server's /tokenize agrees with it on a probe:
 * agreeing keeps it, a server that counts otherwise counts the prompts itself, and no answer
 * leaves it in use but approximate; the `tokenization:` line says which.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatTokenization } from '../../src/report/run/summary-table.js';
import { tokenizerFor } from '../../src/tokenizer/index.js';
import { buildWorkload } from '../../src/workload/build.js';
import { TOKENIZER_PROBE } from '../../src/workload/counting.js';

const opts = { seed: 1, count: 3, inputLen: 32, outputLen: 4, model: 'Qwen/Qwen3-8B' };
const qwen = await tokenizerFor('Qwen/Qwen3-8B');
const mine = qwen.encode(TOKENIZER_PROBE).length;

test('agrees: the offline tokenizer, exact', async () => {
  const w = await buildWorkload(opts, { tokenizeRemote: async (s) => qwen.encode(s).length });
  assert.equal(w.method, 'tokenizer');
  assert.deepEqual(w.tokenizer_check, {
    name: 'Qwen/Qwen3-8B',
    local: mine,
    server: mine,
    verdict: 'agrees',
  });
  assert.match(formatTokenization(w.method, w.notes, undefined, w.tokenizer_check), /\(exact: the server's/);
});

test('differs: the server counts the prompts', async () => {
  const other = async (s: string) => Math.ceil(s.length / 3);
  const w = await buildWorkload(opts, { tokenizeRemote: other });
  assert.equal(w.method, 'server_tokenize');
  assert.equal(w.tokenizer_check?.verdict, 'differs');
  for (const spec of w.specs) assert.equal(await other(spec.prompt ?? ''), 32);
  const line = formatTokenization(w.method, w.notes, undefined, w.tokenizer_check);
  assert.match(line, /not the one for Qwen\/Qwen3-8B/);
});

test('no /tokenize: the offline tokenizer, approximate, never exact', async () => {
  const w = await buildWorkload(opts, { tokenizeRemote: async () => null });
  assert.equal(w.method, 'tokenizer');
  assert.equal(w.tokenizer_check?.verdict, 'unchecked');
  const line = formatTokenization(w.method, w.notes, undefined, w.tokenizer_check);
  assert.doesNotMatch(line, /exact/);
  assert.match(line, /Qwen\/Qwen3-8B \(approximate/);
});
