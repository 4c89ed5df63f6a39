/**
 * @module exp/lesson-names
 * The course's lessons (issue 27; the course's "学习与升级的达成标志"), each an experiment
 * template of an existing kind (`exp/lessons`): `exp init lesson-long-context`, and a file's
 * `lesson:` field that makes its answer the lesson's.
 */
export const LESSON_NAMES = [
  'lesson-long-context',
  'lesson-paging-vs-prefix',
  'lesson-batch-vs-tail',
  'lesson-int4',
  'lesson-speculation',
  'lesson-voice',
  'lesson-two-engines',
] as const;
export type LessonName = (typeof LESSON_NAMES)[number];

export const isLessonName = (s: string): s is LessonName => (LESSON_NAMES as readonly string[]).includes(s);
