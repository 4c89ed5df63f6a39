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
import '../helpers/node-warnings.js';

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
        '--base-url',
        sim.url,
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
      '--base-url',
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
    // vLLM's TTFT: the first chunk of any kind, from the records' own timestamps.
    const recs = readFileSync(join(dir, 'D', 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const ttfts = recs.map((r) => r.first_chunk_at_ms - r.sent_at_ms);
    assert.ok(Math.abs(v.mean_ttft_ms - ttfts.reduce((a, b) => a + b, 0) / ttfts.length) < 1e-6);
  });

  it('reads vLLM and SGLang names that are more than renames: datasets, prefix, goodput, backend, host/port, result files', async () => {
    const io = memoryIo({}, dir);
    const port = new URL(sim.url).port;
    const code = await main(
      [
        'run',
        '--host',
        '127.0.0.1',
        '--port',
        port,
        '--backend',
        'vllm',
        '--dataset-name',
        'random',
        '--random-input-len',
        '100',
        '--random-prefix-len',
        '50',
        '--random-range-ratio',
        '0.2',
        '--num-prompts',
        '6',
        '--max-concurrency',
        '2',
        '--goodput',
        'ttft:500',
        'tpot:50',
        '--save-result',
        '--result-dir',
        'E',
        '--result-filename',
        'mine.json',
        '--extra-request-body',
        '{"top_k": 5}',
        '--disable-ignore-eos',
        '--no-db',
        '--json',
      ],
      io,
    );
    assert.equal(code, 0, io.err());
    const r = JSON.parse(io.out());
    assert.equal(r.config.target.url, `${sim.url}/v1`);
    assert.equal(r.config.target.endpoint, 'completions');
    assert.deepEqual(r.config.target.extra_body, { top_k: 5 });
    assert.equal(r.config.generation.ignoreEos, false);
    // vLLM puts the prefix before inputs of [⌊100·0.8⌋, ⌈100·1.2⌉]; the output length is vLLM's default 128 ± 20%.
    assert.equal(r.config.workload.inputLen, 'uniform:130-170');
    assert.equal(r.config.workload.outputLen, 'uniform:102-154');
    assert.equal(r.config.workload.sharedPrefixLen, 50);
    assert.equal(r.config.workload.numPrefixGroups, 1);
    assert.deepEqual(r.config.slo, { vllm_ttft_ms: 500, tpot_ms: 50 });
    assert.equal(r.config.load.concurrency, 2);
    const v = JSON.parse(readFileSync(join(dir, 'E', 'mine.json'), 'utf8'));
    assert.equal(v.backend, 'vllm');
    assert.equal(typeof v.request_goodput, 'number');
    assert.match(
      io.err(),
      /note: --dataset-name random is read as servelab's --input-len 100 --output-len 128 \(vLLM's defaults\)/,
    );
    assert.match(io.err(), /note: --host\/--port are read as servelab's --url/);
  });

  it("SGLang's --output-file appends one JSON line per run; --disable-stream is --no-stream", async () => {
    for (let i = 0; i < 2; i++) {
      const io = memoryIo({}, dir);
      const code = await main(
        [
          'run',
          '--url',
          sim.url,
          '--input-len',
          '32',
          '--output-len',
          '4',
          '--requests',
          '3',
          '--disable-stream',
          '--output-file',
          'sg/out.jsonl',
          '--percentile-metrics',
          'e2el',
          '--no-db',
        ],
        io,
      );
      assert.equal(code, 0, io.err());
    }
    const lines = readFileSync(join(dir, 'sg', 'out.jsonl'), 'utf8')
      .trim()
      .split('\n');
    assert.equal(lines.length, 2);
    for (const l of lines) {
      const v = JSON.parse(l);
      assert.equal(v.completed, 3);
      assert.equal(typeof v.mean_e2el_ms, 'number');
    }
  });

  it('vLLM names servelab cannot honour are usage errors with hints, all at once', async () => {
    const io = memoryIo({}, dir);
    const code = await main(
      [
        'run',
        '--url',
        sim.url,
        '--dataset-name',
        'sonnet',
        '--backend',
        'tgi',
        '--goodput',
        'latency:5',
        '--result-filename',
        'x.json',
        '--no-db',
      ],
      io,
    );
    assert.equal(code, 1);
    assert.match(io.err(), /servelab does not read vLLM's "sonnet" dataset/);
    assert.match(io.err(), /servelab does not send vLLM's "tgi" backend/);
    assert.match(io.err(), /--goodput: cannot read "latency:5"/);
    assert.match(io.err(), /--result-filename: names the file of --save-result/);
    assert.doesNotMatch(io.err(), /at .*\.ts:\d+/, 'no stack trace');
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
