/**
 * Structured output, tool calls and logprobs over real loopback HTTP: JSON that an independent
 * validator (ajv) accepts for many schemas and seeds, streamed and not, greedy and sampled; tool
 * calls streamed as vLLM streams them and equal to the non-streamed ones; logprobs in OpenAI's
 * shapes; bad schemas answered 400 before any SSE byte; the two misbehaviour hooks.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { generateFromSchema } from '../../src/sim/server/structured.js';
import { pickTools, type ToolChoice } from '../../src/sim/server/tools.js';
import { type Chunk, post, startSim, stream, streamText } from './helpers.js';

const sim = await startSim({ model: 'llama-3.1-8b', gpu: 'h100', timeScale: 200 });
const ajv = new Ajv({ strict: false });

const SCHEMAS: Record<string, unknown>[] = [
  {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 3, maxLength: 20 },
      age: { type: 'integer', minimum: 0, maximum: 120 },
      score: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
      ok: { type: 'boolean' },
      color: { enum: ['red', 'green', 'blue'] },
      tags: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 4 },
      nick: { type: ['string', 'null'] },
    },
    required: ['name', 'age', 'tags'],
    additionalProperties: false,
  },
  {
    type: 'object',
    $defs: {
      point: {
        type: 'object',
        properties: { x: { type: 'number' }, y: { type: 'number' } },
        required: ['x', 'y'],
      },
    },
    properties: {
      points: { type: 'array', items: { $ref: '#/$defs/point' }, minItems: 1, maxItems: 3 },
      meta: {
        type: 'object',
        properties: { when: { type: 'string', format: 'date-time' }, id: { type: 'string', format: 'uuid' } },
        required: ['when'],
      },
      kind: { anyOf: [{ type: 'integer', multipleOf: 5 }, { const: 'none' }] },
    },
    required: ['points', 'meta', 'kind'],
  },
  {
    type: 'array',
    items: { type: 'integer', minimum: -5, maximum: 5 },
    minItems: 3,
    maxItems: 3,
    uniqueItems: true,
  },
  {
    type: 'object',
    properties: { step: { type: 'object', properties: { next: { $ref: '#' } } } },
    required: ['step'],
  },
  { type: 'string', enum: ['yes', 'no'] },
];

const chat = (extra: Record<string, unknown>) => ({
  model: 'llama-3.1-8b',
  messages: [{ role: 'user', content: 'Describe a person as JSON.' }],
  ...extra,
});

const jsonSchema = (schema: unknown) => ({
  type: 'json_schema',
  json_schema: { name: 'out', schema, strict: true },
});

describe('structured output (response_format)', () => {
  test("vLLM's guided_json and structured_outputs.json constrain as response_format does; a bad one is a 400", async () => {
    const schema = SCHEMAS[0];
    const validate = ajv.compile(schema);
    for (const extra of [
      { guided_json: schema },
      { guided_json: JSON.stringify(schema) },
      { structured_outputs: { json: schema } },
    ]) {
      const r = await post(`${sim.url}/v1/chat/completions`, chat({ max_tokens: 256, ...extra }));
      assert.equal(r.status, 200);
      const text = (r.json as { choices: { message: { content: string } }[] }).choices[0].message.content;
      assert.ok(validate(JSON.parse(text)), `${Object.keys(extra)[0]}: ${text}`);
    }
    const bad = await post(`${sim.url}/v1/chat/completions`, chat({ guided_json: { type: 'nonsense' } }));
    assert.equal(bad.status, 400);
    assert.match(bad.text, /guided_json/);
  });

  test('a thinking model reasons first, then answers the schema in content', async (t) => {
    const qwen = await startSim({ model: 'qwen3-8b', gpu: 'h100', timeScale: 200 }, t);
    const schema = SCHEMAS[0];
    const validate = ajv.compile(schema);
    const body = {
      messages: [{ role: 'user', content: 'Describe a person as JSON.' }],
      max_tokens: 512,
      response_format: jsonSchema(schema),
    };
    const s = await stream(`${qwen.url}/v1/chat/completions`, { ...body, stream: true });
    assert.ok(streamText(s.chunks, 'reasoning_content').length > 0);
    assert.ok(validate(JSON.parse(streamText(s.chunks))));
    const off = await post(`${qwen.url}/v1/chat/completions`, {
      ...body,
      chat_template_kwargs: { enable_thinking: false },
    });
    const m = (off.json as { choices: { message: Record<string, unknown> }[] }).choices[0].message;
    assert.ok(!m.reasoning_content);
    assert.ok(validate(JSON.parse(String(m.content))));
  });

  test('the generator alone: 100% valid over 5 schemas × 200 seeds', () => {
    for (const schema of SCHEMAS) {
      const validate = ajv.compile(schema);
      for (let seed = 0; seed < 200; seed++) {
        const v = generateFromSchema(schema, seed);
        assert.ok(validate(v), `${JSON.stringify(v)}: ${ajv.errorsText(validate.errors)}`);
      }
    }
  });

  test('over HTTP: valid JSON for every schema, streamed and not, greedy and sampled', async () => {
    for (const [i, schema] of SCHEMAS.entries()) {
      const validate = ajv.compile(schema);
      for (const temperature of [0, 0.8])
        for (const seed of [1, 2, 3]) {
          const body = chat({ response_format: jsonSchema(schema), temperature, seed, max_tokens: 2000 });
          const r = await post(`${sim.url}/v1/chat/completions`, body);
          assert.equal(r.status, 200, r.text);
          const choice = (r.json as Chunk).choices[0];
          assert.equal(choice.finish_reason, 'stop');
          const value = JSON.parse(choice.message.content);
          assert.ok(validate(value), `schema ${i}: ${choice.message.content}`);
          const s = await stream(`${sim.url}/v1/chat/completions`, {
            ...body,
            stream: true,
            stream_options: { include_usage: true },
          });
          const text = streamText(s.chunks);
          assert.deepEqual(JSON.parse(text), value, 'streamed JSON = non-streamed JSON');
          // Token count: the JSON's pieces, one chunk each.
          assert.equal(s.chunks.at(-1).usage.completion_tokens, (r.json as Chunk).usage.completion_tokens);
        }
    }
  });

  test('greedy requests give the same JSON whatever the seed; sampled ones differ', async () => {
    const schema = SCHEMAS[0];
    const get = async (temperature: number, seed: number) =>
      (
        (
          await post(
            `${sim.url}/v1/chat/completions`,
            chat({ response_format: jsonSchema(schema), temperature, seed }),
          )
        ).json as Chunk
      ).choices[0].message.content;
    assert.equal(await get(0, 1), await get(0, 2));
    const sampled = new Set([await get(1, 1), await get(1, 2), await get(1, 3)]);
    assert.ok(sampled.size > 1);
  });

  test('json_object gives a JSON object; /v1/completions honours response_format too', async () => {
    const r = await post(
      `${sim.url}/v1/chat/completions`,
      chat({ response_format: { type: 'json_object' } }),
    );
    const v = JSON.parse((r.json as Chunk).choices[0].message.content);
    assert.equal(typeof v, 'object');
    assert.ok(v && !Array.isArray(v));
    const c = await post(`${sim.url}/v1/completions`, {
      prompt: 'JSON:',
      response_format: jsonSchema(SCHEMAS[2]),
    });
    assert.ok(ajv.validate(SCHEMAS[2], JSON.parse((c.json as Chunk).choices[0].text)));
  });

  test('max_tokens cuts the JSON: finish_reason length, a prefix of the full JSON', async () => {
    const full = (
      (
        await post(
          `${sim.url}/v1/chat/completions`,
          chat({ response_format: jsonSchema(SCHEMAS[0]), seed: 4 }),
        )
      ).json as Chunk
    ).choices[0].message.content as string;
    const r = await post(
      `${sim.url}/v1/chat/completions`,
      chat({ response_format: jsonSchema(SCHEMAS[0]), seed: 4, max_tokens: 5 }),
    );
    const choice = (r.json as Chunk).choices[0];
    assert.equal(choice.finish_reason, 'length');
    assert.equal((r.json as Chunk).usage.completion_tokens, 5);
    assert.ok(full.startsWith(choice.message.content) && choice.message.content.length < full.length);
    assert.throws(() => JSON.parse(choice.message.content));
  });

  test('invalid schemas are a 400 in OpenAI error shape, before any SSE byte', async () => {
    const bad: unknown[] = [
      { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'foo' } } },
      { type: 'json_schema', json_schema: { name: 'x', schema: 'not an object' } },
      { type: 'json_schema', json_schema: { name: 'x' } },
      { type: 'json_schema' },
      {
        type: 'json_schema',
        json_schema: { name: 'x', schema: { type: 'object', properties: { a: { type: 'str' } } } },
      },
      { type: 'json_schema', json_schema: { name: 'x', schema: { $ref: '#/$defs/missing' } } },
      { type: 'yaml' },
    ];
    for (const rf of bad) {
      for (const streaming of [false, true]) {
        const r = await post(
          `${sim.url}/v1/chat/completions`,
          chat({ response_format: rf, stream: streaming }),
        );
        assert.equal(r.status, 400, JSON.stringify(rf));
        assert.match(String(r.headers['content-type']), /application\/json/);
        const e = (r.json as Chunk).error;
        assert.equal(e.type, 'BadRequestError');
        assert.equal(e.code, 400);
        assert.match(e.param, /^response_format/);
      }
    }
  });
});

const WEATHER = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        unit: { enum: ['c', 'f'] },
        days: { type: 'integer', minimum: 1, maximum: 7 },
      },
      required: ['city', 'unit'],
    },
  },
};
const TIME = { type: 'function', function: { name: 'get_time' } };

/** Tool calls of a stream, reassembled as a client does (by `index`). */
function streamedCalls(chunks: Chunk[]): { id: string; name: string; arguments: string }[] {
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const c of chunks)
    for (const d of c.choices?.[0]?.delta?.tool_calls ?? []) {
      if (d.id !== undefined) {
        assert.equal(d.type, 'function');
        assert.equal(d.function.arguments, '', 'the first delta of a call has empty arguments');
        calls[d.index] = { id: d.id, name: d.function.name, arguments: '' };
      } else calls[d.index].arguments += d.function.arguments;
    }
  return calls;
}

describe('tool calls', () => {
  test('the choice rule, as a table', () => {
    const tools = [{ name: 'get_weather' }, { name: 'get_time' }, { name: 'user' }];
    const rows: [ToolChoice, string, string, boolean, string[]][] = [
      ['auto', 'user', 'please use get_weather', true, ['get_weather']],
      ['auto', 'user', 'GET_TIME and get_weather now', true, ['get_weather', 'get_time']],
      ['auto', 'user', 'GET_TIME and get_weather now', false, ['get_weather']],
      ['auto', 'user', 'my_get_weather_x is not a mention', true, []],
      ['auto', 'user', 'you can use a tool here', true, ['get_weather']],
      ['auto', 'user', 'tell me a story', true, []],
      ['auto', 'tool', 'get_weather said 3', true, []],
      ['none', 'user', 'use get_weather', true, []],
      ['required', 'tool', 'done', true, ['get_weather']],
      [{ name: 'get_time' }, 'user', 'use get_weather', true, ['get_time']],
    ];
    for (const [toolChoice, lastRole, lastText, parallelToolCalls, want] of rows)
      assert.deepEqual(
        pickTools({ tools, toolChoice, lastRole, lastText, parallelToolCalls }).map((t) => t.name),
        want,
        `${JSON.stringify(toolChoice)} ${lastRole}: ${lastText}`,
      );
  });

  test('max_tokens cuts a tool call: finish_reason length, partial arguments', async () => {
    const r = await post(`${sim.url}/v1/chat/completions`, {
      model: 'llama-3.1-8b',
      messages: [{ role: 'user', content: 'use get_weather' }],
      tools: [WEATHER],
      max_tokens: 3,
    });
    const choice = (r.json as Chunk).choices[0];
    assert.equal(choice.finish_reason, 'length');
    assert.equal(choice.message.tool_calls.length, 1);
    assert.throws(() => JSON.parse(choice.message.tool_calls[0].function.arguments));
  });

  const ask = (content: string, extra: Record<string, unknown> = {}) => ({
    model: 'llama-3.1-8b',
    messages: [{ role: 'user', content }],
    tools: [WEATHER, TIME],
    ...extra,
  });

  test('auto: a message naming a tool calls it; arguments follow its schema; same streamed or not', async () => {
    const validate = ajv.compile(WEATHER.function.parameters);
    for (const seed of [1, 2, 3, 4, 5]) {
      const body = ask('What is the weather in Paris? Use get_weather.', { seed, temperature: 0.7 });
      const r = await post(`${sim.url}/v1/chat/completions`, body);
      const choice = (r.json as Chunk).choices[0];
      assert.equal(choice.finish_reason, 'tool_calls');
      assert.equal(choice.message.content, null, 'no tool markup in content');
      assert.equal(choice.message.tool_calls.length, 1);
      const call = choice.message.tool_calls[0];
      assert.equal(call.type, 'function');
      assert.equal(call.function.name, 'get_weather');
      assert.match(call.id, /^chatcmpl-tool-[0-9a-f]{32}$/);
      const args = JSON.parse(call.function.arguments);
      assert.ok(validate(args), call.function.arguments);

      const s = await stream(`${sim.url}/v1/chat/completions`, { ...body, stream: true });
      assert.equal(s.data.at(-1), '[DONE]');
      const calls = streamedCalls(s.chunks);
      assert.equal(calls.length, 1);
      assert.equal(calls[0].name, 'get_weather');
      assert.deepEqual(JSON.parse(calls[0].arguments), args);
      assert.equal(streamText(s.chunks), '', 'no content deltas');
      const finishes = s.chunks.map((c: Chunk) => c.choices[0]?.finish_reason).filter(Boolean);
      assert.deepEqual(finishes, ['tool_calls']);
    }
  });

  test('parallel calls when several tools are named; one with parallel_tool_calls false; zero-arg tools give {}', async () => {
    const r = await post(`${sim.url}/v1/chat/completions`, ask('Call get_weather and get_time please.'));
    const calls = (r.json as Chunk).choices[0].message.tool_calls;
    assert.deepEqual(
      calls.map((c: Chunk) => c.function.name),
      ['get_weather', 'get_time'],
    );
    assert.deepEqual(JSON.parse(calls[1].function.arguments), {});
    assert.notEqual(calls[0].id, calls[1].id);
    const s = await stream(`${sim.url}/v1/chat/completions`, {
      ...ask('Call get_weather and get_time please.'),
      stream: true,
    });
    const sc = streamedCalls(s.chunks);
    assert.deepEqual(
      sc.map((c) => [c.name, JSON.parse(c.arguments)]),
      calls.map((c: Chunk) => [c.function.name, JSON.parse(c.function.arguments)]),
    );
    const one = await post(
      `${sim.url}/v1/chat/completions`,
      ask('Call get_weather and get_time please.', { parallel_tool_calls: false }),
    );
    assert.equal((one.json as Chunk).choices[0].message.tool_calls.length, 1);
  });

  test('tool_choice: none → text; required → a call; named → that tool; auto without a mention → text', async () => {
    const none = (
      await post(`${sim.url}/v1/chat/completions`, ask('Use get_weather.', { tool_choice: 'none' }))
    ).json as Chunk;
    assert.deepEqual(none.choices[0].message.tool_calls, []);
    assert.notEqual(none.choices[0].finish_reason, 'tool_calls');
    assert.ok(none.choices[0].message.content.length > 0);
    const auto = (await post(`${sim.url}/v1/chat/completions`, ask('Tell me a story.'))).json as Chunk;
    assert.deepEqual(auto.choices[0].message.tool_calls, []);
    const req = (
      await post(`${sim.url}/v1/chat/completions`, ask('Tell me a story.', { tool_choice: 'required' }))
    ).json as Chunk;
    assert.equal(req.choices[0].message.tool_calls[0].function.name, 'get_weather');
    const named = (
      await post(
        `${sim.url}/v1/chat/completions`,
        ask('Tell me a story.', { tool_choice: { type: 'function', function: { name: 'get_time' } } }),
      )
    ).json as Chunk;
    assert.equal(named.choices[0].message.tool_calls[0].function.name, 'get_time');
    const bad = await post(
      `${sim.url}/v1/chat/completions`,
      ask('x', { tool_choice: { type: 'function', function: { name: 'nope' } } }),
    );
    assert.equal(bad.status, 400);
    const badParams = await post(`${sim.url}/v1/chat/completions`, {
      ...ask('x'),
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'wat' } } }],
    });
    assert.equal(badParams.status, 400);
  });

  test('a follow-up with the tool result gets a content answer', async () => {
    const first = (await post(`${sim.url}/v1/chat/completions`, ask('Use get_weather for Oslo.')))
      .json as Chunk;
    const call = first.choices[0].message.tool_calls[0];
    const r = await post(`${sim.url}/v1/chat/completions`, {
      model: 'llama-3.1-8b',
      tools: [WEATHER, TIME],
      messages: [
        { role: 'user', content: 'Use get_weather for Oslo.' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: '{"temp": 3}' },
      ],
    });
    assert.equal(r.status, 200, r.text);
    const choice = (r.json as Chunk).choices[0];
    assert.deepEqual(choice.message.tool_calls, []);
    assert.ok(choice.message.content.length > 0);
    assert.ok(['stop', 'length'].includes(choice.finish_reason));
  });
});

describe('logprobs', () => {
  test('chat: content[] entries with token, logprob ≤ 0, bytes, k sorted top_logprobs including the chosen', async () => {
    for (const temperature of [0, 1]) {
      const body = chat({ logprobs: true, top_logprobs: 3, max_tokens: 20, temperature, seed: 9 });
      const r = await post(`${sim.url}/v1/chat/completions`, body);
      const choice = (r.json as Chunk).choices[0];
      const content = choice.logprobs.content as Chunk[];
      assert.equal(content.length, (r.json as Chunk).usage.completion_tokens);
      assert.equal(content.map((e) => e.token).join(''), choice.message.content);
      for (const e of content) {
        assert.ok(e.logprob <= 0);
        assert.deepEqual(e.bytes, Array.from(Buffer.from(e.token)));
        assert.equal(e.top_logprobs.length, 3);
        for (let i = 1; i < 3; i++) assert.ok(e.top_logprobs[i - 1].logprob >= e.top_logprobs[i].logprob);
        const mine = e.top_logprobs.find((t: Chunk) => t.token === e.token);
        assert.ok(mine && mine.logprob === e.logprob);
        if (temperature === 0) assert.equal(e.top_logprobs[0].token, e.token, 'greedy picks the top token');
      }
      const s = await stream(`${sim.url}/v1/chat/completions`, { ...body, stream: true });
      const streamed = s.chunks.flatMap((c: Chunk) => c.choices[0]?.logprobs?.content ?? []);
      assert.deepEqual(streamed, content, 'same logprobs streamed');
    }
  });

  test('completions: the legacy shape (tokens, token_logprobs, top_logprobs, text_offset)', async () => {
    const r = await post(`${sim.url}/v1/completions`, {
      prompt: 'Once',
      max_tokens: 8,
      logprobs: 2,
      seed: 3,
    });
    const choice = (r.json as Chunk).choices[0];
    const lp = choice.logprobs;
    assert.equal(lp.tokens.join(''), choice.text);
    assert.equal(lp.tokens.length, 8);
    assert.equal(lp.token_logprobs.length, 8);
    assert.ok(lp.token_logprobs.every((x: number) => x <= 0));
    assert.equal(lp.text_offset[0], 0);
    for (let i = 1; i < 8; i++)
      assert.equal(lp.text_offset[i], lp.text_offset[i - 1] + lp.tokens[i - 1].length);
    for (const [i, m] of lp.top_logprobs.entries()) {
      assert.equal(Object.keys(m).length, 2);
      assert.equal(m[lp.tokens[i]], lp.token_logprobs[i]);
    }
    const s = await stream(`${sim.url}/v1/completions`, {
      prompt: 'Once',
      max_tokens: 8,
      logprobs: 2,
      seed: 3,
      stream: true,
    });
    const tokens = s.chunks.flatMap((c: Chunk) => c.choices[0]?.logprobs?.tokens ?? []);
    const offsets = s.chunks.flatMap((c: Chunk) => c.choices[0]?.logprobs?.text_offset ?? []);
    assert.deepEqual(tokens, lp.tokens);
    assert.deepEqual(offsets, lp.text_offset);
  });

  test('no logprobs unless asked; top_logprobs out of range is a 400', async () => {
    const r = await post(`${sim.url}/v1/chat/completions`, chat({ max_tokens: 3 }));
    assert.equal((r.json as Chunk).choices[0].logprobs, null);
    const bad = await post(`${sim.url}/v1/chat/completions`, chat({ logprobs: true, top_logprobs: 50 }));
    assert.equal(bad.status, 400);
  });
});

describe('misbehaviour hooks (for fault profiles)', () => {
  test('ignoreJsonSchema: response_format accepted, output is not the schema’s JSON; bad schemas still 400', async (t) => {
    const s = await startSim(
      { model: 'llama-3.1-8b', gpu: 'h100', timeScale: 200, ignoreJsonSchema: true },
      t,
    );
    const r = await post(
      `${s.url}/v1/chat/completions`,
      chat({ response_format: jsonSchema(SCHEMAS[0]), max_tokens: 10 }),
    );
    assert.equal(r.status, 200);
    const content = (r.json as Chunk).choices[0].message.content;
    assert.throws(() => JSON.parse(content));
    const bad = await post(
      `${s.url}/v1/chat/completions`,
      chat({ response_format: jsonSchema({ type: 'foo' }) }),
    );
    assert.equal(bad.status, 400);
  });

  test('emptyToolArgs: calls are made with empty argument strings, streamed and not', async (t) => {
    const s = await startSim({ model: 'llama-3.1-8b', gpu: 'h100', timeScale: 200, emptyToolArgs: true }, t);
    const body = {
      model: 'llama-3.1-8b',
      messages: [{ role: 'user', content: 'Use get_weather.' }],
      tools: [WEATHER],
    };
    const r = await post(`${s.url}/v1/chat/completions`, body);
    const call = (r.json as Chunk).choices[0].message.tool_calls[0];
    assert.equal(call.function.name, 'get_weather');
    assert.equal(call.function.arguments, '');
    const st = await stream(`${s.url}/v1/chat/completions`, { ...body, stream: true });
    const frags = st.chunks.flatMap((c: Chunk) =>
      (c.choices[0]?.delta?.tool_calls ?? []).map((d: Chunk) => d.function.arguments),
    );
    assert.ok(frags.length > 1);
    assert.ok(frags.every((f: string) => f === ''));
  });
});

describe('n > 1', () => {
  test('n choices, index 0..n−1, each its own text; usage counts every choice', async () => {
    const body = chat({ n: 3, max_tokens: 12, seed: 5, temperature: 1 });
    const r = await post(`${sim.url}/v1/chat/completions`, body);
    assert.equal(r.status, 200, r.text);
    const j = r.json as Chunk;
    assert.deepEqual(
      j.choices.map((c: Chunk) => c.index),
      [0, 1, 2],
    );
    const texts = j.choices.map((c: Chunk) => c.message.content as string);
    assert.equal(new Set(texts).size, 3, 'sampled choices differ');
    const tokens = texts.reduce((a: number, t: string) => a + t.split(' ').length - 1, 0);
    assert.equal(j.usage.completion_tokens, tokens);
    // Choice 0 is the n=1 request's answer.
    const one = (await post(`${sim.url}/v1/chat/completions`, { ...body, n: 1 })).json as Chunk;
    assert.equal(one.choices[0].message.content, texts[0]);

    const s = await stream(`${sim.url}/v1/chat/completions`, {
      ...body,
      stream: true,
      stream_options: { include_usage: true },
    });
    assert.equal(s.data.at(-1), '[DONE]');
    const per = ['', '', ''];
    const finishes = [0, 0, 0];
    const order: number[] = [];
    for (const c of s.chunks)
      for (const ch of c.choices) {
        order.push(ch.index);
        if (typeof ch.delta.content === 'string') per[ch.index] += ch.delta.content;
        if (ch.finish_reason) finishes[ch.index]++;
      }
    assert.deepEqual(per, texts, 'streamed choices = non-streamed choices');
    assert.deepEqual(finishes, [1, 1, 1]);
    assert.ok(order.indexOf(1) < order.lastIndexOf(0), 'choices are interleaved');
    assert.equal(s.chunks.at(-1).usage.completion_tokens, tokens);
    assert.equal(s.chunks.filter((c: Chunk) => c.usage).length, 1);
  });

  test('greedy: every choice is the same; structured output per choice stays valid', async () => {
    const g = (await post(`${sim.url}/v1/chat/completions`, chat({ n: 2, temperature: 0, max_tokens: 10 })))
      .json as Chunk;
    assert.equal(g.choices[0].message.content, g.choices[1].message.content);
    const validate = ajv.compile(SCHEMAS[0]);
    const r = (
      await post(
        `${sim.url}/v1/chat/completions`,
        chat({ n: 4, temperature: 1, seed: 2, response_format: jsonSchema(SCHEMAS[0]) }),
      )
    ).json as Chunk;
    for (const c of r.choices) assert.ok(validate(JSON.parse(c.message.content)));
  });

  test('the engine runs n sequences', async (t) => {
    const s = await startSim({ model: 'llama-3.1-8b', gpu: 'h100', timeScale: 200 }, t);
    await post(`${s.url}/v1/completions`, { prompt: 'count', n: 4, max_tokens: 5, ignore_eos: true });
    const finished = s.logs.filter((l) => l.startsWith('sim request') && l.includes('finish=length'));
    assert.equal(finished.length, 4);
  });
});

describe('the official openai SDK reads these responses', () => {
  test('streamed tool calls, logprobs and n through the SDK', async () => {
    const { default: OpenAI } = await import('openai');
    const client = new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const s = await client.chat.completions.create({
      model: 'llama-3.1-8b',
      messages: [{ role: 'user', content: 'Use get_weather for Rome.' }],
      tools: [WEATHER as never],
      stream: true,
      logprobs: true,
      top_logprobs: 2,
    });
    let args = '';
    let name = '';
    let finish: string | null = null;
    for await (const c of s) {
      for (const d of c.choices[0]?.delta?.tool_calls ?? []) {
        if (d.function?.name) name = d.function.name;
        args += d.function?.arguments ?? '';
      }
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(name, 'get_weather');
    assert.ok(ajv.validate(WEATHER.function.parameters, JSON.parse(args)));
    assert.equal(finish, 'tool_calls');
    const r = await client.chat.completions.create({
      model: 'llama-3.1-8b',
      messages: [{ role: 'user', content: 'hi' }],
      n: 2,
      max_tokens: 4,
    });
    assert.equal(r.choices.length, 2);
  });
});
