/**
 * @module exp/lessons/speculation
 * The `lesson-speculation` template (`servelab exp init lesson-speculation`): the course's
 * learning target "why speculative decoding rolls back" as a concurrency sweep of two simulator
 * targets that differ in one setting, `speculative_config` (off, or EAGLE with 3 drafts), in
 * virtual time. Its answer is the speed-up TPOT(off) / TPOT(on) per concurrency with its sign;
 * it falls with the batch (memory-bound → compute-bound, `sim/engine/speculative`), and the
 * mechanism says why, in the reader's language. Pure: the template text and the answer lines.
 */
import type { T } from '../../i18n/index.js';
import type { SweepResult } from '../kinds/sweep-report.js';
import type { TemplateParts } from '../template-parts.js';

export const LESSON_SPECULATION = 'lesson-speculation';
/** The two targets' names in the template: the factor's two values. */
export const SPEC_OFF = 'spec-off';
export const SPEC_ON = 'spec-on';
/** Concurrency levels: one request alone (memory-bound) up to a batch the step is compute-bound at. */
export const LESSON_SPECULATION_LEVELS = [1, 16, 128, 512] as const;

/** The template, its comments in `t`'s language. */
export function speculationLessonTemplate(t: TemplateParts): string {
  const about = t.tr('lesson.speculation.about');
  return `${t.head('concurrency-sweep', LESSON_SPECULATION, about)}# ${t.tr('lesson.speculation.question')}
targets:
${t.simTarget({ name: SPEC_OFF, model: 'qwen3-8b' })}
${t.simTarget({
  name: SPEC_ON,
  model: 'qwen3-8b',
  set: ['speculative_config: {method: eagle, num_speculative_tokens: 3}'],
})}
  # ${t.tr('lesson.speculation.real_engine')}
${t.urlTargets}

sweep:
  stop:
    error_rate: 0.05
    ttft_p99_factor: 1000
    e2e_p99_factor: 1000

workload:
  input_len: 64
  output_len: 128

generation:
  ignore_eos: true

load:
  concurrency: [${LESSON_SPECULATION_LEVELS.join(', ')}]
`;
}

/** One level of the answer: TPOT p50 of each side and their ratio. */
export interface SpeculationRow {
  concurrency: number;
  tpot_off_ms: number;
  tpot_on_ms: number;
  /** TPOT(off) / TPOT(on): above 1, speculation made each token faster. */
  speedup: number;
}

/** The speed-up per level common to both targets, in level order; empty when a side is missing. */
export function speculationSpeedups(res: SweepResult): SpeculationRow[] {
  const off = res.targets.find((t) => t.target === SPEC_OFF);
  const on = res.targets.find((t) => t.target === SPEC_ON);
  if (!off || !on) return [];
  const rows: SpeculationRow[] = [];
  for (const p of off.points) {
    const q = on.points.find((x) => x.level === p.level);
    const a = p.tpot_ms.p50;
    const b = q?.tpot_ms.p50;
    if (a === null || b === null || b === undefined || !(b > 0)) continue;
    rows.push({ concurrency: p.level, tpot_off_ms: a, tpot_on_ms: b, speedup: a / b });
  }
  return rows.sort((x, y) => x.concurrency - y.concurrency);
}

/** Within ±2 %, the two sides are called the same. */
const SAME = 0.02;

/** The lesson's answer and mechanism, for the console after the sweep's own result. */
export function speculationLessonLines(res: SweepResult, tr: T): string[] {
  const rows = speculationSpeedups(res);
  const out = [tr('lesson.speculation.header'), `  ${tr('lesson.speculation.question')}`];
  if (rows.length < 2) return [...out, `  ${tr('lesson.speculation.missing')}`];
  const x = (v: number) => v.toFixed(2);
  for (const r of rows) {
    const sign = r.speedup > 1 + SAME ? 'faster' : r.speedup < 1 - SAME ? 'slower' : 'same';
    out.push(
      `  ${tr('lesson.speculation.row', {
        c: r.concurrency,
        off: r.tpot_off_ms.toFixed(2),
        on: r.tpot_on_ms.toFixed(2),
        x: x(r.speedup),
        sign: tr(`lesson.speculation.sign.${sign}`),
      })}`,
    );
  }
  const first = rows[0];
  const last = rows[rows.length - 1];
  const v = { first: x(first.speedup), c1: first.concurrency, last: x(last.speedup), cn: last.concurrency };
  out.push(
    `  ${tr(last.speedup < first.speedup ? 'lesson.speculation.falls' : 'lesson.speculation.not_falling', v)}`,
  );
  for (const line of tr('lesson.speculation.mechanism').split('\n')) out.push(`  ${line}`);
  return out;
}
