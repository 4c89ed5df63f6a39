/**
 * @module exp/kinds/context
 * What every experiment kind runs on: the live targets (a URL, a simulator servelab started
 * behind HTTP, or the simulator's engine on a virtual clock), one measurement on a target
 * ({@link ExpContext.measure}: the same client, runner and `summarize` as `servelab run` over
 * HTTP, or `simulateDetailed` in virtual time, both giving {@link RequestRecord}s and a
 * {@link Summary} of the same shape), recording each run into the store, and the prefix-cache
 * controls (reset, hit counters from `/metrics`).
 *
 * Times: over HTTP, record times are client wall-clock ms (a sim with `time_scale: X` runs X
 * times faster, so they are engine ms / X); on a virtual clock they are engine ms. Open-loop
 * schedules (rates, spacings) are in simulated time: for a sim at `time_scale: X` the arrival
 * offsets are divided by X, so the engine sees the same load whatever the scale.
 */
import { request } from 'undici';
import {
  evaluateThresholds,
  parseThresholds,
  type Summary,
  summarize,
  type Threshold,
  type ThresholdResult,
} from '../../analysis/index.js';
import type { Slo } from '../../analysis/slo.js';
import { createHttpTarget, redactUrl } from '../../client/index.js';
import type { Endpoint } from '../../client/types.js';
import { UsageError } from '../../core/errors.js';
import { parsePrometheusText } from '../../monitor/prom-parse.js';
import { defaultMetricsUrl } from '../../monitor/scraper.js';
import type { RequestRecord } from '../../record/types.js';
import type { RunObserver } from '../../runner/events.js';
import { type LoadMode, runLoad } from '../../runner/load.js';
import { RealClock } from '../../runtime/clock.js';
import { type EngineConfig, resolveEngineConfig } from '../../sim/engine/index.js';
import {
  type PlanRequest,
  type PlanResult,
  planRequestFromSpec,
  type ServerTimes,
  simulateDetailed,
} from '../../sim/plan.js';
import {
  resolveServerOptions,
  type SimServer,
  type SimServerOptions,
  startSimServer,
} from '../../sim/server/index.js';
import { toSimServerOptions, withSimDefaults } from '../../sim/settings.js';
import type { Store } from '../../store/index.js';
import { type Tokenizer, tokenizerFor } from '../../tokenizer/index.js';
import { buildWorkload } from '../../workload/index.js';
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
}

/** A target, started and ready. */
export interface LiveTarget {
  name: string;
  spec: TargetSpec;
  mode: 'http' | 'virtual';
  /** Served model id (HTTP) or the catalogue model (virtual). */
  model: string;
  endpoint: Endpoint;
  /** Top-level generation with this target's overrides. */
  generation: Generation;
  /** Merged into each request body: target extra_body, thinking, seed. */
  extraBody: Record<string, unknown>;
  /** Base URL ending in /v1 (HTTP only). */
  baseUrl: string | null;
  headers: Record<string, string>;
  /** The API key from the environment; never logged or stored. */
  apiKey?: string;
  /** The simulator servelab started (real-time sim targets). */
  sim: SimServer | null;
  /** Simulator options as the server takes them (sim targets). */
  simOptions: SimServerOptions | null;
  /** Engine configuration and tokenizer (virtual targets). */
  engine: EngineConfig | null;
  tokenizer: Tokenizer | null;
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
    | { kind: 'open'; arrivalsMs: number[]; maxConcurrency?: number | null };
  warmup?: number;
  warmupSpecs?: RequestSpec[];
  /**
   * Virtual targets only: requests replayed (as warm-up, one at a time) on the fresh engine
   * before the measured ones, to rebuild the engine state (prefix cache) that earlier runs left
   * on a long-lived server.
   */
  history?: RequestSpec[];
  /**
   * Called before each measured request, which is then sent alone (one at a time): e.g. a cache
   * reset per request. On a virtual target each request runs on a fresh engine instead.
   */
  beforeEach?: () => Promise<void>;
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
}

/** One measurement's data for the kind to compute with. */
export interface Measured {
  run: RunInfo;
  records: RequestRecord[];
  summary: Summary;
  /** Engine-side times per record (virtual targets only), parallel to `records`. */
  server: ServerTimes[] | null;
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

  constructor(
    readonly exp: ExperimentFile,
    readonly deps: ExpDeps,
    readonly experimentId: string | null,
  ) {
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
      endpoint: (t.endpoint ?? this.exp.endpoint) as Endpoint,
      generation: gen,
      extraBody: bodyExtras(gen, t),
      baseUrl: null,
      headers: { ...(t.headers ?? {}) },
      sim: null,
      simOptions: null,
      engine: null,
      tokenizer: null,
      record: null,
    };
    const host = hostInfo();
    if (t.sim) {
      const opts = simServerOptions(t.sim);
      base.simOptions = opts;
      if (t.sim.clock === 'virtual') {
        const { engine } = resolveServerOptions(opts);
        base.mode = 'virtual';
        base.engine = resolveEngineConfig(engine);
        base.model = base.engine.model.name;
        base.tokenizer = await tokenizerFor(base.model);
        base.record = buildExperimentRecord({
          spec: this.exp,
          targetName: name,
          host,
          tokenizer: { name: base.model, method: 'tokenizer' },
        });
        this.deps.log(`target ${name}: simulator ${t.sim.model} on ${t.sim.gpu} (virtual clock)`);
        return base;
      }
      const sim = await startSimServer(opts);
      base.sim = sim;
      base.baseUrl = `${sim.url}/v1`;
      base.model = sim.modelId;
      this.deps.log(
        `target ${name}: simulator ${t.sim.model} on ${t.sim.gpu} at ${sim.url} (time scale ${opts.timeScale})`,
      );
    } else {
      base.baseUrl = t.url as string;
      base.model = t.model ?? this.exp.model ?? '';
      if (t.api_key_env) base.apiKey = this.deps.env[t.api_key_env] || undefined;
    }
    const probe = await probeTarget(base.baseUrl as string, { apiKey: base.apiKey, headers: base.headers });
    if (!probe.reachable)
      throw new UsageError([
        {
          path: `targets.${name}`,
          message: `cannot reach ${serverRoot(base.baseUrl as string)}`,
          hint: 'is the server running? the url should end in /v1',
        },
      ]);
    const local = !t.sim && (t.local ?? isLocalUrl(base.baseUrl as string));
    const gpu = local ? await probeGpu(nodeExec()) : null;
    base.record = buildExperimentRecord({ spec: this.exp, targetName: name, probe, gpu, host });
    if (!t.sim)
      this.deps.log(
        `target ${name}: ${redactUrl(base.baseUrl as string)} (${probe.engine}${probe.engine_version ? ` ${probe.engine_version}` : ''})`,
      );
    return base;
  }

  /** How much faster than real time the target runs: `time_scale` of a real-time sim, else 1. */
  timeScale(t: LiveTarget): number {
    return t.sim ? (t.simOptions?.timeScale ?? 1) : 1;
  }

  /** Stop the simulators this experiment started. */
  async close(): Promise<void> {
    await Promise.all(this.targets.map((t) => t.sim?.close()));
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

  /** Measured requests for one level of a sweep: `load.requests`, else `max(16, 4 × concurrency)`. */
  requestsFor(concurrency: number): number {
    return this.exp.load.requests ?? Math.max(16, 4 * concurrency);
  }

  /**
   * Run one measurement on a target and record it (store run, records, summary); prints the
   * run id as it starts. With `repeats: N`, the measurement runs N times (N store runs, labelled
   * `rep=k/N`) and the kind gets them pooled: records laid end to end on one timeline, so the
   * pooled summary has every request's latency and the mean throughput over the repeats.
   */
  async measure(t: LiveTarget, plan: RunPlan): Promise<Measured> {
    const n = this.exp.repeats;
    if (n <= 1) return this.measureOnce(t, plan, plan.label);
    const parts: Measured[] = [];
    for (let k = 1; k <= n; k++) parts.push(await this.measureOnce(t, plan, `${plan.label} rep=${k}/${n}`));
    const records: RequestRecord[] = [];
    const server: ServerTimes[] = [];
    let offset = 0;
    for (const p of parts) {
      const recs = p.records.map((r) => shiftRecord(r, offset));
      records.push(...recs);
      if (p.server) server.push(...p.server.map((x) => ({ ...x, arrival_ms: x.arrival_ms + offset })));
      let end = offset;
      for (const r of recs) end = Math.max(end, r.end_at_ms ?? r.last_token_at_ms ?? r.sent_at_ms ?? end);
      offset = end;
    }
    const maxConc = plan.load.kind === 'closed' ? plan.load.concurrency : (plan.load.maxConcurrency ?? null);
    const summary = summarize(records, { max_concurrency: maxConc, slo: this.goodputSlo() });
    const run: RunInfo = {
      run_id: parts[0].run.run_id,
      target: t.name,
      label: plan.label,
      level: plan.level,
      summary,
      thresholds: this.thresholds.length ? evaluateThresholds(summary, this.thresholds) : [],
    };
    return { run, records, summary, server: parts.every((p) => p.server) ? server : null };
  }

  private async measureOnce(t: LiveTarget, plan: RunPlan, planLabel: string): Promise<Measured> {
    if (this.deps.signal?.aborted) throw new ExperimentInterrupted(this.runs.length);
    const store = this.deps.store;
    const label = `${t.name} ${planLabel}`;
    const row = store?.createRun({
      kind: 'exp',
      experimentId: this.experimentId,
      label,
      config: {
        target: t.name,
        mode: t.mode,
        model: t.model,
        level: plan.level,
        requests: plan.specs.length,
        load:
          plan.load.kind === 'closed' ? plan.load : { kind: 'open', requests: plan.load.arrivalsMs.length },
        generation: t.generation,
      },
      record: (t.record as unknown as Record<string, unknown>) ?? null,
    });
    this.deps.log(`run ${row?.id ?? '-'}: ${label}`);
    const runId = row?.id ?? null;
    try {
      const m =
        t.mode === 'virtual' ? this.measureVirtual(t, plan, runId) : await this.measureHttp(t, plan, runId);
      const interrupted = this.deps.signal?.aborted ?? false;
      if (store && runId && t.record)
        store.updateRun(runId, {
          record: runRecord(t.record, m.summary, m.records) as unknown as Record<string, unknown>,
        });
      if (store && runId)
        store.finishRun(
          runId,
          m.summary as unknown as Record<string, unknown>,
          interrupted ? 'interrupted' : 'completed',
        );
      // An interrupted run's numbers are partial: they stay in the store, but the kind stops here.
      if (interrupted) throw new ExperimentInterrupted(this.runs.length);
      const run: RunInfo = {
        run_id: runId,
        target: t.name,
        label: planLabel,
        level: plan.level,
        summary: m.summary,
        thresholds: this.thresholds.length ? evaluateThresholds(m.summary, this.thresholds) : [],
      };
      this.runs.push(run);
      return { ...m, run };
    } catch (e) {
      if (store && runId && !(e instanceof ExperimentInterrupted))
        store.finishRun(runId, null, this.deps.signal?.aborted ? 'interrupted' : 'failed');
      throw e;
    }
  }

  private async measureHttp(
    t: LiveTarget,
    plan: RunPlan,
    runId: string | null,
  ): Promise<Omit<Measured, 'run'>> {
    const clock = new RealClock();
    const gen = t.generation;
    const client = createHttpTarget({
      baseUrl: t.baseUrl as string,
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
      timeoutMs: this.exp.load.timeout_s !== undefined ? this.exp.load.timeout_s * 1000 : null,
      timeoutTtftMs: this.exp.load.timeout_ttft_s !== undefined ? this.exp.load.timeout_ttft_s * 1000 : null,
      clock,
    });
    const observers: RunObserver[] = [];
    if (this.deps.store && runId) observers.push(this.deps.store.observer(runId));
    // A simulator running X times faster than real time gets its arrivals X times closer, so
    // that the engine sees the same schedule (in simulated ms) as on a virtual clock.
    const scale = this.timeScale(t);
    const load: LoadMode =
      plan.load.kind === 'closed'
        ? { kind: 'closed', concurrency: plan.load.concurrency, requests: plan.specs.length }
        : {
            kind: 'open',
            arrivalsMs: plan.load.arrivalsMs.map((x) => x / scale),
            maxConcurrency: plan.load.maxConcurrency ?? null,
          };
    const run = (specs: RequestSpec[], l: LoadMode, warmup: number) =>
      runLoad(
        { load: l, specs, warmup, warmupSpecs: plan.warmupSpecs, runPrefix: `x${this.seq++}` },
        { target: client, clock, observers, signal: this.deps.signal },
      );
    const all: RequestRecord[] = [];
    let window = { start_ms: 0, end_ms: 0 };
    let health: Awaited<ReturnType<typeof runLoad>>['client_health'] | null = null;
    try {
      if (plan.beforeEach) {
        // One request per runner call, each after the hook, on one clock (one timeline).
        for (let i = 0; i < plan.specs.length; i++) {
          await plan.beforeEach();
          const r = await run(
            [plan.specs[i]],
            { kind: 'closed', concurrency: 1, requests: 1 },
            i === 0 ? (plan.warmup ?? 0) : 0,
          );
          for (const rec of r.records) all.push({ ...rec, index: plan.specs[i].index });
          window = i === 0 ? r.window : { start_ms: window.start_ms, end_ms: r.window.end_ms };
          health = r.client_health;
          if (r.interrupted) break;
        }
      } else {
        const r = await run(plan.specs, load, plan.warmup ?? 0);
        all.push(...r.records);
        window = r.window;
        health = r.client_health;
      }
    } finally {
      await client.close();
    }
    const summary = summarize(all, {
      window,
      client: health,
      slo: this.goodputSlo(),
      target_rate_rps: null,
      max_concurrency:
        plan.load.kind === 'closed' ? plan.load.concurrency : (plan.load.maxConcurrency ?? null),
    });
    // Records in request (spec) order, so kinds can pair them with their specs.
    const records = all
      .filter((r) => r.phase === 'measure')
      .sort((a, b) => a.index - b.index || a.attempt - b.attempt);
    return { records, summary, server: null };
  }

  /** Requests as the simulator would see them (same chat template, lengths and seeds). */
  planRequests(
    t: LiveTarget,
    specs: readonly RequestSpec[],
    prefix: string,
    phase: 'warmup' | 'measure',
  ): PlanRequest[] {
    const gen = t.generation;
    return specs.map((s, i) => {
      try {
        return planRequestFromSpec(
          s,
          t.tokenizer as Tokenizer,
          t.engine as EngineConfig,
          `${prefix}-${phase[0]}${i}`,
          {
            endpoint: t.endpoint,
            phase,
            defaultMaxTokens: gen.max_tokens ?? null,
            ignoreEos: gen.ignore_eos ?? false,
            seed: gen.seed ?? null,
            temperature: gen.temperature ?? 0,
            serverSeed: t.simOptions?.seed ?? 0,
          },
        );
      } catch (e) {
        throw new UsageError([
          {
            path: `targets.${t.name}`,
            message: (e as Error).message,
            hint: 'shorten the input/output lengths or raise sim.max_model_len',
          },
        ]);
      }
    });
  }

  private measureVirtual(t: LiveTarget, plan: RunPlan, runId: string | null): Omit<Measured, 'run'> {
    const prefix = `v${this.seq++}`;
    const cfg = t.engine as EngineConfig;
    const maxConc = plan.load.kind === 'closed' ? plan.load.concurrency : (plan.load.maxConcurrency ?? null);
    let records: RequestRecord[];
    let server: ServerTimes[];
    if (plan.beforeEach) {
      // Each request on a fresh engine (an empty cache), laid end to end on one timeline.
      records = [];
      server = [];
      let offset = 0;
      plan.specs.forEach((spec, i) => {
        const res = simulateDetailed(cfg, this.planRequests(t, [spec], `${prefix}-${i}`, 'measure'), {
          kind: 'closed',
          concurrency: 1,
        });
        records.push(shiftRecord(res.records[0], offset));
        server.push({ ...res.server[0], arrival_ms: res.server[0].arrival_ms + offset });
        offset += res.durationMs;
      });
    } else {
      // A simulated engine has nothing to warm but its prefix cache (no JIT, no sockets): warm-up
      // requests only run under `cache.policy: warm`, where they fill the cache.
      const warmup = this.exp.cache.policy === 'warm' ? (plan.warmup ?? 0) : 0;
      const warm = plan.history ?? (warmup ? (plan.warmupSpecs ?? plan.specs) : []);
      const nWarm = plan.history ? plan.history.length : warmup;
      const warmSpecs = Array.from({ length: nWarm }, (_, i) => warm[i % warm.length]);
      const reqs = [
        ...this.planRequests(t, warmSpecs, prefix, 'warmup'),
        ...this.planRequests(t, plan.specs, prefix, 'measure'),
      ];
      // History is replayed one request at a time, as it happened; then the measured load.
      let res: PlanResult;
      if (plan.history && nWarm > 0 && !(plan.load.kind === 'closed' && plan.load.concurrency === 1))
        throw new Error('history replay needs a closed loop at concurrency 1');
      if (plan.load.kind === 'closed')
        res = simulateDetailed(cfg, reqs, { kind: 'closed', concurrency: plan.load.concurrency });
      else
        res = simulateDetailed(cfg, reqs, {
          kind: 'open',
          // Warm-up requests go first, all at t = 0, ahead of the schedule.
          arrivalsMs: [...new Array<number>(nWarm).fill(0), ...plan.load.arrivalsMs],
          maxConcurrency: plan.load.maxConcurrency ?? undefined,
        });
      records = res.records;
      server = res.server;
      if (this.deps.store && runId)
        for (const r of records.slice(0, nWarm)) this.deps.store.appendRecord(runId, r);
      records = records.slice(nWarm);
      server = server.slice(nWarm);
    }
    if (this.deps.store && runId) for (const r of records) this.deps.store.appendRecord(runId, r);
    const summary = summarize(records, { max_concurrency: maxConc, slo: this.goodputSlo() });
    return { records, summary, server };
  }

  /**
   * Empty the target's prefix cache: vLLM's `POST /reset_prefix_cache`, then SGLang's
   * `POST /flush_cache` (as `cache.reset` allows). Returns `virtual` for a virtual target (each
   * run starts on a fresh engine), `unsupported` when neither endpoint exists.
   */
  async resetCache(t: LiveTarget): Promise<'reset' | 'unsupported' | 'virtual' | 'skipped'> {
    if (t.mode === 'virtual') return 'virtual';
    const how = this.exp.cache.reset;
    if (how === 'none') return 'skipped';
    const paths =
      how === 'vllm'
        ? ['/reset_prefix_cache']
        : how === 'sglang'
          ? ['/flush_cache']
          : ['/reset_prefix_cache', '/flush_cache'];
    const root = serverRoot(t.baseUrl as string);
    const headers: Record<string, string> = { ...t.headers };
    if (t.apiKey) headers.authorization = `Bearer ${t.apiKey}`;
    for (const p of paths) {
      // A busy engine refuses (409); requests of the previous run may still be releasing blocks.
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          const res = await request(`${root}${p}`, {
            method: 'POST',
            headers,
            headersTimeout: 10_000,
            bodyTimeout: 10_000,
          });
          await res.body.text();
          if (res.statusCode < 300) return 'reset';
          if (res.statusCode !== 409) break;
        } catch {
          break;
        }
        const clock = new RealClock();
        await clock.sleepUntil(clock.now() + 50 * (attempt + 1), this.deps.signal);
      }
    }
    return 'unsupported';
  }

  /**
   * The engine's cumulative prefix-cache counters from `/metrics` (vLLM's
   * `vllm:prefix_cache_hits_total` / `_queries_total`, in tokens); null when not exposed.
   */
  async prefixCounters(t: LiveTarget): Promise<{ hits_tokens: number; queries_tokens: number } | null> {
    if (t.mode === 'virtual') return null;
    const url = t.spec.metrics_url ?? defaultMetricsUrl(t.baseUrl as string);
    try {
      const res = await request(url, { method: 'GET', headersTimeout: 5000, bodyTimeout: 5000 });
      const text = await res.body.text();
      if (res.statusCode !== 200) return null;
      const parsed = parsePrometheusText(text);
      const sum = (name: string): number | null => {
        let total: number | null = null;
        for (const s of parsed.samples)
          if (s.name === name || s.name === `${name}_total`) total = (total ?? 0) + s.value;
        return total;
      };
      const hits = sum('vllm:prefix_cache_hits') ?? sum('vllm:gpu_prefix_cache_hits');
      const queries = sum('vllm:prefix_cache_queries') ?? sum('vllm:gpu_prefix_cache_queries');
      return hits === null || queries === null ? null : { hits_tokens: hits, queries_tokens: queries };
    } catch {
      return null;
    }
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

/** A record moved `offsetMs` later on the timeline (every time field). */
function shiftRecord(r: RequestRecord, offsetMs: number): RequestRecord {
  const sh = (v: number | null) => (v === null ? null : v + offsetMs);
  return {
    ...r,
    planned_at_ms: sh(r.planned_at_ms),
    sent_at_ms: sh(r.sent_at_ms),
    headers_at_ms: sh(r.headers_at_ms),
    first_chunk_at_ms: sh(r.first_chunk_at_ms),
    first_token_at_ms: sh(r.first_token_at_ms),
    first_reasoning_at_ms: sh(r.first_reasoning_at_ms),
    first_content_at_ms: sh(r.first_content_at_ms),
    last_token_at_ms: sh(r.last_token_at_ms),
    last_content_at_ms: sh(r.last_content_at_ms),
    end_at_ms: sh(r.end_at_ms),
    chunk_times_ms: r.chunk_times_ms.map((t) => t + offsetMs),
  };
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
  const mean = (xs: (number | null | undefined)[]) => {
    const v = xs.filter((x): x is number => typeof x === 'number');
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
  };
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
      server_prompt_tokens_mean: [mean(recs.map((r) => r.usage?.prompt_tokens)), 'probed: usage'],
      server_completion_tokens_mean: [mean(recs.map((r) => r.usage?.completion_tokens)), 'probed: usage'],
      server_cached_tokens_mean: [mean(recs.map((r) => r.usage?.cached_tokens)), 'probed: usage'],
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
