/**
 * @module test/pipeline/shard
 * Sharded runs and their merge, end to end over loopback HTTP against the simulator (port 0):
 * N shards of one seeded open-loop run (run in one process, each through `measure()` with a
 * common start) must send disjoint parts that cover every request of the unsharded run, with
 * its schedule hash and planned times; `merge` must give the unsharded counts, histograms
 * equal bucket for bucket to those of the shards' concatenated records, the same report in
 * any order, and must refuse missing, duplicate, foreign and re-laid-out shards.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeHistogram, histogramBuckets, histogramOf } from '../../src/analysis/histogram.js';
import { ksCritical01, ksStatistic } from '../../src/analysis/stats.js';
import { SUMMARY_METRICS, type SummaryMetric, summarize } from '../../src/analysis/summary.js';
import { UsageError } from '../../src/core/errors.js';
import { translator } from '../../src/i18n/index.js';
import { loadPlan } from '../../src/pipeline/load-plan.js';
import { measure } from '../../src/pipeline/measure-settings.js';
import { mergeShards } from '../../src/pipeline/merge.js';
import { commonSettings, targetSettings } from '../../src/pipeline/settings.js';
import { parseShardSettings, shardFiles, shardPlan, splitCap } from '../../src/pipeline/shard.js';
import type { RequestRecord } from '../../src/record/types.js';
import { unixNowMs } from '../../src/runtime/clock.js';
import { arrivalOffsetsMs } from '../../src/schedule/index.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import type { RequestSpec } from '../../src/workload/types.js';

const t = translator('en');
const REQUESTS = 42;

function settings(seed = 11) {
  return commonSettings({
    load: { mode: 'open', rateRps: 300, arrival: 'poisson', requests: REQUESTS, seed, maxConcurrency: 14 },
    workload: { inputLen: 'uniform:16-48', outputLen: 'uniform:2-6' },
    generation: { model: 'qwen3-8b' },
  });
}

function readRecords(path: string): RequestRecord[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as RequestRecord);
}

describe('shard plans', () => {
  const specs: RequestSpec[] = Array.from({ length: 100 }, (_, index) => ({
    index,
    input_len: index,
    output_len: 1,
  }));
  const arrivalsMs = arrivalOffsetsMs({ rateRps: 50, arrival: 'poisson', count: 100, seed: 3 });
  for (const n of [1, 2, 3, 7]) {
    it(`N=${n}: disjoint, covering, the unsharded planned times exactly, the cap split`, () => {
      const seen: number[] = [];
      const times = new Map<number, number>();
      let cap = 0;
      for (let i = 0; i < n; i++) {
        const problems: never[] = [];
        const p = shardPlan(specs, { kind: 'open', arrivalsMs, maxConcurrency: 16 }, i, n, problems, t);
        assert.deepEqual(problems, []);
        assert.equal(p.load.kind, 'open');
        if (p.load.kind !== 'open') return;
        p.specs.forEach((s, j) => {
          seen.push(s.index);
          times.set(s.index, (p.load as unknown as { arrivalsMs: readonly number[] }).arrivalsMs[j]);
        });
        cap += p.load.maxConcurrency ?? 0;
      }
      assert.deepEqual(
        [...seen].sort((a, b) => a - b),
        specs.map((s) => s.index),
      );
      assert.deepEqual(
        specs.map((s) => times.get(s.index)),
        arrivalsMs,
      );
      assert.equal(cap, 16);
    });
  }
  it('splits a closed loop concurrency with the remainder on the first shards', () => {
    assert.deepEqual(
      [0, 1, 2].map((i) => splitCap(10, i, 3)),
      [4, 3, 3],
    );
    const problems: { path?: string }[] = [];
    shardPlan(specs, { kind: 'closed', concurrency: 2, requests: 100 }, 0, 3, problems as never[], t);
    assert.equal(problems[0]?.path, '--concurrency');
  });
  it("a long seeded Poisson schedule's inter-arrivals pass a KS test against Exp(1/rate)", () => {
    const rate = 40;
    const all = arrivalOffsetsMs({ rateRps: rate, arrival: 'poisson', count: 20_000, seed: 9 });
    // The union of 7 shards' planned times is the schedule itself (checked above); test it.
    const gaps = all.slice(1).map((x, i) => x - all[i]);
    const meanMs = 1000 / rate;
    const d = ksStatistic(gaps, (x) => 1 - Math.exp(-x / meanMs)) as number;
    assert.ok(d < ksCritical01(gaps.length), `D=${d}`);
    // and the test can fail: constant gaps are far from exponential
    const flat = ksStatistic(
      gaps.map(() => meanMs),
      (x) => 1 - Math.exp(-x / meanMs),
    ) as number;
    assert.ok(flat > ksCritical01(gaps.length));
  });
  it('needs a common start for N > 1 and reads the index from the environment', () => {
    const problems: { path?: string }[] = [];
    const s = parseShardSettings(
      {},
      { JOB_COMPLETION_INDEX: '2', SERVELAB_SHARD_COUNT: '3' },
      0,
      problems as never[],
      t,
    );
    assert.equal(s?.index, 2);
    assert.equal(problems[0]?.path, '--start-at');
    const ok: never[] = [];
    const at = parseShardSettings({ shard: '1/3', startAt: '2026-12-01T15:00:00.250Z' }, {}, 0, ok, t);
    assert.deepEqual(ok, []);
    assert.equal(at?.startAtUnixMs, Date.parse('2026-12-01T15:00:00.250Z'));
    const bad: { path?: string }[] = [];
    parseShardSettings({ shard: '3/3', startAt: 'tomorrow' }, {}, 0, bad as never[], t);
    assert.deepEqual(
      bad.map((p) => p.path),
      ['--shard', '--start-at'],
    );
  });
});

describe('sharded runs against the simulator, merged', () => {
  let sim: SimServer;
  let root: string;
  let whole: Awaited<ReturnType<typeof measure>>;
  before(async () => {
    sim = await startSimServer({ model: 'qwen3-8b', gpu: 'h100', port: 0, timeScale: 50 });
    root = mkdtempSync(join(tmpdir(), 'servelab-shard-'));
    whole = await measure(
      { target: targetSettings(`${sim.url}/v1`), common: settings() },
      { env: {}, version: 'test', monitoring: { scrape: 'off', scrapeIntervalMs: 1000, metricsPort: null } },
    );
  });
  after(async () => {
    await sim.close();
  });

  async function runShards(n: number, dir: string, seed = 11): Promise<string[]> {
    const startAtUnixMs = unixNowMs() + 1500;
    const common = { ...settings(seed), output: { ...settings(seed).output, out: dir } };
    const runs = await Promise.all(
      Array.from({ length: n }, (_, index) =>
        measure(
          {
            target: targetSettings(`${sim.url}/v1`),
            common,
            shard: { index, count: n, startAtUnixMs, latePolicy: 'fail' },
          },
          {
            env: {},
            version: 'test',
            monitoring: { scrape: 'off', scrapeIntervalMs: 1000, metricsPort: null },
          },
        ),
      ),
    );
    for (const m of runs) assert.equal(m.result.reason, 'completed');
    return Array.from({ length: n }, (_, i) => join(dir, shardFiles(i, n).report));
  }

  for (const n of [1, 2, 3, 7]) {
    it(`N=${n}: the shards cover the run, and the merge is the unsharded run's counts and exact histograms`, async () => {
      const dir = mkdtempSync(join(root, `n${n}-`));
      const files = await runShards(n, dir);
      const shards = files.map((f) => JSON.parse(readFileSync(f, 'utf8')));
      const records = files.map((_, i) => readRecords(join(dir, shardFiles(i, n).records)));
      // disjoint and covering, with the planned times of the full schedule
      const indices = records.flatMap((rs) => rs.filter((r) => r.phase === 'measure').map((r) => r.index));
      assert.deepEqual(
        [...indices].sort((a, b) => a - b),
        Array.from({ length: REQUESTS }, (_, k) => k),
      );
      const full = loadPlan(settings(), null).load as unknown as { arrivalsMs: readonly number[] };
      const planned = new Map<number, number>();
      records.forEach((rs, i) => {
        const s = shards[i];
        for (const r of rs) planned.set(r.index, (r.planned_at_ms as number) - s.window.start_ms);
      });
      for (let k = 0; k < REQUESTS; k++)
        assert.ok(Math.abs((planned.get(k) as number) - full.arrivalsMs[k]) < 1e-6);
      // every shard has the same hashes as N=1 would
      const hash = shards[0].shard.schedule_hash;
      for (const s of shards) assert.equal(s.shard.schedule_hash, hash);
      const { report } = await mergeShards({ expect: n, files, out: join(dir, 'merged') }, t);
      assert.deepEqual(report.summary.requests, whole.summary.requests);
      assert.equal(report.summary.requests.succeeded, REQUESTS);
      // bucket for bucket: the merged histograms against one built from the concatenated records
      const samples = Object.fromEntries(SUMMARY_METRICS.map((k) => [k, [] as number[]])) as Record<
        SummaryMetric,
        number[]
      >;
      records.forEach((rs, i) => {
        summarize(rs, {
          window: shards[i].window,
          max_concurrency: splitCap(14, i, n),
          detail: (d) => {
            for (const k of SUMMARY_METRICS) samples[k].push(...d.samples[k]);
          },
        });
      });
      for (const k of SUMMARY_METRICS)
        assert.deepEqual(
          histogramBuckets(decodeHistogram(report.merge.histograms.metrics[k])),
          histogramBuckets(histogramOf(samples[k]).histogram),
          k,
        );
      assert.ok(samples.ttft_ms.length === REQUESTS);
      // any order, same report
      const reversed = await mergeShards({ expect: n, files: [...files].reverse(), out: null }, t);
      assert.deepEqual(reversed.report.summary, report.summary);
      assert.deepEqual(reversed.report.merge.histograms, report.merge.histograms);
      // --exact: recomputed from the records, the same counts and histograms
      const exact = await mergeShards({ expect: n, files, out: join(dir, 'exact'), exact: true }, t);
      assert.deepEqual(exact.report.summary.requests, whole.summary.requests);
      assert.deepEqual(exact.report.merge.histograms, report.merge.histograms);
      assert.equal(readRecords(join(dir, 'exact', 'requests.jsonl')).length, REQUESTS);
      // Token means from the shards' sums and counts: what the records give, to rounding.
      for (const k of ['input_tokens', 'output_tokens'] as const) {
        const want = exact.report.summary[k].mean;
        assert.ok(want !== null && want > 0, k);
        assert.ok(Math.abs((report.summary[k].mean ?? Number.NaN) - want) < 1e-9, k);
      }
      // The client: CPU adds up over the processes; the event-loop delay is the worst shard's.
      const clients = report.merge.shards.map((s) => s.client);
      const cpu = clients.reduce((a, c) => a + (c.cpu_percent ?? Number.NaN), 0);
      assert.ok(Number.isFinite(cpu));
      assert.equal(report.summary.client.cpu_percent, cpu);
      assert.equal(exact.report.summary.client.cpu_percent, cpu);
      assert.equal(
        report.summary.client.event_loop_delay_ms?.max,
        Math.max(...clients.map((c) => c.event_loop_delay_ms?.max ?? Number.NaN)),
      );
      // Little's law: the disjoint shards' requests in flight add up.
      const inFlight = shards.reduce(
        (a, s) => a + (s.summary.littles_law.measured_in_flight ?? Number.NaN),
        0,
      );
      assert.equal(report.summary.littles_law.measured_in_flight, inFlight);
    });
  }

  it('refuses missing, duplicate, foreign and re-laid-out shards; --allow-missing counts the missing as lost', async () => {
    const dir = mkdtempSync(join(root, 'bad-'));
    const files = await runShards(3, dir);
    const refusal = async (f: string[], expect = 3) => {
      try {
        await mergeShards({ expect, files: f, out: null }, t);
      } catch (err) {
        assert.ok(err instanceof UsageError);
        for (const p of err.problems) assert.ok(p.hint);
        return err.problems.map((p) => p.message).join('\n');
      }
      assert.fail('merge accepted bad shards');
    };
    assert.match(await refusal(files.slice(0, 2)), /shard\(s\) 2 of 3 are missing/);
    assert.match(await refusal([...files, files[1]]), /shard 1 is given twice/);
    assert.match(await refusal(files, 4), /shard 0 of 3, but --expect says 4/);
    const other = mkdtempSync(join(root, 'other-'));
    const foreign = await runShards(3, other, 12);
    assert.match(await refusal([files[0], files[1], foreign[2]]), /has seed 12, but .* has 11/);
    const relaid = JSON.parse(readFileSync(files[2], 'utf8'));
    relaid.histograms.layout = { ...relaid.histograms.layout, significant_digits: 2 };
    const relaidFile = join(dir, 'relaid.json');
    writeFileSync(relaidFile, JSON.stringify(relaid));
    assert.match(await refusal([files[0], files[1], relaidFile]), /another layout/);
    const { report } = await mergeShards(
      { expect: 3, files: files.slice(0, 2), out: null, allowMissing: true },
      t,
    );
    assert.equal(report.summary.requests.measured, REQUESTS);
    assert.equal(report.merge.lost, REQUESTS / 3);
    assert.equal(report.summary.requests.failed, REQUESTS / 3);
    assert.equal(report.summary.outcomes.lost, REQUESTS / 3);
    assert.equal(report.validity?.valid, false);
    // --exact writes one record per planned request: the missing shard's as `lost`.
    const exact = await mergeShards(
      { expect: 3, files: files.slice(0, 2), out: join(dir, 'lost'), allowMissing: true, exact: true },
      t,
    );
    const recs = readRecords(join(dir, 'lost', 'requests.jsonl'));
    assert.equal(recs.filter((r) => r.phase === 'measure').length, REQUESTS);
    const lost = recs.filter((r) => r.outcome === 'lost');
    assert.deepEqual(
      lost.map((r) => r.index),
      Array.from({ length: REQUESTS / 3 }, (_, j) => 2 + 3 * j),
    );
    assert.deepEqual(exact.report.summary.requests, report.summary.requests);
    assert.equal(exact.report.summary.outcomes.lost, REQUESTS / 3);
  });
});
