/**
 * `vllm bench serve`'s flag names and readings on `servelab run`, against the simulator over
 * HTTP: the aliases with their notes, --max-concurrency alone as a closed loop, --request-rate
 * inf as one burst under the cap, and vllm.json as vLLM writes it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-vllm-flags-'));
let sim: SimServer;
before(async () => {
  sim = await startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', timeScale: 20 });
});
after(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('vllm bench serve flags on servelab run', () => {
  it('the vLLM invocation works as vLLM reads it, and writes vllm.json with its keys', async () => {
    const io = memoryIo({}, dir);
    const code = await main(
      [
        'run',
        '--url',
        `${sim.url}/v1`,
        '--model',
        sim.modelId,
        '--num-prompts',
        '24',
        '--request-rate',
        'inf',
        '--max-concurrency',
        '4',
        '--random-input-len',
        '128',
        '--random-output-len',
        '16',
        '--percentile-metrics',
        'ttft,tpot,itl,e2el',
        '--metric-percentiles',
        '50,99',
        '--save-result',
        '--result-dir',
        'D',
        '--no-db',
        '--json',
      ],
      io,
    );
    assert.equal(code, 0, io.err());
    for (const alias of [
      '--num-prompts',
      '--request-rate',
      '--random-input-len',
      '--random-output-len',
      '--result-dir',
    ])
      assert.match(io.err(), new RegExp(`note: ${alias} is read as servelab's`));
    const report = JSON.parse(io.out());
    assert.equal(report.config.load.mode, 'open');
    assert.equal(report.summary.requests.measured, 24);
    // One burst at t = 0 under the cap: the queued requests waited for a slot, and that wait
    // is queueing (queue_ms), not generator lateness (analysis/window's slotWaits, table-tested).
    assert.ok(report.summary.queue_ms.max > 0);
    const v = JSON.parse(readFileSync(join(dir, 'D', 'vllm.json'), 'utf8'));
    assert.equal(v.request_rate, 'inf');
    assert.equal(v.max_concurrency, 4);
    assert.equal(v.num_prompts, 24);
    assert.ok(v.max_concurrent_requests <= 4);
    for (const k of ['p50_e2el_ms', 'p99_e2el_ms', 'p50_ttft_ms', 'mean_itl_ms']) assert.ok(k in v, k);
    assert.equal('p99_ttft_ms' in v && 'p90_ttft_ms' in v, false);
  });

  it('--max-concurrency without a rate is a closed loop of that many users', async () => {
    const io = memoryIo({}, dir);
    const code = await main(
      ['run', '--url', `${sim.url}/v1`, '--requests', '12', '--max-concurrency', '3', '--no-db', '--json'],
      io,
    );
    assert.equal(code, 0, io.err());
    const report = JSON.parse(io.out());
    assert.equal(report.config.load.mode, 'closed');
    assert.equal(report.config.load.concurrency, 3);
  });

  it('a vLLM name and its servelab name together, and unknown percentile metrics, are usage errors', async () => {
    const io = memoryIo({}, dir);
    const code = await main(
      [
        'run',
        '--url',
        `${sim.url}/v1`,
        '--requests',
        '10',
        '--num-prompts',
        '10',
        '--percentile-metrics',
        'ttft,goodput',
        '--rate',
        'inf',
        '--duration',
        '5',
        '--no-db',
      ],
      io,
    );
    assert.equal(code, 1);
    assert.match(io.err(), /--num-prompts is vLLM's name of --requests, and both are given/);
    assert.match(io.err(), /unknown metric\(s\) goodput/);
    assert.match(io.err(), /an unbounded rate \(inf\) sends a number of requests at once/);
    assert.doesNotMatch(io.err(), /at .*\.ts:\d+/, 'no stack trace');
  });
});
