/**
 * Reasoning models (Qwen3) think first: a reasoning phase in `reasoning_content` (or `reasoning`),
 * then content. `chat_template_kwargs.enable_thinking=false` turns it off. Reasoning tokens count
 * in completion_tokens and in completion_tokens_details.reasoning_tokens. Prompt tokens come from
 * Qwen3's real tokenizer.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tokenizerFor } from '../../src/tokenizer/index.js';
import { type Chunk, post, startSim, stream, streamText } from './helpers.js';

const sim = await startSim({ model: 'qwen3-0.6b', gpu: 'h100', timeScale: 50 });
const url = `${sim.url}/v1/chat/completions`;
const base = {
  messages: [{ role: 'user', content: 'Why is the sky blue?' }],
  max_tokens: 60,
  ignore_eos: true,
  stream: true,
  stream_options: { include_usage: true },
};

describe('sim server reasoning (Qwen3)', () => {
  test('a reasoning phase comes first, then content; usage counts reasoning tokens', async () => {
    const r = await stream(url, base);
    const reasoning = streamText(r.chunks, 'reasoning_content');
    const content = streamText(r.chunks, 'content');
    const usage = r.chunks.at(-1).usage;
    const nReasoning = reasoning.split(' ').length - 1;
    const nContent = content.split(' ').length - 1;
    // The documented split: 30–70 % of the output is reasoning.
    assert.ok(nReasoning >= 18 && nReasoning < 42, `reasoning tokens ${nReasoning}`);
    assert.equal(nReasoning + nContent, 60);
    assert.equal(usage.completion_tokens, 60);
    assert.equal(usage.completion_tokens_details.reasoning_tokens, nReasoning);
    // Every reasoning delta precedes every content delta (the role chunk aside).
    const kinds = r.chunks
      .slice(1, -1)
      .map((c: Chunk) => (c.choices[0].delta.reasoning_content !== undefined ? 'r' : 'c'))
      .join('');
    assert.match(kinds, /^r+c+$/);
    // The prompt is counted with Qwen3's real tokenizer over the documented chat template.
    const tok = await tokenizerFor('qwen3-0.6b');
    assert.equal(tok.method, 'tokenizer');
    assert.equal(
      usage.prompt_tokens,
      tok.encode('<|im_start|>user\nWhy is the sky blue?<|im_end|>\n<|im_start|>assistant\n').length,
    );
  });

  test('enable_thinking=false turns the reasoning phase off', async () => {
    const r = await stream(url, { ...base, chat_template_kwargs: { enable_thinking: false } });
    assert.equal(streamText(r.chunks, 'reasoning_content'), '');
    assert.equal(streamText(r.chunks, 'content').split(' ').length - 1, 60);
    assert.equal(r.chunks.at(-1).usage.completion_tokens_details, undefined);
  });

  test('non-streaming responses carry the reasoning in the message; the /v1/completions endpoint has none', async () => {
    const chat = (await post(url, { ...base, stream: false, stream_options: undefined })).json as {
      choices: { message: { content: string; reasoning_content: string } }[];
      usage: { completion_tokens_details: { reasoning_tokens: number } };
    };
    const m = chat.choices[0].message;
    assert.equal(
      m.reasoning_content.split(' ').length - 1,
      chat.usage.completion_tokens_details.reasoning_tokens,
    );
    assert.ok(m.content.length > 0);
    const comp = (await post(`${sim.url}/v1/completions`, { prompt: 'x', max_tokens: 5, ignore_eos: true }))
      .json as {
      choices: { text: string }[];
    };
    assert.equal(comp.choices[0].text.split(' ').length - 1, 5);
  });

  test('--reasoning-field reasoning renames the delta field', async (t) => {
    const s = await startSim(
      { model: 'qwen3-0.6b', gpu: 'h100', timeScale: 50, reasoningField: 'reasoning' },
      t,
    );
    const r = await stream(`${s.url}/v1/chat/completions`, base);
    assert.ok(streamText(r.chunks, 'reasoning').length > 0);
    assert.equal(streamText(r.chunks, 'reasoning_content'), '');
  });

  test('models without a reasoning phase answer with content only', async (t) => {
    const s = await startSim({ model: 'llama-3.1-8b', gpu: 'h100', timeScale: 50 }, t);
    const r = await stream(`${s.url}/v1/chat/completions`, base);
    assert.equal(streamText(r.chunks, 'reasoning_content'), '');
    assert.equal(streamText(r.chunks, 'content').split(' ').length - 1, 60);
  });
});
