/**
 * Absurd sizes are refused up front, naming the limit (issue 28): before, `--requests 1e30` threw
 * `RangeError: Invalid array length`, `--warmup 1e9` ran out of heap and `--rate 200 --duration
 * 86400` grew to 4 GB before its first request. Nothing reaches the server (a closed port).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { MAX_PLANNED_REQUESTS } from '../../src/core/limits.js';
import { refusedPort, startSseServer } from '../helpers/misbehaving.js';

it('--requests, --warmup and --rate × --duration over the limit: a usage error naming the most', async () => {
  const url = `http://127.0.0.1:${await refusedPort()}/v1`;
  const max = MAX_PLANNED_REQUESTS.toLocaleString('en-US');
  for (const [args, limit] of [
    [['--requests', '1e30'], String(MAX_PLANNED_REQUESTS)],
    [['--requests', '10', '--warmup', '1e9'], String(MAX_PLANNED_REQUESTS)],
    [['--rate', '200', '--duration', '86400'], max],
  ] as const) {
    const io = memoryIo({});
    const code = await main(
      ['run', '--url', url, '--model', 'm', '--prompt', 'hi', '--no-db', '--no-scrape', ...args],
      io,
    );
    assert.equal(code, 1, io.err());
    assert.ok(io.err().includes(limit), io.err());
    assert.doesNotMatch(io.err(), /RangeError|heap|internal error|\n\s+at /);
  }
});

it('an --input-len over the served context (max_model_len on /v1/models) is refused before anything is built or sent', async () => {
  const server = await startSseServer((req) =>
    req.path.startsWith('/v1/models')
      ? {
          headers: { 'content-type': 'application/json' },
          steps: ['{"data":[{"id":"m","owned_by":"vllm","max_model_len":40960}]}'],
        }
      : { headers: { 'content-type': 'text/event-stream' }, steps: [{ stall: true }] },
  );
  try {
    const io = memoryIo({});
    const args = ['run', '--url', server.baseUrl, '--input-len', '10000000', '--requests', '2'];
    const code = await main([...args, '--no-db', '--no-scrape'], io);
    assert.equal(code, 1, io.err());
    assert.match(io.err(), /--input-len: .*40960/);
    assert.deepEqual(
      server.requests.map((r) => r.path),
      ['/v1/models'],
    );
  } finally {
    await server.close();
  }
});
