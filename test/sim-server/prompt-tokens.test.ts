/**
 * The simulator tokenises a prompt once: the count the workload asks for (`countTokens`, what
 * /tokenize answers) keeps the ids, and serving the same content reuses them; `sim/batch-driver` and the
 * server count a chat prompt the same way.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '../../src/runtime/clock.js';
import { planRequestFromSpec } from '../../src/sim/batch-driver.js';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import { startInProcessSim } from '../../src/sim/server/inprocess.js';
import { chatPromptIds, PromptTokens } from '../../src/sim/server/prompt-tokens.js';
import { approximateTokenizer } from '../../src/tokenizer/index.js';
import { http, startSim } from './helpers.js';

/** The approximate tokenizer, counting its encode calls. */
function countingTokenizer() {
  const calls: string[] = [];
  return {
    calls,
    tok: {
      name: approximateTokenizer.name,
      method: approximateTokenizer.method,
      encode: (t: string) => {
        calls.push(t);
        return approximateTokenizer.encode(t);
      },
      decode: (ids: readonly number[]) => approximateTokenizer.decode(ids),
    },
  };
}

describe('prompt tokens', () => {
  it('encodes each text once and keeps the total of kept ids bounded', () => {
    const { tok, calls } = countingTokenizer();
    const p = new PromptTokens(tok, 40);
    const a = 'one two three four five';
    assert.deepEqual(p.ids(a), approximateTokenizer.encode(a));
    p.ids(a);
    assert.equal(calls.filter((c) => c === a).length, 1);
    const ids = p.chatIds([{ role: 'user', content: a }]);
    assert.equal(calls.filter((c) => c === a).length, 1, 'the content is not encoded again');
    assert.deepEqual(
      ids,
      chatPromptIds((t) => approximateTokenizer.encode(t), [{ role: 'user', content: a }]),
    );
    // Over the budget the oldest texts go: `a` is encoded again.
    p.ids('six '.repeat(38));
    p.ids(a);
    assert.equal(calls.filter((c) => c === a).length, 2);
  });

  it('warms a tokenizer once per process, outside the memo', () => {
    const { tok, calls } = countingTokenizer();
    const a = new PromptTokens(tok);
    a.warm();
    assert.equal(calls.length, 1);
    new PromptTokens(tok).warm();
    assert.equal(calls.length, 1, 'a second server finds it compiled');
    a.ids('hello');
    assert.equal(calls.length, 2, 'warming does not fill the memo');
  });

  it('the in-process count is /tokenize’s, and sim/batch-driver counts a chat prompt as the server does', async () => {
    const sim = await startSim({ model: 'llama-3.1-8b', gpu: 'h100' });
    const text = 'Count me, please: 3 words and some punctuation!';
    const r = await http(`${sim.url}/tokenize`, 'POST', { model: sim.modelId, prompt: text });
    const inproc = await startInProcessSim(
      { model: 'llama-3.1-8b', gpu: 'h100' },
      { clock: new VirtualClock() },
    );
    try {
      assert.equal(await inproc.countTokens(text, inproc.modelId), (r.json as { count: number }).count);
      assert.equal(await inproc.countTokens(text, 'another-model'), null);
    } finally {
      await inproc.close();
    }
    const messages = [{ role: 'user', content: text }];
    const chat = await http(`${sim.url}/tokenize`, 'POST', { model: sim.modelId, messages });
    const cfg = resolveEngineConfig({ model: 'llama-3.1-8b', gpu: 'h100' });
    const planned = planRequestFromSpec(
      { index: 0, input_len: null, output_len: 8, messages },
      approximateTokenizer,
      cfg,
      'r0',
      { endpoint: 'chat' },
    );
    assert.equal(planned.promptIds.length, (chat.json as { count: number }).count);
  });
});
