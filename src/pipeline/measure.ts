/**
 * @module pipeline/measure
 * One measurement end to end against an HTTP endpoint: resolve the model, build the workload
 * and the schedule, drive the runner through the client, summarise, check thresholds and build
 * the report. `servelab run`, `servelab demo` and the experiment kinds all call this, so a
 * number means the same thing wherever it was produced.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Dispatcher, request } from 'undici';
import {
  parseSlo,
  parseThresholds,
  type Slo,
  type Summary,
  type SummaryDetail,
  sloProblemsWithoutStream,
  summarize,
  summarizeSessions,
} from '../analysis/index.js';
import { evaluateThresholds, type Threshold, type ThresholdResult } from '../analysis/thresholds.js';
import { createHttpTarget, DEFAULT_SESSION_HEADER, redactHeaders, scrubSecrets } from '../client/index.js';
import { errorMessageOf } from '../client/stream.js';
import type { ClientOptions } from '../client/types.js';
import { type Problem, TargetError, UsageError } from '../core/errors.js';
import { targetHeaders } from '../core/headers.js';
import { resolveLang, type T, translator } from '../core/i18n/index.js';
import { parseModelList } from '../core/models.js';
import { outputPathProblem } from '../core/output-path.js';
import { hostOf, redactUrl } from '../core/url.js';
import type { ScrapePoint } from '../monitor/index.js';
import { openRecordWriter } from '../record/writer.js';
import { validityReasons } from '../report/diagnose/validity.js';
import { describeEnvironment } from '../report/run/environment.js';
import { buildRunReport, RECORDS_FILE, type RunReport, runReportProblem } from '../report/run/report.js';
import { buildShardReport, type ShardReport } from '../report/run/shard.js';
import { type WriteRunOutputsOptions, writeJsonFile, writeRunOutputs } from '../report/run/write.js';
import type { LoadedRun, ValidityReason } from '../report/types.js';
import type { RunObserver } from '../runner/events.js';
import {
  type LoadMode,
  plannedRequests,
  type RunLoadConfig,
  type RunLoadDeps,
  type RunResult,
  runLoad,
  type SessionLoad,
} from '../runner/loops.js';
import { createProgress } from '../runner/progress.js';
import type { Clock } from '../runtime/clock.js';
import { arrivalOffsetsMs, openLoopCount, traceOffsetsMs } from '../schedule/index.js';
import type { RunKind, Store } from '../store/index.js';
import {
  buildWorkload,
  type IntendedSharing,
  type SessionOptions,
  type SessionWorkload,
  sessionPrefix,
  tokenizeRemote,
  type Workload,
  type WorkloadOptions,
} from '../workload/index.js';
import type { RequestSpec } from '../workload/types.js';
import { type Endpoint, urlEndpoint } from './endpoint.js';
import {
  type MonitoringResult,
  type MonitoringSettings,
  reportMonitoring,
  startMonitoring,
} from './monitoring.js';
import type { CommonSettings, TargetSettings } from './settings.js';
import {
  commonRunId,
  configHash,
  LATE_LIMIT_MS,
  type ShardSettings,
  scheduleHash,
  shardFiles,
  shardPlan,
} from './shard.js';

export interface MeasureInput {
  target: TargetSettings;
  common: CommonSettings;
  label?: string | null;
  /** This run is one shard of a larger one (`--shard i/N`); absent or null: the whole run. */
  shard?: ShardSettings | null;
}

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
   * The language of {@link Measurement.validity}, which the console prints (default English);
   * `report.validity`, stored with the run, stays English.
   */
  t?: T;
  /**
   * A coordinator's common start (`run --workers`): called once this shard is ready (after its
   * warm-up), it resolves to the start every shard uses (unix ms), which replaces the planned one.
   */
  awaitStart?: () => Promise<number>;
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
}

/** GET /v1/models and return the ids; throws TargetError with a hint when unreachable. */
export async function listModels(
  baseUrl: string,
  apiKey: string | undefined,
  headers: Record<string, string>,
  apiKeyEnv = 'INFERENCE_API_KEY',
  dispatcher?: Dispatcher,
): Promise<string[]> {
  const url = `${baseUrl.replace(/\/+$/, '')}/models`;
  let status: number;
  let text: string;
  try {
    const res = await request(url, {
      method: 'GET',
      headers: targetHeaders(apiKey, headers),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
      dispatcher,
    });
    status = res.statusCode;
    text = await res.body.text();
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    throw new TargetError(
      scrubSecrets(`cannot reach ${redactUrl(url)}: ${code || (err as Error).message}`, [apiKey]),
      code === 'ECONNREFUSED'
        ? `connection refused: is the server running on ${hostOf(baseUrl)}?`
        : 'check --url (it should end in /v1)',
    );
  }
  // The server's own words, as the run's top errors quote them ("HTTP 401: Invalid or missing API key").
  const said = (): string => {
    let msg = text.trim();
    try {
      msg = errorMessageOf(JSON.parse(text));
    } catch {
      // plain-text error body
    }
    return scrubSecrets(msg.slice(0, 300), [apiKey]).replace(/[.\s]+$/, '') || '(empty body)';
  };
  if (status === 401 || status === 403)
    throw new TargetError(
      `HTTP ${status} from ${redactUrl(url)}: ${said()} (the API key was not accepted; no request was sent)`,
      `set ${apiKeyEnv} (or name another variable with --api-key-env)`,
    );
  if (status >= 400)
    throw new TargetError(
      `HTTP ${status} from ${redactUrl(url)}: ${said()}`,
      'give --model explicitly, or check --url (it should end in /v1)',
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new TargetError(`${redactUrl(url)} did not return JSON`, 'check --url (it should end in /v1)');
  }
  return parseModelList(body).map((m) => m.id);
}

/** Read a baseline report.json's summary for relative thresholds. */
export async function readBaseline(path: string): Promise<Summary> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError([
      {
        path: '--baseline',
        message: `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`,
        hint: 'give the report.json of an earlier run (servelab run --out DIR writes DIR/report.json)',
      },
    ]);
  }
  try {
    const parsed = JSON.parse(text) as { summary: Summary };
    const problem = runReportProblem(parsed);
    if (problem) throw new Error(problem);
    return parsed.summary;
  } catch (err) {
    throw new UsageError([
      {
        path: '--baseline',
        message: `${path} is not a servelab report.json (${(err as Error).message})`,
        hint: 'give the report.json of an earlier run',
      },
    ]);
  }
}

/**
 * Validate what measure() needs beyond flag syntax; returns parsed SLO and thresholds. A target
 * that does not stream cannot be held to an objective on per-token times (`target` null: it
 * streams).
 */
export function checkMeasureInput(
  input: { common: CommonSettings; target: Pick<TargetSettings, 'stream'> | null },
  problems: Problem[],
) {
  const out = input.common.output;
  let slo: Slo | null = null;
  let thresholds: ReturnType<typeof parseThresholds> = [];
  if (out.slo) {
    try {
      slo = parseSlo(out.slo);
    } catch (err) {
      if (err instanceof UsageError) problems.push(...err.problems);
      else throw err;
    }
  }
  if (slo && input.target?.stream === false) problems.push(...sloProblemsWithoutStream(slo));
  try {
    thresholds = parseThresholds(out.thresholds);
  } catch (err) {
    if (err instanceof UsageError) problems.push(...err.problems);
    else throw err;
  }
  if (thresholds.some((t) => t.relative_percent !== null) && !out.baseline)
    problems.push({
      path: '--threshold',
      message: 'a relative threshold needs a baseline',
      hint: 'add --baseline path/to/report.json',
    });
  return { slo, thresholds };
}

/** Build the load mode and workload count from the settings (and the trace for trace replay). */
export function loadPlan(
  common: CommonSettings,
  workload: Workload | null,
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
  if (l.mode === 'open') {
    const arrivalsMs = arrivalOffsetsMs({
      rateRps: l.rateRps ?? 1,
      arrival: l.arrival,
      burstiness: l.burstiness,
      ...(l.durationS !== null ? { durationS: l.durationS } : { count: l.requests ?? 100 }),
      seed: l.seed,
    });
    return { load: { kind: 'open', arrivalsMs, maxConcurrency: l.maxConcurrency }, count: arrivalsMs.length };
  }
  const specs = workload?.specs ?? [];
  const arrivalsMs = traceOffsetsMs(specs, {
    speedup: l.traceSpeedup,
    rateScale: l.traceRateScale,
    originMs: workload?.trace?.origin_ms,
  });
  return { load: { kind: 'open', arrivalsMs, maxConcurrency: l.maxConcurrency }, count: specs.length };
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

/** Number of requests the workload must provide before the trace is known. */
export function workloadCount(common: CommonSettings): number | undefined {
  const l = common.load;
  if (l.mode === 'trace' || l.mode === 'sessions') return undefined;
  if (l.mode === 'open' && l.durationS !== null) return openLoopCount(l.rateRps ?? 1, l.durationS);
  return loadPlan(common, null).count;
}

/** The workload builder's options from the settings (synthetic 256-token prompts when no source is given). */
export function workloadOptions(common: CommonSettings, model: string): WorkloadOptions {
  const w = common.workload;
  const noSource = w.prompt === null && !w.promptsFile && !w.dataset && !common.load.traceFile;
  return {
    seed: common.load.seed,
    count: workloadCount(common),
    model,
    prompt: w.prompt ?? undefined,
    promptsFile: w.promptsFile ?? undefined,
    dataset: w.dataset ?? undefined,
    trace: common.load.traceFile ?? undefined,
    traceFormat: common.load.traceFormat ?? undefined,
    traceWindow: common.load.traceWindow ?? undefined,
    traceBlockSize: common.load.traceBlockSize ?? undefined,
    inputLen: w.inputLen ?? (noSource ? '256' : undefined),
    outputLen: w.outputLen ?? undefined,
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

/** The run's configuration as stored in report.json (secrets redacted). */
export function describeConfig(
  input: MeasureInput,
  model: string,
  workload: Workload,
  slo: Slo | null,
): Record<string, unknown> {
  const { target, common } = input;
  return {
    target: {
      url: redactUrl(target.url),
      endpoint: target.endpoint,
      stream: target.stream,
      headers: redactHeaders(target.headers),
      api_key_env: target.apiKeyEnv,
      extra_body: target.extraBody,
      timeout_s: target.timeoutS,
      timeout_ttft_s: target.timeoutTtftS,
      retries: target.retries,
      fail_fast: target.failFast !== false,
      backend: target.backend ?? null,
      ...(common.load.mode === 'sessions'
        ? { session_header: target.sessionHeader ?? DEFAULT_SESSION_HEADER }
        : {}),
    },
    model,
    generation: { ...common.generation, model },
    load: common.load,
    seed: common.load.seed,
    workload: {
      ...common.workload,
      source: workload.source,
      tokenization: workload.method,
      inexact: workload.inexact,
      skipped: workload.skipped,
      notes: workload.notes,
      ...(workload.trace ? { trace: workload.trace } : {}),
      ...(workload.sessions
        ? {
            sessions: {
              ...workload.sessions.options,
              document_tokens: workload.sessions.documents.map((d) => d.tokens),
              session_documents: workload.sessions.sessions.map((s) => s.document),
              intended_sharing: workload.sessions.intended.ratio,
            },
          }
        : {}),
    },
    slo,
    thresholds: common.output.thresholds,
    label: input.label ?? null,
  };
}

/** What one measurement sends, and how (the workload is already built). */
export interface MeasurePlan {
  /** Store label and progress name, e.g. `c=4`. */
  label: string | null;
  /** The factor(s) of this run inside an experiment, e.g. `{concurrency: 4}`. */
  level?: Record<string, number | string> | null;
  /** Measured requests; request i uses `specs[i % specs.length]`. */
  specs: readonly RequestSpec[];
  load: LoadMode;
  warmup?: number;
  warmupSpecs?: readonly RequestSpec[];
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
}

/** What a shard's measurement needs beyond its plan (see pipeline/shard). */
export interface MeasureShard extends ShardSettings {
  runId: string;
  configHash: string;
  scheduleHash: string;
  seed: number;
  plannedTotal: number;
}

/** Generation and transport settings of the client (everything but where and when). */
export type ClientSettings = Omit<ClientOptions, 'baseUrl' | 'clock' | 'dispatcher'>;

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
  output?: {
    out: string | null;
    formatVllm: boolean;
    embedRecords: boolean;
    vllm?: CommonSettings['output']['vllm'];
  };
}

/** `vllm.json`'s writing options from a run's output settings (`--format vllm` and its flags). */
export function vllmWriteOptions(
  output: MeasureRequest['output'] | CommonSettings['output'] | undefined,
): Omit<WriteRunOutputsOptions, 'records'> {
  const v = output?.vllm;
  return {
    vllm: output?.formatVllm ?? false,
    vllmOptions: {
      percentileMetrics: v?.percentileMetrics ?? undefined,
      metricPercentiles: v?.metricPercentiles ?? undefined,
      detailed: v?.detailed ?? false,
    },
    vllmFile: v?.file ? { path: v.file, append: v.append } : null,
  };
}

/** The summary's idea of the run's concurrency cap. */
function concurrencyOf(load: LoadMode, beforeEach: boolean): number | null {
  if (beforeEach) return 1;
  return load.kind === 'closed' ? load.concurrency : (load.maxConcurrency ?? null);
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
  endpoint: Endpoint,
  req: MeasureRequest,
  deps: MeasureDeps,
): Promise<Measurement> {
  const { plan } = req;
  const clock = deps.clock ?? endpoint.runClock();
  const client = createHttpTarget({
    ...req.client,
    baseUrl: endpoint.baseUrl,
    clock,
    ...(endpoint.dispatcher ? { dispatcher: endpoint.dispatcher } : {}),
  });
  const observers: RunObserver[] = [...(deps.observers ?? [])];
  const outDir = req.output?.out ?? null;
  const shardNames = plan.shard ? shardFiles(plan.shard.index, plan.shard.count) : null;
  const writer = outDir ? openRecordWriter(join(outDir, shardNames?.records ?? RECORDS_FILE)) : null;
  if (writer) observers.push(writer);
  const progress = deps.progress
    ? createProgress({
        stream: deps.progress,
        clock,
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
        config: req.config,
        environment,
        record: deps.record ?? null,
      })
    : null;
  if (storeRun && store) {
    observers.push(store.observer(storeRun.id));
    log(deps.announce ? deps.announce(storeRun.id) : `run ${storeRun.id} started`);
  }

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
    try {
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
      result = await runPlan({ ...plan, start }, monitoring.mark, {
        target: client,
        clock,
        observers,
        signal: deps.signal,
        endpoint,
      });
      mon = await monitoring.stop();
    } finally {
      if (!mon) await monitoring.stop().catch(() => null);
      progress?.stop();
      await writer?.close();
      await client.close();
    }
    return { result, mon };
  };
  let outcome: { result: RunResult; mon: MonitoringResult };
  try {
    outcome = await endpoint.settle(work());
  } catch (err) {
    if (storeRun && store)
      store.finishRun(storeRun.id, null, deps.signal?.aborted ? 'interrupted' : 'failed');
    throw err;
  }
  const { result, mon } = outcome;

  let detail: SummaryDetail | null = null;
  const summaryCtx = {
    window: result.window,
    client: result.client_health,
    target_rate_rps: req.targetRateRps ?? null,
    max_concurrency: concurrencyOf(plan.load, !!plan.beforeEach),
    slo: req.slo,
    detail: (d: SummaryDetail) => {
      detail = d;
    },
  };
  const summary = summarize(result.records, summaryCtx);
  const thresholdResults = req.thresholds.length
    ? evaluateThresholds(summary, [...req.thresholds], req.baseline)
    : [];
  const report = buildRunReport({
    config: req.config,
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
  const level = plan.level ?? null;
  const judged: LoadedRun = {
    id: storeRun?.id ?? plan.label ?? 'run',
    label: plan.label ?? 'run',
    config: req.config,
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
  if (storeRun && store) {
    report.run_id = storeRun.id;
    const prev = store.getRun(storeRun.id)?.record ?? {};
    store.updateRun(storeRun.id, {
      record: {
        ...prev,
        monitoring: (report.monitoring ?? null) as never,
        validity: report.validity as never,
      },
    });
    store.finishRun(storeRun.id, summary, result.interrupted ? 'interrupted' : 'completed', result.window);
  }
  const writeOptions = vllmWriteOptions(req.output);
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
  const files = shardReport
    ? outDir
      ? [await writeJsonFile(join(outDir, (shardNames as { report: string }).report), shardReport)]
      : []
    : outDir || (writeOptions.vllm && writeOptions.vllmFile)
      ? await writeRunOutputs(outDir, report, { ...writeOptions, records: result.records })
      : [];
  if (writer) files.push(writer.path);
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
  };
}

/** Run the plan's load on the target: one runner call, or one per request after `beforeEach`. */
async function runPlan(
  plan: MeasurePlan & { start?: RunLoadConfig['start'] },
  mark: () => Promise<void>,
  deps: RunLoadDeps & { endpoint: Endpoint },
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
  for (let i = 0; i < plan.specs.length; i++) {
    await plan.beforeEach();
    const r = await runLoad(
      {
        ...base,
        warmup: i === 0 ? base.warmup : 0,
        beforeMeasure: i === 0 ? base.beforeMeasure : undefined,
        runPrefix: `${plan.runPrefix ?? 'r'}-${i}`,
        failFast: null,
        load: { kind: 'closed', concurrency: 1, requests: 1 },
        specs: [plan.specs[i]],
      },
      runDeps,
    );
    for (const rec of r.records) rec.index = plan.specs[i].index;
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

/** Run one measurement from run-style settings. Throws UsageError/TargetError for bad input or an unreachable target. */
export async function measure(
  input: MeasureInput,
  deps: MeasureDeps & { endpoint?: Endpoint; config?: Record<string, unknown> },
): Promise<Measurement & { workload: Workload; model: string }> {
  const { target, common } = input;
  const problems: Problem[] = [];
  const { slo, thresholds } = checkMeasureInput(input, problems);
  // Output paths that cannot be written fail now, not after the run (paths are absolute here).
  for (const p of [
    common.output.out ? outputPathProblem(common.output.out, '--out', 'dir') : null,
    typeof common.output.json === 'string' ? outputPathProblem(common.output.json, '--json') : null,
  ])
    if (p) problems.push(p);
  if (problems.length) throw new UsageError(problems);
  const baseline = common.output.baseline ? await readBaseline(common.output.baseline) : undefined;
  const apiKey = deps.env[target.apiKeyEnv] || undefined;
  const endpoint = deps.endpoint ?? urlEndpoint(target.url);
  const dispatcher = endpoint.dispatcher ?? undefined;

  let model = common.generation.model;
  if (!model) {
    const models = await endpoint.settle(
      listModels(endpoint.baseUrl, apiKey, target.headers, target.apiKeyEnv, dispatcher),
    );
    if (!models.length)
      throw new TargetError(`${redactUrl(target.url)}/models lists no models`, 'give --model NAME');
    model = models[0];
  }

  // Warm-up gets prompts of its own, drawn after the measured ones from the same source: warming
  // up with the measured prompts would fill the prefix cache with exactly what is measured next.
  const wopts = workloadOptions(common, model);
  const warm = common.load.warmup;
  const split = warm > 0 && wopts.count !== undefined && !common.load.traceFile;
  const sim = endpoint.sim;
  const built = await endpoint.settle(
    buildWorkload(split ? { ...wopts, count: (wopts.count as number) + warm } : wopts, {
      // The in-process simulator counts as its /tokenize would, minus an HTTP exchange per
      // prompt (most of the time of building a plan's workload), and keeps the ids to serve.
      tokenizeRemote: sim
        ? (text) => sim.countTokens(text, model)
        : tokenizeRemote(endpoint.baseUrl, model, apiKey, target.headers, dispatcher),
      t: deps.t,
    }),
  );
  const workload = split ? { ...built, specs: built.specs.slice(0, built.specs.length - warm) } : built;
  const warmupSpecs = split ? built.specs.slice(built.specs.length - warm) : undefined;
  const full = loadPlan(common, workload);
  const config = { ...describeConfig(input, model, workload, slo), ...(deps.config ?? {}) };
  // A shard: the full schedule, built as every other shard builds it, then its part of it.
  let shard: MeasureShard | null = null;
  let specs = workload.specs;
  let load = full.load;
  if (input.shard) {
    const cfgHash = configHash(config);
    const schedHash = scheduleHash(workload.specs, full.load);
    const t = deps.t ?? translator(resolveLang(undefined, deps.env));
    const part = shardPlan(workload.specs, full.load, input.shard.index, input.shard.count, problems, t);
    if (problems.length) throw new UsageError(problems);
    specs = part.specs;
    load = part.load;
    shard = {
      ...input.shard,
      runId: commonRunId(cfgHash, schedHash),
      configHash: cfgHash,
      scheduleHash: schedHash,
      seed: common.load.seed,
      plannedTotal: plannedRequests(full.load) ?? workload.specs.length,
    };
  }
  const m = await measureOn(
    endpoint,
    {
      plan: {
        label: input.label ?? null,
        specs,
        load,
        shard,
        // Ids unique across the shards, so a merge never takes two shards' requests for one.
        ...(shard ? { runPrefix: `${shard.runId.slice(0, 6)}s${shard.index}` } : {}),
        warmup: common.load.warmup,
        warmupSpecs,
        retries: target.retries,
        drainTimeoutMs: common.load.drainTimeoutS * 1000,
        failFast: target.failFast !== false,
        sessions: workload.sessions ? { intended: workload.sessions.intended } : null,
      },
      client: {
        endpoint: target.endpoint,
        model,
        stream: target.stream,
        maxTokens: common.generation.maxTokens,
        temperature: common.generation.temperature,
        topP: common.generation.topP,
        stop: common.generation.stop,
        ignoreEos: common.generation.ignoreEos,
        extraBody: target.extraBody ?? undefined,
        headers: target.headers,
        apiKey,
        timeoutMs: target.timeoutS !== null ? target.timeoutS * 1000 : null,
        timeoutTtftMs: target.timeoutTtftS !== null ? target.timeoutTtftS * 1000 : null,
        sessionHeader: target.sessionHeader ?? DEFAULT_SESSION_HEADER,
      },
      slo,
      thresholds,
      baseline,
      // A shard sends its 1/N of the rate (request k of every N).
      targetRateRps:
        common.load.mode === 'open' && common.load.rateRps !== null
          ? common.load.rateRps / (shard?.count ?? 1)
          : null,
      config,
      output: {
        out: common.output.out,
        formatVllm: common.output.formatVllm,
        embedRecords: common.output.embedRecords,
        vllm: common.output.vllm,
      },
    },
    deps,
  );
  return { ...m, workload, model };
}
