/**
 * @module test/client/list-models
 * `listModels` (how `run` picks a model when none is given) over real loopback HTTP: it reads
 * `/v1/models` as `check` and `exp` do, so a malformed entry never becomes the model sent, and
 * its failures stay TargetErrors with hints.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { listModels } from '../../src/client/engine-api.js';
import { TargetError } from '../../src/core/errors.js';

/** The values of every `authorization` line in a request's raw headers (name, value, name, …). */
function authLines(raw: string[]): string[] {
  return raw.flatMap((v, i) => (i % 2 === 1 && /^authorization$/i.test(raw[i - 1]) ? [v] : []));
}

describe('listModels', () => {
  let server: Server;
  let base = '';
  /** Every `authorization` header line of each request, as sent. */
  const seen: string[][] = [];
  before(async () => {
    server = createServer((req, res) => {
      seen.push(authLines(req.rawHeaders));
      const bodies: Record<string, string> = {
        '/a/v1/models': JSON.stringify({
          object: 'list',
          data: [{ object: 'model' }, { id: 'm1' }, { id: 2 }],
        }),
        '/b/v1/models': 'not json',
        '/c/v1/models': JSON.stringify({ detail: 'no data here' }),
      };
      const body = bodies[req.url ?? ''];
      res.writeHead(req.url === '/d/v1/models' ? 401 : body ? 200 : 404, {
        'content-type': 'application/json',
      });
      res.end(body ?? '{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('returns only the entries that have a string id, sending the key', async () => {
    assert.deepEqual(await listModels(`${base}/a/v1/`, 'sk-test-key', {}), ['m1']);
    assert.deepEqual(seen.at(-1), ['Bearer sk-test-key']);
  });

  it('sends one Authorization, the --header one over the key, as the load client does', async () => {
    await listModels(`${base}/a/v1`, 'sk-test-key', { Authorization: 'Bearer from-header', 'X-Team': 'a' });
    assert.deepEqual(seen.at(-1), ['Bearer from-header']);
  });

  it('a body without data lists no models; non-JSON and 401 are TargetErrors with hints', async () => {
    assert.deepEqual(await listModels(`${base}/c/v1`, undefined, {}), []);
    await assert.rejects(
      listModels(`${base}/b/v1`, undefined, {}),
      (e: unknown) => e instanceof TargetError && /did not return JSON/.test(e.message) && !!e.hint,
    );
    await assert.rejects(
      listModels(`${base}/d/v1`, 'sk-test-key', {}, 'MY_KEY'),
      (e: unknown) =>
        e instanceof TargetError &&
        /401/.test(e.message) &&
        /MY_KEY/.test(e.hint ?? '') &&
        !/sk-test/.test(e.message),
    );
  });
});
