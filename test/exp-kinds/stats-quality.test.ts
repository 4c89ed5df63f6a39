import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { compileQualityChecks, judgeQuality, type QualityOutput } from '../../src/exp/quality.js';
import { bootstrapDelta, holmAdjust } from '../../src/exp/stats.js';
import { Rng } from '../../src/runtime/rng.js';

test('holm adjusts in step-down order and stays monotone', () => {
  // Sorted p: 0.01, 0.02, 0.04 → ×3, ×2, ×1 = 0.03, 0.04, 0.04.
  assert.deepEqual(
    holmAdjust([0.04, 0.01, 0.02]).map((x) => Number(x.toFixed(6))),
    [0.04, 0.03, 0.04],
  );
  assert.deepEqual(holmAdjust([0.5, 0.9]), [1, 1]);
});

test('bootstrap: identical samples give p = 1 and a zero CI; a clear shift is detected', () => {
  const a = [10, 12, 11, 13, 9, 10, 12, 11];
  const same = bootstrapDelta(a, [...a], 500, new Rng(1), true);
  assert.equal(same.p_value, 1);
  assert.equal(same.ci_low, 0);
  assert.equal(same.ci_high, 0);
  const shifted = bootstrapDelta(
    a,
    a.map((x) => x * 1.5),
    500,
    new Rng(1),
    true,
  );
  assert.ok(shifted.p_value < 0.01);
  assert.ok((shifted.ci_low as number) > 0);
  assert.ok(Math.abs((shifted.delta_pct as number) - 50) < 1e-9);
  // Same seed, same interval.
  const again = bootstrapDelta(
    a,
    a.map((x) => x * 1.5),
    500,
    new Rng(1),
    true,
  );
  assert.equal(again.ci_low, shifted.ci_low);
});

const out = (texts: (string | null)[]): QualityOutput[] =>
  texts.map((t, i) => ({ index: i, text: t, finish_reason: 'stop', error: t === null ? 'HTTP 500' : null }));

test('quality: exact match vs side A, regex and JSON schema each fail the side that breaks them', () => {
  const checks = compileQualityChecks({
    expected: 'side-a',
    regex: '^\\{',
    json_schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  });
  const a = out(['{"n": 1}', '{"n": 2}']);
  const good = judgeQuality(a, out(['{"n": 1}', '{"n": 2}']), checks);
  assert.equal(good.passed, true);
  assert.deepEqual(good.checks, ['exact:side-a', 'regex', 'json_schema']);
  const bad = judgeQuality(a, out(['{"n": "x"}', null]), checks);
  assert.equal(bad.passed, false);
  assert.equal(bad.a.passed, true);
  assert.equal(bad.b.exact_mismatches, 1);
  assert.equal(bad.b.schema_failures, 1);
  assert.equal(bad.b.errors, 1);
  const notJson = judgeQuality(a, out(['{oops', '{"n": 2}']), checks);
  assert.equal(notJson.b.schema_failures, 1);
  assert.equal(notJson.b.regex_failures, 0);
});

test('quality: an unreadable expected-answers file is a usage error', () => {
  assert.throws(
    () => compileQualityChecks({ expected: { file: '/nonexistent/answers.jsonl' } }),
    (e: unknown) => e instanceof UsageError && /cannot read/.test(e.problems[0].message),
  );
});
