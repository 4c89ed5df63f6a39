/**
 * @module schedule/stages
 * Load stages: a run of `rate × duration` steps, each one starting only after the previous
 * stage's requests have all finished, plus a pause. This is inference-perf's multi-stage load
 * (`kubernetes-sigs/inference-perf` @ e8e0aa99, `inference_perf/loadgen/load_generator.py`,
 * `LoadGenerator.run_stage`: it enqueues `int(rate × duration)` requests, waits until all of them
 * have finished, and the next stage follows after `load.interval` seconds).
 *
 * Within a stage the arrivals are {@link arrivalOffsetsMs}' schedule, moved to inference-perf's
 * convention (`inference_perf/loadgen/load_timer.py`, `ConstantLoadTimer.start_timer`): N i.i.d.
 * exponential gaps rescaled so that they sum to the stage's duration, the first request one gap
 * after the stage's start and the last exactly at its end. `arrivalOffsetsMs` draws the same N
 * gaps but puts its first request at 0; dropping that 0 and adding the end gives upstream's
 * times from the same draws, so there is one implementation of the gaps. inference-perf calls
 * this load `constant`; servelab's `constant` is evenly spaced, so inference-perf's `constant` is
 * servelab's `poisson` here (`config/inference-perf` maps the names).
 *
 * The offsets are relative to each stage's own start; when that start is depends on when the
 * previous stage drains, which only the run (or the simulator) knows.
 */
import { type Problem, UsageError } from '../core/errors.js';
import { type T, translator } from '../i18n/index.js';
import { type ArrivalKind, arrivalOffsetsMs } from './arrivals.js';

const EN = translator('en');

/** One load stage: `rateRps` for `durationS` seconds. */
export interface LoadStage {
  rateRps: number;
  durationS: number;
}

/** Requests in a stage: inference-perf's `int(rate × duration)` (float noise rounded away first). */
export function stageRequestCount(stage: LoadStage): number {
  return Math.floor(Number((stage.rateRps * stage.durationS).toPrecision(12)));
}

/**
 * Parse `--stages "2.5x600,6x600"` (rate × duration in seconds, comma-separated); `path` names
 * the surface in the problems (`--stages`, or a file's `load.stages`).
 * @throws UsageError naming each malformed stage, with a hint.
 * @example parseStages('2.5x600,6x600') // [{ rateRps: 2.5, durationS: 600 }, { rateRps: 6, durationS: 600 }]
 */
export function parseStages(text: string, path = '--stages', t: T = EN): LoadStage[] {
  const problems: Problem[] = [];
  const stages: LoadStage[] = [];
  const parts = text.split(',').map((s) => s.trim());
  parts.forEach((part, i) => {
    const m = /^([0-9]*\.?[0-9]+(?:e[+-]?\d+)?)\s*[x×*]\s*([0-9]*\.?[0-9]+(?:e[+-]?\d+)?)$/i.exec(part);
    const stage = m ? { rateRps: Number(m[1]), durationS: Number(m[2]) } : null;
    if (!stage || !(stage.rateRps > 0) || !(stage.durationS > 0) || stageRequestCount(stage) < 1) {
      problems.push({
        path,
        message: t('schedule.stages.bad', { n: i + 1, part }),
        // The example as the surface spells it: the flag, or the file's key.
        hint: t('schedule.stages.bad_hint', {
          example: path.startsWith('--') ? `${path} "2.5x600,6x600"` : `stages: "2.5x600,6x600"`,
        }),
      });
      return;
    }
    stages.push(stage);
  });
  if (problems.length > 0) throw new UsageError(problems);
  return stages;
}

/**
 * Send offsets (ms from the stage's start) of one stage's `stageRequestCount` requests, in the
 * upstream convention described in the module comment. Deterministic from the seed; stage `i`
 * of a run should pass a seed derived from the run's seed and `i`.
 * @example stageOffsetsMs({ rateRps: 2, durationS: 2 }, 'constant', 1) // [500, 1000, 1500, 2000]
 */
export function stageOffsetsMs(
  stage: LoadStage,
  arrival: ArrivalKind,
  seed: number,
  burstiness?: number,
): number[] {
  const count = stageRequestCount(stage);
  const base = arrivalOffsetsMs({ rateRps: stage.rateRps, arrival, count, seed, burstiness });
  // base[0] = 0 and base[i] = (sum of the first i gaps) · s with sum of all N gaps · s = N / rate.
  const periodMs = (count * 1000) / stage.rateRps;
  const scale = (stage.durationS * 1000) / periodMs;
  const out = new Array<number>(count);
  for (let i = 0; i < count - 1; i++) out[i] = base[i + 1] * scale;
  out[count - 1] = stage.durationS * 1000;
  return out;
}

/** A staged run's schedule: every stage's offsets in order, and what the runner needs to start each stage. */
export interface StagedSchedule {
  /** Stage 0's offsets, then stage 1's, …; each from its own stage's start. */
  arrivalsMs: number[];
  /** Requests per stage, and the pause from a stage's drain to the next stage's start (ms). */
  stages: { counts: number[]; pauseMs: number };
}

/**
 * The schedule of a staged run (`run`/`plan --stages`, a rate-sweep's `load.stages`): stage i's
 * {@link stageOffsetsMs} drawn from seed `seed + i`.
 * @example stagedSchedule([{ rateRps: 2, durationS: 1 }], 'constant', 1, 0).stages // { counts: [2], pauseMs: 0 }
 */
export function stagedSchedule(
  stages: readonly LoadStage[],
  arrival: ArrivalKind,
  seed: number,
  pauseS: number,
  burstiness?: number,
): StagedSchedule {
  const perStage = stages.map((st, i) => stageOffsetsMs(st, arrival, seed + i, burstiness));
  return {
    arrivalsMs: perStage.flat(),
    stages: { counts: perStage.map((a) => a.length), pauseMs: pauseS * 1000 },
  };
}

/** The stage each request of a staged run belongs to, in send order (stage 0's requests first). */
export function stageOfRequests(stages: readonly LoadStage[]): number[] {
  const out: number[] = [];
  stages.forEach((s, i) => {
    for (let k = stageRequestCount(s); k > 0; k--) out.push(i);
  });
  return out;
}
