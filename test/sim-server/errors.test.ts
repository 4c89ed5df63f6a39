/**
 * Bad requests get vLLM's error shape `{"error":{"message","type","param","code"}}` with the
 * right status (400, 401, 404, 429), and the server keeps serving afterwards.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { startSimServer } from '../../src/sim/server/index.js';
import { type HttpResult, http, openStream, post, startSim, stream } from './helpers.js';

interface ErrorShape {
  error: { message: string; type: string; param: string | null; code: number };
}

function assertError(
  r: HttpResult,
  status: number,
  type: string,
  param?: string | null,
): ErrorShape['error'] {
  assert.equal(r.status, status, r.text);
  const e = (r.json as ErrorShape).error;
  assert.deepEqual(Object.keys(e).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(e.type, type);
  assert.equal(e.code, status);
  assert.ok(e.message.length > 10, 'a message a person can act on');
  if (param !== undefined) assert.equal(e.param, param);
  return e;
}

/** The first `n` promises to settle, in settling order. */
function firstN<T>(ps: Promise<T>[], n: number): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const got: T[] = [];
    for (const p of ps)
      p.then((v) => {
        got.push(v);
        if (got.length === n) resolve(got);
      }, reject);
  });
}

const sim = await startSim({ maxModelLen: 256 });
const chatUrl = `${sim.url}/v1/chat/completions`;
const ok = { messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 };

describe('sim server errors', () => {
  test('400 for malformed JSON, bad fields, n out of range and context overflow; the server keeps serving', async () => {
    assertError(await post(chatUrl, '{"messages": ['), 400, 'BadRequestError', null);
    assertError(await post(chatUrl, ''), 400, 'BadRequestError');
    assertError(await post(chatUrl, { messages: 'hi' }), 400, 'BadRequestError', 'messages');
    assertError(await post(chatUrl, { ...ok, max_tokens: -1 }), 400, 'BadRequestError', 'max_tokens');
    assertError(await post(chatUrl, { ...ok, temperature: 9 }), 400, 'BadRequestError', 'temperature');
    const n = assertError(await post(chatUrl, { ...ok, n: 0 }), 400, 'BadRequestError', 'n');
    assert.match(n.message, /n=0/);
    assertError(await post(chatUrl, { ...ok, min_tokens: 5 }), 400, 'BadRequestError', 'min_tokens');
    assertError(
      await post(chatUrl, { ...ok, stream_options: { include_usage: true } }),
      400,
      'BadRequestError',
    );
    const long = assertError(
      await post(chatUrl, { ...ok, max_tokens: 300 }),
      400,
      'BadRequestError',
      // vLLM's context-length errors carry no param.
      null,
    );
    assert.match(long.message, /maximum context length is 256 tokens/);
    assertError(
      await post(`${sim.url}/v1/completions`, { prompt: 'word '.repeat(300), max_tokens: 1 }),
      400,
      'BadRequestError',
      null,
    );
    assertError(
      await post(`${sim.url}/v1/completions`, { prompt: ['a', 'b'] }),
      400,
      'BadRequestError',
      'prompt',
    );
    // Still serving, streaming and not.
    assert.equal((await post(chatUrl, ok)).status, 200);
    const s = await stream(chatUrl, { ...ok, stream: true });
    assert.equal(s.data.at(-1), '[DONE]');
  });

  test('404 for an unknown model or route, 405 for a wrong method', async () => {
    const e = assertError(await post(chatUrl, { ...ok, model: 'gpt-5' }), 404, 'NotFoundError', 'model');
    assert.match(e.message, /gpt-5/);
    assertError(await http(`${sim.url}/v1/nothing`, 'GET'), 404, 'NotFoundError');
    assert.equal((await http(chatUrl, 'GET')).status, 405);
    assert.equal((await post(chatUrl, ok)).status, 200);
  });
});

describe('sim server startup', () => {
  test('a port in use is a usage error with a hint, not a stack trace', async () => {
    await assert.rejects(
      startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', port: sim.port }),
      (e: unknown) => {
        assert.ok(e instanceof UsageError);
        assert.equal(e.problems[0].path, '--port');
        assert.ok(e.problems[0].hint);
        return true;
      },
    );
  });
});

describe('sim server auth and admission', () => {
  test('401 on a wrong or missing bearer token, without ever echoing the key', async (t) => {
    const key = 'sk-secret-key-123456';
    const s = await startSim({ apiKey: key }, t);
    const url = `${s.url}/v1/chat/completions`;
    const wrong = await post(url, ok, { authorization: 'Bearer sk-wrong' });
    assertError(wrong, 401, 'AuthenticationError');
    const missing = await post(url, ok);
    assertError(missing, 401, 'AuthenticationError');
    assertError(await http(`${s.url}/v1/models`, 'GET'), 401, 'AuthenticationError');
    const good = await post(url, ok, { authorization: `Bearer ${key}` });
    assert.equal(good.status, 200);
    // Non-/v1 endpoints stay open, as in vLLM.
    assert.equal((await http(`${s.url}/health`, 'GET')).status, 200);
    for (const text of [wrong.text, missing.text, good.text, ...s.logs]) assert.ok(!text.includes(key));
  });

  test('429 when the waiting queue is full; served again once it drains', async (t) => {
    // One running sequence at a time, so everything else waits; at most 2 may wait.
    const s = await startSim({ maxNumSeqs: 1, maxNumBatchedTokens: 2048, maxWaiting: 2, timeScale: 5 }, t);
    const url = `${s.url}/v1/completions`;
    // A long request occupies the only running slot (~13 s of engine time, ~2.6 s of wall time).
    const busy = openStream(url, { prompt: 'busy', max_tokens: 2000, ignore_eos: true, stream: true });
    await busy.events(1);
    const pending = Array.from({ length: 5 }, () => post(url, { prompt: 'next', max_tokens: 1 }));
    // Arrivals are admitted while fewer than 2 wait: 2 wait behind `busy`, 3 are turned away at once.
    const firstThree = await firstN(pending, 3);
    for (const r of firstThree) assertError(r, 429, 'RateLimitError');
    busy.close(); // the client leaves: its slot frees and the two waiting requests run
    await busy.done;
    const all = await Promise.all(pending);
    assert.deepEqual(all.map((r) => r.status).sort(), [200, 200, 429, 429, 429]);
    assert.equal((await post(url, { prompt: 'again', max_tokens: 1 })).status, 200);
  });
});

describe("--context-error llamacpp: llama.cpp's context errors", () => {
  test('a prompt that fills the context gets exceed_context_size_error with both sizes; max_tokens is clamped', async (t) => {
    const ll = await startSim({ maxModelLen: 64, contextError: 'llamacpp' });
    t.after(() => ll.close());
    const url = `${ll.url}/v1/chat/completions`;
    const r = await post(url, { messages: [{ role: 'user', content: 'word '.repeat(100) }], max_tokens: 2 });
    assert.equal(r.status, 400, r.text);
    const e = (r.json as { error: Record<string, unknown> }).error;
    assert.equal(e.type, 'exceed_context_size_error');
    assert.equal(e.code, 400);
    assert.equal(e.n_ctx, 64);
    assert.ok((e.n_prompt_tokens as number) >= 64, String(e.n_prompt_tokens));
    assert.match(String(e.message), /exceeds the available context size \(64 tokens\)/);
    // vLLM refuses a max_tokens that does not fit; llama.cpp stops at the context's end.
    const c = await post(url, {
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 500,
      ignore_eos: true,
    });
    assert.equal(c.status, 200, c.text);
    const body = c.json as {
      usage: { prompt_tokens: number; completion_tokens: number };
      choices: { finish_reason: string }[];
    };
    assert.equal(body.usage.prompt_tokens + body.usage.completion_tokens, 64);
    assert.equal(body.choices[0].finish_reason, 'length');
  });
});
