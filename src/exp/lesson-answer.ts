/**
 * @module exp/lesson-answer
 * A lesson's answer: the kind's own {@link ExperimentAnswer} (its table and chart are the
 * evidence) with the lesson's measured effect first in the verdict, and in the notes the factor,
 * what was held fixed, whether the sign is the one the course expects, the mechanism, where to
 * see it in the step timeline and the source-map rows of vLLM, SGLang and llama.cpp.
 */
import type { T } from '../i18n/index.js';
import type { ExperimentAnswer } from '../report/answer.js';
import { SOURCE_ROWS } from '../report/source-map.js';
import type { LessonName } from './lesson-names.js';
import { LESSONS, type LessonEvidence, type LessonOutcome } from './lessons.js';

/** What a lesson's results carry besides the kind's (`exp/run-experiment` adds them). */
export interface LessonResultFields {
  lesson?: LessonName;
  lesson_evidence?: LessonEvidence | null;
}

/** The lesson's outcome over a kind's stored results; null when the results are no lesson's. */
export function lessonOutcome(results: unknown, t: T): LessonOutcome | null {
  const r = results as LessonResultFields | null;
  if (!r?.lesson || !Object.hasOwn(LESSONS, r.lesson)) return null;
  return LESSONS[r.lesson].outcome(results, r.lesson_evidence ?? null, t);
}

/** The kind's answer made the lesson's; the answer itself when the results are no lesson's. */
export function withLesson(answer: ExperimentAnswer, results: unknown, t: T): ExperimentAnswer {
  const name = (results as LessonResultFields | null)?.lesson;
  const out = lessonOutcome(results, t);
  if (!name || !out) return answer;
  const l = LESSONS[name];
  const key = (k: string) => `lesson.${name}.${k}` as Parameters<T>[0];
  const verdict =
    `${out.effect} ${out.holds === true ? t('lesson.holds') : out.holds === false ? t('lesson.not_holds') : ''}`.trim();
  const sources = l.sources.map((s) => {
    const row = SOURCE_ROWS.find((r) => r.engine === s.engine && r.path === s.path && r.symbol === s.symbol);
    return t('lesson.source', {
      engine: s.engine,
      path: s.path,
      symbol: row ? `${s.symbol} @ ${row.version}` : s.symbol,
    });
  });
  return {
    ...answer,
    question: t(key('question')),
    verdict,
    notes: [
      t('lesson.factor', { text: t(key('factor')) }),
      t('lesson.fixed', { text: t(key('fixed')) }),
      t('lesson.mechanism_label', { text: t(key('mechanism')) }),
      t('lesson.look_steps'),
      ...sources,
      ...(answer.notes ?? []),
    ],
  };
}
