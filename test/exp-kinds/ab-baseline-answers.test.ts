/**
 * The ab and baseline answers from their results (the verdict sentence, the table, the chart),
 * in both languages: which side is better and by how much, the quality check, a per-request
 * figure named as one; cold apart from warm, no data as null.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AbMetricResult, type AbResult, abAnswer } from '../../src/exp/kinds/ab-result.js';
import { type BaselineTargetResult, baselineAnswer } from '../../src/exp/kinds/baseline.js';
import { translator } from '../../src/i18n/index.js';

const EN = translator('en');
const ZH = translator('zh-CN');

const metric = (name: string, over: Partial<AbMetricResult>): AbMetricResult => ({
  metric: name,
  n_a: 32,
  n_b: 32,
  paired: true,
  mean_a: 100,
  mean_b: 100,
  delta: 0,
  delta_pct: 0,
  ci_low: -1,
  ci_high: 1,
  p_value: 0.9,
  p_holm: 0.9,
  significant: false,
  better: null,
  ...over,
});

const ab = (over: Partial<AbResult> = {}): AbResult => ({
  kind: 'ab',
  a: 'bf16',
  b: 'fp8',
  switch: 'kv_cache_dtype',
  alpha: 0.05,
  min_effect_pct: 5,
  resamples: 2000,
  runs: { a: ['a1', 'a2'], b: ['b1', null] },
  metrics: [
    metric('ttft_ms', {
      mean_a: 120,
      mean_b: 70.3,
      delta: -49.7,
      delta_pct: -41.4,
      ci_low: -55,
      ci_high: -44,
      p_holm: 0.001,
      significant: true,
      better: 'b',
    }),
    metric('tpot_ms', {}),
    metric('output_tokens_per_s', { mean_a: 500, mean_b: 510, delta: 10, delta_pct: 2 }),
  ],
  requests: { a: { measured: 32, failed: 0 }, b: { measured: 32, failed: 3 } },
  significant: true,
  quality: null,
  distribution: {
    metric: 'ttft_ms',
    a: [
      [100, 0.5],
      [140, 1],
    ],
    b: [
      [60, 0.5],
      [80, 1],
    ],
  },
  ...over,
});

describe('the ab answer', () => {
  it('says which side is better on what, by how much, and where there is no difference', () => {
    const a = abAnswer(ab(), EN);
    assert.equal(
      a.verdict,
      'B (fp8) is better on ttft_ms −41.4%; no significant difference on tpot_ms, output_tokens_per_s (per request).',
    );
    assert.match(a.question, /kv_cache_dtype \(A = bf16 → B = fp8\)/);
    // The verdict next to the metric (seen at 800 px), then the difference, its evidence and the means.
    assert.deepEqual(a.table.rows[0], [
      'ttft_ms',
      'B better',
      '−41.4%',
      '[-55, -44]',
      0.001,
      120,
      70.3,
      -49.7,
    ]);
    assert.equal(a.table.rows[1][1], 'no significant difference');
    // The headline Δ's interval: its 95% bootstrap CI.
    assert.equal(a.interval?.low, -55);
    assert.equal(a.interval?.high, -44);
    assert.match(a.interval?.what ?? '', /ttft_ms \(B − A\)/);
    assert.match(a.interval?.note ?? '', /32 paired requests, 2000 resamples/);
    // The report's TTFT CDF pools the same requests: the answer's chart replaces it.
    assert.deepEqual(a.chart?.replaces, ['ttft-cdf']);
    assert.equal(a.table.rows[2][0], 'output_tokens_per_s (per request)');
    assert.ok(a.notes?.some((n) => /not the run's aggregate output tok\/s/.test(n)));
    assert.ok(a.notes?.some((n) => /B \(fp8\) failed 3 of 32/.test(n)));
    assert.deepEqual(a.run_ids, ['a1', 'a2', 'b1']);
    assert.equal(a.chart?.type, 'cdf');
    assert.deepEqual(
      a.chart?.series.map((s) => s.name),
      ['A bf16', 'B fp8'],
    );
  });

  it('says no difference on any metric, and a failed quality check', () => {
    const none = ab({
      metrics: [metric('ttft_ms', {})],
      significant: false,
      quality: {
        checks: ['exact:side-a'],
        passed: false,
        a: quality(0),
        b: quality(2),
      } as unknown as AbResult['quality'],
    });
    assert.equal(
      abAnswer(none, EN).verdict,
      'No significant difference between A (bf16) and B (fp8) on any metric (Holm-adjusted p < 0.05 and |Δ| ≥ 5% needed); the quality check FAILED (2 failures on B).',
    );
    assert.equal(
      abAnswer(none, ZH).verdict,
      'A（bf16）与 B（fp8）在所有指标上都无显著差异（需要 Holm 校正后 p < 0.05 且 |Δ| ≥ 5%）；质量检查未通过（B 上 2 处失败）。',
    );
  });

  it('says "B worse" when A is better, and a real difference below the smallest effect apart', () => {
    const r = ab({
      metrics: [
        metric('ttft_ms', { delta_pct: 20, p_holm: 0.001, significant: true, better: 'a' }),
        metric('tpot_ms', { delta_pct: 1, p_holm: 0.001 }),
      ],
    });
    assert.deepEqual(
      abAnswer(r, EN).table.rows.map((x) => x[1]),
      ['B worse', 'no difference (|Δ| < 5%)'],
    );
    assert.deepEqual(
      abAnswer(r, ZH).table.rows.map((x) => x[1]),
      ['B 更差', '无差异（|Δ| < 5%）'],
    );
  });

  it('has no chart for a result stored before the distributions were kept', () => {
    assert.equal(abAnswer(ab({ distribution: undefined }), EN).chart, null);
  });
});

function quality(failures: number) {
  return {
    samples: 8,
    successes: 8,
    truncations: 0,
    errors: 0,
    exact_mismatches: failures,
    regex_failures: 0,
    schema_failures: 0,
    failures: Array.from({ length: failures }, (_, i) => ({ index: i, reason: 'mismatch' })),
  };
}

const target = (name: string, over: Partial<BaselineTargetResult> = {}): BaselineTargetResult => ({
  target: name,
  run_id: `run-${name}`,
  requests: 5,
  cold: { outcome: 'success', finish_reason: 'stop', ttft_ms: 412.3, e2e_ms: 900, tpot_ms: 4 },
  warm: { n: 4, ttft_ms_mean: 38.04, ttft_ms_max: 41, e2e_ms_mean: 500, tpot_ms_mean: 3.9 },
  cold_ttft_ratio: 10.84,
  correctness: {
    finish_reasons: { stop: 5 },
    eos: 5,
    length: 0,
    errors: 0,
    thinking: null,
    requests_with_reasoning: 0,
    requests_with_content: 5,
    reasoning_tokens_mean: null,
    problems: [],
  },
  ...over,
});

describe('the baseline answer', () => {
  it('sets the cold first request apart from the warm ones, per target', () => {
    const a = baselineAnswer({ kind: 'baseline', generation: {}, targets: [target('h100')] }, EN);
    assert.equal(a.verdict, 'h100: cold TTFT 412 ms against 38 ms warm (10.8×); no correctness problem.');
    assert.deepEqual(a.table.rows[0].slice(0, 5), ['h100', 412, 38, 41, 10.8]);
    assert.equal(a.chart?.type, 'bar');
    // Cold against warm on the x axis (one target is still two categories), a bar per target.
    assert.deepEqual(a.chart?.x.categories, ['cold', 'warm mean']);
    assert.deepEqual(
      a.chart?.series.map((s) => [s.name, s.points]),
      [
        [
          'h100',
          [
            [0, 412],
            [1, 38],
          ],
        ],
      ],
    );
    assert.deepEqual(a.run_ids, ['run-h100']);
  });

  it('says when no warm request succeeded (no data is null, never 0) and names the troubled targets', () => {
    const failing = target('a100', {
      warm: { n: 0, ttft_ms_mean: null, ttft_ms_max: null, e2e_ms_mean: null, tpot_ms_mean: null },
      cold_ttft_ratio: null,
    });
    failing.correctness.problems = ['4 of 5 requests failed'];
    const a = baselineAnswer({ kind: 'baseline', generation: {}, targets: [target('h100'), failing] }, ZH);
    assert.equal(
      a.verdict,
      'h100：冷启动 TTFT 412 ms，预热后 38 ms（10.8 倍）；a100：冷启动 TTFT 412 ms，没有预热后的请求成功；a100 上有问题。',
    );
    assert.deepEqual(a.table.rows[1].slice(0, 5), ['a100', 412, null, null, null]);
  });
});
