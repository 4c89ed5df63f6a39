/**
 * `check` against a well-behaved fake server, a reasoning server, a key-protected server
 * (401 without the key) and a refused port, over real loopback.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { formatCheck, guessEngine, runCheck } from '../../src/client/check.js';
import { RealClock } from '../../src/runtime/clock.js';
import { startSimServer } from '../../src/sim/server/index.js';
import { refusedPort, startFakeOpenAI, type TestServer } from '../helpers/misbehaving.js';

const KEY = 'sk-check-SECRET-9876543210';
const servers: TestServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function fake(o: Parameters<typeof startFakeOpenAI>[0]): Promise<TestServer> {
  const s = await startFakeOpenAI(o);
  servers.push(s);
  return s;
}

describe('runCheck', () => {
  it('well-behaved vLLM-like server: ok, capabilities, engine', async () => {
    const srv = await fake({ ownedBy: 'vllm', models: ['m1', 'm2'], extras: true, apiKey: KEY });
    const r = await runCheck({ baseUrl: srv.baseUrl, apiKey: KEY, clock: new RealClock() });
    assert.equal(r.ok, true, formatCheck(r));
    assert.equal(r.reachable, true);
    assert.equal(r.key_accepted, true);
    assert.deepEqual(r.models, ['m1', 'm2']);
    assert.equal(r.model, 'm1');
    assert.equal(r.engine, 'vllm');
    assert.equal(r.finish_reason_seen, true);
    assert.equal(r.done_seen, true);
    assert.equal(r.usage_present, true);
    assert.equal(r.include_usage_honoured, true);
    assert.equal(r.reasoning_field, null);
    assert.equal(r.thinking, null);
    assert.equal(r.stream?.outcome, 'ok');
    assert.ok(r.stream?.ttft_ms !== null && (r.stream?.e2e_ms as number) >= (r.stream?.ttft_ms as number));
    assert.deepEqual(r.capabilities, {
      metrics: true,
      tokenize: true,
      version: true,
      version_string: '0.0.test',
      timings: false,
      ignore_eos: true,
    });
    const chat = srv.requests.filter((q) => q.path === '/v1/chat/completions');
    assert.ok(
      chat.some((q) => q.body?.max_tokens === 64 && q.body?.temperature === 0 && q.body?.stream === true),
    );
    assert.ok(chat.some((q) => q.body?.ignore_eos === true));
    const text = formatCheck(r);
    assert.match(text, /result: OK/);
    assert.ok(!text.includes(KEY) && !JSON.stringify(r).includes(KEY));
  });

  it('a /tokenize that answers 200 but does not count is "no", with a note (as run judges it)', async () => {
    const srv = await fake({ extras: true, tokenizeEmpty: true });
    const r = await runCheck({ baseUrl: srv.baseUrl, clock: new RealClock() });
    assert.equal(r.capabilities.tokenize, false);
    assert.match(
      formatCheck(r),
      /\/tokenize answered but did not count \(0 then 0 tokens for a text and its triple\)/,
    );
    const sent = srv.requests.filter((q) => q.path === '/tokenize');
    assert.ok(sent.length >= 2 && sent.every((q) => q.body?.content === q.body?.prompt));
  });

  it('reasoning model: a second probe with thinking enabled and max_tokens 1024', async () => {
    const srv = await fake({
      ownedBy: 'sglang',
      models: ['Qwen/Qwen3-8B'],
      reasoning: 'when_enabled',
      reasoningField: 'reasoning_content',
      timings: true,
    });
    const r = await runCheck({ baseUrl: srv.baseUrl, clock: new RealClock() });
    assert.equal(r.engine, 'sglang');
    assert.equal(r.key_sent, false);
    assert.equal(r.key_accepted, true);
    assert.ok(r.thinking, 'thinking probe ran (Qwen3-like name)');
    assert.equal(r.thinking?.reasoning_field, 'reasoning_content');
    assert.equal(r.thinking?.reached_content, true);
    assert.ok((r.thinking?.ttfr_ms as number) <= (r.thinking?.ttft_ms as number));
    assert.equal(r.reasoning_field, 'reasoning_content');
    assert.equal(r.capabilities.timings, true);
    assert.equal(r.capabilities.metrics, false);
    const thinkReq = srv.requests.find((q) => q.body?.max_tokens === 1024);
    assert.deepEqual(thinkReq?.body?.chat_template_kwargs, { enable_thinking: true });
    assert.match(formatCheck(r), /thinking probe/);
  });

  it('a server that ignores the model name (as llama.cpp does) passes, with a note naming what it serves', async () => {
    const srv = await fake({ models: ['real-model'], timings: true });
    const r = await runCheck({ baseUrl: srv.baseUrl, model: 'm', clock: new RealClock() });
    assert.equal(r.ok, true, JSON.stringify(r.problems));
    assert.ok(r.notes.some((n) => /ignores the model name and serves real-model/.test(n.message)));
  });

  it('a server that refuses an unlisted model name still fails the check', async () => {
    const sim = await startSimServer({ model: 'qwen3-0.6b', gpu: 'h100', timeScale: 50 });
    try {
      const r = await runCheck({ baseUrl: `${sim.url}/v1`, model: 'nope', clock: new RealClock() });
      assert.equal(r.ok, false);
      assert.ok(r.problems.some((p) => /model nope is not served here/.test(p.message)));
    } finally {
      await sim.close();
    }
  });

  it('ignore_eos rejected is reported', async () => {
    const srv = await fake({ rejectIgnoreEos: true });
    const r = await runCheck({ baseUrl: srv.baseUrl, model: 'test-model', clock: new RealClock() });
    assert.equal(r.capabilities.ignore_eos, false);
    assert.equal(r.ok, true);
    assert.ok(r.notes.some((n) => /ignore_eos/.test(n.message)));
  });

  it('401 without a key: not ok, hint names INFERENCE_API_KEY', async () => {
    const srv = await fake({ apiKey: KEY });
    const r = await runCheck({ baseUrl: srv.baseUrl, clock: new RealClock() });
    assert.equal(r.ok, false);
    assert.equal(r.reachable, true);
    assert.equal(r.key_accepted, false);
    assert.ok(r.problems.some((p) => p.hint === '401: set INFERENCE_API_KEY (or --api-key-env NAME)'));
    assert.match(formatCheck(r), /result: FAILED/);
  });

  it('401 with a wrong key: the key is never printed', async () => {
    const srv = await fake({ apiKey: 'the-right-key' });
    const r = await runCheck({
      baseUrl: srv.baseUrl,
      apiKey: KEY,
      apiKeyEnv: 'MY_KEY',
      clock: new RealClock(),
    });
    assert.equal(r.key_accepted, false);
    assert.ok(r.problems.some((p) => /MY_KEY/.test(p.hint ?? '')));
    assert.ok(!formatCheck(r).includes(KEY) && !JSON.stringify(r).includes(KEY));
  });

  it('refused port: unreachable, hint asks whether the server runs there', async () => {
    const port = await refusedPort();
    const r = await runCheck({ baseUrl: `http://127.0.0.1:${port}/v1`, clock: new RealClock() });
    assert.equal(r.ok, false);
    assert.equal(r.reachable, false);
    assert.equal(r.key_accepted, null);
    assert.equal(r.problems[0].hint, `is the server running on 127.0.0.1:${port}?`);
    assert.match(r.problems[0].message, /connection refused/);
  });

  it('guessEngine maps owned_by', () => {
    assert.equal(guessEngine('vllm'), 'vllm');
    assert.equal(guessEngine('sglang'), 'sglang');
    assert.equal(guessEngine('llamacpp'), 'llamacpp');
    assert.equal(guessEngine('servelab-sim'), 'servelab-sim');
    assert.equal(guessEngine('openai'), 'unknown');
    assert.equal(guessEngine(null), 'unknown');
  });
});
