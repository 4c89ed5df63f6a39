import assert from 'node:assert/strict';
import { test } from 'node:test';
import { promptOverheadTokens } from '../../src/analysis/prompt-overhead.js';
import type { RequestRecord } from '../../src/record/types.js';

const rec = (input: number | null, prompt: number | null, phase = 'measure') =>
  ({
    phase,
    input_len: input,
    usage: prompt === null ? null : { prompt_tokens: prompt },
  }) as unknown as RequestRecord;

test('prompt overhead: median usage.prompt_tokens − input_len over measured records', () => {
  const o = promptOverheadTokens([
    rec(64, 82),
    rec(64, 82),
    rec(64, 83),
    rec(64, 500, 'warmup'),
    rec(null, 9),
  ]);
  assert.deepEqual(o, { requested_tokens: 64, overhead_tokens: 18, n: 3 });
});

test('prompt overhead: null when no record has both numbers', () => {
  assert.equal(promptOverheadTokens([rec(64, null), rec(null, 10)]), null);
  assert.equal(promptOverheadTokens([]), null);
});
