/**
 * The `lesson-speculation` template runs as shipped (`exp init lesson-speculation`, then `exp
 * run`, in virtual time) and its answer has the sign the course expects: speculation makes each
 * token faster at concurrency 1, and the speed-up falls with the batch, down to none or a loss
 * once the step is compute-bound. Its page reads in Chinese with `--lang zh-CN`, and its steps
 * carry the drafts each verify step proposed and accepted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { SweepResult } from '../../src/exp/kinds/sweep-report.js';
import { LESSON_SPECULATION_LEVELS, speculationSpeedups } from '../../src/exp/lesson-speculation.js';
import { experimentAnswer } from '../../src/exp/run-experiment.js';
import { translator } from '../../src/i18n/index.js';
import { getRunSteps, openStore } from '../../src/store/index.js';
import '../helpers/node-warnings.js';
import { runLesson } from '../helpers/run-lesson.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-lesson-spec-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('lesson-speculation', () => {
  it('runs as shipped; the speed-up is > 1 alone and falls with the batch to ≤ 1; reads in Chinese', async () => {
    const db = join(dir, 's.db');
    const exp = await runLesson('lesson-speculation', dir, db);
    const results = exp.results as unknown as SweepResult;
    const rows = speculationSpeedups(results);
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
    // The answer leads with the effect, in Chinese.
    const zh = experimentAnswer('concurrency-sweep', exp.results, translator('zh-CN'));
    assert.match(zh?.verdict ?? '', /加速随批次增大而下降/);
    assert.ok(zh?.notes?.some((n) => n.includes('num_computed_tokens −= num_rejected')));
    assert.match(exp.page, /加速随批次增大而下降/);
    // The spec-on runs' steps say what each step drafted and kept; spec-off's say nothing.
    const store = openStore(db);
    try {
      const runs = exp.runs;
      const on = runs.find((r) => r.target === 'spec-on');
      const off = runs.find((r) => r.target === 'spec-off');
      assert.ok(on && off);
      const onSteps = on.run_id ? getRunSteps(store, on.run_id) : [];
      const offSteps = off.run_id ? getRunSteps(store, off.run_id) : [];
      assert.ok(onSteps.length > 0 && offSteps.length > 0);
      const proposed = onSteps.reduce((a, s) => a + (s.spec?.proposed ?? 0), 0);
      const accepted = onSteps.reduce((a, s) => a + (s.spec?.accepted ?? 0), 0);
      assert.ok(proposed > 0 && accepted > 0 && accepted < proposed, `${accepted}/${proposed}`);
      assert.ok(offSteps.every((s) => s.spec === null));
      // A verify step's requests are its decodes, each with its drafts and one token of its own.
      const verify = onSteps.find((s) => (s.spec?.proposed ?? 0) > 0);
      assert.ok(
        verify &&
          verify.decode.length > 0 &&
          verify.tokens >= verify.decode.length + (verify.spec?.proposed ?? 0),
      );
    } finally {
      store.close();
    }
  });
});
