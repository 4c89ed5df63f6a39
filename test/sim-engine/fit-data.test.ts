import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  catalogueModelFor,
  compareReplay,
  type FitExperiment,
  fitErrorMedians,
  parseActualCsv,
  replayExperiment,
} from '../../src/sim/fidelity/fit-data.js';

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
});
