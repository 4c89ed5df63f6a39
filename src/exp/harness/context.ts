/**
 * @module exp/harness/context
 * The running state of one experiment behind a kind's {@link KindContext}: its targets, the runs so
 * far and the warnings, each operation handed to the module of its concern (targets, workloads,
 * measuring, the store, the cache reset). `exp/run-experiment` makes one, starts it, gives it to
 * the kind and closes it.
 */

import type { Threshold } from '../../analysis/index.js';
import type { Slo } from '../../analysis/slo.js';
import { evaluateThresholds } from '../../analysis/thresholds.js';
import { type T, translator } from '../../i18n/index.js';
import type { RequestSpec } from '../../workload/types.js';
import type { SharedFile } from '../fields.js';
import type {
  CacheReset,
  ExpDeps,
  KindContext,
  KindWorkloadOptions,
  LevelWorkload,
  LiveTarget,
  Measured,
  RunInfo,
  RunPlan,
  StoredRun,
} from '../kinds/context.js';
import { ensureCold, resetCache } from './cache-reset.js';
import { experimentThresholds, goodputSlo, measureOnce, poolRepeats } from './measure.js';
import { storeOwnRun } from './store.js';
import { closeTargets, startTarget, timeScale } from './targets.js';
import { levelWorkloadOf, requestsFor, sessionsOf, workloadOf } from './workloads.js';

/** The running state of one experiment: its targets, store rows and runs so far. */
export class ExpContext<F extends SharedFile = SharedFile> implements KindContext<F> {
  readonly runs: RunInfo[] = [];
  readonly warnings: string[] = [];
  targets: LiveTarget[] = [];
  private seq = 0;
  private readonly thresholds: Threshold[];
  private readonly slo: Slo | null;
  /** The translator of the progress lines. */
  readonly tr: T;

  constructor(
    readonly exp: F,
    readonly deps: ExpDeps,
    readonly experimentId: string | null,
  ) {
    this.tr = deps.t ?? translator('en');
    const { thresholds, warning } = experimentThresholds(exp);
    this.thresholds = thresholds;
    if (warning) this.warnings.push(warning);
    this.slo = goodputSlo(exp);
  }

  /** Start or reach every target (sims started here are stopped by {@link close}). */
  async start(): Promise<void> {
    for (const [name, spec] of Object.entries(this.exp.targets))
      this.targets.push(await startTarget(this.exp, name, spec, this.deps, this.tr));
  }

  /** Stop the simulators this experiment started. */
  async close(): Promise<void> {
    await closeTargets(this.targets);
  }

  timeScale(t: LiveTarget): number {
    return timeScale(t);
  }

  target(name: string): LiveTarget {
    const t = this.targets.find((x) => x.name === name);
    if (!t) throw new Error(`no target ${name}`);
    return t;
  }

  /** The model whose tokenizer makes lengths exact: the first target's. */
  private model(): string {
    return this.targets[0]?.model ?? this.exp.model ?? '';
  }

  workload(opts: KindWorkloadOptions): Promise<RequestSpec[]> {
    return workloadOf(this.exp, this.model(), opts);
  }

  sessions(users: number, opts: { seed?: number; documentSeed?: number } = {}) {
    return sessionsOf(this.exp, this.model(), users, opts);
  }

  levelWorkload(
    level: Record<string, number | string>,
    opts: Omit<KindWorkloadOptions, 'seed'>,
  ): Promise<LevelWorkload> {
    return levelWorkloadOf(this.exp, this.model(), level, opts);
  }

  requestsFor(concurrency: number): number {
    return requestsFor(this.exp, concurrency);
  }

  addRun(r: Omit<RunInfo, 'thresholds'>, stored?: StoredRun): RunInfo {
    const run: RunInfo = { ...r, thresholds: evaluateThresholds(r.summary, this.thresholds) };
    // With its records, the run is kept in the store as the experiment's, so `report EXP` and
    // `runs` find it like any measured run.
    const store = this.deps.store;
    if (store && stored) {
      // A run on the in-process simulator's virtual clock starts at virtual time: say so.
      const virtual = this.targets.find((x) => x.name === r.target)?.live.virtual ?? false;
      run.run_id = storeOwnRun(store, this.experimentId, r, stored, virtual);
    }
    this.runs.push(run);
    return run;
  }

  /**
   * Run one measurement on a target and record it (store run, records, series, summary,
   * verdict); prints the run id as it starts. With `repeats: N`, the measurement runs N times (N
   * store runs, labelled `rep=k/N`) and the kind gets them pooled (`poolRepeats`).
   */
  async measure(t: LiveTarget, plan: RunPlan): Promise<Measured> {
    const n = this.exp.repeats;
    if (n <= 1) return this.measureOnce(t, plan, plan.label);
    const parts: Measured[] = [];
    for (let k = 1; k <= n; k++) parts.push(await this.measureOnce(t, plan, `${plan.label} rep=${k}/${n}`));
    return poolRepeats(t, plan, parts, this.slo);
  }

  private async measureOnce(t: LiveTarget, plan: RunPlan, label: string): Promise<Measured> {
    const m = await measureOnce(t, plan, label, {
      exp: this.exp,
      deps: this.deps,
      experimentId: this.experimentId,
      slo: this.slo,
      thresholds: this.thresholds,
      runPrefix: `x${this.seq++}`,
      completedRuns: this.runs.length,
    });
    this.runs.push(m.run);
    return m;
  }

  resetCache(t: LiveTarget): Promise<CacheReset> {
    return resetCache(t, this.exp.cache.reset, this.deps.signal);
  }

  ensureCold(targets: readonly LiveTarget[]): Promise<Record<string, string>> {
    return ensureCold(targets, (t) => this.resetCache(t));
  }
}
