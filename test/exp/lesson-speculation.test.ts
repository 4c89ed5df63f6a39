/**
 * The `lesson-speculation` template runs as shipped (`exp init lesson-speculation`, then `exp
 * run`, in virtual time) and its answer has the sign the course expects: speculation makes each
 * token faster at concurrency 1, and the speed-up falls with the batch, down to none or a loss
 * once the step is compute-bound. Its page reads in Chinese with `--lang zh-CN`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { SweepResult } from '../../src/exp/kinds/sweep-report.js';
import { LESSON_SPECULATION_LEVELS, speculationSpeedups } from '../../src/exp/lessons/speculation.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-lesson-spec-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('lesson-speculation', () => {
  it('runs as shipped; the speed-up is > 1 alone and falls with the batch to ≤ 1; reads in Chinese', async () => {
    const init = memoryIo({}, dir);
    assert.equal(await main(['exp', 'init', 'lesson-speculation', 'l.yaml'], init), 0, init.err());
    const io = memoryIo({}, dir);
    const code = await main(['exp', 'run', 'l.yaml', '--no-db', '--json', '--lang', 'zh-CN'], io);
    assert.equal(code, 0, io.err().slice(-3000));
    const result = JSON.parse(io.out());
    assert.equal(result.kind, 'concurrency-sweep');
    const rows = speculationSpeedups(result.results as SweepResult);
    assert.deepEqual(
      rows.map((r) => r.concurrency),
      [...LESSON_SPECULATION_LEVELS],
    );
    assert.ok(rows[0].speedup > 1.5, `alone: ×${rows[0].speedup}`);
    for (let i = 1; i < rows.length; i++)
      assert.ok(
        rows[i].speedup < rows[i - 1].speedup,
        `falls: ${rows.map((r) => r.speedup.toFixed(2)).join(' → ')}`,
      );
    assert.ok(rows[rows.length - 1].speedup <= 1.02, `compute-bound: ×${rows[rows.length - 1].speedup}`);
    const page = io.out() + io.err();
    assert.match(page, /课程：推测解码与批次大小/);
    assert.match(page, /加速随批次增大而下降/);
    assert.match(page, /num_computed_tokens −= num_rejected/);
  });
});
