import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { approximatePieces } from '../../src/tokenizer/index.js';
import { buildWorkload } from '../../src/workload/build.js';

/**
 * A vLLM-shaped tokenize server: POST /tokenize {model, prompt} → {count, tokens, max_model_len}.
 * It counts with the approximation's pieces, so prompts can be checked here; `/broken` answers
 * the first `okCalls` requests then fails, `/missing` is a server without the endpoint.
 */
function tokenizeServer() {
  let calls = 0;
  const okCalls = 3;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const path = req.url ?? '';
      if (
        req.method !== 'POST' ||
        path === '/missing/tokenize' ||
        (path === '/broken/tokenize' && ++calls > okCalls)
      ) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
        return;
      }
      const { prompt, model } = JSON.parse(body) as { prompt: string; model: string };
      assert.equal(model, 'remote-model');
      const tokens = approximatePieces(prompt).map((_, i) => i);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ count: tokens.length, max_model_len: 4096, tokens }));
    });
  });
  return { server, calls: () => calls };
}

/** What the client would supply: a count from the server, or null when it cannot tokenize. */
function remote(base: string) {
  let requests = 0;
  const fn = async (text: string): Promise<number | null> => {
    requests++;
    const r = await request(`${base}/tokenize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'remote-model', prompt: text, add_special_tokens: false }),
    });
    if (r.statusCode !== 200) {
      await r.body.dump();
      return null;
    }
    const j = (await r.body.json()) as { count?: number };
    return typeof j.count === 'number' ? j.count : null;
  };
  return Object.assign(fn, { requests: () => requests });
}

describe('synthetic prompts through a server /tokenize', () => {
  let server: Server;
  let base = '';
  before(async () => {
    server = tokenizeServer().server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('uses the server count when the model has no shipped tokenizer', async () => {
    const tokenizeRemote = remote(base);
    const w = await buildWorkload(
      {
        seed: 4,
        count: 12,
        model: 'remote-model',
        inputLen: 'uniform:5-200',
        sharedPrefixLen: 4,
        numPrefixGroups: 2,
      },
      { tokenizeRemote },
    );
    assert.equal(w.method, 'server_tokenize');
    assert.equal(w.inexact, 0);
    for (const s of w.specs) assert.equal(approximatePieces(s.prompt!).length, s.input_len);
    // One probe, then about one count per prompt (the vocabulary is one token a word).
    assert.ok(tokenizeRemote.requests() <= 1 + 2 + 12 * 3, `requests: ${tokenizeRemote.requests()}`);
  });

  it('falls back to the approximation when the server has no /tokenize', async () => {
    const w = await buildWorkload(
      { seed: 4, count: 3, model: 'remote-model', inputLen: 50 },
      { tokenizeRemote: remote(`${base}/missing`) },
    );
    assert.equal(w.method, 'approximate');
  });

  it('does not trust a /tokenize that answers the same count for any text', async () => {
    const w = await buildWorkload(
      { seed: 4, count: 3, model: 'remote-model', inputLen: 300 },
      { tokenizeRemote: async () => 2 },
    );
    assert.equal(w.method, 'approximate');
    for (const s of w.specs) assert.equal(approximatePieces(s.prompt!).length, 300);
  });

  it('rebuilds everything with the approximation when /tokenize stops answering part-way', async () => {
    const w = await buildWorkload(
      { seed: 4, count: 10, model: 'remote-model', inputLen: 50 },
      { tokenizeRemote: remote(`${base}/broken`) },
    );
    assert.equal(w.method, 'approximate');
    assert.match(w.notes[0], /stopped answering/);
    const clean = await buildWorkload({ seed: 4, count: 10, model: 'remote-model', inputLen: 50 });
    assert.deepEqual(w.specs, clean.specs);
  });
});
