/**
 * The simulator speaks vLLM's wire format: the official openai SDK streams from it; chunks come
 * in vLLM's order (role, deltas, finish with the last token, usage with `choices: []`, [DONE]);
 * request fields are honoured; the info endpoints answer in vLLM's shapes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import OpenAI from 'openai';
import { eosLength } from '../../src/sim/frontend.js';
import { approximateTokenizer } from '../../src/tokenizer/index.js';
import { get, post, startSim, stream } from './helpers.js';

const sim = await startSim({ model: 'llama-3.1-8b', gpu: 'h100', timeScale: 50 });

describe('sim server wire format', () => {
  test('the official openai SDK streams a chat completion', async () => {
    const client = new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const s = await client.chat.completions.create({
      model: 'llama-3.1-8b',
      messages: [{ role: 'user', content: 'Say something.' }],
      max_tokens: 12,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of s) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.ok(usage);
    assert.ok(usage.completion_tokens >= 1 && usage.completion_tokens <= 12);
    // One token is one word with a leading space: text and usage agree.
    assert.equal(text.split(' ').length - 1, usage.completion_tokens);
    assert.equal(finish, usage.completion_tokens === 12 ? 'length' : 'stop');
    // The chat template's pieces are counted apart (special tokens in a real template): the
    // "." of the content does not merge with the "<|" that follows it.
    const pieces = ['<|im_start|>user\n', 'Say something.', '<|im_end|>\n', '<|im_start|>assistant\n'];
    assert.equal(
      usage.prompt_tokens,
      pieces.reduce((n, p) => n + approximateTokenizer.encode(p).length, 0),
    );
    assert.notEqual(usage.prompt_tokens, approximateTokenizer.encode(pieces.join('')).length);
  });

  test('chat stream: role chunk, content deltas, finish with the last token, usage chunk, [DONE]', async () => {
    const r = await stream(`${sim.url}/v1/chat/completions`, {
      model: 'llama-3.1-8b',
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: 5,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
    });
    assert.equal(r.status, 200);
    assert.equal(r.data.at(-1), '[DONE]');
    const [first, ...rest] = r.chunks;
    assert.equal(first.object, 'chat.completion.chunk');
    assert.match(first.id, /^chatcmpl-[0-9a-f]{32}$/);
    assert.deepEqual(first.choices[0].delta, { role: 'assistant', content: '' });
    assert.equal(first.choices[0].finish_reason, null);
    const usageChunk = rest.at(-1);
    assert.deepEqual(usageChunk.choices, []);
    assert.equal(usageChunk.usage.completion_tokens, 5);
    assert.equal(usageChunk.usage.total_tokens, usageChunk.usage.prompt_tokens + 5);
    assert.equal(usageChunk.usage.prompt_tokens_details.cached_tokens, 0);
    const deltas = rest.slice(0, -1);
    assert.equal(deltas.length, 5, 'one chunk per token');
    for (const c of deltas.slice(0, -1)) assert.equal(c.choices[0].finish_reason, null);
    const last = deltas.at(-1);
    assert.equal(last.choices[0].finish_reason, 'length');
    assert.match(last.choices[0].delta.content, /^ [a-z]+$/, 'the last token rides with finish_reason');
    for (const c of r.chunks) assert.equal(c.id, first.id);
    // No timing stamps unless --expose-timings.
    assert.equal(first.servelab, undefined);
  });

  test('no usage chunk without stream_options; continuous_usage_stats puts usage on every chunk', async () => {
    const body = { model: 'llama-3.1-8b', prompt: 'count', max_tokens: 3, ignore_eos: true, stream: true };
    const plain = await stream(`${sim.url}/v1/completions`, body);
    assert.equal(plain.chunks.length, 3);
    assert.ok(plain.chunks.every((c) => c.usage === undefined && c.object === 'text_completion'));
    assert.equal(plain.chunks[2].choices[0].finish_reason, 'length');
    const cont = await stream(`${sim.url}/v1/completions`, {
      ...body,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    });
    assert.deepEqual(
      cont.chunks.map((c) => c.usage?.completion_tokens),
      [1, 2, 3, 3],
    );
    assert.deepEqual(cont.chunks.at(-1).choices, []);
  });

  test('non-streaming chat and completions carry text that agrees with usage', async () => {
    const chat = await post(`${sim.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'parts work too' }] }],
      max_completion_tokens: 7,
      ignore_eos: true,
    });
    assert.equal(chat.status, 200);
    const c = chat.json as {
      object: string;
      choices: { message: { role: string; content: string }; finish_reason: string }[];
      usage: { completion_tokens: number };
    };
    assert.equal(c.object, 'chat.completion');
    assert.equal(c.choices[0].message.role, 'assistant');
    assert.equal(c.choices[0].finish_reason, 'length');
    assert.equal(c.usage.completion_tokens, 7);
    assert.equal(c.choices[0].message.content.split(' ').length - 1, 7);
    assert.match(String(chat.headers['x-request-id']), /^chatcmpl-/);

    const comp = await post(`${sim.url}/v1/completions`, {
      prompt: [1, 2, 3, 4],
      max_tokens: 4,
      ignore_eos: true,
    });
    const j = comp.json as { object: string; choices: { text: string }[]; usage: { prompt_tokens: number } };
    assert.equal(j.object, 'text_completion');
    assert.equal(j.usage.prompt_tokens, 4, 'token-id prompts count as given');
    assert.equal(j.choices[0].text.split(' ').length - 1, 4);
  });

  test('the same prompt and seed give the same text and length; stop strings end the output early', async () => {
    const body = {
      prompt: 'The quick brown fox',
      max_tokens: 40,
      ignore_eos: true,
      seed: 7,
      temperature: 0.8,
    };
    const a = (await post(`${sim.url}/v1/completions`, body)).json as { choices: { text: string }[] };
    const b = (await post(`${sim.url}/v1/completions`, body)).json as { choices: { text: string }[] };
    assert.equal(a.choices[0].text, b.choices[0].text);
    const words = a.choices[0].text.split(' ').slice(1);
    assert.equal(words.length, 40);
    const stopWord = ` ${words[2]}`;
    const cut = a.choices[0].text.indexOf(stopWord);
    const s = (await post(`${sim.url}/v1/completions`, { ...body, stop: [stopWord] })).json as {
      choices: { text: string; finish_reason: string; stop_reason: string }[];
    };
    assert.equal(s.choices[0].text, a.choices[0].text.slice(0, cut));
    assert.equal(s.choices[0].finish_reason, 'stop');
    assert.equal(s.choices[0].stop_reason, stopWord);
  });

  test('temperature 0 is greedy: the seed changes neither text nor length; with sampling it does', async () => {
    const ask = async (temperature: number, seed: number) =>
      (
        (
          await post(`${sim.url}/v1/completions`, {
            prompt: 'Once upon a time',
            max_tokens: 30,
            temperature,
            seed,
          })
        ).json as { choices: { text: string }[] }
      ).choices[0].text;
    assert.equal(await ask(0, 1), await ask(0, 2));
    assert.notEqual(await ask(1, 1), await ask(1, 2));
  });

  test('output lengths follow the shared EOS rule; min_tokens and max_tokens bound them', async () => {
    const prompt = [11, 12, 13, 14, 15];
    const natural = eosLength(prompt, 0, 100_000);
    const ask = async (extra: Record<string, unknown>) =>
      (await post(`${sim.url}/v1/completions`, { prompt, ...extra })).json as {
        usage: { completion_tokens: number };
        choices: { finish_reason: string }[];
      };
    const free = await ask({ max_tokens: natural + 50 });
    assert.equal(free.usage.completion_tokens, natural);
    assert.equal(free.choices[0].finish_reason, 'stop');
    const longer = await ask({ max_tokens: natural + 50, min_tokens: natural + 10 });
    assert.equal(longer.usage.completion_tokens, natural + 10);
    const capped = await ask({ max_tokens: Math.max(1, natural - 1) });
    assert.equal(capped.usage.completion_tokens, Math.max(1, natural - 1));
    assert.equal(capped.choices[0].finish_reason, 'length');
  });

  test('X-Request-Id is echoed and logged with the queue, prefill and decode times', async () => {
    const r = await post(
      `${sim.url}/v1/completions`,
      { prompt: 'log me', max_tokens: 2, ignore_eos: true },
      { 'x-request-id': 'abc-123' },
    );
    assert.equal(r.headers['x-request-id'], 'abc-123');
    const line = sim.logs.find((l) => l.includes('x_request_id=abc-123'));
    assert.ok(line, 'one log line for the request');
    assert.match(line, /queue_ms=\d+\.\d+ prefill_ms=\d+\.\d+ decode_ms=\d+\.\d+/);
  });

  test('/v1/models, /health, /version and /tokenize answer in vLLM shapes', async () => {
    const models = (await get(`${sim.url}/v1/models`)).json as {
      object: string;
      data: { id: string; owned_by: string; max_model_len: number; root: string }[];
    };
    assert.equal(models.object, 'list');
    assert.equal(models.data[0].id, 'llama-3.1-8b');
    assert.equal(models.data[0].owned_by, 'servelab-sim');
    assert.equal(models.data[0].max_model_len, sim.config.maxModelLen);
    assert.equal((await get(`${sim.url}/health`)).status, 200);
    const version = (await get(`${sim.url}/version`)).json as {
      version: string;
      engine: string;
      server_clock_ms: number;
      server_clock_origin_unix_ms: number;
    };
    assert.equal(version.engine, 'servelab-sim');
    assert.ok(version.server_clock_ms > 0 && version.server_clock_origin_unix_ms > 1.7e12);
    assert.match(version.version, /^\d+\.\d+\.\d+/);
    const tok = (await post(`${sim.url}/tokenize`, { prompt: 'Hello world, again' })).json as {
      count: number;
      max_model_len: number;
      tokens: number[];
    };
    assert.equal(tok.count, approximateTokenizer.encode('Hello world, again').length);
    assert.equal(tok.tokens.length, tok.count);
    assert.equal(tok.max_model_len, sim.config.maxModelLen);
    const msgs = (await post(`${sim.url}/tokenize`, { messages: [{ role: 'user', content: 'hi' }] }))
      .json as {
      count: number;
    };
    const chat = (
      await post(`${sim.url}/v1/chat/completions`, {
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 1,
      })
    ).json as { usage: { prompt_tokens: number } };
    assert.equal(msgs.count, chat.usage.prompt_tokens, '/tokenize and usage count the same');
  });
});

describe('sim server options', () => {
  test('--cold-start-ms makes the first request slow (server-side prefill time)', async (t) => {
    const cold = await startSim({ coldStartMs: 500, exposeTimings: true, timeScale: 50 }, t);
    const ask = async () =>
      (
        (await post(`${cold.url}/v1/completions`, { prompt: 'warm up', max_tokens: 2 })).json as {
          timings: { prefill_ms: number };
        }
      ).timings.prefill_ms;
    assert.ok((await ask()) >= 500);
    assert.ok((await ask()) < 100);
  });

  test('unstampedChunks (plan, virtual experiments): the timings object stays, the per-chunk stamps go', async (t) => {
    const body = { prompt: 'hello', max_tokens: 4, stream: true };
    const stamped = await startSim({ exposeTimings: true, timeScale: 50 }, t);
    const plain = await startSim({ exposeTimings: true, unstampedChunks: true, timeScale: 50 }, t);
    const a = await stream(`${stamped.url}/v1/completions`, body);
    const b = await stream(`${plain.url}/v1/completions`, body);
    assert.ok(a.chunks.every((c) => c.servelab !== undefined));
    assert.ok(b.chunks.every((c) => c.servelab === undefined));
    for (const r of [a, b]) assert.equal(typeof r.chunks.at(-1).timings?.prefill_ms, 'number');
  });

  test('--served-model-name renames the model; prompt-token details can be disabled', async (t) => {
    const sim = await startSim({ servedModelName: 'my-llama', enablePromptTokensDetails: false }, t);
    const models = (await get(`${sim.url}/v1/models`)).json as { data: { id: string }[] };
    assert.equal(models.data[0].id, 'my-llama');
    const r = await post(`${sim.url}/v1/completions`, { model: 'my-llama', prompt: 'x', max_tokens: 2 });
    assert.equal(r.status, 200);
    const usage = (r.json as { usage: Record<string, unknown> }).usage;
    assert.equal(usage.prompt_tokens_details, undefined);
    assert.equal(
      (await post(`${sim.url}/v1/completions`, { model: 'llama-3.1-8b', prompt: 'x' })).status,
      404,
    );
  });
});
