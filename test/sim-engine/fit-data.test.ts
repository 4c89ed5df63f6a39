import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  catalogueModelFor,
  compareReplay,
  type FitExperiment,
  fitErrorMedians,
  parseActualCsv,
  replayExperiment,
  replayExperimentDetailed,
} from '../../src/sim/fidelity/fit-data.js';
import {
  bandQuantiles,
  fitCoefficients,
  linearRefit,
  nestedCoverage,
  PRIORS,
  replayAll,
  softL1,
} from '../../src/sim/fidelity/fit-model.js';

// Shaped like an entry of ../shared/fit-data/experiments.json, shrunk to seconds.
const exp: FitExperiment = {
  experiment: 'tiny-llama-2-7b',
  exp_id: 't1',
  model_hf_id: 'meta-llama/Llama-2-7b-hf',
  tp: 1,
  precision_label: 'FP16',
  complete: true,
  vllm: { max_num_batched_tokens: 2048, max_num_seqs: 128, max_model_len: 4096, gpu_memory_utilization: 0.9 },
  workload: { effective_prefix_sharing: { num_groups: 2, num_prompts_per_group: 3 } },
  stages: [0, 1].map((i) => ({
    stage_index: i,
    rate_rps: 2 + 2 * i,
    duration_s: 5,
    num_requests: 10 + 10 * i,
    input_tokens_spec: { system_prompt_len: 100, question_len: 50 },
    output_tokens_spec: { max_tokens: 20 },
  })),
};

describe('fit-data replay', () => {
  it('maps every fit-data model to the catalogue', () => {
    for (const id of [
      'meta-llama/Llama-2-7b-hf',
      'Qwen/Qwen2.5-7B-Instruct',
      'mistralai/Mistral-Nemo-Instruct-2407',
      '01-ai/Yi-34B',
      'meta-llama/Llama-3.1-70B-Instruct',
      'RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic',
    ])
      assert.ok(catalogueModelFor(id), id);
    assert.equal(catalogueModelFor('nobody/none'), null);
  });

  it('replays each stage and the whole run, deterministically, and compares with the measured table', () => {
    const sim = replayExperiment(exp, 3);
    assert.deepEqual([...sim.keys()].sort(), [-1, 0, 1]);
    for (const m of sim.values()) {
      assert.ok(m.ttft_mean > 0 && m.e2e_mean > m.ttft_mean && m.e2e_p99 >= m.e2e_p90);
      // ITL as the README derives it: (e2e − ttft) / (output − 1), with 20 output tokens.
      assert.ok(Math.abs(m.itl_mean - (m.e2e_mean - m.ttft_mean) / 19) < 1e-9);
    }
    assert.deepEqual(replayExperiment(exp, 3), sim);
    const e2e = sim.get(-1)!.e2e_mean;
    const csv = `experiment,stage,metric,actual,source\ntiny-llama-2-7b,-1,e2e_mean,${e2e / 2},x\ntiny-llama-2-7b,0,ttft_mean,${sim.get(0)!.ttft_mean},x\n`;
    const rows = compareReplay(exp, sim, parseActualCsv(csv));
    assert.equal(rows.length, 2);
    assert.ok(Math.abs(rows.find((r) => r.stage === -1)!.errorPct - 100) < 1e-9);
    const med = fitErrorMedians(rows, () => true);
    assert.ok(Math.abs(med.e2e! - 100) < 1e-9);
    assert.ok(Math.abs(med.ttft!) < 1e-9);
    assert.equal(med.itl, null);
  });

  it('replays a fraction of each stage, and runs the coefficients it is given', () => {
    const full = replayExperimentDetailed(exp, { seed: 3 });
    const half = replayExperimentDetailed(exp, { seed: 3, scale: 0.5 });
    assert.equal(full.requests, 30);
    assert.equal(half.requests, 15);
    // 6 distinct prompts cycle, so most prompt tokens are prefix-cache hits.
    assert.ok(full.prefixHitRate !== null && full.prefixHitRate > 0.5, String(full.prefixHitRate));
    const slowKv = replayExperimentDetailed(exp, { seed: 3, cost: { kKvDecode: 3, kWeights: 3 } });
    assert.ok(slowKv.metrics.get(-1)!.itl_mean > 1.5 * full.metrics.get(-1)!.itl_mean);
    const slowFront = replayExperimentDetailed(exp, { seed: 3, frontend: { overheadMs: 100 } });
    assert.ok(slowFront.metrics.get(-1)!.ttft_mean > full.metrics.get(-1)!.ttft_mean + 90);
  });

  it('fits coefficients that bring a replay towards a measured table, and bands from held-out errors', () => {
    // The "measured" table: this experiment replayed with a 30 ms front-end and slower weight reads.
    const truth = replayExperimentDetailed(exp, {
      seed: 1,
      cost: { kWeights: 1.4 },
      frontend: { overheadMs: 30 },
    });
    const m = truth.metrics.get(-1)!;
    const csv = [
      'experiment,stage,metric,actual,source',
      ...Object.entries(m).map(([k, v]) => `tiny-llama-2-7b,-1,${k},${v},x`),
    ].join('\n');
    const actual = parseActualCsv(csv);
    const before = replayAll([exp], actual, PRIORS, 1).rows;
    const fit = fitCoefficients(
      { experiments: [exp], actual, seed: 1, searchScale: 1, loss: 'linear' },
      1,
      4,
    );
    const after = replayAll([exp], actual, fit.coefficients, 1).rows;
    const err = (rows: typeof after, metric: string) =>
      Math.abs(rows.find((r) => r.metric === metric)!.errorPct);
    assert.ok(
      err(after, 'ttft_mean') < err(before, 'ttft_mean') / 2,
      `${err(before, 'ttft_mean')} → ${err(after, 'ttft_mean')}`,
    );
    assert.ok(
      err(after, 'e2e_mean') < err(before, 'e2e_mean') / 2,
      `${err(before, 'e2e_mean')} → ${err(after, 'e2e_mean')}`,
    );
    assert.ok(fit.coefficients.frontend_overhead_ms > PRIORS.frontend_overhead_ms);
    // The default loss: a 1% error counts as itself, a 100% error as about √(2·0.1·1) ≈ 0.45.
    assert.ok(Math.abs(softL1(0.01) - 0.01) < 1e-4 && softL1(-0.01) < 0);
    assert.ok(Math.abs(softL1(1) - 0.424) < 0.01, String(softL1(1)));
    // Dropping the only experiment leaves the prior alone: the refit returns the priors.
    const none = linearRefit(fit, [0]);
    assert.ok(Math.abs(none.k_weights - PRIORS.k_weights) < 1e-3);
    // Bands: quantiles of measured ÷ predicted − 1; a measured value inside them counts as covered.
    const rows = [0.9, 1, 1.1, 1.2, 1.3].map((ratio, i) => ({
      experiment: `e${i}`,
      stage: -1,
      metric: 'ttft_mean' as const,
      actual: 100 * ratio,
      simulated: 100,
      errorPct: 0,
    }));
    const q = bandQuantiles(rows).ttft_mean;
    assert.ok(q.q10 < 0 && q.q90 > 0.2 && q.n === 5);
    const cov = nestedCoverage(rows.map((r) => ({ experiment: r.experiment, complete: true, rows: [r] })));
    assert.ok(cov > 0 && cov < 1, String(cov));
  });
});
