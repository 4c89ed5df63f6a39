/**
 * @module test/pipeline/token-mismatch
 * The client/server token-count check end to end, over real loopback HTTP: a small server that
 * streams OpenAI chat chunks and exposes vLLM's Prometheus counters
 * (`vllm:generation_tokens_total`, `vllm:prompt_tokens_total`; names from
 * vllm-project/vllm:vllm/v1/metrics/loggers.py). One variant's generation counter rises by
 * more than the `usage.completion_tokens` it reports (1.6×: a counter that also counts tokens
 * the usage leaves out); the other's matches usage exactly. `measure()` must scrape a series that brackets the run, and flag the first as
 * `token_mismatch` and not the second; `servelab run` must print that verdict.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { attemptEndAt } from '../../src/analysis/window.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { measure } from '../../src/pipeline/measure-settings.js';
import { commonSettings, targetSettings } from '../../src/pipeline/settings.js';
import {
  chatChunk,
  DONE,
  type Script,
  type Step,
  sse,
  startSseServer,
  type TestServer,
  usageChunk,
} from '../helpers/misbehaving.js';
import '../helpers/node-warnings.js';

const SSE = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
/** Prompt tokens every response reports (and the honest prompt counter adds). */
const PROMPT_TOKENS = 20;

interface CountingServer extends TestServer {
  /** Completion tokens sent in usage so far, summed over chat requests. */
  usageSent(): number;
  /** The generation counter's current value. */
  generationCounter(): number;
}

/**
 * A vLLM-like server: each chat request streams `max_tokens` one-token content chunks, a usage
 * chunk and [DONE]; the generation counter rises by `counterPerToken` per token sent. Counters
 * start above zero, as on a server that has served traffic before the run.
 */
async function startCountingServer(counterPerToken: number): Promise<CountingServer> {
  let generation = 1000;
  let prompt = 5000;
  let usage = 0;
  const srv = await startSseServer((req): Script => {
    const path = req.path.split('?')[0];
    if (req.method === 'GET' && path === '/v1/models')
      return {
        headers: { 'content-type': 'application/json' },
        steps: [JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model', owned_by: 'vllm' }] })],
      };
    if (req.method === 'GET' && path === '/metrics')
      return {
        headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' },
        steps: [
          [
            '# HELP vllm:num_requests_running Number of requests in model execution batches.',
            '# TYPE vllm:num_requests_running gauge',
            'vllm:num_requests_running{engine="0",model_name="m"} 0.0',
            '# HELP vllm:prompt_tokens_total Number of prefill tokens processed.',
            '# TYPE vllm:prompt_tokens_total counter',
            `vllm:prompt_tokens_total{engine="0",model_name="m"} ${prompt.toFixed(1)}`,
            '# HELP vllm:generation_tokens_total Number of generation tokens processed.',
            '# TYPE vllm:generation_tokens_total counter',
            `vllm:generation_tokens_total{engine="0",model_name="m"} ${generation.toFixed(1)}`,
            '',
          ].join('\n'),
        ],
      };
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      const n = typeof req.body?.max_tokens === 'number' ? req.body.max_tokens : 8;
      // The engine has generated the tokens before it streams them.
      generation += n * counterPerToken;
      prompt += PROMPT_TOKENS;
      usage += n;
      const steps: Step[] = [sse(chatChunk({ role: 'assistant', content: '' }))];
      for (let i = 0; i < n; i++)
        steps.push(sse(chatChunk({ content: ` t${i}`, finish_reason: i === n - 1 ? 'length' : null })), {
          delay_ms: 1,
        });
      steps.push(
        sse(
          usageChunk({ prompt_tokens: PROMPT_TOKENS, completion_tokens: n, total_tokens: PROMPT_TOKENS + n }),
        ),
        DONE,
      );
      return { headers: SSE, steps };
    }
    return {
      status: 404,
      headers: { 'content-type': 'application/json' },
      steps: ['{"detail":"Not Found"}'],
    };
  });
  return { ...srv, usageSent: () => usage, generationCounter: () => generation };
}

const REQUESTS = 12;
const OUTPUT_LEN = 5;

function settings() {
  return commonSettings({
    load: { mode: 'closed', concurrency: 3, requests: REQUESTS },
    workload: { inputLen: '16', outputLen: String(OUTPUT_LEN) },
  });
}

describe('token_mismatch end to end', () => {
  let liar: CountingServer;
  let honest: CountingServer;
  before(async () => {
    liar = await startCountingServer(1.6);
    honest = await startCountingServer(1);
  });
  after(async () => {
    await liar.close();
    await honest.close();
  });

  it('flags a server whose generation counter rises more than the usage it reports', async () => {
    const before = { gen: liar.generationCounter(), usage: liar.usageSent() };
    const m = await measure(
      { target: targetSettings(liar.baseUrl), common: settings() },
      { env: {}, version: 'test' },
    );
    assert.equal(m.result.records.length, REQUESTS);
    const clientSum = m.result.records.reduce((a, r) => a + (r.usage?.completion_tokens ?? 0), 0);
    assert.equal(clientSum, REQUESTS * OUTPUT_LEN);
    assert.equal(liar.usageSent() - before.usage, clientSum);
    // The scraped delta is the counter's whole rise over the run: the series brackets it.
    assert.equal(m.report.monitoring?.server?.generation_tokens_delta, liar.generationCounter() - before.gen);
    const codes = m.validity.map((r) => r.code);
    assert.ok(codes.includes('token_mismatch'), JSON.stringify(m.validity));
    const reason = m.validity.find((r) => r.code === 'token_mismatch');
    assert.match(
      reason?.message ?? '',
      new RegExp(`sum ${clientSum} vs server generation-token counter \\+${1.6 * clientSum}\\b`),
    );
    assert.equal(m.report.validity?.valid, false);
    assert.deepEqual(m.report.validity?.reasons, m.validity);
  });

  it('does not flag a server whose counter matches usage, and its series brackets the run', async () => {
    const before = honest.generationCounter();
    const m = await measure(
      { target: targetSettings(honest.baseUrl), common: settings() },
      { env: {}, version: 'test' },
    );
    assert.equal(m.result.records.length, REQUESTS);
    assert.ok(!m.validity.some((r) => r.code === 'token_mismatch'), JSON.stringify(m.validity));
    const gen = m.series.filter((p) => p.name === 'generation_tokens_total');
    assert.ok(gen.length >= 2, `generation_tokens_total points: ${gen.length}`);
    assert.ok(m.series.some((p) => p.name === 'prompt_tokens_total'));
    const sent = m.result.records.map((r) => r.sent_at_ms).filter((t): t is number => t !== null);
    const ends = m.result.records.map((r) => attemptEndAt(r)).filter((t): t is number => t !== null);
    assert.equal(sent.length, REQUESTS);
    assert.ok(
      gen[0].t_ms <= Math.min(...sent),
      `first scrape ${gen[0].t_ms} ms, first send ${Math.min(...sent)} ms`,
    );
    assert.ok(
      (gen.at(-1)?.t_ms ?? -1) >= Math.max(...ends),
      `last scrape ${gen.at(-1)?.t_ms} ms, last end ${Math.max(...ends)} ms`,
    );
    // First and last readings are the counter before and after the run.
    assert.equal(gen[0].value, before);
    assert.equal(gen.at(-1)?.value, honest.generationCounter());
    assert.equal(m.report.monitoring?.server?.generation_tokens_delta, REQUESTS * OUTPUT_LEN);
    assert.equal(m.report.monitoring?.server?.prompt_tokens_delta, REQUESTS * PROMPT_TOKENS);
  });

  it('servelab run prints a NOT VALID verdict naming token_mismatch for the liar', async () => {
    const io = memoryIo({});
    const code = await main(
      [
        'run',
        '--url',
        liar.baseUrl,
        '--concurrency',
        '2',
        '--requests',
        '8',
        '--input-len',
        '16',
        '--output-len',
        String(OUTPUT_LEN),
        '--no-db',
      ],
      io,
    );
    assert.equal(code, 0, io.err());
    const out = io.out();
    assert.match(out, /^verdict: NOT VALID\b.*$/m, out);
    assert.match(
      out,
      /^ {2}- token_mismatch: client usage\.completion_tokens sum 40 vs server generation-token counter \+64 /m,
      out,
    );
  });

  it('servelab run against the honest server names no token_mismatch', async () => {
    const io = memoryIo({});
    const code = await main(
      [
        'run',
        '--url',
        honest.baseUrl,
        '--concurrency',
        '2',
        '--requests',
        '8',
        '--output-len',
        '5',
        '--no-db',
      ],
      io,
    );
    assert.equal(code, 0, io.err());
    assert.match(io.out(), /^verdict: /m);
    assert.doesNotMatch(io.out(), /token_mismatch/);
  });
});
