/**
 * @module test/cli/workers
 * `run --workers 2` against the simulator (port 0): two child processes of the CLI, one per
 * shard, merged exactly. On a seeded closed and a seeded open run it must plan what `run` plans
 * (the same request indices and prompt lengths; in the open run the same planned send times),
 * give `run`'s counts, and its merged histograms must equal, bucket for bucket, those built from
 * its own merged records. `--workers` with `--shard` is refused.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeHistogram, histogramBuckets, histogramOf } from '../../src/analysis/histogram.js';
import { counterIncrease } from '../../src/analysis/series.js';
import { SUMMARY_METRICS, type SummaryMetric, summarize } from '../../src/analysis/summary.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { RequestRecord } from '../../src/record/types.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import { openStore } from '../../src/store/index.js';
import '../helpers/node-warnings.js';

let sim: SimServer;
let root: string;
before(async () => {
  sim = await startSimServer({ model: 'qwen3-8b', gpu: 'h100', port: 0, timeScale: 50 });
  root = mkdtempSync(join(tmpdir(), 'servelab-workers-'));
});
after(async () => {
  await sim.close();
});

function readRecords(path: string): RequestRecord[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as RequestRecord);
}

async function run(args: string[], out: string, scrape = false, db: string | null = null) {
  const io = memoryIo({}, root);
  const code = await main(
    [
      'run',
      ...['--url', `${sim.url}/v1`, '--input-len', 'uniform:8-32', '--output-len', 'uniform:2-6'],
      ...['--requests', '24', '--seed', '7', ...(db ? ['--db', db] : ['--no-db'])],
      ...[...(scrape ? [] : ['--no-scrape']), '--out', out],
      ...args,
    ],
    io,
  );
  assert.equal(code, 0, io.err());
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  const records = readRecords(join(out, 'requests.jsonl')).filter((r) => r.phase === 'measure');
  return { report, records, io };
}

const prompts = (rs: readonly RequestRecord[]) =>
  [...rs].sort((a, b) => a.index - b.index).map((r) => [r.index, r.usage?.prompt_tokens ?? null]);

describe('run --workers 2', () => {
  it("does not hold the shared server's token counter against each shard's own usage", async () => {
    // Both shards scrape the one server: its generation-token counter rises by both shards'
    // tokens, about twice what either shard received. Only the whole run can be compared with it.
    const db = join(root, 'workers.db');
    const out = join(root, 'scraped');
    const w = await run(['--concurrency', '4', '--workers', '2', '--format', 'vllm'], out, true, db);
    const reasons = (w.report.validity.reasons as { code: string; message: string }[]).map(
      (r) => `${r.code}: ${r.message}`,
    );
    assert.ok(!reasons.some((r) => r.startsWith('token_mismatch')), reasons.join('\n'));
    // The parent scraped the server once for the whole run: the merged run has a run's server
    // view, and its token check compared the counter with every shard's tokens.
    assert.ok(w.report.monitoring?.server, 'no server view in the merged report');
    assert.ok(w.report.series?.some((p: { name: string }) => p.name === 'generation_tokens_total'));
    const served = w.records.reduce((n, r) => n + (r.usage?.completion_tokens ?? 0), 0);
    const counted = counterIncrease(
      (w.report.series as { name: string; value: number }[])
        .filter((p) => p.name === 'generation_tokens_total')
        .map((p) => p.value),
    );
    // The simulator counts exactly what it sent: one scrape before the first shard's first
    // request and one after the last one's last, so the counter saw both shards' tokens.
    assert.equal(counted, served);
    // One run like any other: stored with every record under the id it prints, and vllm.json.
    const store = openStore(db);
    try {
      const stored = store.getRun(w.report.run_id);
      assert.ok(stored, `run ${w.report.run_id} is not in the store`);
      assert.equal([...store.getRecords(w.report.run_id)].filter((r) => r.phase === 'measure').length, 24);
      assert.deepEqual((stored.summary as { requests: unknown }).requests, w.report.summary.requests);
      // The server's series too, so `diagnose ID` judges the stored run as the run judged itself.
      assert.equal(store.getSeries(w.report.run_id).length, w.report.series.length);
    } finally {
      store.close();
    }
    assert.match(w.io.out(), new RegExp(`run ${w.report.run_id}\\b`));
    // Every line names the run by the store's id, the one `report ID` takes, never the shards'.
    assert.match(w.io.out(), new RegExp(`^merged 2 workers of run ${w.report.run_id}: wrote `, 'm'));
    assert.notEqual(w.report.merge.run_id, w.report.run_id);
    assert.doesNotMatch(w.io.out(), new RegExp(w.report.merge.run_id));
    const vllm = JSON.parse(readFileSync(join(out, 'vllm.json'), 'utf8'));
    assert.equal(vllm.completed, 24);
    assert.equal(vllm.num_prompts, 24);
  });

  for (const [name, load] of [
    ['closed', ['--concurrency', '4']],
    ['open', ['--rate', '200', '--arrival', 'poisson']],
  ] as const) {
    it(`${name} loop: run's plan and counts; merged histograms equal its own records'`, async () => {
      const plain = await run([...load], join(root, `${name}-plain`));
      const w = await run([...load, '--workers', '2'], join(root, `${name}-workers`));
      assert.match(w.io.err(), /starting 2 workers/);
      assert.match(w.io.out(), /merged 2 workers of run \w+: wrote .*report\.json/);
      assert.equal(w.report.merge.exact, true);
      assert.equal(w.report.merge.shards.length, 2);
      assert.deepEqual(w.report.summary.requests, plain.report.summary.requests);
      assert.equal(w.report.summary.requests.succeeded, 24);
      // the same requests: indices and their seeded prompt lengths
      assert.deepEqual(prompts(w.records), prompts(plain.records));
      assert.equal(w.records.length, 24);
      if (name === 'open') {
        // planned send times, each on its own shard's clock, against the plain run's schedule
        const origin = w.report.started_at_unix_ms;
        const wins = w.report.merge.shards.map(
          (s: { window_unix_ms: { start: number } }) => s.window_unix_ms,
        );
        const plannedW = new Map(
          w.records.map((r) => [r.index, (r.planned_at_ms as number) + origin - wins[r.index % 2].start]),
        );
        for (const r of plain.records) {
          const want = (r.planned_at_ms as number) - plain.report.window.start_ms;
          const got = plannedW.get(r.index) as number;
          assert.ok(Math.abs(got - want) < 1e-3, `request ${r.index}: planned ${got} vs ${want}`);
        }
      }
      // bucket for bucket: the merged histograms against those of its own records
      const samples = Object.fromEntries(SUMMARY_METRICS.map((k) => [k, [] as number[]])) as Record<
        SummaryMetric,
        number[]
      >;
      for (const i of [0, 1])
        summarize(
          w.records.filter((r) => r.index % 2 === i),
          {
            window: w.report.window,
            max_concurrency: name === 'closed' ? 2 : null,
            detail: (d) => {
              for (const k of SUMMARY_METRICS) samples[k].push(...d.samples[k]);
            },
          },
        );
      assert.equal(samples.ttft_ms.length, 24);
      for (const k of SUMMARY_METRICS)
        assert.deepEqual(
          histogramBuckets(decodeHistogram(w.report.merge.histograms.metrics[k])),
          histogramBuckets(histogramOf(samples[k]).histogram),
          k,
        );
    });
  }

  it('refuses --workers with --shard, and a bad count, as usage errors', async () => {
    const io = memoryIo({}, root);
    const code = await main(
      ['run', '--url', `${sim.url}/v1`, '--workers', '2', '--shard', '0/2', '--start-in', '5', '--no-db'],
      io,
    );
    assert.equal(code, 1);
    assert.match(io.err(), /--workers splits a run on this host/);
    const bad = memoryIo({}, root);
    assert.equal(await main(['run', '--url', `${sim.url}/v1`, '--workers', 'many', '--no-db'], bad), 1);
    assert.match(bad.err(), /--workers must be an integer ≥ 1 or auto \(got many\)/);
  });
});
