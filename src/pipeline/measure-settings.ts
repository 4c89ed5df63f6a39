/**
 * @module pipeline/measure-settings
 * One measurement from run-style settings (`servelab run`, `demo`, `plan`): check the input
 * (SLO, thresholds, baseline, output paths), resolve the model, build the workload and the
 * plan from the settings (`pipeline/load-plan`), describe the run's configuration for
 * report.json, take a shard's part of the schedule, and measure through `measureOn`.
 */
import { readFile } from 'node:fs/promises';
import {
  parseSlo,
  parseThresholds,
  type Slo,
  type Summary,
  sloProblemsWithoutStream,
} from '../analysis/index.js';
import { listedModels, tokenizeRemote } from '../client/engine-api.js';
import { DEFAULT_SESSION_HEADER, redactHeaders } from '../client/index.js';
import { type Problem, TargetError, UsageError } from '../core/errors.js';
import { plannedCountProblem } from '../core/limits.js';
import { outputPathProblem } from '../core/output-path.js';
import { rememberSecret, rememberUrlSecrets } from '../core/redact.js';
import { redactUrl } from '../core/url.js';
import { resolveLang, translator } from '../i18n/index.js';
import { runReportProblem } from '../report/run/report.js';
import { plannedRequests } from '../runner/load.js';
import { streamArrivals } from '../schedule/index.js';
import {
  buildWorkload,
  parseLengthDist,
  type StreamedWorkload,
  streamWorkload,
  syntheticPrompts,
  type Workload,
} from '../workload/index.js';
import { clientOptionsOf } from './client-options.js';
import { type EngineEndpoint, urlEndpoint } from './endpoint.js';
import { isStreamed, loadPlan, openArrivalOptions, workloadOptions } from './load-plan.js';
import { type MeasureDeps, type Measurement, type MeasureShard, measureOn } from './measure.js';
import type { CommonSettings, TargetSettings } from './settings.js';
import { commonRunId, configHash, type ShardSettings, scheduleHash, shardPlan } from './shard.js';

export interface MeasureInput {
  target: TargetSettings;
  common: CommonSettings;
  label?: string | null;
  /** This run is one shard of a larger one (`--shard i/N`); absent or null: the whole run. */
  shard?: ShardSettings | null;
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

/**
 * Whether a run is meant to meet a cold prefix cache: synthetic prompts (each its own random
 * text from the run's seed), no shared prefix or documents, no warm-up (which would send the
 * measured prompts first), not sessions or a trace, nor a `--duration` run (it cycles through
 * its prompts). Such a run is stored with `prompts: fresh`,
 * and the verdict flags it when the server's cache hits say otherwise (`cache_hits`:
 * the same `--seed` run twice, or a prompt cache kept from an earlier run).
 */
export function meantCold(common: CommonSettings, workload: Pick<Workload, 'source' | 'sessions'>): boolean {
  const w = common.workload;
  return (
    workload.source === 'synthetic' &&
    !workload.sessions &&
    (common.load.warmup ?? 0) === 0 &&
    (common.load.mode === 'closed' || common.load.mode === 'open') &&
    // A --duration run cycles through its prompts.
    common.load.durationS == null &&
    !sharesPrefix(w)
  );
}

/**
 * Whether a workload's prompts are meant to share a prefix (a shared prefix of N tokens in G
 * groups, or shared documents): its prefix-cache hits are what it measures, so it is never
 * meant to be cold. The one rule for `run` ({@link meantCold}) and for an experiment's levels
 * (`exp/harness/workloads` `levelWorkloadOf`).
 */
export function sharesPrefix(w: {
  sharedPrefixLen?: number | null;
  numPrefixGroups?: number | null;
  documents?: unknown;
}): boolean {
  return !!w.sharedPrefixLen || !!w.numPrefixGroups || !!w.documents;
}

/** The run's configuration as stored in report.json (secrets redacted). */
export function describeConfig(
  input: MeasureInput,
  model: string,
  workload: Omit<Workload, 'specs'>,
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
    // `fresh`: meant to meet a cold cache (see meantCold); the verdict's `cache_hits` reads it.
    prompts: meantCold(common, workload) ? 'fresh' : 'as-given',
    slo,
    thresholds: common.output.thresholds,
    label: input.label ?? null,
  };
}

/** Run one measurement from run-style settings. Throws UsageError/TargetError for bad input or an unreachable target. */
export async function measure(
  input: MeasureInput,
  deps: MeasureDeps & { endpoint?: EngineEndpoint; config?: Record<string, unknown> },
): Promise<Measurement & { workload: StreamedWorkload; model: string }> {
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
  rememberSecret(apiKey);
  rememberUrlSecrets(target.url);
  const endpoint = deps.endpoint ?? urlEndpoint(target.url);
  const dispatcher = endpoint.dispatcher ?? undefined;

  let model = common.generation.model;
  let contextLen: number | null = null;
  if (!model) {
    const models = await endpoint.settle(
      listedModels(endpoint.baseUrl, apiKey, target.headers, target.apiKeyEnv, dispatcher),
    );
    if (!models.length)
      throw new TargetError(`${redactUrl(target.url)}/models lists no models`, 'give --model NAME');
    model = models[0].id;
    contextLen = models[0].max_model_len;
  }

  // Warm-up gets prompts of its own, drawn after the measured ones from the same source: warming
  // up with the measured prompts would fill the prefix cache with exactly what is measured next.
  const wopts = workloadOptions(common, model);
  // Prompts that cannot fit the served context are refused before they are built (a 10-million-
  // token --input-len took minutes and GBs to build, then every request failed).
  const il = wopts.inputLen;
  const parsed = typeof il === 'string' || typeof il === 'number' ? parseLengthDist(il) : null;
  const inputMin = typeof il === 'object' ? il.min : parsed?.ok ? parsed.dist.min : null;
  if (contextLen !== null && inputMin !== null && inputMin >= contextLen) {
    const t = deps.t ?? translator(resolveLang(undefined, deps.env));
    throw new UsageError([
      {
        path: '--input-len',
        message: t('run.context.over', { input: String(wopts.inputLen), model, max: contextLen }),
        hint: t('run.context.overHint', { max: contextLen }),
      },
    ]);
  }
  const warm = common.load.warmup;
  const split = warm > 0 && wopts.count !== undefined && !common.load.traceFile;
  const sim = endpoint.sim;
  const wdeps = {
    // The in-process simulator counts as its /tokenize would, minus an HTTP exchange per
    // prompt (most of the time of building a plan's workload), and keeps the ids to serve.
    tokenizeRemote: sim
      ? (text: string) => sim.countTokens(text, model)
      : tokenizeRemote(endpoint.baseUrl, model, apiKey, target.headers, dispatcher),
    t: deps.t,
    warn: deps.log,
  };
  let workload: StreamedWorkload;
  let warmupSpecs: StreamedWorkload['specs'] | undefined;
  let full: ReturnType<typeof loadPlan>;
  if (isStreamed(common, !!input.shard)) {
    // Generated as they fall due (issue 28: a 24-hour soak at 200/s built 17 million specs
    // first); long synchronous work yields between slices, so an interrupt is heard at once.
    const pause = () => new Promise<void>((resolve) => setImmediate(resolve));
    const sdeps = { ...wdeps, pause, signal: deps.signal };
    workload = await endpoint.settle(streamWorkload(wopts, sdeps));
    if (split)
      warmupSpecs = (
        await endpoint.settle(
          streamWorkload(
            { ...wopts, count: (wopts.count as number) + warm },
            { ...sdeps, from: wopts.count },
          ),
        )
      ).specs;
    const arrivals = await streamArrivals(openArrivalOptions(common), pause, deps.signal);
    full = loadPlan(common, null, arrivals);
  } else {
    // A shard's part is dealt from the whole schedule, so the whole is built: its limit holds.
    const tooMany = input.shard ? plannedCountProblem(wopts.count ?? 0, '--rate × --duration', deps.t) : null;
    if (tooMany) throw new UsageError([tooMany]);
    const built = await endpoint.settle(
      buildWorkload(split ? { ...wopts, count: (wopts.count as number) + warm } : wopts, wdeps),
    );
    workload = split ? { ...built, specs: built.specs.slice(0, built.specs.length - warm) } : built;
    warmupSpecs = split ? built.specs.slice(built.specs.length - warm) : undefined;
    full = loadPlan(common, workload as Workload);
  }
  const config = { ...describeConfig(input, model, workload, slo), ...(deps.config ?? {}) };
  // A shard: the full schedule, built as every other shard builds it, then its part of it.
  let shard: MeasureShard | null = null;
  let specs = workload.specs;
  let load = full.load;
  if (input.shard) {
    const whole = workload.specs as Workload['specs'];
    const cfgHash = configHash(config);
    const schedHash = scheduleHash(whole, full.load);
    const t = deps.t ?? translator(resolveLang(undefined, deps.env));
    const part = shardPlan(whole, full.load, input.shard.index, input.shard.count, problems, t);
    if (problems.length) throw new UsageError(problems);
    specs = part.specs;
    load = part.load;
    shard = {
      ...input.shard,
      runId: commonRunId(cfgHash, schedHash),
      configHash: cfgHash,
      scheduleHash: schedHash,
      seed: common.load.seed,
      plannedTotal: plannedRequests(full.load) ?? whole.length,
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
        syntheticPrompts: syntheticPrompts(workload.source, workload.specs),
      },
      client: clientOptionsOf({ ...target, model, apiKey }, common.generation),
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
