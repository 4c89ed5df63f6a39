/**
 * @module exp/kinds/context
 * What every experiment kind runs on: the live targets (a URL, a simulator servelab started
 * behind HTTP, or the simulator in this process on a virtual clock), one measurement on a target
 * ({@link ExpContext.measure}, which is `pipeline/measure`'s `measureOn`: the same client, runner,
 * scraping, summary and verdict as `servelab run`), and the prefix-cache controls (reset, the
 * hit rate from the server's counters).
 *
 * Times: over HTTP, record times are client wall-clock ms (a sim with `time_scale: X` runs X
 * times faster, so they are engine ms / X); on a virtual clock they are engine ms. Open-loop
 * schedules (rates, spacings) are in simulated time: for a sim at `time_scale: X` the arrival
 * offsets are divided by X, so the engine sees the same load whatever the scale.
 */
import { request } from 'undici';
import type { ValidityReason } from '../../analysis/diagnose/types.js';
import {
  mean,
  parseThresholds,
  type Summary,
  summarize,
  type Threshold,
  type ThresholdResult,
} from '../../analysis/index.js';
import type { SeriesPoint } from '../../analysis/loaded-run.js';
import type { SessionsSummary } from '../../analysis/sessions.js';
import type { Slo } from '../../analysis/slo.js';
import { evaluateThresholds } from '../../analysis/thresholds.js';
import { redactUrl } from '../../client/index.js';
import type { Endpoint as ApiEndpoint } from '../../client/types.js';
import { UsageError } from '../../core/errors.js';
import { targetHeaders } from '../../core/headers.js';
import { type T, translator } from '../../core/i18n/index.js';
import { hostOf, withV1, withV1Note } from '../../core/url.js';
import { type Endpoint, simEndpoint, urlEndpoint } from '../../pipeline/endpoint.js';
import { measureOn, sessionsLoadMode } from '../../pipeline/measure.js';
import { type RequestRecord, shiftRecord } from '../../record/types.js';
import { type LoadMode, sessionTurns } from '../../runner/loops.js';
import { RealClock } from '../../runtime/clock.js';
import { hashString } from '../../runtime/rng.js';
import { type SimServer, type SimServerOptions, startSimServer } from '../../sim/server/index.js';
import { toSimServerOptions, withSimDefaults } from '../../sim/settings.js';
import type { Store } from '../../store/index.js';
import { buildWorkload, type IntendedSharing, type Workload } from '../../workload/index.js';
import type { RequestSpec } from '../../workload/types.js';
import {
  buildExperimentRecord,
  type ExperimentRecord,
  hostInfo,
  isLocalUrl,
  makeField,
  nodeExec,
  probeGpu,
  probeTarget,
  serverRoot,
  setRecordField,
} from '../record.js';
import type { ExperimentFile, Generation, SimOptions, TargetSpec } from '../schema.js';

/** Collaborators of an experiment run. */
export interface ExpDeps {
  /** Environment, read for API-key variables only. */
  env: Record<string, string | undefined>;
  /** One line per event (experiment id, each run id as it starts). */
  log: (line: string) => void;
  store?: Store;
  signal?: AbortSignal;
  /** servelab's version, recorded. */
  version: string;
  /** The language of the progress lines and verdicts (default English). */
  t?: T;
}

/** A target, started and ready. */
export interface LiveTarget {
  name: string;
  spec: TargetSpec;
  /** `virtual`: the simulator in this process on a virtual clock; else a server over HTTP. */
  mode: 'http' | 'virtual';
  /** Served model id. */
  model: string;
  endpoint: ApiEndpoint;
  /** Top-level generation with this target's overrides. */
  generation: Generation;
  /** Merged into each request body: target extra_body, thinking, seed. */
  extraBody: Record<string, unknown>;
  /** Base URL ending in /v1 (for an in-process simulator, reached only through its dispatcher). */
  baseUrl: string;
  /** Where measurements go: the URL, or the in-process simulator. */
  live: Endpoint;
  headers: Record<string, string>;
  /** The API key from the environment; never logged or stored. */
  apiKey?: string;
  /** The simulator servelab started behind HTTP (real-time sim targets). */
  sim: SimServer | null;
  /** Simulator options as the server takes them (sim targets). */
  simOptions: SimServerOptions | null;
  record: ExperimentRecord | null;
}

/** One measurement to make on a target. */
export interface RunPlan {
  /** Short label, e.g. `c=4`, `phase=cold`. */
  label: string;
  /** The swept factor(s) of this run, e.g. `{concurrency: 4}`. */
  level: Record<string, number | string>;
  /** Measured requests, in send order (closed loop: exactly these, once each). */
  specs: RequestSpec[];
  load:
    | { kind: 'closed'; concurrency: number }
    | { kind: 'open'; arrivalsMs: number[]; maxConcurrency?: number | null }
    | SessionsPlan;
  warmup?: number;
  warmupSpecs?: RequestSpec[];
  /**
   * The run is meant to meet a cold prefix cache (fresh prompts): more than 10% of its prompt
   * tokens hitting the cache then makes it invalid (`cache_hits`).
   */
  coldPrompts?: boolean;
  /**
   * Called before each measured request, which is then sent alone (one at a time): e.g. a cache
   * reset per request.
   */
  beforeEach?: () => Promise<void>;
}

/**
 * A sessions load ({@link ExpContext.sessions}) and the prefix sharing its workload intends (for
 * the run's sessions block). Times in simulated ms, as an open loop's arrivals.
 */
export type SessionsPlan = Extract<LoadMode, { kind: 'sessions' }> & { intended?: IntendedSharing | null };

/** The server's prefix-cache counters over one run (from the scrapes before and after it). */
export interface RunCache {
  /** Prompt tokens the server looked up in its prefix cache. */
  queries_tokens: number;
  /** Of those, tokens it found there. */
  hits_tokens: number;
  /** hits / queries; null when no prompt tokens were looked up. */
  hit_rate: number | null;
}

/** One finished run, as kept in the experiment result (JSON). */
export interface RunInfo {
  run_id: string | null;
  target: string;
  label: string;
  level: Record<string, number | string>;
  summary: Summary;
  /** The file's `thresholds` checked on this run's summary (empty without thresholds). */
  thresholds: ThresholdResult[];
  /** Why this run's numbers cannot bear weight (empty = valid). */
  validity: ValidityReason[];
  /** The server's prefix-cache hit rate over the run; null when the server has no such counters. */
  cache: RunCache | null;
  /** The server's generation rate over the run (tokens/s, from its counter); null when not scraped. */
  server_tokens_per_s: number | null;
}

/** One measurement's data for the kind to compute with. */
export interface Measured {
  run: RunInfo;
  /** Measured records in request (spec) order, attempts in order. */
  records: RequestRecord[];
  summary: Summary;
  /** The sessions block of a sessions run (`report.json` `sessions`; null otherwise, and for pooled repeats). */
  sessions: SessionsSummary | null;
  /** The server series scraped during the run (for the diagnosis rules), empty when not scraped. */
  series: SeriesPoint[];
}

/** The experiment was interrupted (its signal aborted); finished runs stay in the store. */
export class ExperimentInterrupted extends Error {
  constructor(readonly completedRuns: number) {
    super(`interrupted after ${completedRuns} completed runs`);
    this.name = 'ExperimentInterrupted';
  }
}

/**
 * Simulator options (file, snake_case) → server options (camelCase), by the settings schema
 * (`sim/settings`): unset settings at their defaults, every setting converted the same way,
 * the catalogue file loaded.
 */
export function simServerOptions(s: SimOptions): SimServerOptions {
  return toSimServerOptions(withSimDefaults(s));
}

/** Generation of a target: the top-level settings with the target's overrides. */
export function targetGeneration(exp: ExperimentFile, t: TargetSpec): Generation {
  return { ...exp.generation, ...(t.generation ?? {}) } as Generation;
}

function bodyExtras(gen: Generation, t: TargetSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(t.extra_body ?? {}) };
  if (gen.thinking !== undefined) {
    const prev = (out.chat_template_kwargs as Record<string, unknown> | undefined) ?? {};
    out.chat_template_kwargs = { ...prev, enable_thinking: gen.thinking };
  }
  if (gen.seed !== undefined) out.seed = gen.seed;
  return out;
}

/** The running state of one experiment: its targets, store rows and runs so far. */
export class ExpContext {
  readonly runs: RunInfo[] = [];
  readonly warnings: string[] = [];
  targets: LiveTarget[] = [];
  private seq = 0;
  private readonly thresholds: Threshold[];
  /** The translator of the progress lines. */
  readonly tr: T;

  constructor(
    readonly exp: ExperimentFile,
    readonly deps: ExpDeps,
    readonly experimentId: string | null,
  ) {
    this.tr = deps.t ?? translator('en');
    // Relative thresholds need a baseline run, which an experiment does not have.
    const all = parseThresholds(exp.thresholds, 'thresholds');
    this.thresholds = all.filter((t) => t.relative_percent === null);
    if (this.thresholds.length < all.length)
      this.warnings.push('relative thresholds (…%) need a baseline run: not checked in an experiment');
  }
  /**
   * The file's SLOs as goodput objectives for every run's summary. `itl_ms` is a chunk-gap
   * distribution, not a per-request number, so it drives the SLO search only.
   */
  private goodputSlo(): Slo | null {
    const s = this.exp.slo;
    if (!s) return null;
    const out: Slo = {};
    if (s.ttft_ms !== undefined) out.ttft_ms = s.ttft_ms;
    if (s.tpot_ms !== undefined) out.tpot_ms = s.tpot_ms;
    if (s.e2e_ms !== undefined) out.e2e_ms = s.e2e_ms;
    return Object.keys(out).length ? out : null;
  }

  /** Start or reach every target (sims started here are stopped by {@link close}). */
  async start(): Promise<void> {
    for (const [name, spec] of Object.entries(this.exp.targets)) {
      this.targets.push(await this.startTarget(name, spec));
    }
  }

  private async startTarget(name: string, t: TargetSpec): Promise<LiveTarget> {
    const gen = targetGeneration(this.exp, t);
    const base: LiveTarget = {
      name,
      spec: t,
      mode: 'http',
      model: '',
      endpoint: (t.endpoint ?? this.exp.endpoint) as ApiEndpoint,
      generation: gen,
      extraBody: bodyExtras(gen, t),
      baseUrl: '',
      live: urlEndpoint(''),
      headers: { ...(t.headers ?? {}) },
      sim: null,
      simOptions: null,
      record: null,
    };
    const host = hostInfo();
    if (t.sim) {
      const opts = simServerOptions(t.sim);
      base.simOptions = opts;
      if (t.sim.clock === 'virtual') {
        // The simulator in this process, on a virtual clock, reached through the same HTTP client
        // as any server. Its engine timings ride along in each response (`timings`), as with
        // `expose_timings` over HTTP, so kinds that need the engine's own times have them.
        base.mode = 'virtual';
        base.live = await simEndpoint({ ...opts, timeScale: 1, exposeTimings: true }, { virtual: true });
        base.baseUrl = base.live.baseUrl;
        base.model = base.live.sim?.modelId ?? '';
        this.deps.log(
          this.tr('exp.progress.sim_virtual', { name, model: base.model, gpu: opts.gpu ?? t.sim.gpu }),
        );
      } else {
        const sim = await startSimServer(opts);
        base.sim = sim;
        base.baseUrl = `${sim.url}/v1`;
        base.live = urlEndpoint(base.baseUrl);
        base.model = sim.modelId;
        this.deps.log(
          this.tr('exp.progress.sim_live', {
            name,
            model: sim.modelId,
            gpu: opts.gpu ?? t.sim.gpu,
            url: sim.url,
            scale: opts.timeScale,
          }),
        );
      }
    } else {
      const given = withV1(t.url as string);
      base.baseUrl = given.url;
      const note = withV1Note(given, this.tr);
      if (note) this.deps.log(this.tr('exp.progress.note', { name, note }));
      const local = t.local ?? isLocalUrl(base.baseUrl);
      base.live = urlEndpoint(base.baseUrl, { local });
      base.model = t.model ?? this.exp.model ?? '';
      if (t.api_key_env) base.apiKey = this.deps.env[t.api_key_env] || undefined;
    }
    const probe = await base.live.settle(
      probeTarget(base.baseUrl, {
        apiKey: base.apiKey,
        headers: base.headers,
        dispatcher: base.live.dispatcher ?? undefined,
      }),
    );
    if (!probe.reachable)
      throw new UsageError([
        {
          path: `targets.${name}`,
          message: `cannot reach ${serverRoot(base.baseUrl)}`,
          hint: `is the server running on ${hostOf(base.baseUrl)}? the url should end in /v1`,
        },
      ]);
    const gpu = base.live.local ? await probeGpu(nodeExec()) : null;
    base.record = buildExperimentRecord({ spec: this.exp, targetName: name, probe, gpu, host });
    if (!t.sim)
      this.deps.log(
        this.tr('exp.progress.server', {
          name,
          url: redactUrl(base.baseUrl),
          engine: `${probe.engine}${probe.engine_version ? ` ${probe.engine_version}` : ''}`,
        }),
      );
    return base;
  }

  /** How much faster than real time the target runs: `time_scale` of a real-time sim, else 1. */
  timeScale(t: LiveTarget): number {
    return t.sim ? (t.simOptions?.timeScale ?? 1) : 1;
  }

  /** Stop the simulators this experiment started. */
  async close(): Promise<void> {
    await Promise.all(this.targets.map((t) => Promise.all([t.sim?.close(), t.live.close()])));
  }

  /** The target named `name`. */
  target(name: string): LiveTarget {
    const t = this.targets.find((x) => x.name === name);
    if (!t) throw new Error(`no target ${name}`);
    return t;
  }

  /**
   * Build `count` synthetic requests (or dataset prompts) with the experiment's seed; every
   * target gets the same ones. Lengths are token-exact with the first target's tokenizer.
   */
  async workload(opts: {
    count: number;
    inputLen?: string;
    outputLen?: string;
    seed?: number;
    /** Ignore the workload's dataset/shared-prefix settings (kinds that make their own prompts). */
    plain?: boolean;
  }): Promise<RequestSpec[]> {
    const w = this.exp.workload;
    const model = this.targets[0]?.model ?? this.exp.model ?? '';
    const seed = opts.seed ?? w.seed ?? this.exp.seed;
    const dataset = !opts.plain ? w.dataset : undefined;
    const built = await buildWorkload({
      seed,
      count: opts.count,
      model,
      ...(dataset
        ? dataset.format === 'sharegpt'
          ? { dataset: { kind: 'sharegpt', path: dataset.path } }
          : { promptsFile: dataset.path }
        : { inputLen: opts.inputLen ?? w.input_len }),
      outputLen: opts.outputLen ?? w.output_len,
      ...(!opts.plain && !dataset && w.shared_prefix
        ? { sharedPrefixLen: w.shared_prefix.tokens, numPrefixGroups: w.shared_prefix.groups }
        : {}),
    });
    return built.specs;
  }

  /**
   * A sessions load of `users` users from the file's `load` (turns, think_time_s, ramp_up_s or
   * session_rate, max_concurrency) and `workload` (input_len, output_len, documents), with the
   * experiment's seed: the workload (its turns as `specs`) and the load to measure it with.
   * A plan made of them goes to {@link ExperimentContext.measure} like any other.
   */
  async sessions(
    users: number,
    opts: { seed?: number } = {},
  ): Promise<{ workload: Workload; load: Extract<LoadMode, { kind: 'sessions' }> }> {
    const w = this.exp.workload;
    const l = this.exp.load;
    const seed = opts.seed ?? w.seed ?? this.exp.seed;
    const workload = await buildWorkload({
      seed,
      model: this.targets[0]?.model ?? this.exp.model ?? '',
      inputLen: w.input_len,
      outputLen: w.output_len,
      sessions: {
        users,
        turns: l.turns ?? '1',
        thinkTime: l.think_time_s ?? '0',
        ...(w.documents
          ? {
              documents: w.documents.count,
              docLen: w.documents.tokens,
              docPopularity: w.documents.popularity,
            }
          : {}),
      },
    });
    const load = sessionsLoadMode(workload.sessions ?? null, {
      rampUpS: l.ramp_up_s ?? null,
      sessionRateRps: l.session_rate ?? null,
      seed,
      maxConcurrency: l.max_concurrency ?? null,
    });
    return { workload, load };
  }

  /**
   * The prompts of one level of a sweep or matrix, and its warm-up prompts: fresh for every level
   * (seeded from the experiment seed and the level, so a rerun sends the same ones), unless the
   * file asks for `workload.reuse_prompts`. Warm-up prompts are always distinct from the measured
   * ones, so warming up never pre-fills the prefix cache with the prompts about to be measured;
   * only `cache.policy: warm` warms the cache with the measured prompts themselves.
   */
  async levelWorkload(
    level: Record<string, number | string>,
    opts: { count: number; inputLen?: string; outputLen?: string; plain?: boolean },
  ): Promise<{ specs: RequestSpec[]; warmupSpecs: RequestSpec[] | undefined; coldPrompts: boolean }> {
    const reuse = this.exp.workload.reuse_prompts;
    const base = this.exp.workload.seed ?? this.exp.seed;
    const seed = reuse ? base : hashString(`${base}:${JSON.stringify(level)}`);
    const specs = await this.workload({ ...opts, seed });
    const warm = this.exp.cache.policy === 'warm';
    const warmupSpecs =
      this.exp.warmup > 0 && !warm
        ? await this.workload({ ...opts, count: this.exp.warmup, seed: hashString(`${seed}:warmup`) })
        : undefined;
    return { specs, warmupSpecs, coldPrompts: !reuse && !warm };
  }

  /** Measured requests for one level of a sweep: `load.requests`, else `max(16, 4 × concurrency)`. */
  requestsFor(concurrency: number): number {
    return this.exp.load.requests ?? Math.max(16, 4 * concurrency);
  }

  /**
   * Keep a run that a kind measured on its own path (the voice kind's LLM legs, summarised as
   * `run` summarises requests), its summary checked against the file's thresholds.
   */
  addRun(
    r: Omit<RunInfo, 'thresholds'>,
    stored?: { records: readonly RequestRecord[]; startedAtUnixMs: number; config: Record<string, unknown> },
  ): RunInfo {
    const run: RunInfo = { ...r, thresholds: evaluateThresholds(r.summary, this.thresholds) };
    // With its records, the run is kept in the store as the experiment's, so `report EXP` and
    // `runs` find it like any measured run.
    const store = this.deps.store;
    if (store && stored) {
      const row = store.createRun({
        kind: 'exp',
        experimentId: this.experimentId,
        label: `${r.target} ${r.label}`,
        startedAtUnixMs: stored.startedAtUnixMs,
        config: { ...stored.config, target: r.target, level: r.level } as never,
        record: { validity: { valid: r.validity.length === 0, reasons: r.validity } } as never,
      });
      for (const rec of stored.records) store.appendRecord(row.id, rec);
      store.finishRun(row.id, r.summary as never, 'completed');
      run.run_id = row.id;
    }
    this.runs.push(run);
    return run;
  }

  /**
   * Run one measurement on a target and record it (store run, records, series, summary,
   * verdict); prints the run id as it starts. With `repeats: N`, the measurement runs N times (N
   * store runs, labelled `rep=k/N`) and the kind gets them pooled: records laid end to end on one
   * timeline, so the pooled summary has every request's latency and the mean throughput over the
   * repeats. A pooled run is valid only when every repeat is.
   */
  async measure(t: LiveTarget, plan: RunPlan): Promise<Measured> {
    const n = this.exp.repeats;
    if (n <= 1) return this.measureOnce(t, plan, plan.label);
    const parts: Measured[] = [];
    for (let k = 1; k <= n; k++) parts.push(await this.measureOnce(t, plan, `${plan.label} rep=${k}/${n}`));
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
    const summary = summarize(records, {
      max_concurrency: maxConc,
      slo: this.goodputSlo(),
    });
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

  private async measureOnce(t: LiveTarget, plan: RunPlan, planLabel: string): Promise<Measured> {
    if (this.deps.signal?.aborted) throw new ExperimentInterrupted(this.runs.length);
    const store = this.deps.store;
    const label = `${t.name} ${planLabel}`;
    const gen = t.generation;
    // A simulator running X times faster than real time gets its arrivals X times closer, so
    // that the engine sees the same schedule (in simulated ms) as on a virtual clock.
    const scale = this.timeScale(t);
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
            };
    const l = this.exp.load;
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
          runPrefix: `x${this.seq++}`,
          ...(plan.load.kind === 'sessions' && plan.load.intended
            ? { sessions: { intended: plan.load.intended } }
            : {}),
        },
        client: {
          endpoint: t.endpoint,
          model: t.model,
          stream: gen.stream,
          maxTokens: gen.max_tokens ?? null,
          temperature: gen.temperature,
          topP: gen.top_p ?? null,
          stop: gen.stop ?? null,
          ignoreEos: gen.ignore_eos ?? false,
          extraBody: t.extraBody,
          headers: t.headers,
          apiKey: t.apiKey,
          timeoutMs: l.timeout_s !== undefined ? l.timeout_s * 1000 : null,
          timeoutTtftMs: l.timeout_ttft_s !== undefined ? l.timeout_ttft_s * 1000 : null,
        },
        slo: this.goodputSlo(),
        thresholds: this.thresholds,
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
          prompts: plan.coldPrompts ? 'fresh' : this.exp.workload.reuse_prompts ? 'reused' : 'as-given',
        },
      },
      {
        env: this.deps.env,
        version: this.deps.version,
        signal: this.deps.signal,
        store: store ?? null,
        runKind: 'exp',
        experimentId: this.experimentId,
        record: (t.record as unknown as Record<string, unknown>) ?? undefined,
        log: this.deps.log,
        announce: (id) => `run ${id}: ${label}`,
        monitoring: {
          scrape: t.spec.metrics_url ? [t.spec.metrics_url] : 'auto',
          // Sweep levels last a second or two: read the counters often enough that a level's
          // server rate and hit rate are not spread over the idle time around it.
          scrapeIntervalMs: 250,
          metricsPort: null,
        },
      },
    );
    const runId = m.runId;
    const interrupted = m.result.interrupted || (this.deps.signal?.aborted ?? false);
    if (store && runId && t.record) {
      const prev = store.getRun(runId)?.record ?? {};
      store.updateRun(runId, {
        record: {
          ...prev,
          ...(runRecord(t.record, m.summary, m.result.records) as unknown as Record<string, unknown>),
        },
      });
    }
    // An interrupted run's numbers are partial: they stay in the store, but the kind stops here.
    if (interrupted) throw new ExperimentInterrupted(this.runs.length);
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
    this.runs.push(run);
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
   * Empty the target's prefix cache: vLLM's `POST /reset_prefix_cache`, then SGLang's
   * `POST /flush_cache` (as `cache.reset` allows); the in-process simulator answers the first,
   * as `servelab sim` does. Returns `unsupported` when neither endpoint exists.
   */
  async resetCache(t: LiveTarget): Promise<'reset' | 'unsupported' | 'skipped'> {
    const how = this.exp.cache.reset;
    if (how === 'none') return 'skipped';
    const paths =
      how === 'vllm'
        ? ['/reset_prefix_cache']
        : how === 'sglang'
          ? ['/flush_cache']
          : ['/reset_prefix_cache', '/flush_cache'];
    const root = serverRoot(t.baseUrl);
    const headers = targetHeaders(t.apiKey, t.headers);
    const dispatcher = t.live.dispatcher ?? undefined;
    const clock = t.live.virtual ? t.live.runClock() : new RealClock();
    const attempt = async (p: string): Promise<number | null> => {
      try {
        const res = await request(`${root}${p}`, {
          method: 'POST',
          headers,
          headersTimeout: 10_000,
          bodyTimeout: 10_000,
          dispatcher,
        });
        await res.body.text();
        return res.statusCode;
      } catch {
        return null;
      }
    };
    for (const p of paths) {
      // A busy engine refuses (409); requests of the previous run may still be releasing blocks.
      for (let i = 0; i < 5; i++) {
        const status = await t.live.settle(attempt(p));
        if (status !== null && status < 300) return 'reset';
        if (status !== 409) break;
        await t.live.settle(clock.sleepUntil(clock.now() + 50 * (i + 1), this.deps.signal));
      }
    }
    return 'unsupported';
  }

  /**
   * Apply `cache.policy: cold` before a run: reset every target, and refuse to compare a target
   * that could be reset with one that could not (a warm target against a cold one).
   */
  async ensureCold(targets: readonly LiveTarget[]): Promise<Record<string, string>> {
    const states: Record<string, string> = {};
    for (const t of targets) states[t.name] = await this.resetCache(t);
    const unsupported = targets.filter((t) => states[t.name] === 'unsupported');
    if (unsupported.length)
      throw new UsageError(
        unsupported.map((t) => ({
          path: `targets.${t.name}`,
          message:
            targets.length > unsupported.length
              ? 'this target has no cache reset endpoint (/reset_prefix_cache, /flush_cache) while the others were reset: comparing a warm target with a cold one is refused'
              : 'this target has no cache reset endpoint (/reset_prefix_cache, /flush_cache)',
          hint: 'restart the engine to empty its cache, then run with cache.reset: none',
        })),
      );
    return states;
  }
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

const MEASURED = 'probed: measured by servelab in this run';

/**
 * The target's record with this run's `metrics` (TTFT, E2E, TPOT, chunk gaps, the server's token
 * counts) and `quality` (requests, successes, truncations, errors) filled in.
 */
export function runRecord(
  base: ExperimentRecord,
  s: Summary,
  recs: readonly RequestRecord[],
): ExperimentRecord {
  const meanOf = (xs: (number | null | undefined)[]) =>
    mean(xs.filter((x): x is number => typeof x === 'number'));
  const pick = (k: 'ttft_ms' | 'e2e_ms' | 'tpot_ms' | 'itl_ms' | 'max_gap_ms') => ({
    p50: s[k].p50,
    p90: s[k].p90,
    p99: s[k].p99,
    mean: s[k].mean,
  });
  const withMetrics = setRecordField(
    base,
    'metrics',
    makeField({
      ttft_ms: [pick('ttft_ms'), MEASURED],
      e2e_ms: [pick('e2e_ms'), MEASURED],
      tpot_ms: [pick('tpot_ms'), MEASURED],
      itl_ms: [pick('itl_ms'), MEASURED],
      max_gap_ms: [pick('max_gap_ms'), MEASURED],
      output_throughput_tok_s: [s.output_throughput_tok_s, MEASURED],
      server_prompt_tokens_mean: [meanOf(recs.map((r) => r.usage?.prompt_tokens)), 'probed: usage'],
      server_completion_tokens_mean: [meanOf(recs.map((r) => r.usage?.completion_tokens)), 'probed: usage'],
      server_cached_tokens_mean: [meanOf(recs.map((r) => r.usage?.cached_tokens)), 'probed: usage'],
    }),
  );
  return setRecordField(
    withMetrics,
    'quality',
    makeField({
      samples: [s.requests.measured, MEASURED],
      successes: [s.requests.succeeded, MEASURED],
      truncations: [s.outcomes.length, MEASURED],
      errors: [s.requests.failed, MEASURED],
    }),
  );
}
