import assert from 'node:assert/strict';
import { test } from 'node:test';
import { displayWidth, padColumns, textTable } from '../../src/core/text-width.js';

test('Chinese and full-width characters take two columns, the rest one', () => {
  const rows: [string, number][] = [
    ['', 0],
    ['ttft_ms', 7],
    ['症状：', 6],
    ['TTFT（ms）', 10],
    ['p50 ≥ 1.2×', 10],
  ];
  for (const [s, n] of rows) assert.equal(displayWidth(s), n, s);
});

test('padColumns pads to terminal columns on either side, never cuts', () => {
  assert.equal(padColumns('请求', 6), '请求  ');
  assert.equal(padColumns('20', 6, 'start'), '    20');
  assert.equal(padColumns('吞吐量', 4), '吞吐量');
});

test('textTable lines up Chinese headers and cells in terminal columns', () => {
  const lines = textTable(
    ['并发', 'req/s', '结论'],
    [
      ['1', '33.52', '有效'],
      ['16', '102.89', '无效：error_rate'],
    ],
    { trimEnd: true },
  );
  assert.deepEqual(lines, [
    '并发   req/s              结论',
    '1      33.52              有效',
    '16    102.89  无效：error_rate',
  ]);
  // every line ends at the same terminal column
  assert.equal(new Set(lines.map(displayWidth)).size, 1);
});
