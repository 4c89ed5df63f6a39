/** The one settings → client options adapter (`pipeline/client-options`). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientOptionsOf, generationOfSpec } from '../../src/pipeline/client-options.js';

test('run-style settings become the client options, seconds as ms', () => {
  const o = clientOptionsOf(
    {
      endpoint: 'completions',
      model: 'm',
      stream: false,
      headers: { 'x-a': '1' },
      apiKey: 'k',
      extraBody: { seed: 1 },
      timeoutS: 2.5,
      timeoutTtftS: null,
      sessionHeader: 'x-user',
    },
    { maxTokens: 16, temperature: 0.7, topP: 0.9, stop: ['\n'], ignoreEos: true },
  );
  assert.deepEqual(o, {
    endpoint: 'completions',
    model: 'm',
    stream: false,
    maxTokens: 16,
    temperature: 0.7,
    topP: 0.9,
    stop: ['\n'],
    ignoreEos: true,
    extraBody: { seed: 1 },
    headers: { 'x-a': '1' },
    apiKey: 'k',
    timeoutMs: 2500,
    timeoutTtftMs: null,
    sessionHeader: 'x-user',
  });
});

test('what is not given is not sent: no limits, the default session header, temperature left to the client', () => {
  const o = clientOptionsOf({ endpoint: 'chat', model: 'm', stream: true, extraBody: null }, {});
  assert.equal(o.maxTokens, null);
  assert.equal(o.temperature, undefined); // the client's default (0), not null (server's default)
  assert.equal(o.topP, null);
  assert.equal(o.stop, null);
  assert.equal(o.ignoreEos, false);
  assert.equal(o.extraBody, undefined);
  assert.equal(o.timeoutMs, null);
  assert.equal(o.timeoutTtftMs, null);
  assert.equal(o.sessionHeader, 'x-session-id');
});

test("an experiment file's snake_case generation maps to the same options", () => {
  const g = generationOfSpec({ max_tokens: 8, top_p: 0.5, ignore_eos: true, stop: ['x'], temperature: 1 });
  assert.deepEqual(g, { maxTokens: 8, temperature: 1, topP: 0.5, stop: ['x'], ignoreEos: true });
  assert.deepEqual(generationOfSpec({}), {
    maxTokens: null,
    temperature: undefined,
    topP: null,
    stop: null,
    ignoreEos: false,
  });
});
