/**
 * @module test/record/outcome
 * The truncation rule, case by case: a length stop is a truncation unless the request asked for
 * an expected length and the server's usage shows it got there.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isTruncated, type LengthStop } from '../../src/record/outcome.js';

describe('isTruncated', () => {
  const table: [string, LengthStop, boolean][] = [
    ['asked for 128, got 128', { finish_reason: 'length', output_len: 128, completion_tokens: 128 }, false],
    [
      'asked for 128, the server gave more',
      { finish_reason: 'length', output_len: 128, completion_tokens: 130 },
      false,
    ],
    [
      'asked for 128, stopped at 100 (max_model_len)',
      { finish_reason: 'length', output_len: 128, completion_tokens: 100 },
      true,
    ],
    [
      'asked for 128, no usage to confirm it',
      { finish_reason: 'length', output_len: 128, completion_tokens: null },
      true,
    ],
    [
      'no length asked (a generic cap)',
      { finish_reason: 'length', output_len: null, completion_tokens: 64 },
      true,
    ],
    [
      'no length asked, no usage',
      { finish_reason: 'length', output_len: null, completion_tokens: null },
      true,
    ],
    [
      'a natural stop below the asked length',
      { finish_reason: 'stop', output_len: 128, completion_tokens: 12 },
      false,
    ],
    [
      'a natural stop, no length asked',
      { finish_reason: 'stop', output_len: null, completion_tokens: 12 },
      false,
    ],
    [
      'no finish at all (not a length stop)',
      { finish_reason: null, output_len: 8, completion_tokens: 3 },
      false,
    ],
    ['tool calls', { finish_reason: 'tool_calls', output_len: null, completion_tokens: 20 }, false],
  ];
  for (const [name, stop, want] of table) {
    it(`${name} → ${want ? 'truncated' : 'not truncated'}`, () => {
      assert.equal(isTruncated(stop), want);
    });
  }
});
