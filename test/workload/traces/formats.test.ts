/**
 * The trace parsers: each public format read as its README describes it, the format detected
 * from the first line (an explicit format wins), and every bad row reported with its line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { translator } from '../../../src/i18n/index.js';
import {
  azureTimeMs,
  detectTraceFormat,
  parseTrace,
  windowTrace,
} from '../../../src/workload/traces/index.js';

const zh = translator('zh-CN');

describe('azureTimeMs', () => {
  const cases: [string, number | undefined][] = [
    ['2023-11-16 18:15:46.6805900', Date.UTC(2023, 10, 16, 18, 15, 46) + 680.59],
    ['2023-11-16 18:15:46', Date.UTC(2023, 10, 16, 18, 15, 46)],
    ['2023-11-16T18:15:46.5Z', Date.UTC(2023, 10, 16, 18, 15, 46) + 500],
    ['2023-11-16 20:15:46+02:00', Date.UTC(2023, 10, 16, 18, 15, 46)],
    ['2023-13-16 18:15:46', undefined],
    ['18:15:46', undefined],
    ['', undefined],
  ];
  for (const [raw, want] of cases)
    it(`reads "${raw}"`, () => {
      const got = azureTimeMs(raw);
      if (want === undefined) assert.equal(got, undefined);
      else assert.ok(Math.abs((got as number) - want) < 1e-3, `${got} vs ${want}`);
    });
});

describe('detectTraceFormat', () => {
  const cases: [string, string | undefined][] = [
    ['TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,10,5\n', 'azure'],
    ['\uFEFFTIMESTAMP,ContextTokens,GeneratedTokens\n', 'azure'],
    ['Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n', 'burstgpt'],
    ['\n\n{"timestamp": 0, "input_length": 10, "output_length": 2, "hash_ids": [1]}\n', 'mooncake'],
    ['{"timestamp_ms": 0, "input_len": 10}\n', 'servelab'],
    ['time,prompt_len\n1,2\n', undefined],
    ['{"ts": 1}\n', undefined],
    ['{nope\n', undefined],
    ['', undefined],
  ];
  for (const [text, want] of cases)
    it(`${JSON.stringify(text.slice(0, 30))} → ${want}`, () => assert.equal(detectTraceFormat(text), want));
});

describe('parseTrace', () => {
  it('reads Azure rows in its own time base: ms since the epoch, fraction kept', () => {
    const r = parseTrace(
      'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:47.1805900,396,109\n',
      'a.csv',
    );
    assert.deepEqual(r.problems, []);
    assert.equal(r.format, 'azure');
    assert.equal(r.detected, true);
    assert.deepEqual(
      r.entries.map((e) => [e.input_len, e.output_len]),
      [
        [374, 44],
        [396, 109],
      ],
    );
    assert.ok(Math.abs(r.entries[1].timestamp_ms - r.entries[0].timestamp_ms - 500) < 1e-3);
  });

  it('reads BurstGPT seconds as ms and skips, counts and names its failed rows (0 response tokens)', () => {
    const text = [
      'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type',
      '5,ChatGPT,472,18,490,Conversation log',
      '45,ChatGPT,1087,0,1087,Conversation log',
      '118,GPT-4,417,276,693,API log',
      '120,GPT-4,0,10,10,API log',
    ].join('\n');
    const r = parseTrace(text, 'b.csv');
    assert.deepEqual(r.problems, []);
    assert.deepEqual(
      r.entries.map((e) => [e.timestamp_ms, e.input_len, e.output_len]),
      [
        [5000, 472, 18],
        [118000, 417, 276],
      ],
    );
    assert.deepEqual(r.skipped, [
      { reason: 'trace.skip.burstgpt_failed', count: 1, lines: [3] },
      { reason: 'trace.skip.zero_input', count: 1, lines: [5] },
    ]);
  });

  it('reads Mooncake lines with their hash_ids, and checks them against the block size', () => {
    const text = [
      '{"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 2353, 2354]}',
      '{"timestamp": 30535, "input_length": 6472, "output_length": 26, "hash_ids": [46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 2366]}',
    ].join('\n');
    const r = parseTrace(text, 'm.jsonl');
    assert.deepEqual(r.problems, []);
    assert.equal(r.format, 'mooncake');
    assert.deepEqual(
      r.entries.map((e) => [e.timestamp_ms, e.input_len, e.hash_ids?.length]),
      [
        [27482, 6955, 14],
        [30535, 6472, 13],
      ],
    );
    const bad = parseTrace(text, 'm.jsonl', { blockSize: 1024 });
    assert.deepEqual(
      bad.problems.map((p) => p.path),
      ['m.jsonl:1', 'm.jsonl:2'],
    );
    assert.match(
      bad.problems[0].message,
      /hash_ids has 14 blocks, but input_length 6955 makes 7 blocks of 1024/,
    );
    assert.match(bad.problems[0].hint ?? '', /--trace-block-size/);
  });

  it('an explicit format wins over detection', () => {
    const text = '{"timestamp_ms": 0, "input_len": 10}\n';
    const r = parseTrace(text, 's.jsonl', { format: 'mooncake' });
    assert.equal(r.format, 'mooncake');
    assert.equal(r.detected, false);
    assert.deepEqual(
      r.problems.map((p) => p.message),
      ['"timestamp" is missing', '"input_length" is missing', '"output_length" is missing'],
    );
  });

  it('reports a missing column at the header line, with the columns it has', () => {
    const r = parseTrace('TIMESTAMP,ContextTokens\n2023-11-16 18:15:46,10\n', 'a.csv', { format: 'azure' });
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0].path, 'a.csv:1');
    assert.equal(
      r.problems[0].message,
      'the header has no "GeneratedTokens" column (it has: TIMESTAMP, ContextTokens)',
    );
  });

  it('reports every bad row with its line: non-monotonic time, negative or fractional lengths, bad values', () => {
    const text = [
      'TIMESTAMP,ContextTokens,GeneratedTokens',
      '2023-11-16 18:15:50.0,100,10', // 2
      '2023-11-16 18:15:49.0,100,10', // 3 backwards
      '2023-11-16 18:15:51.0,-4,10', // 4 negative
      '2023-11-16 18:15:52.0,12.5,10', // 5 fractional
      'yesterday,10,10', // 6 bad time
      '2023-11-16 18:15:53.0,ten,10', // 7 not a number
      '2023-11-16 18:15:54.0,10', // 8 short row
    ].join('\n');
    const r = parseTrace(text, 'a.csv');
    assert.deepEqual(
      r.problems.map((p) => [p.path, p.message]),
      [
        ['a.csv:3', 'TIMESTAMP 2023-11-16 18:15:49.0 is earlier than line 2 (2023-11-16 18:15:50.0)'],
        ['a.csv:4', 'ContextTokens is negative (-4)'],
        ['a.csv:5', 'ContextTokens is not a whole number of tokens (12.5)'],
        ['a.csv:6', 'TIMESTAMP is not a date-time like 2023-11-16 18:15:46.6805900 (got "yesterday")'],
        ['a.csv:7', 'ContextTokens is not a number (got "ten")'],
        ['a.csv:8', 'the row has 2 fields; the header has 3 columns'],
      ],
    );
    assert.equal(r.problems[0].hint, 'sort the trace by TIMESTAMP');
  });

  it('reports Mooncake problems with their line: negative lengths, bad hashes, time going back', () => {
    const text = [
      '{"timestamp": 100, "input_length": 10, "output_length": 2, "hash_ids": [1]}',
      '{"timestamp": 50, "input_length": 10, "output_length": 2, "hash_ids": [1]}',
      '{"timestamp": 200, "input_length": -10, "output_length": 2}',
      '{"timestamp": 300, "input_length": 10, "output_length": 2, "hash_ids": ["x"]}',
      '{"timestamp": "soon", "input_length": 10, "output_length": 2}',
    ].join('\n');
    const r = parseTrace(text, 'm.jsonl');
    assert.deepEqual(
      r.problems.map((p) => [p.path, p.message]),
      [
        ['m.jsonl:2', 'timestamp 50 is earlier than line 1 (100)'],
        ['m.jsonl:3', 'input_length is negative (-10)'],
        ['m.jsonl:4', 'hash_ids is not a list of integers'],
        ['m.jsonl:5', 'timestamp is not a time ≥ 0 (got "soon")'],
      ],
    );
  });

  it('reads a JSON line with no known field as servelab JSONL, whose problems say what it lacks', () => {
    const r = parseTrace('{"ts": 1, "prompt": "hi"}\n', 'x.jsonl');
    assert.equal(r.format, 'servelab');
    assert.equal(r.problems[0].path, 'x.jsonl:1');
    assert.match(r.problems[0].message, /timestamp_ms/);
  });

  it('says so when it cannot tell the format, or the format is unknown, in the reader language', () => {
    const r = parseTrace('\n\ntime,len\n1,2\n', 'x.csv');
    assert.equal(r.format, undefined);
    assert.equal(r.problems[0].path, 'x.csv:3');
    assert.match(r.problems[0].hint ?? '', /--trace-format \(azure, burstgpt, mooncake, servelab\)/);
    const u = parseTrace('', 'x.csv', { format: 'sharegpt', t: zh });
    assert.equal(u.problems[0].path, '--trace-format');
    assert.equal(u.problems[0].message, '未知的 trace 格式“sharegpt”');
  });

  it('an empty trace, or one whose every row is skipped, is a problem', () => {
    assert.match(
      parseTrace('TIMESTAMP,ContextTokens,GeneratedTokens\n', 'a.csv').problems[0].message,
      /no requests/,
    );
    const all = parseTrace('TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,0,3\n', 'a.csv');
    assert.match(all.problems[0].message, /every row of the trace was skipped/);
  });

  it('lists the first 20 problems and counts the rest', () => {
    const rows = Array.from({ length: 30 }, (_, i) => `2023-11-16 18:15:${String(i).padStart(2, '0')},-1,1`);
    const r = parseTrace(['TIMESTAMP,ContextTokens,GeneratedTokens', ...rows].join('\n'), 'a.csv');
    assert.equal(r.problems.length, 21);
    assert.equal(r.problems[20].message, '… and 10 more problems');
  });
});

describe('windowTrace', () => {
  const entries = [0, 1000, 2500, 4000, 9000].map((timestamp_ms) => ({ timestamp_ms, output_len: 1 }));
  it('keeps [start, end) seconds from the first timestamp and starts the replay at the window', () => {
    const w = windowTrace(entries, { startS: 1, endS: 4 });
    assert.deepEqual(
      w.entries.map((e) => e.timestamp_ms),
      [1000, 2500],
    );
    assert.equal(w.originMs, 1000);
    assert.deepEqual(
      windowTrace(entries, { startS: 2, endS: null }).entries.map((e) => e.timestamp_ms),
      [2500, 4000, 9000],
    );
    assert.equal(windowTrace(entries, null).originMs, 0);
  });
});
