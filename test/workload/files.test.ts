import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePromptsJsonl, parseShareGpt } from '../../src/workload/files.js';

describe('prompts JSONL', () => {
  it('reads prompt and messages lines with optional output_len, skipping blank lines and CRLF', () => {
    const text = '{"prompt":"hi"}\r\n\r\n{"messages":[{"role":"user","content":"yo"}],"output_len":7}\n';
    const r = parsePromptsJsonl(text, 'p.jsonl');
    assert.deepEqual(r.problems, []);
    assert.equal(r.entries.length, 2);
    assert.equal(r.entries[0].prompt, 'hi');
    assert.equal(r.entries[0].output_len, null);
    assert.deepEqual(r.entries[1].messages, [{ role: 'user', content: 'yo' }]);
    assert.equal(r.entries[1].output_len, 7);
  });

  it('reports every bad line at once, with its line number and a hint', () => {
    const text = [
      '{"prompt":"ok"}', // 1
      '{"prompt":', // 2 invalid JSON
      '[1,2]', // 3 not an object
      '{"output_len":5}', // 4 no text
      '{"prompt":"a","messages":[{"role":"user","content":"b"}]}', // 5 both
      '{"prompt":"a","output_len":0}', // 6 bad output_len
      '{"messages":[]}', // 7 empty messages
      '{"prompt":"fine","output_len":3}', // 8
    ].join('\n');
    const r = parsePromptsJsonl(text, 'p.jsonl');
    assert.deepEqual(
      r.problems.map((p) => p.path),
      ['p.jsonl:2', 'p.jsonl:3', 'p.jsonl:4', 'p.jsonl:5', 'p.jsonl:6', 'p.jsonl:7'],
    );
    assert.ok(r.problems.every((p) => p.hint && p.message));
    assert.match(r.problems[3].message, /only one/);
    assert.match(r.problems[4].message, /output_len/);
    assert.equal(r.entries.length, 2);
  });

  it('an empty file is a problem', () => {
    assert.equal(parsePromptsJsonl('\n\n', 'e.jsonl').problems.length, 1);
  });
});

describe('ShareGPT', () => {
  it('takes the first human turn and the reply after it; skips entries without one', () => {
    const data = [
      {
        id: 'a',
        conversations: [
          { from: 'human', value: 'Q1' },
          { from: 'gpt', value: 'A1' },
          { from: 'human', value: 'Q2' },
        ],
      },
      {
        id: 'b',
        conversations: [
          { from: 'system', value: 'S' },
          { from: 'human', value: 'Q' },
          { from: 'gpt', value: 'A' },
        ],
      },
      { id: 'c', conversations: [{ from: 'human', value: 'alone' }] },
      {
        id: 'd',
        conversations: [
          { from: 'gpt', value: 'x' },
          { from: 'human', value: 'y' },
        ],
      },
      { id: 'e' },
    ];
    const r = parseShareGpt(JSON.stringify(data), 's.json');
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.pairs, [
      { prompt: 'Q1', reply: 'A1' },
      { prompt: 'Q', reply: 'A' },
    ]);
    assert.equal(r.malformed, 3);
  });

  it('reports a file that is not the ShareGPT shape', () => {
    assert.match(parseShareGpt('{"a":1}', 's.json').problems[0].message, /not an array/);
    assert.match(parseShareGpt('[', 's.json').problems[0].message, /invalid JSON/);
    assert.match(parseShareGpt('[{"conversations":[]}]', 's.json').problems[0].message, /no entry/);
  });
});
