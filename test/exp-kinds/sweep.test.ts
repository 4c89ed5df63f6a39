import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { concludeSweep } from '../../src/exp/kinds/sweep.js';
import type { SweepPoint, SweepResult } from '../../src/exp/kinds/sweep-report.js';
import {
  ExperimentInterrupted,
  formatExperimentResult,
  runExperiment,
} from '../../src/exp/run-experiment.js';
import { exp, run, tempStore } from './helpers.js';

// A small simulated GPU: an L4 that admits at most 4 sequences, so throughput flattens past 4.
const SMALL = 'sim: {model: qwen3-0.6b, gpu: l4, max_num_seqs: 4, clock: virtual}';

const { store, cleanup } = tempStore();
after(cleanup);

test('concurrency sweep finds the knee of a small simulated GPU and records every run', async () => {
  const e = exp(`
kind: concurrency-sweep
name: knee
targets:
  small:
    ${SMALL}
workload: {input_len: 256, output_len: 64}
load: {concurrency: [1, 2, 4, 8, 16], requests: 24}
sweep: {stop: {ttft_p99_factor: 1000, e2e_p99_factor: 1000}}
`);
  const { result, log } = await run(e, store);
  const r = result.results as SweepResult;
  const t = r.targets[0];
  assert.deepEqual(
    t.points.map((p) => p.level),
    [1, 2, 4, 8, 16],
  );
  // Throughput rises up to the engine's 4 slots, then flattens: the knee is 4.
  assert.equal(t.knee, 4, t.knee_reason);
  assert.match(t.knee_reason, /stops rising/);
  const tp = t.points.map((p) => p.output_throughput_tok_s as number);
  assert.ok(tp[2] > tp[0] * 2, `c=4 should more than double c=1: ${tp}`);
  assert.ok(tp[4] < tp[2] * 1.1, `c=16 adds < 10% over c=4: ${tp}`);

  // Stored: one experiment, one run per level, each with its records; ids printed.
  assert.ok(result.experiment_id);
  const runs = store.listRuns({ experimentId: result.experiment_id as string });
  assert.equal(runs.length, 5);
  for (const row of runs) {
    assert.equal(row.status, 'completed');
    assert.equal(row.records, 24);
    assert.ok(
      log.some((l) => l.includes(row.id)),
      `run id ${row.id} printed`,
    );
  }
  assert.ok(log[0].includes(result.experiment_id as string));
  // Each run's record carries its measured metrics and quality counts; the target's facts too.
  const rec = runs[0].record as Record<string, { source: string; value: Record<string, unknown> }>;
  assert.equal(rec.metrics.source, 'probed');
  assert.equal(rec.quality.value.successes, 24);
  assert.equal(rec.engine.value.name, 'servelab-sim');
  const expRec = store.getExperiment(result.experiment_id as string)?.record as {
    targets: Record<string, unknown>;
  };
  assert.ok(expRec.targets.small);
  assert.equal(store.getExperiment(result.experiment_id as string)?.status, 'completed');
  const text = formatExperimentResult(result);
  assert.match(text, /knee: 4/);
  // 24 requests per level: the p99s (in the answer's table) are thin, so the footnote says so;
  // the console's second table shows p50/p95 only, and no p95 is marked.
  assert.match(text, /\d+\.\d\/\d+\.\d\s/);
  assert.doesNotMatch(text, /\d\*\/\d|\d\*\s/);
  assert.match(text, /unreliable: a p99 from fewer than 100 samples/);
  // The result is plain JSON.
  assert.deepEqual(JSON.parse(JSON.stringify(result)).results.targets[0].knee, 4);
});

test('the sweep stops once p99 TTFT passes K x level 1, and the knee is the level before', async () => {
  const e = exp(`
kind: concurrency-sweep
name: stop
targets:
  small:
    ${SMALL}
workload: {input_len: 256, output_len: 64}
load: {concurrency: [1, 2, 4, 8, 16, 32], requests: 32}
sweep: {stop: {ttft_p99_factor: 3, e2e_p99_factor: 1000}}
`);
  const { result } = await run(e);
  const t = (result.results as SweepResult).targets[0];
  const last = t.points[t.points.length - 1];
  assert.ok(last.stopped, 'a level tripped the TTFT rule');
  assert.match(last.stopped as string, /p99 TTFT/);
  assert.ok(t.points.length < 6, 'the sweep ended early');
  assert.equal(t.stopped_at, last.level);
  // The engine runs at most max_num_seqs = 4 requests at once, so throughput stops rising after
  // c=4, before the TTFT rule trips.
  assert.equal(t.knee, 4);
  assert.ok(t.knee_determined);
  assert.ok((last.ttft_ms.p99 as number) > 3 * (t.points[0].ttft_ms.p99 as number));
});

test('find_max_concurrency returns the largest concurrency meeting the SLO', async () => {
  const e = exp(`
kind: concurrency-sweep
name: max
targets:
  small:
    ${SMALL}
workload: {input_len: 256, output_len: 64}
load: {concurrency: [1, 2, 4, 8, 16], requests: 32}
slo: {e2e_ms: 600}
sweep: {find_max_concurrency: true, stop: {ttft_p99_factor: 1000, e2e_p99_factor: 1000}}
`);
  const { result } = await run(e);
  const t = (result.results as SweepResult).targets[0];
  const mc = t.max_concurrency;
  assert.ok(mc);
  assert.equal(mc.undetermined, null, 'every probe is valid in virtual time');
  const answer = mc.concurrency as number;
  const ok = new Map(mc.probes.map((p) => [p.concurrency, p.ok]));
  assert.equal(ok.get(answer), true, 'the answer met the SLO');
  assert.equal(ok.get(answer + 1), false, 'one more did not (bisection ran to adjacent levels)');
  assert.ok(mc.bounded);
});

test('rate sweep derives its rates from the measured capacity', async () => {
  const e = exp(`
kind: rate-sweep
name: rates
targets:
  small:
    ${SMALL}
workload: {input_len: 256, output_len: 64}
load: {requests: 32, max_concurrency: 8}
sweep: {capacity_fractions: [0.25, 0.5, 1, 2], stop: {ttft_p99_factor: 1000, e2e_p99_factor: 1000}}
`);
  const { result } = await run(e);
  const t = (result.results as SweepResult).targets[0];
  assert.ok(t.capacity_rps && t.capacity_rps > 0);
  assert.equal(t.points.length, 4);
  assert.ok(Math.abs(t.points[1].level / (t.capacity_rps as number) - 0.5) < 0.01);
  // Below capacity the engine keeps up (throughput follows the rate); past it, it cannot.
  const rps = t.points.map((p) => p.request_throughput_rps as number);
  assert.ok(rps[1] > rps[0] * 1.5, `${rps}`);
  assert.ok(rps[3] < 2 * (t.capacity_rps as number) * 0.8, `${rps}`);
  // One capacity run plus one run per rate.
  assert.equal(result.runs.length, 5);
});

test('an interrupted experiment stops at the next run and leaves the store readable', async () => {
  const e = exp(`
kind: concurrency-sweep
name: interrupted
targets:
  small:
    ${SMALL}
workload: {input_len: 128, output_len: 16}
load: {concurrency: [1, 2, 4, 8], requests: 8}
`);
  const ac = new AbortController();
  let started = 0;
  await assert.rejects(
    runExperiment(e, {
      env: {},
      version: 'test',
      store,
      signal: ac.signal,
      log: (l) => {
        // Abort as the second run starts.
        if (l.startsWith('run ') && ++started === 2) ac.abort();
      },
    }),
    ExperimentInterrupted,
  );
  const x = store.listExperiments().find((r) => r.name === 'interrupted');
  assert.equal(x?.status, 'interrupted');
  const runs = store.listRuns({ experimentId: x?.id });
  assert.deepEqual(
    runs.map((r) => r.status),
    ['completed', 'interrupted'],
  );
  assert.equal(runs[0].records, 8);
});

test('repeats: each level runs N times (N stored runs) and the kind sees them pooled', async () => {
  const file = (repeats: number) => `
kind: concurrency-sweep
name: repeats
repeats: ${repeats}
targets:
  small:
    ${SMALL}
workload: {input_len: 128, output_len: 16}
load: {concurrency: [1, 2], requests: 8}
`;
  const once = (await run(exp(file(1)))).result;
  const { result } = await run(exp(file(2)));
  assert.deepEqual(
    result.runs.map((r) => r.label),
    ['c=1 rep=1/2', 'c=1 rep=2/2', 'c=2 rep=1/2', 'c=2 rep=2/2'],
  );
  const pts = (result.results as SweepResult).targets[0].points;
  const one = (once.results as SweepResult).targets[0].points;
  assert.deepEqual(
    pts.map((p) => p.requests),
    [16, 16],
  );
  // Identical virtual repeats laid end to end: the same throughput as one run.
  assert.ok(
    Math.abs((pts[1].output_throughput_tok_s as number) / (one[1].output_throughput_tok_s as number) - 1) <
      0.02,
  );
});

/** A sweep point with the given throughput and verdict (the rest does not enter the conclusion). */
function point(level: number, tokS: number, validity: string[] = []): SweepPoint {
  const pct = { p50: 1, p95: 1, p99: 1, n: 32 };
  return {
    run_id: null,
    requests: 32,
    error_rate: 0,
    request_throughput_rps: tokS / 100,
    output_throughput_tok_s: tokS,
    ttft_ms: pct,
    tpot_ms: pct,
    e2e_ms: pct,
    itl_ms: pct,
    validity: validity.map((code) => ({ code, message: code })),
    cache_hit_rate: 0,
    server_tokens_per_s: null,
    level,
    achieved_rate_rps: null,
    stopped: null,
  };
}

test('the knee comes from valid levels only; the levels left out are named', () => {
  // c=4 is invalid (client lag) and looks like a plateau; over the valid levels throughput
  // keeps rising until 16 → 32 (+5% on a doubling).
  const r = concludeSweep('t', 'concurrency', [
    point(1, 100),
    point(2, 200),
    point(4, 210, ['event_loop_lag']),
    point(8, 800),
    point(16, 1500),
    point(32, 1575),
  ]);
  assert.equal(r.knee, 16);
  assert.equal(r.knee_determined, true);
  assert.deepEqual(r.left_out, [{ level: 4, reasons: ['event_loop_lag'] }]);
  // The same curve judged on every level would have put the knee at 2.
});

test('with too few valid levels the knee is undetermined, never a number', () => {
  const r = concludeSweep('t', 'concurrency', [
    point(1, 100, ['event_loop_lag']),
    point(2, 200),
    point(4, 210, ['event_loop_lag', 'lateness']),
  ]);
  assert.equal(r.knee, null);
  assert.equal(r.knee_determined, false);
  assert.match(r.knee_reason, /only 1 of 3 levels are valid/);
  assert.equal(r.left_out.length, 2);
});

test('sweep levels get fresh prompts: a prefix-caching engine shows hit rates near zero', async () => {
  const e = exp(`
kind: concurrency-sweep
name: fresh
targets:
  small:
    sim: {model: qwen3-0.6b, gpu: h100, clock: virtual, enable_prefix_caching: true}
generation: {thinking: false}
workload: {input_len: 512, output_len: 16}
load: {concurrency: [1, 2, 4], requests: 16}
warmup: 2
`);
  const { result } = await run(e, store);
  const t = (result.results as SweepResult).targets[0];
  assert.equal((result.results as SweepResult).prompts, 'fresh');
  for (const p of t.points) {
    assert.ok(p.cache_hit_rate !== null, 'the in-process simulator exposes prefix-cache counters');
    assert.ok((p.cache_hit_rate as number) < 0.05, `c=${p.level}: hit rate ${p.cache_hit_rate}`);
    assert.deepEqual(p.validity, []);
  }
  // Every level's run has its server series in the store.
  for (const run of result.runs) {
    const series = store.getSeries(run.run_id as string);
    assert.ok(
      series.some((s) => s.name === 'generation_tokens_total'),
      `series of ${run.label}`,
    );
  }
});

test('reuse_prompts sends the same prompts at every level: later levels hit the cache, and the output says so', async () => {
  const e = exp(`
kind: concurrency-sweep
name: reused
targets:
  small:
    sim: {model: qwen3-0.6b, gpu: h100, clock: virtual, enable_prefix_caching: true}
generation: {thinking: false}
workload: {input_len: 512, output_len: 16, reuse_prompts: true}
load: {concurrency: [1, 2, 4], requests: 16}
warmup: 0
`);
  const { result } = await run(e);
  const t = (result.results as SweepResult).targets[0];
  assert.equal((result.results as SweepResult).prompts, 'reused');
  assert.ok((t.points[0].cache_hit_rate as number) < 0.05, 'the first level runs cold');
  for (const p of t.points.slice(1))
    assert.ok((p.cache_hit_rate as number) > 0.8, `c=${p.level}: hit rate ${p.cache_hit_rate}`);
  assert.match(formatExperimentResult(result), /prompts: the same at every level/);
});
