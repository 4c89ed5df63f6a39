/**
 * `merge` as a user meets it: `--json` like every result-producing command, and an `--out` that
 * cannot be written is one clear error with a hint (exit 1 before the work, exit 4 for a storage
 * failure while writing), never "internal error" with a stack.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { shardFiles } from '../../src/pipeline/shard.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import '../helpers/node-warnings.js';

let sim: SimServer;
let dir: string;
let files: string[];
before(async () => {
  sim = await startSimServer({ model: 'qwen3-8b', gpu: 'h100', port: 0, timeScale: 50 });
  dir = mkdtempSync(join(tmpdir(), 'servelab-merge-cli-'));
  for (const i of [0, 1]) {
    const io = memoryIo({}, dir);
    const args = [
      'run',
      ...['--url', `${sim.url}/v1`, '--prompt', 'hello there', '--output-len', '4'],
      ...['--rate', '50', '--requests', '6', '--seed', '5', '--no-db', '--no-scrape'],
      ...['--shard', `${i}/2`, '--start-in', '0', '--out', join(dir, 'shards')],
    ];
    await main(args, io);
  }
  files = [0, 1].map((i) => join(dir, 'shards', shardFiles(i, 2).report));
  for (const f of files) assert.ok(existsSync(f), f);
});
after(async () => {
  await sim.close();
});

describe('merge', () => {
  it('--json writes the merged report to stdout and the summary lines to stderr', async () => {
    const io = memoryIo({}, dir);
    const code = await main(['merge', '--expect', '2', ...files, '--out', join(dir, 'm'), '--json'], io);
    assert.equal(code, 0, io.err());
    const report = JSON.parse(io.out());
    assert.equal(report.summary.requests.planned, 6);
    assert.equal(report.merge.shards.length, 2);
    assert.match(io.err(), /2\/2|2 of 2|shard/);
  });

  it('--out under a file: a clear error naming --out with a hint, no stack', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const io = memoryIo({}, dir);
    const code = await main(['merge', '--expect', '2', ...files, '--out', join(file, 'out')], io);
    assert.equal(code, 1);
    assert.match(io.err(), /--out: cannot create .*a-file is a file/);
    assert.match(io.err(), /hint:/);
    assert.doesNotMatch(io.err(), /internal error|\n\s+at /);
  });

  it('--out where the system refuses a folder (/sys): storage error, exit 4, no stack', async (t) => {
    if (!existsSync('/sys/kernel')) return t.skip('no /sys here to refuse a folder');
    const io = memoryIo({}, dir);
    const code = await main(['merge', '--expect', '2', ...files, '--out', '/sys/servelab-merge-out'], io);
    assert.ok(code === 4 || code === 1, io.err());
    assert.match(io.err(), /\/sys\/servelab-merge-out/);
    assert.match(io.err(), /hint:/);
    assert.doesNotMatch(io.err(), /internal error|\n\s+at /);
  });
  it('--out under /proc, where a folder exists but holds no folders: exit 1 naming --out, not a hang', async (t) => {
    // Node's recursive mkdir spun forever here (ENOENT for the child, EEXIST for /proc; issue 28).
    if (!existsSync('/proc/self')) return t.skip('no /proc here');
    const io = memoryIo({}, dir);
    const code = await main(['merge', '--expect', '2', ...files, '--out', '/proc/servelab-x/y'], io);
    assert.equal(code, 1, io.err());
    assert.match(io.err(), /--out: cannot write \/proc\/servelab-x\/y/);
    assert.match(io.err(), /hint:/);
    assert.doesNotMatch(io.err(), /internal error|\n\s+at /);
  });
});
