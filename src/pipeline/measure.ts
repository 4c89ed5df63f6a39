/**
 * @module pipeline/measure
 * The one measurement path, `measureOn`: against an endpoint (a URL or the in-process
 * simulator), a built plan (specs, load, warm-up) and client options, open the run in the store,
 * bracket the load with scrapes, run it, summarise with the SLOs, check thresholds, judge
 * validity and build report.json. `servelab run`, `demo`, `plan` (through
 * `pipeline/measure-settings` `measure`), every experiment kind and the gate's load check all
 * call it, so a number means the same thing wherever it was produced.
 */

import { EN } from '../analysis/diagnose/default-lang.js';
import type { ValidityReason } from '../analysis/diagnose/types.js';
import type { Slo, Summary, SummaryDetail } from '../analysis/index.js';
import { summarize, summarizeSessions } from '../analysis/index.js';
import type { LoadedRun } from '../analysis/loaded-run.js';
import { type SpecSeries, speculativeSummary } from '../analysis/speculative.js';
import { stageSummaries } from '../analysis/stage-summary.js';
import { evaluateThresholds, type Threshold, type ThresholdResult } from '../analysis/thresholds.js';
import { validityReasons } from '../analysis/validity.js';
import { openStepCursor, readSteps } from '../client/engine-steps.js';
import { createHttpTarget } from '../client/index.js';
import { asStorageError, type StorageError } from '../core/errors.js';
import type { T } from '../i18n/index.js';
import { type OtlpReceiver, type ScrapePoint, startOtlpReceiver } from '../monitor/index.js';
import { describeEnvironment } from '../output/environment.js';
import type { RunStepRecord } from '../record/engine-step.js';
import type { RequestRecord } from '../record/types.js';
import { buildRunReport, type RunReport } from '../report/run/report.js';
import { buildShardReport, type ShardReport } from '../report/run/shard.js';
import type { RunObserver } from '../runner/events.js';
import {
  type LoadMode,
  plannedRequests,
  type RunLoadConfig,
  type RunLoadDeps,
  type RunResult,
} from '../runner/load.js';
import { runLoad } from '../runner/loops.js';
import { createProgress } from '../runner/progress.js';
import type { Clock } from '../runtime/clock.js';
import { addRunSteps, type RunKind, type Store } from '../store/index.js';
import type { IntendedSharing } from '../workload/index.js';
import type { SpecList } from '../workload/types.js';
import type { ClientSettings } from './client-options.js';
import type { EngineEndpoint } from './endpoint.js';
import {
  type MonitoringResult,
  type MonitoringSettings,
  reportMonitoring,
  startMonitoring,
} from './monitoring.js';
import { joinSpans, OTLP_GRACE_MS } from './otlp-join.js';
import { type MeasureOutput, openRecordsFile, writeMeasurementFiles, writeStepsFile } from './outputs.js';
import { LATE_LIMIT_MS, type ShardSettings, shardFiles } from './shard.js';

export interface MeasureDeps {
  env: Record<string, string | undefined>;
  /** Where the progress line goes (stderr). */
  progress?: { write(s: string): unknown; isTTY?: boolean } | null;
  clock?: Clock;
  signal?: AbortSignal;
  /** More observers (store, exporter, …). */
  observers?: RunObserver[];
  version: string;
  /** Scraping and servelab's exporter during the run; default: scrape the target's /metrics if it answers. */
  monitoring?: MonitoringSettings;
  /** Record the run (config, records, series, summary) into this store. */
  store?: Store | null;
  /** Store bookkeeping: the run's kind and experiment. */
  runKind?: RunKind;
  experimentId?: string | null;
  /** Progress lines such as `listening on …` and the run id. */
  log?: (line: string) => void;
  /** The line that announces a stored run (default `run ID started`). */
  announce?: (runId: string) => string;
  /** The run's record (the experiment's description of its target), stored with it. */
  record?: Record<string, unknown>;
  /**
   * What the run's record gains once the run is summarised (an experiment target's metrics and
   * quality), merged into the stored record with the monitoring and the verdict.
   */
  measuredRecord?: (summary: Summary, records: readonly RequestRecord[]) => Record<string, unknown>;
  /**
   * The language of {@link Measurement.validity}, which the console prints (default English);
   * `report.validity`, stored with the run, stays English.
   */
  t?: T;
  /**
   * A coordinator's common start (`run --workers`): called once this shard is ready (after its
   * warm-up), it resolves to the start every shard uses (unix ms), which replaces the planned one.
   */
  awaitStart?: () => Promise<number>;
  /**
   * When a file or the store cannot be written at the end (a full disk, a read-only mount, a
   * lost lock: core/errors `StorageError`), come back with {@link Measurement.saveErrors}
   * instead of throwing, so the caller prints the summary before the error. Default: throw.
   */
  keepSaveErrors?: boolean;
}

export interface Measurement {
  report: RunReport;
  /** A shard's report (written instead of report.json), when the plan is a shard's. */
  shardReport?: ShardReport | null;
  result: RunResult;
  /** The summary; its `warnings` in `deps.t`'s language (`report.summary`, stored, keeps English). */
  summary: Summary;
  thresholds: ThresholdResult[];
  /** Why the run's numbers cannot bear weight (empty = valid), in `deps.t`'s language; in English in `report.validity`. */
  validity: ValidityReason[];
  /** The server's scraped series (empty when nothing was scraped). */
  series: ScrapePoint[];
  /** The store's id for the run, when stored. */
  runId: string | null;
  /** Files written under --out. */
  files: string[];
  /** What could not be saved (with {@link MeasureDeps.keepSaveErrors}; else these are thrown). */
  saveErrors: StorageError[];
}

/** What one measurement sends, and how (the workload is already built). */
export interface MeasurePlan {
  /** Store label and progress name, e.g. `c=4`. */
  label: string | null;
  /** The factor(s) of this run inside an experiment, e.g. `{concurrency: 4}`. */
  level?: Record<string, number | string> | null;
  /** Measured requests; request i uses `specs[i % specs.length]` (an array, or streamed). */
  specs: SpecList;
  load: LoadMode;
  warmup?: number;
  warmupSpecs?: SpecList;
  retries?: number;
  drainTimeoutMs?: number;
  /**
   * Send each measured request alone, after this hook (a cache reset, say), all on one
   * timeline: the run is then a closed loop of one.
   */
  beforeEach?: () => Promise<void>;
  /** Prefix of request ids. */
  runPrefix?: string;
  /**
   * Stop early when the first 20 finished measured requests all failed with the same
   * non-retryable class (401, 403, 404, a 400 about the model or the context length; see
   * `failFastReason` in `analysis/errors`). Default on; `false` sends every request
   * (`--no-fail-fast`). Not applied with `beforeEach`, whose requests are runs of one.
   */
  failFast?: boolean;
  /** A shard's part of a larger run: its identity, and the common start it waits for. */
  shard?: MeasureShard | null;
  /** A sessions run: the prefix sharing its workload intends (for the report's sessions block). */
  sessions?: { intended: IntendedSharing } | null;
  /**
   * The prompts are servelab's synthetic words, with no text for ngram speculation to match: the
   * in-process simulator then drafts at its published prior, and the summary says so.
   */
  syntheticPrompts?: boolean;
}

/** What a shard's measurement needs beyond its plan (see pipeline/shard). */
export interface MeasureShard extends ShardSettings {
  runId: string;
  configHash: string;
  scheduleHash: string;
  seed: number;
  plannedTotal: number;
}

/** One measurement to make: the plan, the client, the objectives and what to store. */
export interface MeasureRequest {
  plan: MeasurePlan;
  client: ClientSettings;
  slo: Slo | null;
  thresholds: readonly Threshold[];
  baseline?: Summary;
  /** The open loop's target rate, for the summary (null for closed loops). */
  targetRateRps?: number | null;
  /** The run's configuration as stored in report.json and the store (secrets redacted). */
  config: Record<string, unknown>;
  /** Files under `out` (report.json, requests.jsonl, summary.csv, vllm.json). */
  output?: MeasureOutput;
}

/** The summary's idea of the run's concurrency cap. */
function concurrencyOf(load: LoadMode, beforeEach: boolean): number | null {
  if (beforeEach) return 1;
  return load.kind === 'closed' ? load.concurrency : (load.maxConcurrency ?? null);
}

/**
 * The users of a load that is a closed loop, for Little's law (`analysis/littles-law`): a closed
 * loop's concurrency, or an open loop that plans every request at one instant under a cap
 * (`--rate inf --max-concurrency c`: c workers, each sending the next the moment one ends). Null
 * otherwise, and for requests sent one at a time after a hook.
 */
export function closedLoopUsers(load: LoadMode, beforeEach: boolean): number | null {
  if (beforeEach) return null;
  if (load.kind === 'closed') return load.concurrency;
  if (load.kind !== 'open' || load.maxConcurrency == null || load.arrivalsMs.length === 0) return null;
  // A streamed schedule is a --duration one: its arrivals are spread, never one instant.
  if (!Array.isArray(load.arrivalsMs)) return null;
  const a: readonly number[] = load.arrivalsMs;
  return a[a.length - 1] === a[0] ? load.maxConcurrency : null;
}

/** A client-health probe for virtual time: the client's own lag is not part of a virtual run. */
const NO_HEALTH = () => ({
  stop: () => ({ event_loop_delay_ms: { mean: null, p50: null, p99: null, max: null }, cpu_percent: null }),
});

/**
 * The one measurement path. Every number servelab prints comes from here: `run`, `demo`,
 * `plan` and every experiment kind. Against `endpoint` (a URL or the in-process simulator):
 * open the run in the store, start monitoring (the first scrape comes back before the first
 * request), run the load (warm-up, then the measured window), take the last scrape, summarise
 * with the SLOs, check thresholds, judge validity, build report.json and write the files.
 */
export async function measureOn(
  endpoint: EngineEndpoint,
  req: MeasureRequest,
  deps: MeasureDeps,
): Promise<Measurement> {
  const { plan } = req;
  const clock = deps.clock ?? endpoint.runClock();
  // ngram on prompts without text drafts at a published prior: the run's config keeps it, so its
  // summary (now, and `report` later) says what was assumed.
  const ngramPrior =
    plan.syntheticPrompts && endpoint.sim ? endpoint.sim.engine.assumeSyntheticPrompts() : null;
  const config = ngramPrior ? { ...req.config, ngram_prior: ngramPrior } : req.config;
  const otlpPort = deps.monitoring?.otlpPort ?? null;
  const client = createHttpTarget({
    ...req.client,
    baseUrl: endpoint.baseUrl,
    clock,
    ...(endpoint.dispatcher ? { dispatcher: endpoint.dispatcher } : {}),
    ...(otlpPort !== null ? { traceparent: true } : {}),
  });
  const observers: RunObserver[] = [...(deps.observers ?? [])];
  // The sinks that keep records; with --otlp-port they get each one once its span is joined.
  const sinks: RunObserver[] = [];
  const outDir = req.output?.out ?? null;
  const shardNames = plan.shard ? shardFiles(plan.shard.index, plan.shard.count) : null;
  const writer = openRecordsFile(outDir, shardNames);
  if (writer) sinks.push(writer);
  const progress = deps.progress
    ? createProgress({
        stream: deps.progress,
        clock,
        t: deps.t,
        durationMs: plan.load.kind === 'closed' ? (plan.load.durationMs ?? undefined) : undefined,
      })
    : null;
  if (progress) observers.push(progress);

  const environment = {
    ...describeEnvironment(deps.version),
    ...(endpoint.virtual ? { clock: 'virtual' } : {}),
  };
  const log = deps.log ?? (() => {});
  const store = deps.store ?? null;
  const storeRun = store
    ? store.createRun({
        kind: deps.runKind ?? 'run',
        experimentId: deps.experimentId ?? undefined,
        label: plan.label ?? undefined,
        startedAtUnixMs: clock.originUnixMs,
        // The origin of a virtual clock is virtual time (1970): the store dates the run by the wall clock.
        virtualClock: endpoint.virtual,
        config,
        environment,
        record: deps.record ?? null,
      })
    : null;
  if (storeRun && store) {
    sinks.push(store.observer(storeRun.id));
    log(deps.announce ? deps.announce(storeRun.id) : (deps.t ?? EN)('run.started', { id: storeRun.id }));
  }

  const spanJoin = otlpPort !== null ? joinSpans(sinks) : null;
  observers.push(...(spanJoin ? [spanJoin.observer] : sinks));

  const work = async () => {
    const settings = deps.monitoring ?? { scrape: 'auto', scrapeIntervalMs: 1000, metricsPort: null };
    const monitoring = await startMonitoring(
      plan.shard
        ? { ...settings, exporterLabels: { shard: String(plan.shard.index), run_id: plan.shard.runId } }
        : settings,
      {
        targetUrl: endpoint.baseUrl,
        clock,
        log,
        dispatcher: endpoint.dispatcher ?? undefined,
        gpu: endpoint.local || !endpoint.dispatcher,
        onPoints: storeRun && store ? (pts) => store.addSeries(storeRun.id, pts) : undefined,
      },
    );
    observers.push(...monitoring.observers);
    let result: RunResult | null = null;
    let mon: MonitoringResult | null = null;
    let receiver: OtlpReceiver | null = null;
    let steps: RunStepRecord[] | null = null;
    try {
      if (spanJoin) {
        receiver = await startOtlpReceiver({
          port: otlpPort as number,
          onSpans: (spans) => spanJoin.onSpans(spans),
          t: deps.t ?? EN,
        });
        log((deps.t ?? EN)('otlp.listening', { url: receiver.url }));
      }
      // The common start, converted once from the wall clock to this run's monotonic clock.
      const start =
        plan.shard?.startAtUnixMs != null
          ? {
              atMs: plan.shard.startAtUnixMs - clock.originUnixMs,
              lateLimitMs: LATE_LIMIT_MS,
              policy: plan.shard.latePolicy,
              ready: deps.awaitStart
                ? async () => (await (deps.awaitStart as () => Promise<number>)()) - clock.originUnixMs
                : undefined,
            }
          : null;
      // The simulator's step timeline, when the server offers it (`--record-steps`); a shard
      // shares its server with the others, so it leaves the steps alone.
      const stepApi = {
        apiKey: req.client.apiKey,
        headers: req.client.headers,
        ...(endpoint.dispatcher ? { dispatcher: endpoint.dispatcher } : {}),
      };
      const stepCursor = plan.shard ? null : await openStepCursor(endpoint.baseUrl, stepApi);
      result = await runPlan({ ...plan, start }, monitoring.mark, {
        target: client,
        clock,
        observers,
        signal: deps.signal,
        endpoint,
      });
      if (stepCursor) steps = await readSteps(stepCursor, clock, stepApi);
      if (spanJoin && receiver) {
        const joined = await spanJoin.settle(OTLP_GRACE_MS);
        const t = deps.t ?? EN;
        log(t('otlp.joined', { ...joined, spans: receiver.spans }));
        if (joined.expected > 0 && joined.joined === 0)
          log(t('otlp.none_joined_hint', { url: receiver.url }));
      }
      mon = await monitoring.stop();
    } finally {
      await spanJoin?.settle(0);
      await receiver?.close().catch(() => null);
      if (!mon) await monitoring.stop().catch(() => null);
      progress?.stop();
      await writer?.close();
      await client.close();
    }
    return { result, mon, steps };
  };
  let outcome: { result: RunResult; mon: MonitoringResult; steps: RunStepRecord[] | null };
  try {
    outcome = await endpoint.settle(work());
  } catch (err) {
    if (storeRun && store)
      store.finishRun(storeRun.id, null, deps.signal?.aborted ? 'interrupted' : 'failed');
    throw err;
  }
  const { result, mon, steps } = outcome;

  let detail: SummaryDetail | null = null;
  const summaryCtx = {
    window: result.window,
    client: result.client_health,
    target_rate_rps: req.targetRateRps ?? null,
    max_concurrency: concurrencyOf(plan.load, !!plan.beforeEach),
    closed_loop_users: closedLoopUsers(plan.load, !!plan.beforeEach),
    slo: req.slo,
    detail: (d: SummaryDetail) => {
      detail = d;
    },
  };
  const summary = summarize(result.records, summaryCtx);
  if (plan.load.kind === 'open' && plan.load.stages)
    summary.stages = stageSummaries(result.records, plan.load.stages.counts);
  const thresholdResults = req.thresholds.length
    ? evaluateThresholds(summary, [...req.thresholds], req.baseline)
    : [];
  const report = buildRunReport({
    config,
    environment,
    window: result.window,
    started_at_unix_ms: result.started_at_unix_ms,
    summary,
    end: result,
    records: result.records,
    embedRecords: req.output?.embedRecords ?? false,
  });
  const monitoringBlock = reportMonitoring(mon, mon.points, result.window);
  if (monitoringBlock) report.monitoring = monitoringBlock;
  if (mon.points.length) report.series = mon.points;
  report.sessions =
    plan.load.kind === 'sessions'
      ? summarizeSessions(result.records, {
          intended: plan.sessions?.intended ?? null,
          server_prefix_hit_rate:
            (report.monitoring?.server_window?.prefix_hit_rate as number | null | undefined) ?? null,
        })
      : null;
  report.speculative = speculativeSummary(
    (report.monitoring?.server_window ?? report.monitoring?.server ?? null) as SpecSeries | null,
    result.records,
  );
  if (ngramPrior) report.speculative.ngram_prior = ngramPrior;
  const level = plan.level ?? null;
  const judged: LoadedRun = {
    id: storeRun?.id ?? plan.label ?? 'run',
    label: plan.label ?? 'run',
    config,
    environment,
    summary,
    records: result.records,
    series: mon.points,
    window: result.window,
    ...(level ? { level: level as LoadedRun['level'] } : {}),
  };
  // A shard shares the server with the other shards, whose tokens its counters count too.
  const validityOpts = { shared_server: (plan.shard?.count ?? 1) > 1 };
  const validity = validityReasons(judged, validityOpts);
  report.validity = { valid: validity.length === 0, reasons: validity };
  const saveErrors: StorageError[] = [];
  const saveFailed = (err: unknown, path: string) => {
    const e = asStorageError(err, path);
    if (!e) throw err;
    saveErrors.push(e);
  };
  if (writer?.error) saveFailed(writer.error, writer.path);
  if (storeRun && store) {
    const runId = storeRun.id;
    report.run_id = runId;
    try {
      const prev = store.getRun(runId)?.record ?? {};
      store.updateRun(runId, {
        record: {
          ...prev,
          monitoring: (report.monitoring ?? null) as never,
          validity: report.validity as never,
          ...((deps.measuredRecord?.(summary, result.records) ?? {}) as Record<string, never>),
        },
      });
      if (steps?.length) addRunSteps(store, runId, steps);
      store.finishRun(runId, summary, result.interrupted ? 'interrupted' : 'completed', result.window);
    } catch (err) {
      saveFailed(err, store.path);
      // At least the run's status, so that it does not read as still running.
      try {
        if (store.getRun(runId)?.status === 'running')
          store.finishRun(runId, null, result.interrupted ? 'interrupted' : 'failed');
      } catch {}
    }
  }
  const shardReport =
    plan.shard && detail && shardNames
      ? buildShardReport(
          report,
          result.records,
          detail,
          {
            index: plan.shard.index,
            count: plan.shard.count,
            run_id: plan.shard.runId,
            config_hash: plan.shard.configHash,
            schedule_hash: plan.shard.scheduleHash,
            seed: plan.shard.seed,
            planned_total: plan.shard.plannedTotal,
            planned_here: plannedRequests(plan.load) ?? 0,
            concurrency_cap: concurrencyOf(plan.load, !!plan.beforeEach),
            planned_start_unix_ms:
              result.start_at_ms != null ? result.start_at_ms + clock.originUnixMs : plan.shard.startAtUnixMs,
            late_ms: result.late_ms ?? null,
            late_policy: plan.shard.latePolicy,
            host: environment.hostname ?? '',
          },
          shardNames.records,
        )
      : null;
  const files = await writeMeasurementFiles(
    outDir,
    req.output,
    report,
    result.records,
    shardReport && shardNames ? { report: shardReport, names: shardNames } : null,
  ).catch((err: unknown) => {
    saveFailed(err, (err as { path?: string }).path ?? outDir ?? '');
    return [] as string[];
  });
  if (writer) files.push(writer.path);
  files.push(
    ...(await writeStepsFile(outDir, steps).catch((err: unknown) => {
      saveFailed(err, outDir ?? '');
      return [] as string[];
    })),
  );
  if (saveErrors.length && !deps.keepSaveErrors) throw saveErrors[0];
  const translated = deps.t !== undefined && deps.t.lang !== 'en';
  return {
    report,
    shardReport,
    result,
    // The console's copy speaks deps.t's language; the stored summary and report stay English.
    summary:
      translated && detail
        ? {
            ...summary,
            warnings: (detail as SummaryDetail).warnings.map((w) => (deps.t as T)(w.key, w.params)),
          }
        : summary,
    thresholds: thresholdResults,
    validity: translated ? validityReasons(judged, validityOpts, deps.t) : validity,
    series: mon.points,
    runId: storeRun?.id ?? null,
    files,
    saveErrors,
  };
}

/** Run the plan's load on the target: one runner call, or one per request after `beforeEach`. */
async function runPlan(
  plan: MeasurePlan & { start?: RunLoadConfig['start'] },
  mark: () => Promise<void>,
  deps: RunLoadDeps & { endpoint: EngineEndpoint },
): Promise<RunResult> {
  const runDeps: RunLoadDeps = { ...deps, ...(deps.endpoint.virtual ? { health: NO_HEALTH } : {}) };
  const base = {
    warmup: plan.warmup ?? 0,
    warmupSpecs: plan.warmupSpecs,
    retries: plan.retries ?? 0,
    drainTimeoutMs: plan.drainTimeoutMs,
    runPrefix: plan.runPrefix,
    failFast: plan.failFast === false ? null : {},
    start: plan.start ?? null,
    // After a warm-up, a reading before the window opens: the window's counters start there.
    ...((plan.warmup ?? 0) > 0 ? { beforeMeasure: mark } : {}),
  };
  if (!plan.beforeEach) return runLoad({ ...base, load: plan.load, specs: plan.specs }, runDeps);
  // One request per runner call, each after the hook, all on the run's clock (one timeline).
  let merged: RunResult | null = null;
  const all = plan.specs;
  for (let i = 0; i < all.length; i++) {
    await plan.beforeEach();
    const spec = 'streamed' in all ? await all.at(i) : all[i];
    const r = await runLoad(
      {
        ...base,
        warmup: i === 0 ? base.warmup : 0,
        beforeMeasure: i === 0 ? base.beforeMeasure : undefined,
        runPrefix: `${plan.runPrefix ?? 'r'}-${i}`,
        failFast: null,
        load: { kind: 'closed', concurrency: 1, requests: 1 },
        specs: [spec],
      },
      runDeps,
    );
    for (const rec of r.records) rec.index = spec.index;
    merged = merged
      ? {
          ...r,
          records: [...merged.records, ...r.records],
          window: { start_ms: merged.window.start_ms, end_ms: r.window.end_ms },
          started_at_unix_ms: merged.started_at_unix_ms,
          observer_errors: [...merged.observer_errors, ...r.observer_errors],
        }
      : r;
    if (r.interrupted) break;
  }
  return merged as RunResult;
}

/** The sessions load of a built session workload (its home is `pipeline/load-plan`). */
