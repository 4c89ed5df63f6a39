/**
 * The real `/tokenize` client against loopback servers shaped like vLLM (`{model, prompt}` →
 * `{count, tokens, max_model_len}`), llama.cpp (`{content}` → `{tokens}`, model ignored) and
 * failing ones, and synthetic prompts built through it.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { tokenizeRemote } from '../../src/client/engine-api.js';
import { approximatePieces } from '../../src/tokenizer/index.js';
import { buildWorkload } from '../../src/workload/build.js';

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

type Reply = { status: number; body: string };

/** A loopback server on port 0 whose answer `reply` picks from the path and the JSON body. */
async function serve(reply: (path: string, body: Record<string, unknown>) => Reply) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {}
      const path = req.url ?? '';
      seen.push({ path, headers: req.headers, body });
      const r =
        req.method === 'POST' && path.endsWith('/tokenize')
          ? reply(path, body)
          : { status: 404, body: '{"detail":"Not Found"}' };
      res.writeHead(r.status, { 'content-type': 'application/json' }).end(r.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { root, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const json = (status: number, v: unknown): Reply => ({ status, body: JSON.stringify(v) });
const ids = (text: string) => approximatePieces(text).map((_, i) => i);

/**
 * vLLM's shape: the model must be the served one and the text is `prompt`. Under `/broken` it
 * answers `okCalls` requests then fails; `/missing` has no endpoint; `/constant` answers 2 for
 * any text.
 */
function vllmReply(okCalls: number) {
  let brokenCalls = 0;
  return (path: string, body: Record<string, unknown>): Reply => {
    if (path === '/missing/tokenize' || (path === '/broken/tokenize' && ++brokenCalls > okCalls))
      return json(404, { detail: 'Not Found' });
    if (body.model !== 'remote-model')
      return json(404, { error: { message: `The model \`${body.model}\` does not exist.`, code: 404 } });
    if (typeof body.prompt !== 'string')
      return json(400, { error: { message: 'prompt required', code: 400 } });
    if (path === '/constant/tokenize') return json(200, { count: 2, max_model_len: 4096, tokens: [1, 2] });
    const tokens = ids(body.prompt);
    return json(200, { count: tokens.length, max_model_len: 4096, tokens });
  };
}

/** llama.cpp's shape: the text is `content`, the model is ignored, the answer is `{tokens}`. */
function llamacppReply(_path: string, body: Record<string, unknown>): Reply {
  if (typeof body.content !== 'string')
    return json(400, {
      error: { code: 400, message: '"content" must be provided', type: 'invalid_request_error' },
    });
  return json(200, { tokens: ids(body.content) });
}

/** Each path fails a different way. */
function failingReply(path: string): Reply {
  if (path === '/e500/tokenize') return json(500, { error: { message: 'boom', code: 500 } });
  if (path === '/notjson/tokenize') return { status: 200, body: '<html>ok</html>' };
  if (path === '/nocount/tokenize') return json(200, { ok: true });
  return json(404, { detail: 'Not Found' });
}

describe('tokenizeRemote', () => {
  let vllm: Awaited<ReturnType<typeof serve>>;
  let llamacpp: Awaited<ReturnType<typeof serve>>;
  let failing: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    vllm = await serve(vllmReply(3));
    llamacpp = await serve(llamacppReply);
    failing = await serve(failingReply);
  });
  after(async () => {
    await vllm.close();
    await llamacpp.close();
    await failing.close();
  });

  const text = 'one two three four';

  it('reads count from a vLLM-shaped server, at the server root, with the target headers', async () => {
    const n = await tokenizeRemote(`${vllm.root}/v1`, 'remote-model', 'sk-test-key', { 'X-Team': 'a' })(text);
    assert.equal(n, approximatePieces(text).length);
    const s = vllm.seen.at(-1)!;
    assert.equal(s.path, '/tokenize');
    assert.equal(s.headers.authorization, 'Bearer sk-test-key');
    assert.equal(s.headers['x-team'], 'a');
    assert.equal(s.body.prompt, text);
    assert.equal(s.body.model, 'remote-model');
    assert.equal(s.body.add_special_tokens, false);
  });

  it('reads tokens.length from a llama.cpp-shaped server that wants content and ignores the model', async () => {
    const n = await tokenizeRemote(`${llamacpp.root}/v1/`, 'whatever', undefined, {})(text);
    assert.equal(n, approximatePieces(text).length);
    const s = llamacpp.seen.at(-1)!;
    assert.equal(s.body.content, text);
    assert.equal(s.body.add_special, false);
    assert.equal(s.headers.authorization, undefined);
  });

  it('answers null, never throws, when the server cannot tokenize', async () => {
    const closed = await serve(failingReply);
    await closed.close();
    const cases: [string, string, string][] = [
      ['no /tokenize', `${failing.root}/v1`, 'm'],
      ['500', `${failing.root}/e500/v1`, 'm'],
      ['a 200 that is not JSON', `${failing.root}/notjson/v1`, 'm'],
      ['a 200 without count or tokens', `${failing.root}/nocount/v1`, 'm'],
      ['vLLM refusing an unknown model', `${vllm.root}/v1`, 'other-model'],
      ['nothing listening', `${closed.root}/v1`, 'm'],
      ['not a URL', 'not a url', 'm'],
    ];
    for (const [what, base, model] of cases)
      assert.equal(await tokenizeRemote(base, model, undefined, {})(text), null, what);
  });
});

describe('synthetic prompts through a server /tokenize', () => {
  let vllm: Awaited<ReturnType<typeof serve>>;
  let llamacpp: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    vllm = await serve(vllmReply(3));
    llamacpp = await serve(llamacppReply);
  });
  after(async () => {
    await vllm.close();
    await llamacpp.close();
  });
  const remote = (root: string) => tokenizeRemote(`${root}/v1`, 'remote-model', undefined, {});

  for (const [engine, server] of [
    ['vLLM', () => vllm],
    ['llama.cpp', () => llamacpp],
  ] as const)
    it(`uses the ${engine} server count when the model has no shipped tokenizer`, async () => {
      const before = server().seen.length;
      const w = await buildWorkload(
        {
          seed: 4,
          count: 12,
          model: 'remote-model',
          inputLen: 'uniform:5-200',
          sharedPrefixLen: 4,
          numPrefixGroups: 2,
        },
        { tokenizeRemote: remote(server().root) },
      );
      assert.equal(w.method, 'server_tokenize');
      assert.equal(w.inexact, 0);
      for (const s of w.specs) assert.equal(approximatePieces(s.prompt!).length, s.input_len);
      // One probe, then about one count per prompt (the vocabulary is one token a word).
      const requests = server().seen.length - before;
      assert.ok(requests <= 1 + 2 + 12 * 3, `requests: ${requests}`);
    });

  it('falls back to the approximation when the server has no /tokenize', async () => {
    const w = await buildWorkload(
      { seed: 4, count: 3, model: 'remote-model', inputLen: 50 },
      { tokenizeRemote: remote(`${vllm.root}/missing`) },
    );
    assert.equal(w.method, 'approximate');
  });

  it('does not trust a /tokenize that answers the same count for any text', async () => {
    const w = await buildWorkload(
      { seed: 4, count: 3, model: 'remote-model', inputLen: 300 },
      { tokenizeRemote: remote(`${vllm.root}/constant`) },
    );
    assert.equal(w.method, 'approximate');
    for (const s of w.specs) assert.equal(approximatePieces(s.prompt!).length, 300);
  });

  it('rebuilds everything with the approximation when /tokenize stops answering part-way', async () => {
    const w = await buildWorkload(
      { seed: 4, count: 10, model: 'remote-model', inputLen: 50 },
      { tokenizeRemote: remote(`${vllm.root}/broken`) },
    );
    assert.equal(w.method, 'approximate');
    assert.match(w.notes[0], /stopped answering/);
    const clean = await buildWorkload({ seed: 4, count: 10, model: 'remote-model', inputLen: 50 });
    assert.deepEqual(w.specs, clean.specs);
  });
});
