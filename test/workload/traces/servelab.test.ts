import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { translator } from '../../../src/i18n/index.js';
import { parseServelabTrace } from '../../../src/workload/traces/servelab.js';

const EN = translator('en');
const parseTraceJsonl = (text: string, path: string) => parseServelabTrace(text, path, EN);

describe('trace JSONL', () => {
  it('reads input_len, prompt and messages lines with timestamps', () => {
    const text = [
      '{"timestamp_ms":0,"input_len":10,"output_len":5}',
      '{"timestamp_ms":100,"prompt":"hello","output_len":3}',
      '{"timestamp_ms":100,"messages":[{"role":"user","content":"x"}]}',
    ].join('\n');
    const r = parseTraceJsonl(text, 't.jsonl');
    assert.deepEqual(r.problems, []);
    assert.deepEqual(
      r.entries.map((e) => [e.timestamp_ms, e.input_len, e.prompt, e.output_len]),
      [
        [0, 10, undefined, 5],
        [100, undefined, 'hello', 3],
        [100, undefined, undefined, null],
      ],
    );
  });

  it('reports every bad line: missing timestamp, no text, backwards time, bad JSON', () => {
    const text = [
      '{"timestamp_ms":50,"input_len":10}', // 1
      '{"input_len":10}', // 2 no timestamp
      '{"timestamp_ms":60}', // 3 no text
      '{"timestamp_ms":40,"prompt":"a"}', // 4 backwards
      'nope', // 5
      '{"timestamp_ms":70,"input_len":0}', // 6
    ].join('\n');
    const r = parseTraceJsonl(text, 't.jsonl');
    assert.deepEqual(
      r.problems.map((p) => p.path),
      ['t.jsonl:2', 't.jsonl:3', 't.jsonl:4', 't.jsonl:5', 't.jsonl:6'],
    );
    assert.match(r.problems[0].message, /timestamp_ms/);
    assert.match(r.problems[2].message, /earlier than line 3/);
    assert.equal(r.problems[2].hint, 'sort the trace by timestamp_ms');
  });
});
