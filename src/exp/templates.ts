/**
 * @module exp/templates
 * `servelab exp init KIND`: one commented YAML template per experiment kind, each kind's own
 * (`exp/kinds/`), built from the shared parts (`exp/template-parts`). Each runs as-is against the built-in
 * simulator (Qwen3-0.6B on a simulated H100, small request counts, so a whole experiment takes
 * well under a minute) and documents every field it may use, with the optional ones commented
 * out at their defaults. Every template passes `loadExperimentFile` (tested).
 */

import { EN } from '../analysis/diagnose/default-lang.js';
import { UsageError } from '../core/errors.js';
import type { T } from '../i18n/index.js';
import { EXPERIMENT_KINDS, KINDS } from './kinds/index.js';
import { isLessonName, LESSON_NAMES } from './lesson-names.js';
import { LESSONS } from './lessons.js';
import { templateParts } from './template-parts.js';

export type { Common, SimTarget, TemplateParts } from './template-parts.js';

/**
 * The commented YAML template for `kind`, its comments in `t`'s language (default English).
 * @throws UsageError for an unknown kind, listing the valid ones.
 * @example
 * for (const kind of EXPERIMENT_KINDS) process.stdout.write(experimentTemplate(kind));
 */
export function experimentTemplate(kind: string, t: T = EN, urls: readonly string[] = []): string {
  if (isLessonName(kind)) {
    const l = LESSONS[kind];
    if (urls.length && urls.length !== l.urls)
      throw new UsageError([
        {
          path: '--url',
          message: t(l.urls === 2 ? 'exp.usage.lesson_urls_two' : 'exp.usage.lesson_urls_one', {
            kind,
            need: l.urls,
            got: urls.length,
          }),
          hint: t(l.urls === 2 ? 'exp.usage.lesson_urls_two_hint' : 'exp.usage.lesson_urls_one_hint'),
        },
      ]);
    return l.template(t, urls);
  }
  if (!Object.hasOwn(KINDS, kind))
    throw new UsageError([
      {
        message: t('exp.usage.unknown_kind', { kind }),
        hint: t('exp.usage.unknown_kind_hint', {
          kinds: EXPERIMENT_KINDS.join(', '),
          lessons: LESSON_NAMES.join(', '),
        }),
      },
    ]);
  if (urls.length)
    throw new UsageError([
      {
        path: '--url',
        message: t('exp.usage.url_not_lesson', { kind }),
        hint: t('exp.usage.url_not_lesson_hint'),
      },
    ]);
  return KINDS[kind as keyof typeof KINDS].template(templateParts(t));
}
