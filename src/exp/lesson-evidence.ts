/**
 * @module exp/lesson-evidence
 * What a lesson's answer needs beyond its kind's results, gathered when the experiment ends: the
 * lesson's name, and for the paging lesson what its runs' engine steps show (the KV blocks a
 * request holds, `exp/lessons` `blocksHeld`), read from the store where the runs kept their steps.
 * Without a store (`--no-db`) the evidence is null and the answer says there is no data.
 */
import { getRunSteps, type Store } from '../store/index.js';
import type { RunInfo } from './kinds/context.js';
import type { LessonResultFields } from './lesson-answer.js';
import type { LessonName } from './lesson-names.js';
import { blocksHeld } from './lessons.js';

/** The fields a lesson adds to its kind's results. */
export function lessonFields(
  name: LessonName,
  runs: readonly RunInfo[],
  store: Store | null,
): LessonResultFields {
  if (name !== 'lesson-paging-vs-prefix') return { lesson: name };
  const evidence = store
    ? blocksHeld(
        runs.map((r) => ({
          label: `${r.target} ${r.label}`,
          steps: r.run_id ? getRunSteps(store, r.run_id) : null,
        })),
      )
    : null;
  return { lesson: name, lesson_evidence: evidence };
}
