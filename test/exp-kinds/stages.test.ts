/**
 * Issue 26 item 4 in an experiment file: a rate-sweep's `load.stages` (inference-perf's load
 * stages, in one run, each after the previous drained plus `load.stage_pause_s`) and
 * `workload.shared_prefix.prompts_per_group` (inference-perf's shared_prefix groups cycling),
 * the same settings as `run`/`plan --stages … --prompts-per-group` (config/run-settings). The
 * records match the stages' request counts, and the simulator's prefix-cache hit rate shows the
 * prompts repeat.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { SweepResult } from '../../src/exp/kinds/sweep-report.js';
import { parseExperiment } from '../../src/exp/schema.js';
import { exp, run, tempStore } from './helpers.js';

const { store, cleanup } = tempStore();
after(cleanup);

const SIM = 'targets:\n  sim:\n    sim: {model: qwen3-0.6b, gpu: h100, clock: virtual}';

describe('rate-sweep load.stages', () => {
  it('measures the stages in one run, one point per stage; the groups’ prompts cycle', async () => {
    const e = exp(`
kind: rate-sweep
name: stages
seed: 3
${SIM}
workload: {input_len: 250, output_len: 8, shared_prefix: {tokens: 200, groups: 2, prompts_per_group: 3}}
load: {stages: "2x6,4x5", stage_pause_s: 2, arrival: constant}
`);
    const { result, log } = await run(e, store);
    const t = (result.results as SweepResult).targets[0];
    assert.deepEqual(
      t.points.map((p) => [p.level, p.requests]),
      [
        [2, 12],
        [4, 20],
      ],
    );
    assert.ok(Math.abs((t.points[1].achieved_rate_rps ?? 0) - 4) < 1e-6, `${t.points[1].achieved_rate_rps}`);
    assert.equal(result.runs.length, 1, 'the stages are one run');
    assert.ok(log.some((l) => l.includes(result.runs[0].run_id as string)));
    // Stored: each record's stage, matching the stages' request counts; the run's stage figures.
    const records = [...store.getRecords(result.runs[0].run_id as string)].filter(
      (r) => r.phase === 'measure',
    );
    assert.deepEqual(
      [0, 1].map((s) => records.filter((r) => r.stage === s).length),
      [12, 20],
    );
    assert.deepEqual(
      result.runs[0].summary.stages?.map((s) => s.succeeded),
      [12, 20],
    );
    // 6 prompts cycling over 32 requests: most prompt tokens hit the prefix cache.
    assert.ok((result.runs[0].cache?.hit_rate ?? 0) > 0.8, `hit rate ${result.runs[0].cache?.hit_rate}`);
    // Prompts that repeat on purpose do not make the run invalid (cache_hits).
    assert.deepEqual(result.runs[0].validity, []);
  });

  it('refuses stages outside a rate-sweep, beside rates or counts, malformed, and a pause alone', () => {
    const problems = (text: string): { path?: string; message: string; hint?: string }[] => {
      try {
        parseExperiment(text, 's.yaml');
      } catch (e) {
        return (e as { problems: { path?: string; message: string; hint?: string }[] }).problems;
      }
      return [];
    };
    const cases: [string, RegExp][] = [
      [`kind: concurrency-sweep\nname: x\n${SIM}\nload: {stages: "2x5"}`, /does not take it/],
      [`kind: rate-sweep\nname: x\n${SIM}\nload: {stages: "2x5", rates: [1, 2]}`, /load\.rates/],
      [`kind: rate-sweep\nname: x\n${SIM}\nload: {stages: "2x"}`, /stage 1 \('2x'\)/],
      [`kind: rate-sweep\nname: x\n${SIM}\nload: {stage_pause_s: 3, rates: [1, 2]}`, /between load stages/],
    ];
    for (const [text, re] of cases) {
      const ps = problems(text);
      const p = ps.find((x) => re.test(x.message));
      assert.ok(p, `${text}: ${ps.map((x) => x.message).join(' | ')}`);
      assert.ok(p.hint && p.hint.length > 5);
    }
  });
});
