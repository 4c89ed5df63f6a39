/**
 * @module exp/lesson-kit
 * What every lesson is made of (`exp/lessons`, `exp/lesson-speculation`): the {@link Lesson}
 * shape, its outcome and evidence, and the pieces of a lesson's template (its head with the
 * factor and what is held fixed, a simulator or URL target) and of its effect sentence.
 */
import { percentile } from '../analysis/stats.js';
import type { T } from '../i18n/index.js';
import type { SourceEngine } from '../report/source-map.js';
import { fmt } from './kinds/points.js';
import type { SweepPoint, SweepResult } from './kinds/sweep-report.js';
import type { LessonName } from './lesson-names.js';
import type { EngineDifference } from './lesson-two-engines.js';

/** Where a lesson's mechanism lives in an engine's source: a row of `report/source-map`. */
export interface LessonSource {
  engine: Exclude<SourceEngine, 'servelab-sim'>;
  path: string;
  symbol: string;
}

/** The lesson's measured effect: a sentence with its sign and size, and whether the sign is the expected one. */
export interface LessonOutcome {
  effect: string;
  /** The expected sign held; null when the runs gave no number to judge. */
  holds: boolean | null;
  /** The two-engine lesson: each difference with its mechanism. */
  differences?: EngineDifference[];
}

/** What a lesson computed from its runs' engine steps (the paging lesson), stored with the results. */
export interface LessonEvidence {
  /** Per run label: the median KV blocks a request holds once its prompt is in the cache; null: no steps. */
  blocks_held: Record<string, number | null>;
}

export interface Lesson {
  name: LessonName;
  /** The kind the template is a file of. */
  kind: string;
  /** The template: sim targets, or one target per URL when given. */
  template(t: T, urls: readonly string[]): string;
  /** How many URLs the template takes (two for a comparison of two engines or precisions). */
  urls: 1 | 2;
  /** The effect, from the kind's results (and the steps' evidence). */
  outcome(results: unknown, evidence: LessonEvidence | null, t: T): LessonOutcome;
  /** Where to read the mechanism in each engine. */
  sources: LessonSource[];
}

export const median = (v: readonly number[]) => percentile(Float64Array.from(v).sort(), 50);

export const SIM = ['model: qwen3-0.6b', 'gpu: h100', 'clock: virtual', 'record_steps: true'];

/** A target: the simulator with `sim` lines, or the user's engine at `url`. */
export function target(name: string, sim: readonly string[], url?: string): string {
  if (url) return `  ${name}:\n    url: ${url}`;
  return `  ${name}:\n    sim:\n${[...SIM.filter((l) => !sim.some((s) => s.split(':')[0] === l.split(':')[0])), ...sim].map((l) => `      ${l}`).join('\n')}`;
}

/** The head every lesson file starts with: what it shows, the factor, what is fixed, how to run it. */
export function head(t: T, l: LessonName, kind: string): string {
  const c = (s: string) => `# ${s.split('\n').join('\n# ')}`;
  return `${c(t(`lesson.${l}.question` as never))}
${c(`${t('lesson.factor_label')}: ${t(`lesson.${l}.factor` as never)}`)}
${c(`${t('lesson.fixed_label')}: ${t(`lesson.${l}.fixed` as never)}`)}
${c(t('lesson.run_it', { name: l }))}
kind: ${kind}
name: ${l}
lesson: ${l}
`;
}

/** A sweep's point at `level` of target `i`. */
export const at = (r: SweepResult, i: number, level: number): SweepPoint | undefined =>
  r.targets[i]?.points.find((p) => p.level === level);
export const pctChange = (from: number, to: number) =>
  `${to >= from ? '+' : ''}${fmt(((to - from) / from) * 100, 0)}%`;
export const signed = (v: number, digits = 1) => `${v >= 0 ? '+' : ''}${fmt(v, digits)}`;
