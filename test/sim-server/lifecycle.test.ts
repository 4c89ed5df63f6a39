/**
 * The server's lifecycle over real loopback HTTP: a client that goes away aborts its request in
 * the engine (gauges, KV and the generation counter say so, and an abort is counted); context
 * overflow is refused before any SSE byte in vLLM's words; a body over --max-body-bytes gets 413
 * without being read; `drain()` lets requests in flight finish while new ones get 503.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { get, http, metricValue, openStream, post, startSim, stream } from './helpers.js';

const M = '{model_name="llama-3.1-8b"}';
const ABORTS = 'vllm:request_success_total{model_name="llama-3.1-8b",finished_reason="abort"}';

/** Scrape /metrics until `ok` holds (at most ~2 s: a bound, not a speed assertion). */
async function metricsUntil(url: string, ok: (text: string) => boolean): Promise<string> {
  let text = '';
  for (let i = 0; i < 100; i++) {
    text = (await get(`${url}/metrics`)).text;
    if (ok(text)) return text;
    await new Promise((r) => setTimeout(r, 20));
  }
  return text;
}

describe('client aborts', () => {
  test('destroyed streams, running and queued, are aborted in the engine and counted', async (t) => {
    const sim = await startSim({ maxNumSeqs: 2 }, t);
    const url = `${sim.url}/v1/completions`;
    const body = (i: number) => ({
      prompt: `${i} a fairly long prompt `.repeat(30),
      max_tokens: 5000,
      ignore_eos: true,
      stream: true,
    });
    const base = (await get(`${sim.url}/metrics`)).text;
    const abortsBefore = metricValue(base, ABORTS) ?? 0;
    const running = [0, 1].map((i) => openStream(url, body(i)));
    await Promise.all(running.map((s) => s.events(3)));
    // Two more wait behind them (max_num_seqs 2): they never get a byte.
    const queued = [2, 3].map((i) => openStream(url, body(i)));
    const busy = await metricsUntil(sim.url, (m) => metricValue(m, `vllm:num_requests_waiting${M}`) === 2);
    assert.equal(metricValue(busy, `vllm:num_requests_running${M}`), 2);
    assert.equal(metricValue(busy, `vllm:num_requests_waiting${M}`), 2);
    assert.ok((metricValue(busy, `vllm:kv_cache_usage_perc${M}`) ?? 0) > 0);
    for (const s of [...running, ...queued]) s.close();

    const idle = await metricsUntil(
      sim.url,
      (m) =>
        metricValue(m, `vllm:num_requests_running${M}`) === 0 &&
        metricValue(m, `vllm:num_requests_waiting${M}`) === 0,
    );
    assert.equal(metricValue(idle, `vllm:num_requests_running${M}`), 0);
    assert.equal(metricValue(idle, `vllm:num_requests_waiting${M}`), 0);
    assert.equal(
      metricValue(idle, `vllm:kv_cache_usage_perc${M}`),
      metricValue(base, `vllm:kv_cache_usage_perc${M}`),
    );
    assert.equal(metricValue(idle, ABORTS), abortsBefore + 4);
    // Nothing generates for them any more.
    const gen1 = metricValue(idle, `vllm:generation_tokens_total${M}`);
    await new Promise((r) => setTimeout(r, 100));
    const gen2 = metricValue((await get(`${sim.url}/metrics`)).text, `vllm:generation_tokens_total${M}`);
    assert.equal(gen2, gen1);
    // The queued two were never scheduled: no queue time, no prefill, no token.
    const lines = sim.logs.filter((l) => l.includes('outcome=client_disconnect'));
    assert.equal(lines.length, 4);
    assert.equal(lines.filter((l) => /completion_tokens=0 queue_ms=- prefill_ms=-/.test(l)).length, 2);
    assert.equal(sim.engine.stats().running + sim.engine.stats().waiting, 0);
  });

  test('a non-streaming request whose client times out (socket closed) is aborted', async (t) => {
    const sim = await startSim({}, t);
    const before = metricValue((await get(`${sim.url}/metrics`)).text, ABORTS) ?? 0;
    const req = request(`${sim.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      agent: false,
    });
    req.on('error', () => {});
    req.end(JSON.stringify({ prompt: 'wait for me', max_tokens: 5000, ignore_eos: true }));
    await metricsUntil(sim.url, (m) => metricValue(m, `vllm:num_requests_running${M}`) === 1);
    req.destroy();
    const idle = await metricsUntil(sim.url, (m) => metricValue(m, `vllm:num_requests_running${M}`) === 0);
    assert.equal(metricValue(idle, `vllm:num_requests_running${M}`), 0);
    assert.equal(metricValue(idle, `vllm:kv_cache_usage_perc${M}`), 0);
    assert.equal(metricValue(idle, ABORTS), before + 1);
  });
});

describe('context length (max_model_len 256)', async () => {
  const sim = await startSim({ maxModelLen: 256 });
  const url = `${sim.url}/v1/completions`;
  const ids = (n: number) => Array.from({ length: n }, (_, i) => 100 + (i % 1000));

  test('a prompt of L − 1 tokens passes; L, L + 1 and 2L get a 400 before any SSE byte', async () => {
    const ok = await stream(url, { prompt: ids(255), stream: true });
    assert.equal(ok.status, 200);
    assert.equal(ok.data.at(-1), '[DONE]');
    for (const n of [256, 257, 512]) {
      const r = await http(url, 'POST', { prompt: ids(n), stream: true });
      assert.equal(r.status, 400, `${n} tokens`);
      assert.match(String(r.headers['content-type']), /application\/json/);
      assert.ok(!r.text.includes('data:'));
      assert.deepEqual(r.json, {
        error: {
          message:
            "This model's maximum context length is 256 tokens. However, your request has " +
            `${n} input tokens. Please reduce the length of the input messages.`,
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      });
    }
  });

  test('prompt + max_tokens over L is refused, as vLLM does, not clipped; exactly L passes', async () => {
    assert.equal((await post(url, { prompt: ids(200), max_tokens: 56 })).status, 200);
    const r = await post(url, { prompt: ids(200), max_tokens: 57, stream: true });
    assert.equal(r.status, 400);
    const e = (r.json as { error: { message: string; param: null } }).error;
    assert.equal(
      e.message,
      "'max_tokens' or 'max_completion_tokens' is too large: 57. This model's maximum context length " +
        'is 256 tokens and your request has 200 input tokens (57 > 256 - 200).',
    );
    assert.equal(e.param, null);
  });
});

describe('--max-body-bytes', () => {
  test('a body over the limit gets 413 before it is sent, and the server stays healthy', async (t) => {
    const sim = await startSim({ maxBodyBytes: 1_000_000 }, t);
    const { hostname, port } = new URL(sim.url);
    // Declare 5 MB but send only 64 KiB of it: the answer comes without the rest.
    const reply = await new Promise<string>((resolve, reject) => {
      const sock = connect(Number(port), hostname, () => {
        sock.write(
          'POST /v1/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
            `content-length: ${5_000_000}\r\n\r\n`,
        );
        sock.write(`{"prompt":"${'a'.repeat(64 * 1024)}`);
      });
      let got = '';
      sock.setEncoding('utf8');
      sock.on('data', (d) => (got += d));
      sock.on('close', () => resolve(got));
      sock.on('error', reject);
    });
    assert.match(reply, /^HTTP\/1\.1 413 /);
    assert.match(reply, /connection: close/i);
    assert.match(reply, /"code":413/);
    assert.match(reply, /exceeds 1000000 bytes/);

    // Chunked (no Content-Length): cut off once 1 MB has been read, of a 5 MB body.
    const status = await new Promise<number>((resolve) => {
      const req = request(`${sim.url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        agent: false,
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', () => {});
      const piece = 'a'.repeat(256 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 5_000_000) {
          sent += piece.length;
          if (!req.write(piece)) return req.once('drain', pump);
        }
        req.end();
      };
      req.write('{"prompt":"');
      pump();
    });
    // The 413 arrives while the client is still writing (its later writes fail: ignored).
    assert.equal(status, 413);

    assert.equal((await get(`${sim.url}/health`)).status, 200);
    assert.equal((await post(`${sim.url}/v1/completions`, { prompt: 'hi', max_tokens: 2 })).status, 200);
  });
});

describe('drain', () => {
  test('in-flight requests finish, new ones and /health get 503, then the server closes', async (t) => {
    const sim = await startSim({ timeScale: 20 }, t);
    const url = `${sim.url}/v1/chat/completions`;
    const s = openStream(url, {
      messages: [{ role: 'user', content: 'keep going' }],
      max_tokens: 40,
      ignore_eos: true,
      stream: true,
    });
    await s.events(2);
    const drained = sim.drain(30);
    assert.equal((await get(`${sim.url}/health`)).status, 503);
    const refused = await post(url, { messages: [{ role: 'user', content: 'late' }], max_tokens: 2 });
    assert.equal(refused.status, 503);
    assert.equal((refused.json as { error: { type: string; code: number } }).error.code, 503);
    assert.equal((refused.json as { error: { type: string } }).error.type, 'InternalServerError');
    const done = await s.done;
    assert.equal(done.data.at(-1), '[DONE]');
    assert.equal(done.chunks.at(-1).choices[0].finish_reason, 'length');
    assert.deepEqual(await drained, { idle: true });
    await assert.rejects(get(`${sim.url}/health`));
  });

  test('a drain that times out drops what is still running', async (t) => {
    const sim = await startSim({ timeScale: 1 }, t);
    const s = openStream(`${sim.url}/v1/completions`, {
      prompt: 'forever',
      max_tokens: 5000,
      ignore_eos: true,
      stream: true,
    });
    await s.events(1);
    assert.deepEqual(await sim.drain(0.2), { idle: false });
    const r = await s.done;
    assert.notEqual(r.data.at(-1), '[DONE]');
  });
});
