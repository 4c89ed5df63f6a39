/**
 * Engine mechanisms seen through the HTTP API, asserted on server-side stamps and counters
 * (never on client wall-clock times): continuous batching (one step stamp for all running
 * requests), prefix caching and its reset, KV freed when clients disconnect, and /metrics.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SIM_MARKER } from '../../src/monitor/maps.js';
import { SIM_METRIC_NAMES } from '../../src/monitor/sim-metric-names.js';
import { type Chunk, get, metricValue, openStream, post, startSim } from './helpers.js';

const sim = await startSim({ model: 'llama-3.1-8b', gpu: 'h100', timeScale: 2, exposeTimings: true });
const compUrl = `${sim.url}/v1/completions`;
const M = '{model_name="llama-3.1-8b"}';

/** Wait (bounded) until `/metrics` satisfies `pred`; returns the last exposition text. */
async function metricsUntil(pred: (text: string) => boolean, tries = 200): Promise<string> {
  let text = '';
  for (let i = 0; i < tries; i++) {
    text = (await get(`${sim.url}/metrics`)).text;
    if (pred(text)) return text;
    await new Promise((r) => setTimeout(r, 10));
  }
  return text;
}

/** (step, planned_ms, emit_ms) of every token chunk of a completions stream. */
function tokenStamps(chunks: Chunk[]): { step: number; planned: number; emit: number }[] {
  return chunks
    .filter((c) => c.choices?.length)
    .map((c) => ({ step: c.servelab.step, planned: c.servelab.planned_ms, emit: c.servelab.emit_ms }));
}

describe('sim server mechanisms', () => {
  test('with --expose-timings, all running requests get their tokens in the same steps', async () => {
    // A long request is running; three short ones join it mid-flight.
    const long = openStream(compUrl, {
      prompt: 'long one',
      max_tokens: 5000,
      ignore_eos: true,
      stream: true,
    });
    await long.events(2);
    const shorts = ['a', 'b', 'c'].map((p) =>
      openStream(compUrl, { prompt: `short ${p}`, max_tokens: 20, ignore_eos: true, stream: true }),
    );
    const shortResults = await Promise.all(shorts.map((s) => s.done));
    // The long request's chunks of those steps were written first; let a few more arrive, then leave.
    const lastShortStep = Math.max(...shortResults.flatMap((r) => tokenStamps(r.chunks).map((x) => x.step)));
    let seen = 2;
    for (;;) {
      await long.events(++seen);
      const got = (long.snapshot().chunks as Chunk[]).at(-1);
      if (!got || got.servelab.step > lastShortStep) break;
    }
    long.close();
    const longResult = await long.done;
    const longStamps = tokenStamps(longResult.chunks);
    const plannedByStep = new Map(longStamps.map((s) => [s.step, s.planned]));
    // The long request got one token in every step from its first to its last: continuous batching.
    for (let i = 1; i < longStamps.length; i++) assert.equal(longStamps[i].step, longStamps[i - 1].step + 1);
    for (const r of shortResults) {
      const stamps = tokenStamps(r.chunks);
      assert.equal(stamps.length, 20);
      for (const s of stamps) {
        // Every token of a short request was produced in a step the long request also got a token in,
        // and carries that step's stamp and planned time.
        assert.equal(plannedByStep.get(s.step), s.planned, `step ${s.step} is shared`);
      }
      const timings = r.chunks.find((c: Chunk) => c.timings)?.timings;
      assert.deepEqual(
        timings.token_steps,
        stamps.map((s) => s.step),
      );
      assert.equal(timings.predicted_n, 20);
      assert.ok(timings.queue_ms >= 0 && timings.prefill_ms > 0 && timings.decode_ms > 0);
    }
    // No token is written before its step's planned end (server clock).
    for (const r of [...shortResults, longResult])
      for (const s of tokenStamps(r.chunks))
        assert.ok(s.emit >= s.planned - 1e-6, `${s.emit} >= ${s.planned}`);
  });

  test('a repeat is a prefix-cache hit; /reset_prefix_cache makes the next identical request cold', async () => {
    const prompt = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
    const send = async () => {
      const r = await post(compUrl, { prompt, max_tokens: 1 });
      assert.equal(r.status, 200);
      return (
        r.json as { usage: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } } }
      ).usage;
    };
    const before =
      metricValue((await get(`${sim.url}/metrics`)).text, `vllm:prefix_cache_hits_total${M}`) ?? 0;
    const cold = await send();
    assert.equal(cold.prompt_tokens_details.cached_tokens, 0);
    const warm = await send();
    // Full 16-token blocks, at most prompt − 1 tokens (vLLM recomputes the last token).
    const expected = Math.floor((warm.prompt_tokens - 1) / 16) * 16;
    assert.equal(warm.prompt_tokens_details.cached_tokens, expected);
    assert.ok(expected >= 16);
    const after =
      metricValue((await get(`${sim.url}/metrics`)).text, `vllm:prefix_cache_hits_total${M}`) ?? 0;
    assert.equal(after - before, expected);

    // vLLM only resets an idle cache; the previous test's aborted stream may still be closing.
    await metricsUntil((t) => metricValue(t, `vllm:num_requests_running${M}`) === 0);
    const reset = await post(`${sim.url}/reset_prefix_cache`, undefined);
    assert.equal(reset.status, 200);
    assert.equal((await send()).prompt_tokens_details.cached_tokens, 0, 'cold again after the reset');
    assert.equal((await send()).prompt_tokens_details.cached_tokens, expected, 'and warm on the repeat');
  });

  test('KV usage returns to 0 after clients disconnect mid-stream', async () => {
    const abortsBefore =
      metricValue(
        (await get(`${sim.url}/metrics`)).text,
        'vllm:request_success_total{model_name="llama-3.1-8b",finished_reason="abort"}',
      ) ?? 0;
    const prompt = 'a fairly long prompt '.repeat(40);
    const streams = [1, 2, 3, 4].map((i) =>
      openStream(compUrl, { prompt: `${i} ${prompt}`, max_tokens: 5000, ignore_eos: true, stream: true }),
    );
    await Promise.all(streams.map((s) => s.events(3)));
    const busy = (await get(`${sim.url}/metrics`)).text;
    assert.equal(metricValue(busy, `vllm:num_requests_running${M}`), 4);
    assert.ok((metricValue(busy, `vllm:kv_cache_usage_perc${M}`) ?? 0) > 0);
    for (const s of streams) s.close();
    const idle = await metricsUntil((t) => metricValue(t, `vllm:num_requests_running${M}`) === 0);
    assert.equal(metricValue(idle, `vllm:num_requests_running${M}`), 0);
    assert.equal(metricValue(idle, `vllm:num_requests_waiting${M}`), 0);
    assert.equal(metricValue(idle, `vllm:kv_cache_usage_perc${M}`), 0);
    const aborts = metricValue(
      idle,
      'vllm:request_success_total{model_name="llama-3.1-8b",finished_reason="abort"}',
    );
    assert.equal(aborts, abortsBefore + 4);
    assert.equal(sim.engine.stats().running, 0);
  });

  test('/metrics carries vLLM names with model_name, vLLM buckets and DCGM gauges after traffic', async () => {
    const text = (await get(`${sim.url}/metrics`)).text;
    const stats = sim.engine.stats();
    // Every family monitoring and the dashboard rely on is exposed.
    for (const name of SIM_METRIC_NAMES) assert.ok(text.includes(`# TYPE ${name} `), name);
    for (const name of [
      'vllm:num_requests_running',
      'vllm:num_requests_waiting',
      'vllm:kv_cache_usage_perc',
      'vllm:prefix_cache_queries_total',
      'vllm:prefix_cache_hits_total',
      'vllm:num_preemptions_total',
      'vllm:prompt_tokens_total',
      'vllm:generation_tokens_total',
    ])
      assert.notEqual(metricValue(text, `${name}${M}`), undefined, name);
    assert.ok(text.includes(`# TYPE ${SIM_MARKER} gauge`));
    // The earlier tests ran 3 × 20 + 4 × 1 tokens to completion, plus the aborted streams' tokens.
    assert.equal(metricValue(text, `vllm:generation_tokens_total${M}`), stats.generationTokens);
    assert.ok(stats.generationTokens >= 64);
    assert.equal(metricValue(text, `vllm:prompt_tokens_total${M}`), stats.promptTokens);
    assert.equal(metricValue(text, `vllm:prefix_cache_hits_total${M}`), stats.prefixHits);
    const lengthDone = metricValue(
      text,
      'vllm:request_success_total{model_name="llama-3.1-8b",finished_reason="length"}',
    );
    assert.ok((lengthDone ?? 0) >= 7, `${lengthDone} requests finished with length`);
    for (const h of [
      'vllm:time_to_first_token_seconds',
      'vllm:inter_token_latency_seconds',
      'vllm:e2e_request_latency_seconds',
      'vllm:request_queue_time_seconds',
      'vllm:request_prefill_time_seconds',
      'vllm:request_decode_time_seconds',
    ]) {
      const count = metricValue(text, `${h}_count${M}`) ?? 0;
      assert.ok(count >= 7, `${h} observed`);
      assert.equal(metricValue(text, `${h}_bucket{le="+Inf",model_name="llama-3.1-8b"}`), count);
    }
    assert.ok(text.includes('vllm:time_to_first_token_seconds_bucket{le="0.001",model_name="llama-3.1-8b"}'));
    assert.ok(text.includes('vllm:e2e_request_latency_seconds_bucket{le="7680",model_name="llama-3.1-8b"}'));
    const gpu = '{gpu="0",device="nvidia0"}';
    const fbMiB = metricValue(text, `DCGM_FI_DEV_FB_USED${gpu}`) ?? 0;
    // Llama-3.1-8B bf16 weights alone are ~15 GiB; the card has ~80 GiB.
    assert.ok(fbMiB > 15 * 1024 && fbMiB < 80 * 1024, `${fbMiB} MiB`);
    assert.notEqual(metricValue(text, `DCGM_FI_DEV_GPU_UTIL${gpu}`), undefined);
    assert.ok(!text.includes('process_cpu'), 'no Node default metrics');
  });

  test('promtool check metrics finds nothing but the ":" lint', (t) => {
    const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
    if (probe.error) {
      if (process.env.CI === 'true') assert.fail('promtool is required in CI: apt-get install prometheus');
      t.skip('promtool not installed (hint: apt-get install prometheus)');
      return;
    }
    return get(`${sim.url}/metrics`).then((r) => {
      const dir = mkdtempSync(join(tmpdir(), 'servelab-promtool-'));
      const file = join(dir, 'metrics.txt');
      writeFileSync(file, r.text);
      const res = spawnSync('sh', ['-c', `promtool check metrics < "${file}"`], { encoding: 'utf8' });
      const findings = `${res.stdout}\n${res.stderr}`
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .filter((l) => !/metric names should not contain ':'/.test(l));
      assert.deepEqual(findings, []);
    });
  });
});
