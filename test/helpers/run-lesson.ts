/**
 * Run a lesson as a learner does: `exp init NAME`, `exp run` the file as shipped into a store,
 * and `report EXP_ID --lang zh-CN --html`; checks that the run succeeds, that the results carry
 * the lesson's name, that every level is valid, that its Chinese question and mechanism are on the page and that its own
 * sign check holds. The tests then check the sign on the kind's raw numbers themselves.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { lessonOutcome } from '../../src/exp/lesson-answer.js';
import type { LessonName } from '../../src/exp/lesson-names.js';
import { translator } from '../../src/i18n/index.js';
import { zhCN } from '../../src/i18n/zh-CN/index.js';
import './node-warnings.js';

export interface LessonRun {
  experiment_id: string;
  results: Record<string, unknown>;
  /** Every run of the experiment, with its target and its id in the store. */
  runs: { target: string; label: string; run_id: string | null }[];
  /** The Chinese HTML report of the experiment. */
  page: string;
}

/**
 * Shipped lessons with a level judged NOT VALID as shipped (issue 23 audit): `cache_hits` in a
 * run "meant to be cold" — lesson-paging-vs-prefix's prefix-on runs are meant to hit the cache,
 * and lesson-two-engines' vllm-like target gets llama-server's explanation of the hits.
 */
const KNOWN_INVALID = new Set<LessonName>([]);

/** `exp init NAME` into `dir`, `exp run` it with the store `db`, and its Chinese report. */
export async function runLesson(name: LessonName, dir: string, db: string): Promise<LessonRun> {
  const file = join(dir, `${name}.yaml`);
  const init = memoryIo({}, dir);
  assert.equal(await main(['exp', 'init', name, file], init), 0, init.err());
  const io = memoryIo({}, dir);
  const json = join(dir, `${name}.json`);
  const code = await main(['exp', 'run', file, '--db', db, '--json', json], io);
  assert.equal(code, 0, `${name}: ${io.out()}\n${io.err()}`);
  const exp = JSON.parse(readFileSync(json, 'utf8')) as Omit<LessonRun, 'page'>;
  assert.equal(exp.results.lesson, name);
  // A shipped template against the built-in simulator (virtual time): every level is valid,
  // apart from the lessons in KNOWN_INVALID (empty it as they are fixed).
  if (!KNOWN_INVALID.has(name))
    for (const r of (exp as unknown as { runs: { target: string; label: string; validity: unknown[] }[] })
      .runs)
      assert.deepEqual(r.validity, [], `${name} ${r.target} ${r.label}: ${JSON.stringify(r.validity)}`);
  const zh = memoryIo({}, dir);
  const html = join(dir, `${name}.zh.html`);
  assert.equal(
    await main(['report', exp.experiment_id, '--db', db, '--lang', 'zh-CN', '--html', html], zh),
    0,
    zh.err(),
  );
  const page = readFileSync(html, 'utf8');
  for (const k of ['question', 'mechanism'] as const) {
    const text = zhCN[`lesson.${name}.${k}` as keyof typeof zhCN];
    assert.ok(page.includes(text.slice(0, 12)), `${name}: the Chinese ${k} is on the page`);
  }
  const out = lessonOutcome(exp.results, translator('en'));
  assert.equal(out?.holds, true, `${name}: ${out?.effect}`);
  return { ...exp, page };
}
