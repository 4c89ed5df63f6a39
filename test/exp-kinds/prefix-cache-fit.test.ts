/**
 * The prefix-cache template against the server's context: against a 4-slot llama.cpp (2048
 * tokens per slot, `../shared/llamacpp`) a 2048-token document is refused before any request is
 * sent, naming the per-slot context and where it was read; a document that fits runs. And a run
 * where every request fails never says its hits are where expected. The llama.cpp part skips with
 * the reason without the shared build; under CI=true it fails.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it, test } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { KINDS } from '../../src/exp/kinds/index.js';
import type { PrefixCacheResult } from '../../src/exp/kinds/prefix-cache.js';
import { translator } from '../../src/i18n/index.js';
import { type LlamaServer, llamaServerMissing, startLlamaServer } from '../helpers/llama-server.js';
import { exp, run } from './helpers.js';

const file = (url: string, model: string, doc: number) => `
kind: prefix-cache
name: pc
model: ${model}
targets:
  t:
    url: ${url}
cache: {reset: none}
workload: {output_len: 4}
prefix_cache: {document_tokens: ${doc}, question_tokens: 16, requests_per_phase: 1, documents: 1}
`;

// A server that lists a model and fails every generation.
let failing: Server;
let failingUrl = '';
before(async () => {
  failing = createServer((req, res) => {
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model', owned_by: 'vllm' }] }));
      return;
    }
    req.resume();
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'no', type: 'BadRequestError', code: 400 } }));
  });
  await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
  failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/v1`;
});
after(() => new Promise<void>((r) => failing.close(() => r())));

test('every request failing: hits are not judged, never "as expected: yes"', async () => {
  const { result } = await run(exp(file(failingUrl, 'm', 256)));
  const r = result.results as PrefixCacheResult;
  assert.equal(r.targets[0].hits_as_expected, null);
  const text = KINDS['prefix-cache'].format(r as never, translator('en')).join('\n');
  assert.doesNotMatch(text, /hits as expected: yes/);
  assert.match(text, /hits as expected: not judged/);
});

const missing = llamaServerMissing();
const servers: LlamaServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

/** llama.cpp's prompt-token counter (nothing sent: unchanged). */
async function promptTokens(root: string): Promise<number> {
  const text = await (await fetch(`${root}/metrics`)).text();
  const m = /^llamacpp:prompt_tokens_total\s+(\S+)/m.exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

describe('prefix-cache against a 4-slot llama.cpp', { skip: missing ?? false }, () => {
  it('refuses a document larger than a slot before sending, naming the per-slot context; runs one that fits', async () => {
    const srv = await startLlamaServer();
    servers.push(srv);
    const before = await promptTokens(srv.root);
    await assert.rejects(run(exp(file(`${srv.root}/v1`, 'qwen2-vocab', 2048))), (e: unknown) => {
      assert.ok(e instanceof UsageError);
      const [p] = e.problems;
      assert.equal(p.path, 'prefix_cache.document_tokens');
      assert.match(
        p.message,
        /context of 2048 tokens per slot \(\/v1\/models meta\.n_ctx\); nothing was sent/,
      );
      assert.match(p.hint ?? '', /at most 1964/);
      return true;
    });
    assert.equal(await promptTokens(srv.root), before);
    const { result } = await run(exp(file(`${srv.root}/v1`, 'qwen2-vocab', 512)));
    const r = result.results as PrefixCacheResult;
    assert.equal(r.targets[0].phases.length, 4);
    assert.notEqual(r.targets[0].hits_as_expected, null);
  });
});
