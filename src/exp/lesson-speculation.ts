/**
 * @module exp/lesson-speculation
 * The `lesson-speculation` lesson (`servelab exp init lesson-speculation`): the course's learning
 * target "why speculative decoding rolls back" as a concurrency sweep of two targets that differ
 * in one setting, `speculative_config` (off, or EAGLE with 3 drafts). Its effect is the speed-up
 * TPOT(off) / TPOT(on) per concurrency with its sign; the course expects it to fall with the
 * batch (memory-bound → compute-bound: the verify pass over k + 1 positions per request costs
 * k + 1 times the GEMM work once the step is compute-bound, `sim/engine/speculative`).
 */
import type { T } from '../i18n/index.js';
import { fmt } from './kinds/points.js';
import type { SweepResult } from './kinds/sweep-report.js';
import { head, type Lesson, target } from './lesson-kit.js';

/** The two targets' names in the template: the factor's two values. */
export const SPEC_OFF = 'spec-off';
export const SPEC_ON = 'spec-on';
/**
 * Concurrency levels: one request alone (memory-bound) up to a batch the step is compute-bound at.
 * Qwen3 8B on an H100 with 3 EAGLE drafts: ×2.1 alone, ×1.4 at 64, ×0.8 at 256 (the verify pass
 * over 4 × 256 positions is past the ridge). A level of 512 shows the same loss with four times
 * the requests (a sweep level sends max(16, 4 × c)), so the lesson stops at 256.
 */
export const LESSON_SPECULATION_LEVELS = [1, 8, 64, 256] as const;

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

const NAME = 'lesson-speculation';
const KIND = 'concurrency-sweep';
const EAGLE = 'speculative_config: {method: eagle, num_speculative_tokens: 3}';

export const speculation: Lesson = {
  name: NAME,
  kind: KIND,
  urls: 2,
  template: (t, urls) => `${head(t, NAME, KIND)}
targets:
${target(SPEC_OFF, ['model: qwen3-8b'], urls[0])}
${target(SPEC_ON, ['model: qwen3-8b', EAGLE], urls[1])}

sweep:
  stop: {error_rate: 0.05, ttft_p99_factor: 1000, e2e_p99_factor: 1000}
workload: {input_len: 64, output_len: 128}
generation: {ignore_eos: true}
load:
  concurrency: [${LESSON_SPECULATION_LEVELS.join(', ')}]   # ${t('lesson.tpl.spec_levels')}
`,
  outcome(results, _e, t: T) {
    const rows = speculationSpeedups(results as SweepResult);
    if (rows.length < 2) return { effect: t('lesson.no_data'), holds: null };
    const x = (v: number) => fmt(v, 2);
    const parts = rows.map((r) =>
      t('lesson.lesson-speculation.effect', {
        c: r.concurrency,
        off: fmt(r.tpot_off_ms, 2),
        on: fmt(r.tpot_on_ms, 2),
        x: x(r.speedup),
        sign: t(
          r.speedup > 1 + SAME
            ? 'lesson.lesson-speculation.faster'
            : r.speedup < 1 - SAME
              ? 'lesson.lesson-speculation.slower'
              : 'lesson.lesson-speculation.same',
        ),
      }),
    );
    const first = rows[0];
    const last = rows[rows.length - 1];
    const falls = last.speedup < first.speedup;
    parts.push(
      t(falls ? 'lesson.lesson-speculation.falls' : 'lesson.lesson-speculation.not_falling', {
        first: x(first.speedup),
        c1: first.concurrency,
        last: x(last.speedup),
        cn: last.concurrency,
      }),
    );
    return { effect: parts.join(' '), holds: falls };
  },
  sources: [
    { engine: 'vllm', path: 'vllm/v1/spec_decode/eagle.py', symbol: 'EagleProposer.propose' },
    { engine: 'vllm', path: 'vllm/v1/core/sched/scheduler.py', symbol: 'Scheduler.update_from_output' },
    { engine: 'sglang', path: 'python/sglang/srt/speculative/eagle_worker.py', symbol: 'EAGLEWorker.verify' },
    { engine: 'llamacpp', path: 'tools/server/server-task.cpp', symbol: 'result_timings::to_json' },
  ],
};
