/**
 * `--fault-profile NAME` reproduces an engine-upgrade bug: `reasoning-renamed` streams reasoning
 * in `reasoning`; `abort-as-success` ends a seeded share of streams, aborted by the engine, with
 * `finish_reason: "abort"` and `[DONE]` (and counts them as aborts in /metrics); the two hook profiles set the options the structured-output and
 * tool-call code read.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { resolveServerOptions } from '../../src/sim/server/options.js';
import { toSimServerOptions } from '../../src/sim/settings.js';
import { get, metricValue, post, startSim, stream, streamText } from './helpers.js';
import '../helpers/node-warnings.js';

const ABORTS = 'vllm:request_success_total{model_name="llama-3.1-8b",finished_reason="abort"}';
const engine = { model: 'llama-3.1-8b', gpu: 'h100' };

describe('fault profiles', () => {
  test('the hook profiles set ignoreJsonSchema and emptyToolArgs; reasoning-renamed sets the field', () => {
    const r = (faultProfile?: string) =>
      resolveServerOptions({ ...engine, faultProfile } as Parameters<typeof resolveServerOptions>[0]).server;
    assert.equal(r('ignore-json-schema').ignoreJsonSchema, true);
    assert.equal(r('ignore-json-schema').emptyToolArgs, false);
    assert.equal(r('empty-tool-args').emptyToolArgs, true);
    assert.equal(r('empty-tool-args').ignoreJsonSchema, false);
    assert.equal(r('reasoning-renamed').reasoningField, 'reasoning');
    assert.equal(r('abort-as-success').abortAsSuccess, true);
    const none = r();
    assert.deepEqual(
      [none.ignoreJsonSchema, none.emptyToolArgs, none.abortAsSuccess, none.reasoningField],
      [false, false, false, 'reasoning_content'],
    );
    // The hooks can also be set directly, and they never reach the engine's options.
    const direct = resolveServerOptions({ ...engine, ignoreJsonSchema: true, emptyToolArgs: true });
    assert.equal(direct.server.ignoreJsonSchema, true);
    assert.equal(direct.server.emptyToolArgs, true);
    assert.ok(!('ignoreJsonSchema' in direct.engine));
    // From a file's snake_case settings, as from the flag.
    assert.equal(toSimServerOptions({ fault_profile: 'empty-tool-args' }).faultProfile, 'empty-tool-args');
  });

  test('ignore-json-schema and empty-tool-args break what they name, end to end over HTTP', async (t) => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city', 'days'],
      additionalProperties: false,
    };
    const validate = new Ajv({ strict: false }).compile(schema);
    const body = {
      messages: [{ role: 'user', content: 'Plan a trip.' }],
      max_tokens: 64,
      response_format: { type: 'json_schema', json_schema: { name: 'trip', schema, strict: true } },
    };
    const argsOf = (r: { json?: unknown }) =>
      (
        r.json as { choices: { message: { tool_calls?: { function: { arguments: string } }[] } }[] }
      ).choices[0].message.tool_calls?.map((c) => c.function.arguments);
    const tools = {
      messages: [{ role: 'user', content: 'Use the weather tool for Paris.' }],
      max_tokens: 64,
      tools: [
        {
          type: 'function',
          function: {
            name: 'weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ],
      tool_choice: 'required',
    };
    const content = (r: { json?: unknown }) =>
      (r.json as { choices: { message: { content: string } }[] }).choices[0].message.content;
    const parses = (text: string) => {
      try {
        return validate(JSON.parse(text));
      } catch {
        return false;
      }
    };
    // The control arm: a healthy simulator honours both.
    const ok = await startSim({ ...engine }, t);
    assert.ok(parses(content(await post(`${ok.url}/v1/chat/completions`, body))));
    const goodArgs = argsOf(await post(`${ok.url}/v1/chat/completions`, tools)) ?? [];
    assert.ok(goodArgs.length > 0 && goodArgs.every((a) => typeof JSON.parse(a).city === 'string'));

    const ignoring = await startSim({ ...engine, faultProfile: 'ignore-json-schema' }, t);
    const r = await post(`${ignoring.url}/v1/chat/completions`, body);
    assert.equal(r.status, 200, 'accepted');
    assert.equal(parses(content(r)), false, 'but not constrained');

    const empty = await startSim({ ...engine, faultProfile: 'empty-tool-args' }, t);
    const badArgs = argsOf(await post(`${empty.url}/v1/chat/completions`, tools)) ?? [];
    assert.ok(badArgs.length > 0);
    assert.deepEqual(
      badArgs,
      badArgs.map(() => ''),
    );
  });

  test('an unknown profile is a usage error that lists the valid ones', async () => {
    const io = memoryIo();
    assert.equal(await main(['sim', '--port', '0', '--fault-profile', 'nope'], io), 1);
    assert.match(io.err(), /--fault-profile/);
    assert.match(io.err(), /abort-as-success/);
  });

  test('reasoning-renamed: reasoning streams in `reasoning`, never in `reasoning_content`', async (t) => {
    const sim = await startSim({ model: 'qwen3-0.6b', faultProfile: 'reasoning-renamed' }, t);
    const r = await stream(`${sim.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: 'Why is the sky blue?' }],
      max_tokens: 40,
      ignore_eos: true,
      stream: true,
    });
    assert.ok(streamText(r.chunks, 'reasoning').length > 0);
    assert.equal(streamText(r.chunks, 'reasoning_content'), '');
  });

  test('abort-as-success: engine-aborted streams end with finish_reason "abort" and [DONE], counted as aborts', async (t) => {
    const sim = await startSim({ faultProfile: 'abort-as-success', seed: 7 }, t);
    const before = metricValue((await get(`${sim.url}/metrics`)).text, ABORTS) ?? 0;
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        stream(`${sim.url}/v1/chat/completions`, {
          messages: [{ role: 'user', content: `question ${i}` }],
          max_tokens: 20,
          ignore_eos: true,
          stream: true,
          stream_options: { include_usage: true },
        }),
      ),
    );
    const aborted = results.filter((r) => r.chunks.some((c) => c.choices?.[0]?.finish_reason === 'abort'));
    assert.ok(aborted.length > 0 && aborted.length < 60, `${aborted.length} aborted`);
    for (const r of results) {
      // Every one looks like a success: 200, then [DONE].
      assert.equal(r.status, 200);
      assert.equal(r.data.at(-1), '[DONE]');
    }
    for (const r of aborted) {
      const usage = r.chunks.at(-1).usage;
      assert.ok(usage.completion_tokens >= 1 && usage.completion_tokens < 20, JSON.stringify(usage));
    }
    const m = (await get(`${sim.url}/metrics`)).text;
    assert.equal(metricValue(m, ABORTS), before + aborted.length);
    assert.equal(sim.engine.stats().running, 0);
  });
});
