/**
 * @module exp/run-experiment
 * `servelab exp run FILE.yaml`'s engine: {@link runExperiment} starts the experiment's targets
 * (simulators included), records the experiment and every run into the store (printing their
 * ids as they start), runs the kind, computes the kind's results and stops what it started;
 * {@link formatExperimentResult} renders the result for the console. The result is plain JSON
 * (`--json` prints it as is).
 */

import { type T, translator } from '../i18n/index.js';
import { translateStored } from '../i18n/stored.js';
import type { ExperimentAnswer } from '../report/answer.js';
import { answerTextLines } from '../report/answer-render.js';
import type { ExperimentRecord } from './experiment-record.js';
import { ExpContext } from './harness/context.js';
import type { ExpDeps, KindContext, LiveTarget, RunInfo } from './kinds/context.js';
import { type ExperimentKind, KINDS } from './kinds/index.js';
import { fmt, verdictOf } from './kinds/points.js';
import { withLesson } from './lesson-answer.js';
import { lessonFields } from './lesson-evidence.js';
import { applyKindDefaults, type ExperimentFile } from './schema.js';

export { ExperimentInterrupted } from './harness/measure.js';

type Modules = typeof KINDS;
/** What a kind computed (its module's `run`). */
export type KindResult = Awaited<ReturnType<Modules[ExperimentKind]['run']>>;

/** The outcome of one experiment (JSON-serialisable). */
export interface ExperimentResult {
  experiment_id: string | null;
  name: string;
  kind: ExperimentFile['kind'];
  /** The seed every run of the experiment shares (the file's, or drawn when it was read). */
  seed: number;
  /** `time_scale`: how much faster than real time a simulator ran (1 for servers and virtual sims). */
  targets: { name: string; mode: 'http' | 'virtual'; model: string; time_scale: number }[];
  /** Every run, in the order run, with its summary. */
  runs: RunInfo[];
  results: KindResult;
  /** False when a run failed one of the file's `thresholds` (the CLI exits 2). */
  thresholds_passed: boolean;
  warnings: string[];
}

/** Extra inputs of {@link runExperiment}. */
export interface RunExperimentDeps extends ExpDeps {
  /** The file as read, stored with the experiment so that `exp rerun` can repeat it. */
  file?: { path: string; text: string };
}

/**
 * Run a validated experiment end to end.
 * @throws UsageError for what the file cannot do (e.g. a target that cannot be made cold);
 *   TargetError/other errors from the targets. The store rows are marked failed/interrupted.
 */
export async function runExperiment(exp: ExperimentFile, deps: RunExperimentDeps): Promise<ExperimentResult> {
  const store = deps.store;
  const row = store?.createExperiment({
    kind: exp.kind,
    name: exp.name,
    filePath: deps.file?.path ?? null,
    fileText: deps.file?.text ?? null,
    spec: exp as unknown as Record<string, unknown>,
  });
  deps.log(
    (deps.t ?? translator('en'))('exp.progress.start', {
      id: row?.id ?? '-',
      name: exp.name,
      kind: exp.kind,
      seed: exp.seed,
    }),
  );
  // The kind reads its own section with its defaults (a no-op for a file `parseExperiment` made).
  const ctx = new ExpContext(applyKindDefaults(exp), deps, row?.id ?? null);
  try {
    await ctx.start();
    if (store && row)
      store.updateExperiment(row.id, {
        record: { targets: Object.fromEntries(ctx.targets.map((t) => [t.name, t.record])) },
      });
    const results = await runKind(ctx);
    // A lesson's file: its name (and what its steps show) go with the results, for its answer.
    if (exp.lesson) Object.assign(results, lessonFields(exp.lesson, ctx.runs, store ?? null));
    // What the kind measured beyond its runs goes into the targets' records (the A/B's quality).
    const records = targetRecords(ctx, results);
    if (records && store && row) store.updateExperiment(row.id, { record: { targets: records } });
    const result: ExperimentResult = {
      experiment_id: row?.id ?? null,
      name: exp.name,
      kind: exp.kind,
      seed: exp.seed,
      targets: ctx.targets.map((t) => ({
        name: t.name,
        mode: t.mode,
        model: t.model,
        time_scale: ctx.timeScale(t),
      })),
      runs: ctx.runs,
      results,
      thresholds_passed: ctx.runs.every((x) => x.thresholds.every((t) => t.pass)),
      warnings: ctx.warnings,
    };
    if (store && row)
      store.finishExperiment(row.id, 'completed', {
        results: results as unknown as Record<string, unknown>,
        runs: ctx.runs.map((r) => ({ run_id: r.run_id, target: r.target, label: r.label, level: r.level })),
        warnings: ctx.warnings,
      });
    return result;
  } catch (e) {
    if (store && row) store.finishExperiment(row.id, deps.signal?.aborted ? 'interrupted' : 'failed');
    throw e;
  } finally {
    await ctx.close();
  }
}

/**
 * The kind's runner on the context. Each module's `run` takes a context of its own file; the file
 * here is the one of `ctx.exp.kind`, defaulted, which TypeScript cannot pair up by itself.
 */
function runKind(ctx: ExpContext<ExperimentFile>): Promise<KindResult> {
  const run = KINDS[ctx.exp.kind].run as (c: KindContext<ExperimentFile>) => Promise<KindResult>;
  return run(ctx);
}

// A module's functions take its own result; the registry's union of them takes the union of
// results, which TypeScript cannot pair up with the module by itself.
type ModuleFns = {
  format: (r: KindResult, t: T) => string[];
  writeup?: (r: KindResult, t: T) => string[];
  conclusion?: (r: KindResult, t: T) => string[];
  answer?: (r: KindResult, t: T) => ExperimentAnswer;
  targetRecords?: (t: readonly LiveTarget[], r: KindResult) => Record<string, ExperimentRecord | null> | null;
};
const moduleOf = (kind: ExperimentKind) => KINDS[kind] as unknown as ModuleFns;

function targetRecords(ctx: ExpContext<ExperimentFile>, results: KindResult) {
  return moduleOf(ctx.exp.kind).targetRecords?.(ctx.targets, results) ?? null;
}

/**
 * The write-up section of a stored experiment's results (the store's `summary.results`), or null
 * when its kind has none (or the kind is unknown to this version).
 */
export function experimentWriteup(kind: string, results: unknown, t: T = translator('en')): string[] | null {
  if (!Object.hasOwn(KINDS, kind) || results === null || typeof results !== 'object') return null;
  return moduleOf(kind as ExperimentKind).writeup?.(results as KindResult, t) ?? null;
}

/** The kind's answer as plain sentences (`conclusion`), for the HTML report; null when it has none. */
export function experimentConclusion(
  kind: string,
  results: unknown,
  t: T = translator('en'),
): string[] | null {
  if (!Object.hasOwn(KINDS, kind) || results === null || typeof results !== 'object') return null;
  return moduleOf(kind as ExperimentKind).conclusion?.(results as KindResult, t) ?? null;
}

/**
 * What a stored experiment's results answer (its kind's `answer`), in `t`'s language; null when
 * the kind has no answer yet, or is unknown to this version, or there are no results.
 */
export function experimentAnswer(
  kind: string,
  results: unknown,
  t: T = translator('en'),
): ExperimentAnswer | null {
  if (!Object.hasOwn(KINDS, kind) || results === null || typeof results !== 'object') return null;
  const answer = moduleOf(kind as ExperimentKind).answer?.(results as KindResult, t) ?? null;
  // A lesson answers even where its kind has no answer of its own (voice): its effect is the answer.
  const lesson = (results as { lesson?: unknown }).lesson !== undefined;
  const base =
    answer ??
    (lesson
      ? {
          kind,
          question: '',
          verdict: '',
          table: { columns: [], rows: [] },
          chart: null,
          run_ids: [],
          interval: null,
        }
      : null);
  return base && withLesson(base, results, t);
}

// ---- console rendering ----------------------------------------------------------------------

/**
 * The result as text for the console: the kind's answer first (question, verdict, key table),
 * then its own tables and verdicts, then the thresholds, warnings and every run's validity.
 */
export function formatExperimentResult(r: ExperimentResult, t: T = translator('en')): string {
  const out: string[] = [
    t('exp.header', { id: r.experiment_id ?? '-', name: r.name, kind: r.kind, n: r.runs.length }),
  ];
  const answer = experimentAnswer(r.kind, r.results, t);
  if (answer) out.push(...answerTextLines(answer, t), '');
  out.push(...moduleOf(r.kind).format(r.results, t));
  for (const run of r.runs)
    for (const th of run.thresholds)
      if (!th.pass)
        out.push(
          t(th.reason ? 'exp.threshold_failed_reason' : 'exp.threshold_failed', {
            target: run.target,
            label: run.label,
            threshold: th.threshold,
            actual: fmt(th.actual, 2),
            reason: th.reason,
          }),
        );
  for (const x of r.targets)
    if (x.time_scale !== 1) out.push(t('exp.time_scale', { name: x.name, scale: x.time_scale }));
  for (const w of r.warnings) out.push(t('exp.warning', { message: w }));
  // Every run's verdict, whatever the kind: a conclusion drawn from an invalid run says so here.
  out.push(
    t('exp.runs', {
      list: r.runs.map((x) => `${x.run_id ?? '-'} (${x.target} ${x.label}: ${verdictOf(x, t)})`).join(', '),
    }),
  );
  const invalid = r.runs.filter((x) => x.validity.length > 0);
  // The reasons are kept in English with the run; shown in the reader's language.
  for (const x of invalid)
    for (const v of x.validity)
      out.push(
        `  ${x.target} ${x.label} ${v.code}: ${translateStored(v.message, t, ['diagnose.validity.'])}`,
      );
  return out.join('\n');
}
