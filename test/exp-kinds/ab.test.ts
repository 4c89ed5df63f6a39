import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import type { AbResult } from '../../src/exp/kinds/ab-result.js';
import { exp, rawExp, run } from './helpers.js';

const ab = (a: string, b: string, extra = '') => `
kind: ab
name: ab
targets:
  a:
    sim: ${a}
  b:
    sim: ${b}
workload: {input_len: 256, output_len: 48}
load: {concurrency: 4, requests: 24}
ab: {a: a, b: b, bootstrap_resamples: 500${extra}}
`;

test('A/B between an H100 and an A100 sim reports significant differences, A better', async () => {
  const { result } = await run(
    exp(
      ab(
        '{model: qwen3-0.6b, gpu: h100, clock: virtual}',
        '{model: qwen3-0.6b, gpu: a100-80gb, clock: virtual}',
      ),
    ),
  );
  const r = result.results as AbResult;
  assert.equal(r.significant, true);
  const by = Object.fromEntries(r.metrics.map((m) => [m.metric, m]));
  for (const k of ['ttft_ms', 'tpot_ms', 'e2e_ms', 'output_tokens_per_s']) {
    assert.equal(by[k].significant, true, k);
    assert.equal(by[k].better, 'a', k);
    assert.ok(
      (by[k].ci_low as number) <= (by[k].delta as number) &&
        (by[k].delta as number) <= (by[k].ci_high as number),
    );
  }
  assert.ok((by.tpot_ms.ci_low as number) > 0, 'the A100 decodes slower: the whole CI is above 0');
  assert.match(r.switch, /gpu: h100 → a100-80gb/);
  // Measured in 4 counterbalanced blocks per side (A B, B A, A B, B A).
  assert.equal(r.runs.a.length, 4);
  assert.equal(r.runs.b.length, 4);
  assert.deepEqual(
    result.runs.map((x) => x.target),
    ['a', 'b', 'b', 'a', 'a', 'b', 'b', 'a'],
  );
});

test('A/B between bf16 and fp8 weights reports a significant TPOT difference', async () => {
  const { result } = await run(
    exp(
      ab(
        '{model: qwen3-8b, gpu: h100, clock: virtual}',
        '{model: qwen3-8b, gpu: h100, dtype: fp8, clock: virtual}',
      ),
    ),
  );
  const tpot = (result.results as AbResult).metrics.find((m) => m.metric === 'tpot_ms');
  // The switch names an unset option as the default, not as "undefined".
  assert.equal((result.results as AbResult).switch, 'sim.dtype: default → fp8');
  assert.ok(tpot?.significant);
  assert.equal(tpot?.better, 'b');
});

test('A/A between identical sims reports no significant difference and passes quality', async () => {
  const sim = '{model: qwen3-0.6b, gpu: h100, clock: virtual}';
  const { result } = await run(exp(ab(sim, sim, ', quality: {samples: 3, expected: side-a}')));
  const r = result.results as AbResult;
  assert.equal(r.significant, false);
  for (const m of r.metrics) {
    assert.equal(m.significant, false, m.metric);
    assert.equal(m.delta, 0, m.metric);
  }
  assert.equal(r.quality?.passed, true);
  assert.equal(r.quality?.b.exact_mismatches, 0);
});

test('the quality gate trips on the garble fault (over HTTP)', async () => {
  // Faults change two sim fields (rate + kind), which the file's one-switch rule refuses; built directly.
  const e = rawExp({
    kind: 'ab',
    name: 'garble',
    targets: {
      a: { sim: { model: 'qwen3-0.6b', gpu: 'h100', time_scale: 50 } },
      b: { sim: { model: 'qwen3-0.6b', gpu: 'h100', time_scale: 50, fault_rate: 1, faults: ['garble'] } },
    },
    workload: { input_len: 64, output_len: 24 },
    load: { concurrency: [4], requests: 8 },
    ab: {
      a: 'a',
      b: 'b',
      bootstrap_resamples: 200,
      quality: { samples: 4, expected: 'side-a', regex: '\\S' },
    },
  });
  const { result } = await run(e);
  const q = (result.results as AbResult).quality;
  assert.ok(q);
  assert.equal(q.passed, false);
  assert.equal(q.a.passed, true);
  assert.equal(q.b.exact_mismatches, 4);
  assert.equal(q.b.successes, 4);
  assert.ok(result.warnings.some((w) => /quality gate failed/.test(w)));
});

test('too few bootstrap resamples to ever reach significance are refused, not reported as "no difference"', async () => {
  // 5 metrics, alpha 0.05: the smallest p is 1/(50 + 1), × 5 (Holm) = 0.098 ≥ 0.05, so even an
  // H100 against an A100 would come out "not significant".
  const e = exp(
    ab(
      '{model: qwen3-0.6b, gpu: h100, clock: virtual}',
      '{model: qwen3-0.6b, gpu: a100-80gb, clock: virtual}',
    ).replace('bootstrap_resamples: 500', 'bootstrap_resamples: 50'),
  );
  await assert.rejects(run(e), (err: unknown) => {
    assert.ok(err instanceof UsageError);
    assert.match(err.message + JSON.stringify(err.problems), /bootstrap_resamples/);
    assert.match(JSON.stringify(err.problems), /at least 100/);
    return true;
  });
});

test('failed requests on one side are counted and warned about, not silently dropped from the pairs', async () => {
  const e = rawExp({
    kind: 'ab',
    name: 'errors',
    targets: {
      a: { sim: { model: 'qwen3-0.6b', gpu: 'h100', time_scale: 50 } },
      b: { sim: { model: 'qwen3-0.6b', gpu: 'h100', time_scale: 50, fault_rate: 0.5, faults: ['http500'] } },
    },
    workload: { input_len: 64, output_len: 24 },
    load: { concurrency: [4], requests: 16 },
    ab: { a: 'a', b: 'b', bootstrap_resamples: 200 },
  });
  const { result } = await run(e);
  const r = result.results as AbResult;
  assert.equal(r.requests.a.failed, 0);
  assert.equal(r.requests.a.measured, 16);
  assert.ok(r.requests.b.failed > 0, JSON.stringify(r.requests));
  // Only the pairs where both succeeded are compared.
  const ttft = r.metrics.find((m) => m.metric === 'ttft_ms');
  assert.equal(ttft?.n_a, 16 - r.requests.b.failed);
  assert.ok(
    result.warnings.some((w) => /side B\) failed \d+ of 16/.test(w)),
    result.warnings.join('\n'),
  );
});
