/**
 * @module pipeline/measure
 * One measurement end to end against an HTTP endpoint: resolve the model, build the workload
 * and the schedule, drive the runner through the client, summarise, check thresholds and build
 * the report. `servelab run`, `servelab demo` and the experiment kinds all call this, so a
 * number means the same thing wherever it was produced.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import {
  parseSlo,
  parseThresholds,
  type Slo,
  type Summary,
  sloProblemsWithoutStream,
  summarize,
} from '../analysis/index.js';
import { evaluateThresholds, type ThresholdResult } from '../analysis/thresholds.js';
import { createHttpTarget, redactHeaders, scrubSecrets } from '../client/index.js';
import type { Endpoint } from '../client/types.js';
import { type Problem, TargetError, UsageError } from '../core/errors.js';
import { targetHeaders } from '../core/headers.js';
import { parseModelList } from '../core/models.js';
import { hostOf, redactUrl, serverRoot } from '../core/url.js';
import { openRecordWriter } from '../record/writer.js';
import { describeEnvironment } from '../report/run/environment.js';
import { buildRunReport, type RunReport } from '../report/run/report.js';
import { writeRunOutputs } from '../report/run/write.js';
import type { RunObserver } from '../runner/events.js';
import { type LoadMode, type RunResult, runLoad } from '../runner/load.js';
import { createProgress } from '../runner/progress.js';
import type { Clock } from '../runtime/clock.js';
import { RealClock } from '../runtime/clock.js';
import { arrivalOffsetsMs, openLoopCount, traceOffsetsMs } from '../schedule/index.js';
import type { Store } from '../store/index.js';
import { buildWorkload, type Workload, type WorkloadOptions } from '../workload/index.js';
import { type MonitoringSettings, startMonitoring } from './monitoring.js';
import type { CommonSettings } from './settings.js';

export interface TargetSettings {
  /** Base URL ending in /v1. */
  url: string;
  endpoint: Endpoint;
  stream: boolean;
  /** Extra request headers (may hold secrets; redacted wherever stored). */
  headers: Record<string, string>;
  /** Name of the environment variable holding the API key. */
  apiKeyEnv: string;
  extraBody: Record<string, unknown> | null;
  timeoutS: number | null;
  timeoutTtftS: number | null;
  retries: number;
}

export interface MeasureInput {
  target: TargetSettings;
  common: CommonSettings;
  label?: string | null;
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
  runKind?: 'run' | 'exp';
  experimentId?: string | null;
  /** Progress lines such as `listening on …` and the run id. */
  log?: (line: string) => void;
}

export interface Measurement {
  report: RunReport;
  result: RunResult;
  summary: Summary;
  thresholds: ThresholdResult[];
  workload: Workload;
  model: string;
  /** Files written under --out. */
  files: string[];
}

/** GET /v1/models and return the ids; throws TargetError with a hint when unreachable. */
export async function listModels(
  baseUrl: string,
  apiKey: string | undefined,
  headers: Record<string, string>,
  apiKeyEnv = 'INFERENCE_API_KEY',
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
  if (status === 401 || status === 403)
    throw new TargetError(
      `${status} from ${redactUrl(url)}: the API key was not accepted`,
      `set ${apiKeyEnv} (or name another variable with --api-key-env)`,
    );
  if (status >= 400)
    throw new TargetError(
      `${status} from ${redactUrl(url)}`,
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

function tokenizeRemote(
  baseUrl: string,
  model: string,
  apiKey: string | undefined,
  headers: Record<string, string>,
) {
  const url = `${serverRoot(baseUrl)}/tokenize`;
  return async (text: string): Promise<number | null> => {
    try {
      const res = await request(url, {
        method: 'POST',
        headers: { ...targetHeaders(apiKey, headers), 'content-type': 'application/json' },
        body: JSON.stringify({ model, prompt: text, add_special_tokens: false }),
        // a real /tokenize answers in milliseconds; a server that stalls on unknown paths
        // should not hold the run up for long before the approximation takes over
        headersTimeout: 3_000,
        bodyTimeout: 3_000,
      });
      const body = await res.body.text();
      if (res.statusCode !== 200) return null;
      const parsed = JSON.parse(body) as { count?: unknown; tokens?: unknown[] };
      if (typeof parsed.count === 'number') return parsed.count;
      return Array.isArray(parsed.tokens) ? parsed.tokens.length : null;
    } catch {
      return null;
    }
  };
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
    const parsed = JSON.parse(text) as { summary?: Summary };
    if (!parsed.summary) throw new Error('no summary');
    return parsed.summary;
  } catch {
    throw new UsageError([
      {
        path: '--baseline',
        message: `${path} is not a servelab report.json`,
        hint: 'give the report.json of an earlier run',
      },
    ]);
  }
}

/**
 * Validate what measure() needs beyond flag syntax; returns parsed SLO and thresholds. `target`
 * is null where there is no HTTP target (`plan`, whose simulated responses stream); a target
 * that does not stream cannot be held to an objective on per-token times.
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
  const arrivalsMs = traceOffsetsMs(specs, l.traceSpeedup);
  return { load: { kind: 'open', arrivalsMs, maxConcurrency: l.maxConcurrency }, count: specs.length };
}

/** Number of requests the workload must provide before the trace is known. */
export function workloadCount(common: CommonSettings): number | undefined {
  const l = common.load;
  if (l.mode === 'trace') return undefined;
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
    inputLen: w.inputLen ?? (noSource ? '256' : undefined),
    outputLen: w.outputLen ?? undefined,
    sharedPrefixLen: w.sharedPrefixLen ?? undefined,
    numPrefixGroups: w.numPrefixGroups ?? undefined,
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
    },
    slo,
    thresholds: common.output.thresholds,
    label: input.label ?? null,
  };
}

/** Run one measurement. Throws UsageError/TargetError for bad input or an unreachable target. */
export async function measure(input: MeasureInput, deps: MeasureDeps): Promise<Measurement> {
  const { target, common } = input;
  const problems: Problem[] = [];
  const { slo, thresholds } = checkMeasureInput(input, problems);
  if (problems.length) throw new UsageError(problems);
  const baseline = common.output.baseline ? await readBaseline(common.output.baseline) : undefined;
  const apiKey = deps.env[target.apiKeyEnv] || undefined;

  let model = common.generation.model;
  if (!model) {
    const models = await listModels(target.url, apiKey, target.headers, target.apiKeyEnv);
    if (!models.length)
      throw new TargetError(`${redactUrl(target.url)}/models lists no models`, 'give --model NAME');
    model = models[0];
  }

  const workload = await buildWorkload(workloadOptions(common, model), {
    tokenizeRemote: tokenizeRemote(target.url, model, apiKey, target.headers),
  });
  const { load } = loadPlan(common, workload);

  const clock = deps.clock ?? new RealClock();
  const client = createHttpTarget({
    baseUrl: target.url,
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
    clock,
  });

  const observers: RunObserver[] = [...(deps.observers ?? [])];
  const outDir = common.output.out;
  const writer = outDir ? openRecordWriter(join(outDir, 'requests.jsonl')) : null;
  if (writer) observers.push(writer);
  const progress = deps.progress
    ? createProgress({
        stream: deps.progress,
        clock,
        durationMs: common.load.durationS !== null ? common.load.durationS * 1000 : undefined,
      })
    : null;
  if (progress) observers.push(progress);

  const config = describeConfig(input, model, workload, slo);
  const environment = describeEnvironment(deps.version);
  const log = deps.log ?? (() => {});
  const storeRun = deps.store
    ? deps.store.createRun({
        kind: deps.runKind ?? 'run',
        experimentId: deps.experimentId ?? undefined,
        label: input.label ?? undefined,
        startedAtUnixMs: clock.originUnixMs,
        config,
        environment,
      })
    : null;
  if (storeRun && deps.store) {
    observers.push(deps.store.observer(storeRun.id));
    log(`run ${storeRun.id} started`);
  }
  const monitoring = await startMonitoring(
    deps.monitoring ?? { scrape: 'auto', scrapeIntervalMs: 1000, metricsPort: null },
    {
      targetUrl: target.url,
      clock,
      log,
      onPoints: storeRun && deps.store ? (pts) => deps.store?.addSeries(storeRun.id, pts) : undefined,
    },
  );
  observers.push(...monitoring.observers);

  let result: RunResult;
  let mon: Awaited<ReturnType<typeof monitoring.stop>> | null = null;
  try {
    result = await runLoad(
      {
        load,
        specs: workload.specs,
        warmup: common.load.warmup,
        retries: target.retries,
        drainTimeoutMs: common.load.drainTimeoutS * 1000,
      },
      { target: client, clock, observers, signal: deps.signal },
    );
    mon = await monitoring.stop();
  } finally {
    if (!mon) await monitoring.stop().catch(() => null);
    progress?.stop();
    await writer?.close();
    await client.close();
  }

  const summary = summarize(result.records, {
    window: result.window,
    client: result.client_health,
    target_rate_rps: common.load.mode === 'open' ? common.load.rateRps : null,
    max_concurrency: common.load.mode === 'closed' ? common.load.concurrency : common.load.maxConcurrency,
    slo,
  });
  const thresholdResults = thresholds.length ? evaluateThresholds(summary, thresholds, baseline) : [];
  const report = buildRunReport({
    config,
    environment,
    window: result.window,
    started_at_unix_ms: result.started_at_unix_ms,
    summary,
    end: result,
    records: result.records,
    embedRecords: common.output.embedRecords,
  });
  if (mon && (mon.server || mon.scrape || mon.exporter_url))
    report.monitoring = {
      server: mon.server as unknown as Record<string, number | null> | null,
      scrape: mon.scrape as unknown as Record<string, unknown> | null,
      exporter_url: mon.exporter_url,
    };
  if (storeRun && deps.store) {
    report.run_id = storeRun.id;
    const prev = deps.store.getRun(storeRun.id)?.record ?? {};
    deps.store.updateRun(storeRun.id, {
      record: { ...prev, monitoring: (report.monitoring ?? null) as never },
    });
    deps.store.finishRun(
      storeRun.id,
      summary,
      result.interrupted ? 'interrupted' : 'completed',
      result.window,
    );
  }
  const files = outDir ? await writeRunOutputs(outDir, report, { vllm: common.output.formatVllm }) : [];
  if (writer) files.push(writer.path);
  return { report, result, summary, thresholds: thresholdResults, workload, model, files };
}
