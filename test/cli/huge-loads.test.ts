/**
 * Absurd sizes are refused up front, naming the limit (issue 28): before, `--requests 1e30` threw
 * `RangeError: Invalid array length` and `--warmup 1e9` ran out of heap. Nothing reaches the server
 * (a closed port). A `--duration` open loop is streamed (`--rate 200 --duration 86400` runs, see
 * streamed-soak.test.ts), so its own, larger limit refuses only what is absurd for it.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { MAX_PLANNED_REQUESTS, MAX_STREAMED_REQUESTS } from '../../src/core/limits.js';
import { refusedPort, startSseServer } from '../helpers/misbehaving.js';
import '../helpers/node-warnings.js';

it('--requests, --warmup and --rate × --duration over the limit: a usage error naming the most', async () => {
  const url = `http://127.0.0.1:${await refusedPort()}/v1`;
  const whole = MAX_PLANNED_REQUESTS.toLocaleString('en-US');
  const streamed = MAX_STREAMED_REQUESTS.toLocaleString('en-US');
  for (const [args, flag, max] of [
    [['--requests', '1e30'], '--requests', whole],
    [['--requests', '10', '--warmup', '1e9'], '--warmup', whole],
    [['--rate', '1000', '--duration', '1e6'], '--rate × --duration', streamed],
    // A shard's part is dealt from the whole schedule, so a sharded --duration run keeps that limit.
    [
      ['--rate', '200', '--duration', '86400', '--shard', '1/2', '--seed', '1', '--start-in', '60'],
      '--rate × --duration',
      whole,
    ],
  ] as const) {
    const io = memoryIo({});
    const code = await main(
      ['run', '--url', url, '--model', 'm', '--prompt', 'hi', '--no-db', '--no-scrape', ...args],
      io,
    );
    assert.equal(code, 1, io.err());
    // One wording for all three (the flags' generic "must be at most" no longer shadows it).
    assert.ok(io.err().includes(`${flag}: plans `), io.err());
    assert.ok(io.err().includes(`over the most one run plans (${max})`), io.err());
    assert.doesNotMatch(io.err(), /RangeError|heap|internal error|\n\s+at /);
  }
});

it('the refusal speaks the --lang language: zh-CN for each of the three, no English left', async () => {
  const url = `http://127.0.0.1:${await refusedPort()}/v1`;
  const whole = MAX_PLANNED_REQUESTS.toLocaleString('en-US');
  for (const [args, max] of [
    [['--requests', '1e30'], whole],
    [['--requests', '10', '--warmup', '1e9'], whole],
    [['--rate', '1000', '--duration', '1e6'], MAX_STREAMED_REQUESTS.toLocaleString('en-US')],
  ] as const) {
    const io = memoryIo({});
    const code = await main(
      [
        'run',
        '--url',
        url,
        '--model',
        'm',
        '--prompt',
        'hi',
        '--no-db',
        '--no-scrape',
        '--lang',
        'zh-CN',
        ...args,
      ],
      io,
    );
    assert.equal(code, 1, io.err());
    assert.ok(io.err().includes(`超过单次运行的上限（${max}）`), io.err());
    assert.ok(io.err().includes('把负载拆成多次运行'), io.err());
    assert.doesNotMatch(io.err(), /plans|the most one run|split the load|must be at most/, io.err());
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
