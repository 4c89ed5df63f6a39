import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { bootstrapDelta, holmAdjust, minResamples } from '../../src/exp/comparison-stats.js';
import { compareSides } from '../../src/exp/kinds/ab.js';
import { compileQualityChecks, judgeQuality, type QualityOutput } from '../../src/exp/quality.js';
import { Rng } from '../../src/runtime/rng.js';
import { handRecord } from '../diagnose/helpers.js';

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

test('minResamples: the fewest resamples whose smallest Holm-adjusted p can be below alpha', () => {
  for (const [m, alpha] of [
    [5, 0.05],
    [1, 0.05],
    [3, 0.01],
    [4, 0.1],
  ] as const) {
    const r = minResamples(m, alpha);
    assert.ok(m / (r + 1) < alpha, `${m}, ${alpha}: ${r} is enough`);
    assert.ok(m / r >= alpha, `${m}, ${alpha}: ${r - 1} is not`);
  }
  assert.equal(minResamples(5, 0.05), 100);
  // And the bound is real: an unmistakable shift with fewer resamples is never significant.
  const a = [10, 12, 11, 13, 9, 10, 12, 11];
  const few = bootstrapDelta(
    a,
    a.map((x) => x * 2),
    minResamples(5, 0.05) - 1,
    new Rng(1),
    true,
  );
  assert.ok(holmAdjust([few.p_value, 1, 1, 1, 1])[0] >= 0.05);
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

test('compareSides: a certain but small difference is not significant (minimum effect), a large one is', () => {
  // 40 requests per side, TTFT varying 100–139 ms per prompt; B adds exactly 2% (small) or 20%.
  const side = (factor: number) =>
    Array.from({ length: 40 }, (_, i) => handRecord(`r${i}`, i * 1000, (100 + i) * factor, 10, 10));
  const opts = { alpha: 0.05, minEffectPct: 5, resamples: 500 };
  const small = compareSides(side(1), side(1.02), ['ttft_ms'], opts, new Rng(3))[0];
  assert.ok(small.p_holm < 0.05, 'the 2% shift is statistically certain');
  assert.ok(Math.abs((small.delta_pct as number) - 2) < 1e-9);
  assert.equal(small.significant, false, 'but below the 5% minimum effect');
  assert.equal(small.better, null);
  const large = compareSides(side(1), side(1.2), ['ttft_ms'], opts, new Rng(3))[0];
  assert.equal(large.significant, true);
  assert.equal(large.better, 'a', 'lower TTFT is better');
});

test('bootstrap p-value is two-sided: below 0.05 exactly when the 95% CI leaves out 0', () => {
  const a = Array.from({ length: 20 }, (_, i) => 100 + (i % 5));
  const noise = [3, -4, 2, -1, 5, -3, 1, -2, 4, -5, 2, -3, 3, -1, 1, -4, 5, -2, 0, -1];
  // Shifts that put 0 well inside the interval, just inside, just outside and well outside.
  for (const shift of [0.8, 1.2, 1.6, 2]) {
    const b = a.map((x, i) => x + shift + noise[i]);
    const d = bootstrapDelta(a, b, 2000, new Rng(7), true);
    const excludesZero = (d.ci_low as number) > 0 || (d.ci_high as number) < 0;
    assert.equal(
      d.p_value < 0.05,
      excludesZero,
      `shift ${shift}: CI [${d.ci_low}, ${d.ci_high}], p ${d.p_value}`,
    );
  }
});

test('compareSides applies Holm across the metrics: a raw p below alpha is not enough', () => {
  // B's TTFT is ~5 ms higher with ±14 ms noise per prompt: raw p ≈ 0.02, but 5 metrics are
  // compared, so Holm multiplies the smallest p by 5 and the shift is not significant.
  const noise = [12, -9, 7, -14, 10, -6, 3, -11, 13, -8, 6, -12, 9, -5, 4, -13, 11, -7, 2, -10];
  const a = Array.from({ length: 20 }, (_, i) => handRecord(`r${i}`, i * 1000, 100, 10, 10));
  const b = Array.from({ length: 20 }, (_, i) => handRecord(`r${i}`, i * 1000, 105.5 + noise[i], 10, 10));
  const metrics = ['ttft_ms', 'tpot_ms', 'e2e_ms', 'itl_ms', 'output_tokens_per_s'] as const;
  const opts = { alpha: 0.05, minEffectPct: 0, resamples: 2000 };
  const ttft = compareSides(a, b, metrics, opts, new Rng(5))[0];
  assert.ok(ttft.p_value < 0.05, `raw p ${ttft.p_value}`);
  assert.ok(ttft.p_holm >= 0.05, `Holm p ${ttft.p_holm}`);
  assert.equal(ttft.significant, false);
  // Alone, the same metric is significant: Holm's family is the metrics compared.
  assert.equal(compareSides(a, b, ['ttft_ms'], opts, new Rng(5))[0].significant, true);
});
