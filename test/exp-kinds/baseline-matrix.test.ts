import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import type { BaselineResult } from '../../src/exp/kinds/baseline.js';
import type { MatrixResult } from '../../src/exp/kinds/matrix.js';
import { formatExperimentResult } from '../../src/exp/run-experiment.js';
import { startSimServer } from '../../src/sim/server/index.js';
import { exp, rawExp, run, tempStore } from './helpers.js';

test('baseline (virtual): the cold first request is reported apart from the warm ones', async () => {
  const { result } = await run(
    exp(`
kind: baseline
name: base
targets:
  cold:
    sim: {model: qwen3-0.6b, gpu: h100, cold_start_ms: 300, clock: virtual}
  warm:
    sim: {model: qwen3-0.6b, gpu: h100, clock: virtual}
workload: {input_len: 128, output_len: 32}
generation: {ignore_eos: true, thinking: false}
baseline: {requests: 4}
`),
  );
  const r = result.results as BaselineResult;
  const [c, w] = r.targets;
  assert.equal(c.requests, 4);
  assert.equal(c.warm.n, 3);
  // 300 ms of engine cold start lands on the first request only.
  assert.ok((c.cold?.ttft_ms as number) - (c.warm.ttft_ms_mean as number) >= 299);
  assert.ok((c.cold_ttft_ratio as number) > 10);
  assert.ok(Math.abs((w.cold_ttft_ratio as number) - 1) < 0.2);
  // ignore_eos: every answer runs to max_tokens, the length it asked for: complete, not truncated.
  assert.equal(c.correctness.finish_reasons.length, 4);
  assert.equal(c.correctness.length, 0);
  assert.equal(c.correctness.eos, 0);
  assert.equal(c.correctness.errors, 0);
});

test('baseline over HTTP: finish reasons, EOS vs length and the reasoning split', async () => {
  const { result } = await run(
    exp(`
kind: baseline
name: base-http
targets:
  t:
    sim: {model: qwen3-0.6b, gpu: h100, time_scale: 50}
workload: {input_len: 64, output_len: 4000}
generation: {thinking: true}
baseline: {requests: 3}
`),
  );
  const t = (result.results as BaselineResult).targets[0];
  assert.equal(t.requests, 3);
  assert.equal(t.correctness.errors, 0);
  // max_tokens 4000 is far above the natural length: each answer ends on EOS.
  assert.equal(t.correctness.eos, 3);
  assert.equal(t.correctness.length, 0);
  assert.equal(t.correctness.thinking, true);
  assert.equal(t.correctness.requests_with_reasoning, 3);
  assert.equal(t.correctness.requests_with_content, 3);
  assert.deepEqual(t.correctness.problems, []);
  assert.match(formatExperimentResult(result), /base-http \(baseline\)/);
});

test('baseline refuses different generation settings per target', async () => {
  const e = rawExp({
    kind: 'baseline',
    name: 'mismatch',
    targets: {
      a: { sim: { model: 'qwen3-0.6b', gpu: 'h100', clock: 'virtual' } },
      b: { sim: { model: 'qwen3-0.6b', gpu: 'h100', clock: 'virtual' }, generation: { thinking: false } },
    },
  });
  await assert.rejects(run(e), (err: unknown) => {
    assert.ok(err instanceof UsageError);
    assert.match(err.problems[0].path ?? '', /targets\.b\.generation/);
    return true;
  });
});

test('matrix: three input/output cells x two concurrency levels, long prompts slower to first token', async () => {
  const { result } = await run(
    exp(`
kind: matrix
name: mx
targets:
  t:
    sim: {model: qwen3-0.6b, gpu: l4, clock: virtual}
generation: {thinking: false}
load: {requests: 16}
thresholds: ['error_rate<0.01', 'ttft_ms.p50<1']
matrix:
  cells:
    - {name: ss, input_len: 128, output_len: 16}
    - {name: ls, input_len: 2048, output_len: 16}
    - {name: ll, input_len: 2048, output_len: 128}
  concurrency: [1, 4]
`),
  );
  const cells = (result.results as MatrixResult).targets[0].cells;
  assert.equal(cells.length, 6);
  assert.equal(result.runs.length, 6);
  const at = (name: string, c: number) => cells.find((x) => x.cell === name && x.concurrency === c);
  assert.ok((at('ls', 1)?.ttft_ms.p50 as number) > 3 * (at('ss', 1)?.ttft_ms.p50 as number));
  assert.ok((at('ll', 1)?.e2e_ms.p50 as number) > (at('ls', 1)?.e2e_ms.p50 as number));
  assert.ok(
    (at('ss', 4)?.output_throughput_tok_s as number) > (at('ss', 1)?.output_throughput_tok_s as number),
  );
});

test('an API key reaches the server but never the log, the result or the store', async () => {
  const key = 'sk-test-5up3r-s3cret';
  const sim = await startSimServer({ model: 'qwen3-0.6b', gpu: 'h100', timeScale: 50, apiKey: key });
  const { store, cleanup } = tempStore();
  try {
    const { result, log } = await run(
      exp(`
kind: baseline
name: keyed
model: ${sim.modelId}
targets:
  t:
    url: ${sim.url}/v1
    api_key_env: TEST_INFERENCE_KEY
workload: {input_len: 32, output_len: 8}
baseline: {requests: 2}
`),
      store,
      { TEST_INFERENCE_KEY: key },
    );
    // Authorised: both requests succeeded (the server answers 401 without the key).
    assert.equal((result.results as BaselineResult).targets[0].correctness.errors, 0);
    const dump = [
      JSON.stringify(result),
      log.join('\n'),
      JSON.stringify(store.listExperiments()),
      JSON.stringify(store.listRuns()),
      JSON.stringify(store.listRuns().flatMap((r) => store.getRecords(r.id))),
    ].join('\n');
    assert.ok(!dump.includes(key));
    assert.ok(dump.includes('TEST_INFERENCE_KEY'), 'the variable name is recorded');
  } finally {
    cleanup();
    await sim.close();
  }
});

test('a url target without /v1 gets it, and the log says so', async () => {
  const sim = await startSimServer({ model: 'qwen3-0.6b', gpu: 'h100', timeScale: 50 });
  try {
    const { result, log } = await run(
      exp(`
kind: baseline
name: bare-url
model: ${sim.modelId}
targets:
  t:
    url: ${sim.url}/
workload: {input_len: 32, output_len: 8}
baseline: {requests: 2}
`),
    );
    assert.equal((result.results as BaselineResult).targets[0].correctness.errors, 0);
    assert.ok(log.includes(`target t: base URL: ${sim.url}/v1 (added /v1)`), log.join('\n'));
  } finally {
    await sim.close();
  }
});
