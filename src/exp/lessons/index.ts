/**
 * @module exp/lessons
 * Lessons: experiment templates for the course's learning targets, each a file of an existing
 * kind (`exp init <lesson>`) plus the answer it teaches, printed after the kind's own result
 * when the experiment's `name` is the lesson's. One module per lesson.
 */
import type { T } from '../../i18n/index.js';
import type { SweepResult } from '../kinds/sweep-report.js';
import type { TemplateParts } from '../template-parts.js';
import { LESSON_SPECULATION, speculationLessonLines, speculationLessonTemplate } from './speculation.js';

interface Lesson {
  /** The kind its file is. */
  kind: string;
  template(t: TemplateParts): string;
  /** The lesson's answer and mechanism from the kind's results. */
  lines(results: unknown, t: T): string[];
}

const LESSONS: Record<string, Lesson> = {
  [LESSON_SPECULATION]: {
    kind: 'concurrency-sweep',
    template: speculationLessonTemplate,
    lines: (r, t) => speculationLessonLines(r as SweepResult, t),
  },
};

/** The lesson templates' names (`exp init` takes them beside the kinds). */
export const LESSON_NAMES: readonly string[] = Object.keys(LESSONS);

export function isLesson(name: string): boolean {
  return Object.hasOwn(LESSONS, name);
}

/** The lesson's template; throws for an unknown name (check {@link isLesson} first). */
export function lessonTemplate(name: string, t: TemplateParts): string {
  return LESSONS[name].template(t);
}

/** The lesson's answer lines for an experiment named after it, of its kind; none otherwise. */
export function lessonLines(name: string, kind: string, results: unknown, t: T): string[] {
  const l = Object.hasOwn(LESSONS, name) ? LESSONS[name] : null;
  if (!l || l.kind !== kind || results === null || typeof results !== 'object') return [];
  return l.lines(results, t);
}
