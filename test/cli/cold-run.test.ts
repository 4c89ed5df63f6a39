/**
 * A run meant to be cold (synthetic prompts, no warm-up) whose prefix-cache hits say otherwise
 * is flagged where its summary is printed: the same `run --seed` twice against servelab's
 * simulator sends the same prompts, and the second finds them in the prefix cache. A run with
 * a shared prefix is not meant to be cold, and is not flagged for its hits.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startSimServer } from '../../src/sim/server/index.js';
import '../helpers/node-warnings.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'servelab-cold-'));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a run meant to be cold that hit the cache', () => {
  it('the same --seed twice: the second run is flagged (console verdict, report validity), in en and zh-CN', async () => {
    const sim = await startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', port: 0, timeScale: 20 });
    try {
      const run = async (...extra: string[]) => {
        const dir = tmp();
        const io = memoryIo({}, dir);
        const code = await main(
          [
            'run',
            '--url',
            `${sim.url}/v1`,
            '--input-len',
            '512',
            '--output-len',
            '8',
            '--requests',
            '12',
            '--concurrency',
            '2',
            '--seed',
            '7',
            '--out',
            'out',
            '--no-db',
            ...extra,
          ],
          io,
        );
        const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
        return { code, out: io.out(), report };
      };
      const first = await run();
      assert.equal(first.report.config.prompts, 'fresh', 'synthetic prompts, no warm-up: meant to be cold');
      const codes = (r: { report: { validity: { reasons: { code: string }[] } } }) =>
        r.report.validity.reasons.map((x) => x.code);
      assert.ok(!codes(first).includes('cache_hits'), first.out);
      const second = await run();
      assert.ok(codes(second).includes('cache_hits'), second.out);
      assert.match(
        second.out,
        /cache_hits: \d+\.\d% of the prompt tokens were prefix-cache hits in a run meant to be cold .*the same --seed 7 run again\?/,
      );
      const zh = await run('--lang', 'zh-CN');
      assert.match(zh.out, /cache_hits: 本应冷启动的运行.*--seed 7/);
      // A warm-up sends the measured prompts first: not meant to be cold, not flagged for it.
      const warmed = await run('--warmup', '2');
      assert.equal(warmed.report.config.prompts, 'as-given');
      assert.ok(!codes(warmed).includes('cache_hits'));
    } finally {
      await sim.close();
    }
  });
});
