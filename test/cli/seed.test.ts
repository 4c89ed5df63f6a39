/**
 * A fresh seed for every run (config/run-settings `seed`): two identical `run` commands without
 * `--seed` send different prompts, each prints and stores its seed, and `--seed N` sends exactly
 * the prompts of the run that drew N. The server is a loopback one that keeps what it was sent.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseRunFlags } from '../../src/cli/commands/run.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { UsageError } from '../../src/core/errors.js';
import { startFakeOpenAI, type TestServer } from '../helpers/misbehaving.js';
import '../helpers/node-warnings.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** One `run` of 4 synthetic requests: the seed it printed, the one report.json stored, the prompts sent. */
async function runOnce(server: TestServer, extra: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-seed-'));
  dirs.push(dir);
  const io = memoryIo({}, dir);
  const seen = server.requests.length;
  const code = await main(
    [
      'run',
      '--url',
      server.baseUrl,
      '--requests',
      '4',
      '--input-len',
      'uniform:20-60',
      '--output-len',
      '4',
      '--out',
      'out',
      '--no-db',
      ...extra,
    ],
    io,
  );
  assert.equal(code, 0, io.err());
  const printed = /servelab run: .*, seed (\d+)/.exec(io.out());
  assert.ok(printed, `the summary's header prints the seed:\n${io.out()}`);
  const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
  const prompts = server.requests
    .slice(seen)
    .filter((r) => r.path.startsWith('/v1/chat/completions'))
    .map((r) => JSON.stringify((r.body as { messages?: unknown } | undefined)?.messages));
  assert.equal(prompts.length, 4);
  return { printed: Number(printed[1]), stored: report.config.seed as number, prompts };
}

describe('the seed of a run', () => {
  it('is drawn fresh, printed and stored; --seed N repeats the run that drew N', async () => {
    const server = await startFakeOpenAI();
    try {
      const a = await runOnce(server);
      const b = await runOnce(server);
      assert.equal(a.stored, a.printed, 'report.json keeps the seed the header printed');
      assert.equal(b.stored, b.printed);
      assert.notEqual(a.printed, b.printed, 'each run draws its own seed');
      assert.notDeepEqual(a.prompts, b.prompts, 'so the second run does not replay the first');
      const again = await runOnce(server, ['--seed', String(a.printed)]);
      assert.equal(again.printed, a.printed);
      assert.deepEqual(again.prompts, a.prompts, 'the same seed sends the same prompts');
    } finally {
      await server.close();
    }
  });

  it('is one for all the shards of a run: from their common --start-at, else --seed is asked for', () => {
    const base = { url: 'http://127.0.0.1:9/v1', requests: '4', inputLen: '16' };
    const at = '2030-01-01T00:00:00Z';
    const seeds = [0, 1].map(
      (i) => parseRunFlags({ ...base, shard: `${i}/2`, startAt: at }).common.load.seed,
    );
    assert.equal(seeds[0], seeds[1], 'every shard derives the same seed');
    assert.equal(seeds[0], Date.parse(at) % 2 ** 31);
    const given = parseRunFlags({ ...base, shard: '0/2', startAt: at, seed: '5' });
    assert.equal(given.common.load.seed, 5);
    assert.throws(
      () => parseRunFlags({ ...base, shard: '0/2', startIn: '5' }),
      (e: unknown) => e instanceof UsageError && e.problems.some((p) => p.path === '--seed' && !!p.hint),
    );
  });
});
