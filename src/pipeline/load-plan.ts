/**
 * @module pipeline/load-plan
 * Settings → what a measurement sends and when: the load mode (closed, open, trace replay,
 * sessions) and the number of requests the workload must provide, and the workload builder's
 * options. `measure()` builds its plan here; experiments build their sessions load with
 * {@link sessionsLoadMode}.
 */
import { defaultOutputLen, syntheticDefault, workloadOptionValues } from '../config/run-settings.js';
import { UsageError } from '../core/errors.js';
import { MAX_STREAMED_REQUESTS, plannedCountProblem } from '../core/limits.js';
import type { T } from '../i18n/index.js';
import type { LoadMode, SessionLoad } from '../runner/load.js';
import {
  type ArrivalList,
  type ArrivalOptions,
  arrivalOffsetsMs,
  openLoopCount,
  traceOffsetsMs,
} from '../schedule/index.js';
import { stagedSchedule } from '../schedule/stages.js';
import {
  type SessionOptions,
  type SessionWorkload,
  sessionPrefix,
  type Workload,
  type WorkloadOptions,
} from '../workload/index.js';
import type { CommonSettings } from './settings.js';

/**
 * Build the load mode and workload count from the settings (and the trace for trace replay). An
 * open loop's schedule is `arrivals` when given (a streamed `--duration` schedule, see
 * {@link openArrivalOptions}), else built whole.
 */
export function loadPlan(
  common: CommonSettings,
  workload: Pick<Workload, 'specs' | 'sessions' | 'trace'> | null,
  arrivals?: ArrivalList,
): { load: LoadMode; count: number } {
  const l = common.load;
  if (l.mode === 'sessions')
    return {
      load: sessionsLoadMode(workload?.sessions ?? null, {
        rampUpS: l.rampUpS,
        sessionRateRps: l.sessionRateRps,
        seed: l.seed,
        maxConcurrency: l.maxConcurrency,
      }),
      count: workload?.specs.length ?? 0,
    };
  if (l.mode === 'closed') {
    return {
      load: {
        kind: 'closed',
        concurrency: l.concurrency ?? 1,
        requests: l.durationS === null ? l.requests : null,
        durationMs: l.durationS !== null ? l.durationS * 1000 : null,
      },
      count: l.requests ?? Math.max(64, (l.concurrency ?? 1) * 8),
    };
  }
  if (l.mode === 'open' && l.stages?.length) {
    // Each stage's offsets are from its own start, which the runner sets when the previous
    // stage has drained (schedule/stages); stage i draws from its own seed.
    const staged = stagedSchedule(l.stages, l.arrival, l.seed, l.stagePauseS ?? 0, l.burstiness);
    return {
      load: { kind: 'open', maxConcurrency: l.maxConcurrency, ...staged },
      count: staged.arrivalsMs.length,
    };
  }
  if (l.mode === 'open') {
    const arrivalsMs = arrivals ?? arrivalOffsetsMs(openArrivalOptions(common));
    const durationMs = l.durationS !== null ? l.durationS * 1000 : null;
    return {
      load: { kind: 'open', arrivalsMs, maxConcurrency: l.maxConcurrency, durationMs },
      count: arrivalsMs.length,
    };
  }
  const specs = workload?.specs ?? [];
  const arrivalsMs = traceOffsetsMs(specs, {
    speedup: l.traceSpeedup,
    rateScale: l.traceRateScale,
    originMs: workload?.trace?.origin_ms,
  });
  return { load: { kind: 'open', arrivalsMs, maxConcurrency: l.maxConcurrency }, count: specs.length };
}

/** The open loop's schedule options from the settings. */
export function openArrivalOptions(common: CommonSettings): ArrivalOptions {
  const l = common.load;
  return {
    rateRps: l.rateRps ?? 1,
    arrival: l.arrival,
    burstiness: l.burstiness,
    ...(l.durationS !== null ? { durationS: l.durationS } : { count: l.requests ?? 100 }),
    seed: l.seed,
  };
}

/**
 * Whether a run's schedule and prompts are streamed (generated as they fall due, `streamArrivals`
 * and `streamWorkload`): an open loop over a `--duration`, not a shard's part (which is dealt from
 * the whole schedule). Its limit is {@link MAX_STREAMED_REQUESTS}; everything else is built whole.
 */
export function isStreamed(common: CommonSettings, sharded: boolean): boolean {
  return common.load.mode === 'open' && common.load.durationS !== null && !sharded;
}

/**
 * The sessions load of a built session workload: user i starts at i·S/N with a ramp of S
 * seconds (all at 0 without one), or at the i-th of N seeded Poisson arrivals at `sessionRateRps`;
 * each turn's think time in ms; each session's document as its prefix. Experiments use it too.
 */
export function sessionsLoadMode(
  sw: SessionWorkload | null,
  o: { rampUpS: number | null; sessionRateRps: number | null; seed: number; maxConcurrency: number | null },
): Extract<LoadMode, { kind: 'sessions' }> {
  const users = sw?.sessions.length ?? 0;
  const starts =
    o.sessionRateRps !== null
      ? arrivalOffsetsMs({
          rateRps: o.sessionRateRps,
          arrival: 'poisson',
          burstiness: 1,
          count: users,
          seed: o.seed,
        })
      : Array.from({ length: users }, (_, i) => (i * (o.rampUpS ?? 0) * 1000) / users);
  const sessions: SessionLoad[] = (sw?.sessions ?? []).map((s, i) => ({
    startMs: starts[i] ?? 0,
    prefix: sw ? sessionPrefix(sw, s) : [],
    turns: s.turns.map((t) => ({ spec: t.spec, thinkMs: t.think_s * 1000 })),
  }));
  return { kind: 'sessions', sessions, maxConcurrency: o.maxConcurrency };
}

/** Number of requests the workload must provide before the trace is known (a refusal in `t`'s language). */
export function workloadCount(common: CommonSettings, t?: T): number | undefined {
  const l = common.load;
  if (l.mode === 'trace' || l.mode === 'sessions') return undefined;
  if (l.mode === 'open' && l.stages?.length) return loadPlan(common, null).count;
  if (l.mode === 'open' && l.durationS !== null) {
    // Streamed (see isStreamed), so a 24-hour soak at 200/s (17 million) runs; past the streamed
    // limit it is refused before anything is generated. A shard's part is checked against the
    // whole-plan limit when it is dealt (`measure`).
    const n = openLoopCount(l.rateRps ?? 1, l.durationS);
    // An unbounded rate with a duration is refused on its own terms (settings' rules), not here.
    const tooMany = Number.isFinite(n)
      ? plannedCountProblem(n, '--rate × --duration', t, MAX_STREAMED_REQUESTS)
      : null;
    if (tooMany) throw new UsageError([tooMany]);
    return n;
  }
  return loadPlan(common, null).count;
}

/**
 * The workload builder's options from the settings: synthetic prompts of the declared synthetic
 * lengths (`config/run-settings`) when no other prompt source is given, as an experiment file's.
 */
export function workloadOptions(common: CommonSettings, model: string, t?: T): WorkloadOptions {
  const w = common.workload;
  const noSource = w.prompt === null && !w.promptsFile && !w.dataset && !common.load.traceFile;
  return {
    ...workloadOptionValues(common.workload, 'settings'),
    seed: common.load.seed,
    count: workloadCount(common, t),
    model,
    prompt: w.prompt ?? undefined,
    promptsFile: w.promptsFile ?? undefined,
    dataset: w.dataset ?? undefined,
    trace: common.load.traceFile ?? undefined,
    traceFormat: common.load.traceFormat ?? undefined,
    traceWindow: common.load.traceWindow ?? undefined,
    traceBlockSize: common.load.traceBlockSize ?? undefined,
    inputLen: w.inputLen ?? (noSource ? syntheticDefault('input_len') : undefined),
    outputLen: w.outputLen ?? defaultOutputLen(!noSource, common.generation.maxTokens),
    sharedPrefixLen: w.sharedPrefixLen ?? undefined,
    numPrefixGroups: w.numPrefixGroups ?? undefined,
    tokenizer: w.tokenizer ?? undefined,
    ...(common.load.mode === 'sessions' ? { sessions: sessionOptions(common) } : {}),
  };
}

/** The session options of a sessions-mode run (defaults: 1 turn, no think time). */
export function sessionOptions(common: CommonSettings): SessionOptions {
  const { load: l, workload: w } = common;
  return {
    users: l.users ?? 1,
    turns: l.turns ?? '1',
    thinkTime: l.thinkTime ?? '0',
    ...(w.documents !== null ? { documents: w.documents } : {}),
    ...(w.docLen !== null ? { docLen: w.docLen } : {}),
    ...(w.docPopularity !== null ? { docPopularity: w.docPopularity } : {}),
  };
}
