/**
 * @module cli/commands/run
 * `servelab run`: flags → settings → pipeline/measure → printed summary, files, exit code.
 */
import { resolve } from 'node:path';
import { type ErrorGroup, FAIL_FAST_UNSENT } from '../../analysis/errors.js';
import { promptOverheadTokens } from '../../analysis/prompt-overhead.js';
import { DEFAULT_SESSION_HEADER } from '../../client/index.js';
import type { ApiEndpoint } from '../../client/types.js';
import { ExitCode, type Problem, worstExitCode } from '../../core/errors.js';
import { redactUrl } from '../../core/url.js';
import { type T, translator } from '../../i18n/index.js';
import { workloadOptions } from '../../pipeline/load-plan.js';
import { checkMeasureInput, type MeasureInput, measure } from '../../pipeline/measure-settings.js';
import type { MonitoringSettings } from '../../pipeline/monitoring.js';
import { LATE_LIMIT_MS, parseShardSettings, seedOfStart } from '../../pipeline/shard.js';
import { measureWithWorkers } from '../../pipeline/workers.js';
import { formatSessions } from '../../report/run/sessions.js';
import {
  formatPromptOverhead,
  formatSpeculative,
  formatSummaryTable,
  formatTokenization,
  formatVerdict,
} from '../../report/run/summary-table.js';
import { unixNowMs } from '../../runtime/clock.js';
import { openStore } from '../../store/index.js';
import { workloadProblems } from '../../workload/index.js';
import { applyAliases, TARGET_ALIASES } from '../compat-flags.js';
import { withInferencePerfConfig } from '../inference-perf-flags.js';
import type { Io } from '../io.js';
import { langOf, parseCommon, resolvePaths } from '../options.js';
import { num, type RawCommon } from '../raw-flags.js';
import { formatStorageError } from '../storage-errors.js';
import { VERSION } from '../version.js';
import {
  emitJson,
  formatThresholds,
  formatTraceLines,
  humanStream,
  measurementExitCode,
  optNumber,
  parseBaseUrl,
  parseExtraBody,
  parseHeaders,
  throwIfProblems,
} from './common.js';
import { launchWorker, parseWorkers, startFromParentProcess, withSeedArg } from './workers.js';

export interface RawRun extends RawCommon {
  url?: string;
  endpoint?: string;
  stream?: boolean;
  extraBody?: string;
  header?: string[];
  apiKeyEnv?: string;
  sessionHeader?: string;
  timeout?: string;
  timeoutTtft?: string;
  retries?: string;
  /** `--no-fail-fast` sets it to false. */
  failFast?: boolean;
  // vLLM and SGLang names of the target flags (docs/cli.md)
  baseUrl?: string;
  host?: string;
  port?: string;
  backend?: string;
  disableStream?: boolean;
  extraRequestBody?: string;
  scrape?: string[] | boolean;
  scrapeInterval?: string;
  metricsPort?: string;
  otlpPort?: string;
  db?: string | boolean;
  label?: string;
  shard?: string;
  startAt?: string;
  startIn?: string;
  latePolicy?: string;
  workers?: string;
}

/** Monitoring flags: --scrape/--no-scrape, --scrape-interval, --metrics-port, --otlp-port. */
export function parseMonitoringFlags(
  raw: RawRun,
  problems: Problem[],
  t: T = translator('en'),
): MonitoringSettings {
  const interval = optNumber(raw.scrapeInterval, '--scrape-interval', problems, { min: 0.05 }, t) ?? 1;
  const metricsPort = optNumber(raw.metricsPort, '--metrics-port', problems, { int: true, min: 0 }, t);
  const otlpPort = num(problems, 'otlp_port', raw.otlpPort, t);
  const scrape = raw.scrape === false ? 'off' : Array.isArray(raw.scrape) ? raw.scrape : 'auto';
  if (Array.isArray(scrape))
    for (const u of scrape)
      if (!/^https?:\/\//.test(u))
        problems.push({
          path: '--scrape',
          message: t('cli.scrape.not_http', { raw: u }),
          hint: t('cli.scrape.not_http_hint'),
        });
  return { scrape, scrapeIntervalMs: interval * 1000, metricsPort, otlpPort };
}

/** Validate `run` flags into a measurement input (every problem at once). */
/**
 * vLLM's `--backend` names (vllm/benchmarks/lib/endpoint_request_func.py, ASYNC_REQUEST_FUNCS)
 * that speak an OpenAI API servelab sends, and which one.
 */
const VLLM_BACKENDS: Record<string, ApiEndpoint> = {
  'openai-chat': 'chat',
  openai: 'completions',
  vllm: 'completions',
  sglang: 'completions',
  lmdeploy: 'completions',
  'llama.cpp': 'completions',
  scalellm: 'completions',
};

/** vLLM's `--host`/`--port` (defaults 127.0.0.1 and 8000) as a `--url`; `--base-url`/`--url` win. */
function hostPortUrl(raw: RawRun, problems: Problem[], notes: string[], t: T): string | undefined {
  if (raw.host === undefined && raw.port === undefined) return raw.url;
  if (raw.url !== undefined) {
    notes.push(t('cli.note.host_port_ignored', { flag: raw.baseUrl !== undefined ? '--base-url' : '--url' }));
    return raw.url;
  }
  const port = optNumber(raw.port, '--port', problems, { int: true, min: 1 }, t) ?? 8000;
  const url = `http://${raw.host ?? '127.0.0.1'}:${port}`;
  notes.push(t('cli.note.host_port', { url }));
  return url;
}

/** `--endpoint` (also vLLM's path form) and vLLM's `--backend`, as the API to send. */
export function parseEndpoint(
  raw: Pick<RawRun, 'endpoint' | 'backend'>,
  problems: Problem[],
  notes: string[],
  t: T,
): ApiEndpoint {
  // vLLM's --endpoint is the path (`/v1/chat/completions`, `/v1/completions`).
  const path = raw.endpoint?.replace(/\/+$/, '');
  const fromPath = path?.endsWith('/chat/completions')
    ? 'chat'
    : path?.endsWith('/completions')
      ? 'completions'
      : raw.endpoint;
  if (raw.endpoint !== undefined && raw.endpoint !== fromPath)
    notes.push(t('cli.note.endpoint_path', { endpoint: raw.endpoint, as: fromPath }));
  let fromBackend: ApiEndpoint | undefined;
  if (raw.backend !== undefined) {
    fromBackend = VLLM_BACKENDS[raw.backend];
    if (!fromBackend)
      problems.push({
        path: '--backend',
        message: t('cli.backend.unknown', { backend: raw.backend }),
        hint: t('cli.backend.unknown_hint', { names: Object.keys(VLLM_BACKENDS).join(', ') }),
      });
    else if (fromPath !== undefined && fromPath !== fromBackend)
      problems.push({
        path: '--backend',
        message: t('cli.backend.endpoint_differ', {
          backend: raw.backend,
          sends: fromBackend,
          says: fromPath,
        }),
        hint: t('cli.keep_one_of_them'),
      });
    else notes.push(t('cli.note.backend', { backend: raw.backend, endpoint: fromBackend }));
  }
  const endpoint = (fromPath ?? fromBackend ?? 'chat') as ApiEndpoint;
  if (endpoint !== 'chat' && endpoint !== 'completions')
    problems.push({
      path: '--endpoint',
      message: t('cli.endpoint.unknown', { value: raw.endpoint }),
      hint: t('cli.endpoint.unknown_hint'),
    });
  return endpoint;
}

export function parseRunFlags(
  input: RawRun,
  env: Record<string, string | undefined> = {},
  /** Where `--config` is read from. */
  cwd = '.',
): MeasureInput & {
  monitoring: MonitoringSettings;
  db: string | null;
  notes: string[];
  t: T;
  workers: number;
} {
  const problems: Problem[] = [];
  const t = langOf(input.lang, env, problems);
  /** Lines for stderr before the run starts (`base URL: … (added /v1)`, vLLM names read as ours). */
  const notes: string[] = [];
  const raw = withInferencePerfConfig(
    applyAliases(input, TARGET_ALIASES, problems, notes, t),
    cwd,
    problems,
    notes,
    t,
  );
  if (raw.disableStream) {
    if (raw.stream === false) notes.push(t('cli.note.disable_stream_same'));
    else notes.push(t('cli.note.disable_stream'));
  }
  const url = parseBaseUrl(hostPortUrl(raw, problems, notes, t), problems, '--url', notes, t);
  const endpoint = parseEndpoint(raw, problems, notes, t);
  const headers = parseHeaders(raw.header, problems, t);
  const extraBody = parseExtraBody(raw.extraBody, problems, t);
  const timeoutS = num(problems, 'timeout', raw.timeout, t);
  const timeoutTtftS = num(problems, 'timeout_ttft', raw.timeoutTtft, t);
  const retries = optNumber(raw.retries, '--retries', problems, { int: true, min: 0 }, t) ?? 0;
  const apiKeyEnv = raw.apiKeyEnv ?? 'INFERENCE_API_KEY';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv))
    problems.push({
      path: '--api-key-env',
      message: t('cli.api_key_env.bad', { name: apiKeyEnv }),
      hint: t('cli.api_key_env.hint'),
    });
  const common = parseCommon(raw, problems, notes, t);
  const monitoring = parseMonitoringFlags(raw, problems, t);
  const shard = parseShardSettings(raw, env, unixNowMs(), problems, t);
  const workers = parseWorkers(raw.workers, problems, t);
  // The shards of one run send one set of requests: without --seed, each would draw its own.
  if (raw.seed === undefined && shard && shard.count > 1) {
    if (raw.startAt !== undefined && shard.startAtUnixMs !== null)
      common.load.seed = seedOfStart(shard.startAtUnixMs);
    else
      problems.push({ path: '--seed', message: t('shard.seed.needed'), hint: t('shard.seed.needed_hint') });
  }
  if (common.load.mode === 'sessions' && (shard || workers > 1))
    problems.push({
      path: shard ? '--shard' : '--workers',
      message: t('sessions.shard.refused'),
      hint: t('sessions.shard.refused_hint'),
    });
  const sessionHeader = (raw.sessionHeader ?? DEFAULT_SESSION_HEADER).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(sessionHeader))
    problems.push({
      path: '--session-header',
      message: t('sessions.header.bad', { name: sessionHeader }),
      hint: t('sessions.header.hint'),
    });
  if (workers > 1 && monitoring.otlpPort != null)
    problems.push({ path: '--otlp-port', message: t('otlp.workers'), hint: t('otlp.workers_hint') });
  if (workers > 1 && shard)
    problems.push({
      path: '--workers',
      message: t('shard.workers.withShard'),
      hint: t('shard.workers.withShardHint'),
    });
  const target = {
    url,
    endpoint,
    stream: raw.stream !== false && !raw.disableStream,
    headers,
    apiKeyEnv,
    extraBody,
    timeoutS,
    timeoutTtftS,
    retries,
    failFast: raw.failFast !== false,
    backend: raw.backend ?? null,
    sessionHeader,
  };
  checkMeasureInput({ target, common }, problems);
  problems.push(...workloadProblems(workloadOptions(common, common.generation.model ?? '', t), t));
  throwIfProblems(problems);
  return {
    monitoring,
    db: raw.db === false ? null : typeof raw.db === 'string' ? raw.db : 'servelab.db',
    target,
    common,
    label: raw.label ?? null,
    shard,
    notes,
    t,
    workers,
  };
}

/** What the console says when a run stopped early: the cause, its hint, and the way out. */
export function failFastNotice(
  reason: string | null,
  errors: readonly ErrorGroup[],
  t: T = translator('en'),
): string {
  const hint = errors.find((g) => g.outcome !== 'cancelled' && g.hint)?.hint ?? null;
  const unsent = errors.find((g) => g.message.startsWith(FAIL_FAST_UNSENT))?.count ?? 0;
  return (
    `${t('run.fail_fast', { reason: reason ?? t('run.fail_fast.same_way') })}\n` +
    (hint ? `  ${t('cli.hint', { hint })}\n` : '') +
    `  ${t('run.fail_fast.unsent', { n: unsent })}\n`
  );
}

export async function runCommand(raw: RawRun, io: Io, argv: readonly string[] = []): Promise<number> {
  const { notes, t, workers, ...parsed } = parseRunFlags(raw, io.env, io.cwd);
  for (const line of notes) io.stderr.write(`${line}\n`);
  const input = { ...parsed, common: resolvePaths(parsed.common, io.cwd) };
  if (workers > 1) return runWithWorkers(input, workers, argv, io, t);
  const out = humanStream(input.common.output.json, io);
  const ctrl = new AbortController();
  const off = io.onInterrupt(() => ctrl.abort(new Error('interrupted')));
  const store = input.db ? openStore(resolve(io.cwd, input.db)) : null;
  try {
    const m = await measure(input, {
      env: io.env,
      progress: io.stderr,
      signal: ctrl.signal,
      version: VERSION,
      monitoring: input.monitoring,
      store,
      log: (line) => io.stderr.write(`${line}\n`),
      t,
      awaitStart: startFromParentProcess(io.env),
      // A full disk or a read-only store must not cost the summary: it is printed, then the error.
      keepSaveErrors: true,
    });
    // Every file before the summary (measure wrote --out): a reader that closes stdout early
    // (`| head`) must not cost the --json file. JSON on stdout still comes after the summary.
    const json = input.common.output.json;
    const result = { ...m.report, thresholds: m.thresholds };
    // A --json file that cannot be written is reported after the summary, not instead of it.
    const jsonFailed =
      json !== true
        ? await emitJson(json, result, io).then(
            () => null,
            (e: unknown) => e,
          )
        : null;
    const head = {
      url: redactUrl(input.target.url),
      model: m.model,
      id: m.report.run_id,
      seed: input.common.load.seed,
    };
    out.write(`\n${t(m.report.run_id ? 'run.header_run' : 'run.header', head)}\n`);
    // How prompt lengths were made exact: the offline tokenizer, the server's, or the approximation (and why).
    out.write(formatTokenization(m.workload.method, m.workload.notes, t, m.workload.tokenizer_check));
    out.write(formatPromptOverhead(promptOverheadTokens(m.result.records), t));
    out.write(formatTraceLines(m.workload.trace, t));
    out.write(formatSummaryTable(m.summary, t));
    out.write(formatSessions(m.report.sessions ?? null, t));
    out.write(formatSpeculative(m.report.speculative, t));
    out.write(formatVerdict(m.validity, t));
    out.write(formatThresholds(m.thresholds, t));
    const sh = m.shardReport?.shard;
    if (sh)
      out.write(
        `${t('shard.run.wrote', { index: sh.index, count: sh.count, run_id: sh.run_id, files: m.files.join(', ') })}\n`,
      );
    else if (m.files.length) out.write(`${t('run.wrote', { files: m.files.join(', ') })}\n`);
    if (m.result.reason === 'late_start' && sh) {
      const late = {
        index: sh.index,
        count: sh.count,
        late_ms: Math.round(sh.late_ms ?? 0),
        limit_ms: LATE_LIMIT_MS,
      };
      io.stderr.write(`error: ${t('shard.late.failed', late)}\n  hint: ${t('shard.late.failedHint')}\n`);
    }
    if (m.result.interrupted) io.stderr.write(`${t('run.interrupted')}\n`);
    if (m.result.reason === 'drain_timeout')
      io.stderr.write(`${t('run.drain_timeout', { s: input.common.load.drainTimeoutS })}\n`);
    const failedFast = m.result.reason === 'failed_fast';
    if (failedFast) io.stderr.write(failFastNotice(m.result.failed_fast, m.summary.errors, t));
    if (json === true) await emitJson(json, result, io);
    for (const e of m.saveErrors) io.stderr.write(formatStorageError(e, t));
    if (jsonFailed) throw jsonFailed;
    // A shard that missed the common start sent nothing: the job must fail, not be retried late.
    if (m.result.reason === 'late_start') return ExitCode.nothingSucceeded;
    const serverGone = m.validity.some((r) => r.code === 'server_gone');
    const code = measurementExitCode(m.summary, m.thresholds, m.result.interrupted, failedFast || serverGone);
    return m.saveErrors.length ? worstExitCode([code, ExitCode.storage]) : code;
  } finally {
    off();
    store?.close();
  }
}

/**
 * `run --workers N`: N shard children on this host, merged exactly into `--out`; the summary,
 * verdict, thresholds and exit code of the merged report, as a plain run prints them.
 */
async function runWithWorkers(
  input: MeasureInput & { db: string | null; monitoring: MonitoringSettings },
  workers: number,
  argv: readonly string[],
  io: Io,
  t: T,
): Promise<number> {
  const out = humanStream(input.common.output.json, io);
  const ctrl = new AbortController();
  const off = io.onInterrupt(() => ctrl.abort(new Error('interrupted')));
  try {
    const db = input.db;
    const {
      report,
      files,
      thresholds: results,
    } = await measureWithWorkers(
      input,
      workers,
      {
        // The workers share the parent's seed, drawn once for the run when --seed is not given.
        launch: launchWorker(withSeedArg(argv, input.common.load.seed)),
        env: io.env,
        signal: ctrl.signal,
        log: (line) => io.stderr.write(`${line}\n`),
        openStore: db ? () => openStore(resolve(io.cwd, db)) : null,
      },
      t,
    );
    if (!report) {
      // Interrupted before any worker wrote its shard: nothing was recorded, nothing is written.
      io.stderr.write(`${t('shard.workers.interruptedEmpty')}\n`);
      return ExitCode.interrupted;
    }
    const json = input.common.output.json;
    const result = { ...report, thresholds: results };
    if (json !== true) await emitJson(json, result, io);
    const model = input.common.generation.model ?? (report.config as { model?: string }).model ?? null;
    // The store's id when the merged run was stored (what `report ID` takes); else the shards'.
    const runId = report.run_id ?? report.merge.run_id;
    const head = {
      url: redactUrl(input.target.url),
      model,
      id: runId,
      seed: input.common.load.seed,
    };
    out.write(`\n${t('run.header_run', head)}\n`);
    out.write(formatSummaryTable(report.summary, t));
    out.write(formatVerdict(report.validity?.reasons ?? [], t));
    out.write(formatThresholds(results, t));
    const merged = { n: workers, run_id: runId, files: files.join(', ') };
    out.write(`${t(files.length ? 'shard.workers.wrote' : 'shard.workers.merged', merged)}\n`);
    if (json === true) await emitJson(json, result, io);
    const end = report.end;
    if (end?.reason === 'late_start') {
      io.stderr.write(`error: ${t('shard.workers.late')}\n  hint: ${t('shard.late.failedHint')}\n`);
      return ExitCode.nothingSucceeded;
    }
    const interrupted = ctrl.signal.aborted || end?.interrupted === true;
    if (interrupted) io.stderr.write(`${t('run.interrupted')}\n`);
    else if (end?.reason === 'drain_timeout')
      io.stderr.write(`${t('run.drain_timeout', { s: input.common.load.drainTimeoutS })}\n`);
    const failed =
      end?.reason === 'failed_fast' || (report.validity?.reasons ?? []).some((r) => r.code === 'server_gone');
    return measurementExitCode(report.summary, results, interrupted, failed);
  } finally {
    off();
  }
}
