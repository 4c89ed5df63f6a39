/**
 * @module exp/harness/measure
 * One measurement of a kind's plan on a target, through the one measurement path
 * (`pipeline/measure`'s `measureOn`: the same client, runner, scraping, summary and verdict as
 * `servelab run`), and the pooling of `repeats`. {@link measureOnce} is the one place where an
 * experiment's settings (file, target, plan) become a measurement request.
 */
import { EN } from '../../analysis/diagnose/default-lang.js';
import { mean, parseThresholds, summarize, type Threshold } from '../../analysis/index.js';
import type { Slo } from '../../analysis/slo.js';
import { clientOptionsOf, generationOfSpec } from '../../pipeline/client-options.js';
import { closedLoopUsers, measureOn } from '../../pipeline/measure.js';
import { type RequestRecord, shiftRecord } from '../../record/types.js';
import { type LoadMode, sessionTurns } from '../../runner/load.js';
import type { SharedFile } from '../fields.js';
import type { ExpDeps, LiveTarget, Measured, RunCache, RunInfo, RunPlan } from '../kinds/context.js';
import { runRecord } from './store.js';
import { timeScale } from './targets.js';

/** The experiment was interrupted (its signal aborted); finished runs stay in the store. */
export class ExperimentInterrupted extends Error {
  constructor(readonly completedRuns: number) {
    super(`interrupted after ${completedRuns} completed runs`);
    this.name = 'ExperimentInterrupted';
  }
}

/**
 * The file's SLOs as goodput objectives for every run's summary. `itl_ms` is a chunk-gap
 * distribution, not a per-request number, so it drives the SLO search only.
 */
export function goodputSlo(exp: SharedFile): Slo | null {
  const s = exp.slo;
  if (!s) return null;
  const out: Slo = {};
  if (s.ttft_ms !== undefined) out.ttft_ms = s.ttft_ms;
  if (s.tpot_ms !== undefined) out.tpot_ms = s.tpot_ms;
  if (s.e2e_ms !== undefined) out.e2e_ms = s.e2e_ms;
  return Object.keys(out).length ? out : null;
}

/**
 * The file's thresholds that an experiment checks on every run, and a warning when some are left
 * out: relative thresholds need a baseline run, which an experiment does not have.
 */
export function experimentThresholds(exp: SharedFile): { thresholds: Threshold[]; warning: string | null } {
  const all = parseThresholds(exp.thresholds, 'thresholds');
  const thresholds = all.filter((t) => t.relative_percent === null);
  return {
    thresholds,
    warning:
      thresholds.length < all.length
        ? 'relative thresholds (…%) need a baseline run: not checked in an experiment'
        : null,
  };
}

/** What one measurement needs from its experiment. */
export interface MeasureScope {
  exp: SharedFile;
  deps: ExpDeps;
  experimentId: string | null;
  slo: Slo | null;
  thresholds: Threshold[];
  /** Makes the run's request ids unique within the experiment (`x0`, `x1`, …). */
  runPrefix: string;
  /** Runs finished so far (what an interruption reports). */
  completedRuns: number;
}

/**
 * Run one measurement on a target and record it (store run, records, series, summary, verdict,
 * and the target's record with the run's metrics); prints the run id as it starts. The
 * experiment's settings become the measurement here and nowhere else.
 * @throws ExperimentInterrupted when the signal aborts (the partial run stays in the store)
 */
export async function measureOnce(
  t: LiveTarget,
  plan: RunPlan,
  planLabel: string,
  scope: MeasureScope,
): Promise<Measured> {
  const { exp, deps } = scope;
  if (deps.signal?.aborted) throw new ExperimentInterrupted(scope.completedRuns);
  const store = deps.store;
  const label = `${t.name} ${planLabel}`;
  const gen = t.generation;
  // A simulator running X times faster than real time gets its arrivals X times closer, so
  // that the engine sees the same schedule (in simulated ms) as on a virtual clock.
  const scale = timeScale(t);
  const load: LoadMode =
    plan.load.kind === 'closed'
      ? { kind: 'closed', concurrency: plan.load.concurrency, requests: plan.specs.length }
      : plan.load.kind === 'sessions'
        ? {
            kind: 'sessions',
            sessions: plan.load.sessions.map((x) => ({
              ...x,
              startMs: x.startMs / scale,
              turns: x.turns.map((u) => ({ ...u, thinkMs: u.thinkMs / scale })),
            })),
            maxConcurrency: plan.load.maxConcurrency ?? null,
          }
        : {
            kind: 'open',
            arrivalsMs: plan.load.arrivalsMs.map((x) => x / scale),
            maxConcurrency: plan.load.maxConcurrency ?? null,
            ...(plan.load.stages
              ? { stages: { counts: plan.load.stages.counts, pauseMs: plan.load.stages.pauseMs / scale } }
              : {}),
          };
  const l = exp.load;
  const targetRecord = t.record;
  const m = await measureOn(
    t.live,
    {
      plan: {
        label,
        level: plan.level,
        specs: plan.specs,
        load,
        warmup: plan.warmup ?? 0,
        warmupSpecs: plan.warmupSpecs,
        beforeEach: plan.beforeEach,
        runPrefix: scope.runPrefix,
        // Without a dataset the prompts are synthetic words (a kind's own prompts included).
        syntheticPrompts: exp.workload.dataset === undefined,
        ...(plan.load.kind === 'sessions' && plan.load.intended
          ? { sessions: { intended: plan.load.intended } }
          : {}),
      },
      client: clientOptionsOf(
        {
          endpoint: t.endpoint,
          model: t.model,
          stream: gen.stream,
          extraBody: t.extraBody,
          headers: t.headers,
          apiKey: t.apiKey,
          timeoutS: l.timeout_s,
          timeoutTtftS: l.timeout_ttft_s,
        },
        generationOfSpec(gen),
      ),
      slo: scope.slo,
      thresholds: scope.thresholds,
      config: {
        target: t.name,
        mode: t.mode,
        model: t.model,
        level: plan.level,
        requests: plan.specs.length,
        load:
          plan.load.kind === 'closed'
            ? plan.load
            : plan.load.kind === 'sessions'
              ? { kind: 'sessions', users: plan.load.sessions.length, requests: sessionTurns(plan.load) }
              : { kind: 'open', requests: plan.load.arrivalsMs.length },
        generation: t.generation,
        ...(plan.load.kind === 'closed' ? { concurrency: plan.load.concurrency } : {}),
        prompts: plan.coldPrompts ? 'fresh' : exp.workload.reuse_prompts ? 'reused' : 'as-given',
      },
    },
    {
      env: deps.env,
      version: deps.version,
      signal: deps.signal,
      store: store ?? null,
      runKind: 'exp',
      experimentId: scope.experimentId,
      record: (targetRecord as unknown as Record<string, unknown>) ?? undefined,
      // The target's record gains the run's metrics and quality, in the run's row.
      ...(targetRecord
        ? {
            measuredRecord: (summary, records) =>
              runRecord(targetRecord, summary, records) as unknown as Record<string, unknown>,
          }
        : {}),
      log: deps.log,
      announce: (id) => (deps.t ?? EN)('exp.progress.run', { id, label }),
      monitoring: {
        scrape: t.spec.metrics_url ? [t.spec.metrics_url] : 'auto',
        // Sweep levels last a second or two: read the counters often enough that a level's
        // server rate and hit rate are not spread over the idle time around it.
        scrapeIntervalMs: plan.scrapeIntervalMs ?? 250,
        metricsPort: null,
      },
    },
  );
  const runId = m.runId;
  const interrupted = m.result.interrupted || (deps.signal?.aborted ?? false);
  // An interrupted run's numbers are partial: they stay in the store, but the kind stops here.
  if (interrupted) throw new ExperimentInterrupted(scope.completedRuns);
  // The measurement window's counters: warm-up and the idle time around the run left out.
  const server = m.report.monitoring?.server_window ?? null;
  const run: RunInfo = {
    run_id: runId,
    target: t.name,
    label: planLabel,
    level: plan.level,
    summary: m.summary,
    thresholds: m.thresholds,
    validity: m.validity,
    cache: cacheOf(server),
    server_tokens_per_s: server?.server_tokens_per_s ?? null,
  };
  // Records in request (spec) order, so kinds can pair them with their specs.
  const records = m.result.records
    .filter((r) => r.phase === 'measure')
    .sort((a, b) => a.index - b.index || a.attempt - b.attempt);
  return {
    run,
    records,
    summary: m.summary,
    sessions: m.report.sessions ?? null,
    series: m.report.series ?? [],
  };
}

/**
 * The repeats of one plan pooled into one measurement: records laid end to end on one timeline,
 * so the pooled summary has every request's latency and the mean throughput over the repeats. A
 * pooled run is valid only when every repeat is.
 */
export function poolRepeats(
  t: LiveTarget,
  plan: RunPlan,
  parts: readonly Measured[],
  slo: Slo | null,
): Measured {
  const records: RequestRecord[] = [];
  let offset = 0;
  for (const p of parts) {
    const recs = p.records.map((r) => shiftRecord(r, offset));
    records.push(...recs);
    let end = offset;
    for (const r of recs) end = Math.max(end, r.end_at_ms ?? r.last_token_at_ms ?? r.sent_at_ms ?? end);
    offset = end;
  }
  const maxConc = plan.load.kind === 'closed' ? plan.load.concurrency : (plan.load.maxConcurrency ?? null);
  const closed = closedLoopUsers(plan.load, !!plan.beforeEach);
  const summary = summarize(records, { max_concurrency: maxConc, closed_loop_users: closed, slo });
  const caches = parts.map((p) => p.run.cache);
  const run: RunInfo = {
    run_id: parts[0].run.run_id,
    target: t.name,
    label: plan.label,
    level: plan.level,
    summary,
    thresholds: [],
    validity: parts.flatMap((p) => p.run.validity),
    cache: caches.every((c) => c !== null) ? poolCache(caches as RunCache[]) : null,
    server_tokens_per_s: mean(parts.flatMap((p) => p.run.server_tokens_per_s ?? [])),
  };
  return { run, records, summary, sessions: null, series: [] };
}

/** The run's prefix-cache counters from the server summary, when the server exposes them. */
function cacheOf(server: Record<string, number | null> | null): RunCache | null {
  const q = server?.prefix_queries_delta ?? null;
  const h = server?.prefix_hits_delta ?? null;
  if (q === null || h === null) return null;
  return { queries_tokens: q, hits_tokens: h, hit_rate: q > 0 ? h / q : null };
}

function poolCache(cs: readonly RunCache[]): RunCache {
  const q = cs.reduce((a, c) => a + c.queries_tokens, 0);
  const h = cs.reduce((a, c) => a + c.hits_tokens, 0);
  return { queries_tokens: q, hits_tokens: h, hit_rate: q > 0 ? h / q : null };
}
