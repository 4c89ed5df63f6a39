/**
 * @module test/client/cache-reset
 * `resetPrefixCache` (client/engine-api) over real loopback HTTP: vLLM's `/reset_prefix_cache`
 * first, SGLang's `/flush_cache` next (as `cache.reset` allows), a busy engine's 409 retried,
 * and `unsupported` / `skipped` when nothing was reset.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { resetPrefixCache } from '../../src/client/engine-api.js';
import { RealClock } from '../../src/runtime/clock.js';

describe('resetPrefixCache', () => {
  let server: Server;
  let base = '';
  /** Each request as `METHOD path authorization`. */
  const seen: string[] = [];
  /** The statuses still to answer on a path before the default. */
  const queued: Record<string, number[]> = {};
  before(async () => {
    server = createServer((req, res) => {
      const path = (req.url ?? '').replace(/^\/[a-z]+/, '');
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'}`);
      const status =
        queued[req.url ?? '']?.shift() ??
        (req.url?.startsWith('/vllm/') && path === '/reset_prefix_cache'
          ? 200
          : req.url?.startsWith('/sglang/') && path === '/flush_cache'
            ? 200
            : 404);
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));
  const clock = new RealClock();

  it('resets vLLM with its endpoint, sending the key', async () => {
    seen.length = 0;
    assert.equal(await resetPrefixCache(`${base}/vllm/v1`, 'auto', { clock, apiKey: 'sk-k' }), 'reset');
    assert.deepEqual(seen, ['POST /vllm/reset_prefix_cache Bearer sk-k']);
  });

  it('auto falls back to SGLang; sglang asks only /flush_cache', async () => {
    seen.length = 0;
    assert.equal(await resetPrefixCache(`${base}/sglang/v1`, 'auto', { clock }), 'reset');
    assert.deepEqual(seen, ['POST /sglang/reset_prefix_cache -', 'POST /sglang/flush_cache -']);
    seen.length = 0;
    assert.equal(await resetPrefixCache(`${base}/sglang/v1`, 'sglang', { clock }), 'reset');
    assert.deepEqual(seen, ['POST /sglang/flush_cache -']);
  });

  it('retries a busy engine (409), and says unsupported or skipped when nothing was reset', async () => {
    queued['/vllm/reset_prefix_cache'] = [409, 409];
    seen.length = 0;
    assert.equal(await resetPrefixCache(`${base}/vllm/v1`, 'vllm', { clock }), 'reset');
    assert.equal(seen.length, 3);
    assert.equal(await resetPrefixCache(`${base}/other/v1`, 'auto', { clock }), 'unsupported');
    assert.equal(await resetPrefixCache(`${base}/vllm/v1`, 'sglang', { clock }), 'unsupported');
    seen.length = 0;
    assert.equal(await resetPrefixCache(`${base}/vllm/v1`, 'none', { clock }), 'skipped');
    assert.deepEqual(seen, []);
  });
});
