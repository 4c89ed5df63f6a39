/**
 * The engine profiles through real loopback HTTP: `--engine sglang` looks like SGLang to
 * `servelab check` (engine guess, OK), to `run`'s scraper (SGLang's series, mapped), to the
 * diagnosis (the report's engine) and on SGLang's own routes; `--engine vllm-v0` exposes v0's
 * gauge names and streams a multi-step group's tokens together.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { detectEngine } from '../../src/monitor/maps.js';
import { parsePrometheusText } from '../../src/monitor/prom-parse.js';
import { loadedRunFromReport } from '../../src/report/report-json.js';
import { type Chunk, get, metricValue, openStream, post, startSim, stream } from './helpers.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-profiles-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('--engine sglang', async () => {
  const sim = await startSim({ model: 'qwen3-0.6b', gpu: 'h100', engine: 'sglang', timeScale: 20 });

  it('is an SGLang server to servelab check: engine sglang, OK', async () => {
    const io = memoryIo({}, dir);
    const code = await main(['check', '--url', sim.url, '--json'], io);
    assert.equal(code, 0, io.err());
    const result = JSON.parse(io.out());
    assert.equal(result.engine, 'sglang');
    assert.equal(result.owned_by, 'sglang');
    assert.equal(result.ok, true);
  });

  it("run scrapes SGLang's series and the report reads as an SGLang server", async () => {
    const io = memoryIo({}, dir);
    const code = await main(
      [
        'run',
        '--url',
        sim.url,
        '--requests',
        '12',
        '--concurrency',
        '4',
        '--input-len',
        '256',
        '--output-len',
        '32',
        '--ignore-eos',
        '--no-db',
        '--scrape-interval',
        '0.05',
        '--out',
        'sglang-run',
      ],
      io,
    );
    assert.equal(code, 0, io.err());
    const report = JSON.parse(readFileSync(join(dir, 'sglang-run', 'report.json'), 'utf8'));
    assert.equal(report.monitoring.scrape.sources[0].engine, 'sglang');
    const names = new Set((report.series as { name: string }[]).map((p) => p.name));
    for (const n of [
      'running',
      'waiting',
      'kv_usage',
      'prompt_tokens_total',
      'generation_tokens_total',
      'sim_behind_total',
      'sim_steps_total',
    ])
      assert.ok(names.has(n), `series ${n} in ${[...names].join(', ')}`);
    // The counters reached the report: the server counted the prompt and output tokens it served.
    assert.ok(
      report.monitoring.server.generation_tokens_delta >= 12 * 32,
      JSON.stringify(report.monitoring.server),
    );
    assert.equal(loadedRunFromReport('r', report, []).engine, 'sglang');
  });

  it("exposes sglang:* names only, read by the monitor's SGLang map", async () => {
    const text = (await get(`${sim.url}/metrics`)).text;
    assert.equal(detectEngine(parsePrometheusText(text).samples), 'sglang');
    const M = '{model_name="qwen3-0.6b"}';
    for (const n of [
      'sglang:num_running_reqs',
      'sglang:num_queue_reqs',
      'sglang:token_usage',
      'sglang:cache_hit_rate',
    ])
      assert.notEqual(metricValue(text, `${n}${M}`), undefined, n);
    assert.ok((metricValue(text, `sglang:prompt_tokens_total${M}`) ?? 0) > 0);
    assert.match(text, /# TYPE sglang:time_to_first_token_seconds histogram/);
    assert.match(text, /sglang:inter_token_latency_seconds_bucket\{le="0\.002"/);
    assert.doesNotMatch(text, /^vllm:/m);
  });

  it('answers /get_server_info, /get_model_info and /v1/models as SGLang', async () => {
    const info = await get(`${sim.url}/get_server_info`);
    assert.equal(info.status, 200);
    const body = JSON.parse(info.text);
    assert.equal(body.schedule_policy, 'fcfs');
    assert.equal(body.chunked_prefill_size, 8192);
    assert.equal(body.page_size, 1);
    assert.equal(typeof body.max_total_num_tokens, 'number');
    assert.equal(JSON.parse((await get(`${sim.url}/get_model_info`)).text).is_generation, true);
    assert.equal(JSON.parse((await get(`${sim.url}/v1/models`)).text).data[0].owned_by, 'sglang');
    // vLLM's reset route is not SGLang's.
    assert.equal((await post(`${sim.url}/reset_prefix_cache`, {})).status, 404);
  });

  it('/flush_cache refuses while a request holds the cache, then flushes', async () => {
    const s = openStream(`${sim.url}/v1/completions`, {
      prompt: 'hold the cache',
      max_tokens: 2000,
      ignore_eos: true,
      stream: true,
    });
    await s.events(2);
    const busy = await post(`${sim.url}/flush_cache`, {});
    assert.equal(busy.status, 400);
    assert.match(busy.text, /Cache not flushed/);
    s.close();
    let ok = busy;
    for (let i = 0; i < 100 && ok.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 10));
      ok = await get(`${sim.url}/flush_cache`);
    }
    assert.equal(ok.status, 200);
    assert.match(ok.text, /^Cache flushed\./);
  });

  it("streams SGLang's chunk shape: bare hex ids, explicit nulls, matched_stop, reasoning_content", async () => {
    const r = await stream(`${sim.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: 'think about it' }],
      max_tokens: 12,
      stream: true,
    });
    const first = r.chunks[0] as Chunk;
    assert.match(first.id, /^[0-9a-f]{32}$/);
    assert.deepEqual(first.choices[0].delta, {
      role: 'assistant',
      content: '',
      reasoning_content: null,
      tool_calls: null,
    });
    assert.equal(first.usage, null);
    assert.ok('matched_stop' in first.choices[0]);
    assert.ok(r.chunks.some((c: Chunk) => typeof c.choices?.[0]?.delta?.reasoning_content === 'string'));
    // Every chunk, the pre-serialised middle ones too (sim/server/chunk-template), is SGLang's.
    const withChoices = r.chunks.filter((c: Chunk) => c.choices?.length);
    assert.ok(withChoices.length >= 10);
    for (const c of withChoices as Chunk[]) {
      assert.match(c.id, /^[0-9a-f]{32}$/);
      assert.ok('matched_stop' in c.choices[0], JSON.stringify(c));
    }
  });
});

describe('--engine vllm-v0', async () => {
  const sim = await startSim({
    model: 'qwen3-0.6b',
    gpu: 'h100',
    engine: 'vllm-v0',
    numSchedulerSteps: 4,
    exposeTimings: true,
    timeScale: 20,
  });

  it("exposes v0's gauge names, read by the monitor's v0 map", async () => {
    await stream(`${sim.url}/v1/completions`, { prompt: 'x', max_tokens: 4, stream: true });
    const text = (await get(`${sim.url}/metrics`)).text;
    assert.equal(detectEngine(parsePrometheusText(text).samples), 'vllm-v0');
    for (const n of [
      'vllm:gpu_cache_usage_perc',
      'vllm:cpu_cache_usage_perc',
      'vllm:gpu_prefix_cache_hit_rate',
    ])
      assert.match(text, new RegExp(`^${n}\\{`, 'm'), n);
    assert.match(text, /# TYPE vllm:time_per_output_token_seconds histogram/);
    assert.doesNotMatch(text, /vllm:kv_cache_usage_perc|vllm:prefix_cache_queries_total/);
  });

  it('--num-scheduler-steps 4 streams tokens four at a time: one step stamp and one write time per burst', async () => {
    const r = await stream(`${sim.url}/v1/completions`, {
      prompt: 'multi step',
      max_tokens: 17,
      ignore_eos: true,
      stream: true,
    });
    const tokens = (r.chunks as Chunk[]).filter((c) => c.choices?.length);
    assert.equal(tokens.length, 17);
    const perStep = new Map<number, number>();
    for (const c of tokens) perStep.set(c.servelab.step, (perStep.get(c.servelab.step) ?? 0) + 1);
    assert.deepEqual([...perStep.values()], [1, 4, 4, 4, 4]);
    // The tokens of one burst share their planned time: they were released together.
    const planned = new Map<number, Set<number>>();
    for (const c of tokens)
      planned.set(c.servelab.step, (planned.get(c.servelab.step) ?? new Set()).add(c.servelab.planned_ms));
    for (const s of planned.values()) assert.equal(s.size, 1);
    assert.equal(tokens.at(-1).choices[0].finish_reason, 'length');
  });
});
