/**
 * @module exp/kinds/context
 * What an experiment kind runs on, as types: {@link KindContext}, the narrow context a kind's
 * `run` receives (its own file with its section defaulted, the live targets, workloads, one
 * measurement on a target, the prefix-cache controls), and the shapes it speaks in (a target, a
 * run plan, a finished run). The implementation behind it lives in `exp/harness/`; this module
 * imports neither it nor any kind, so the kinds, the registry and the harness all stand on it.
 *
 * Times: over HTTP, record times are client wall-clock ms (a sim with `time_scale: X` runs X
 * times faster, so they are engine ms / X); on a virtual clock they are engine ms. Open-loop
 * schedules (rates, spacings) are in simulated time: for a sim at `time_scale: X` the arrival
 * offsets are divided by X, so the engine sees the same load whatever the scale.
 */

import type { ValidityReason } from '../../analysis/diagnose/types.js';
import type { Summary, ThresholdResult } from '../../analysis/index.js';
import type { SeriesPoint } from '../../analysis/loaded-run.js';
import type { SessionsSummary } from '../../analysis/sessions.js';
import type { CacheResetOutcome } from '../../client/engine-api.js';
import type { ApiEndpoint } from '../../client/types.js';
import type { T } from '../../i18n/index.js';
import type { EngineEndpoint } from '../../pipeline/endpoint.js';
import type { RequestRecord } from '../../record/types.js';
import type { LoadMode } from '../../runner/load.js';
import type { SimServer, SimServerOptions } from '../../sim/server/index.js';
import type { Store } from '../../store/index.js';
import type { IntendedSharing, Workload } from '../../workload/index.js';
import type { RequestSpec } from '../../workload/types.js';
import type { ExperimentRecord } from '../experiment-record.js';
import type { Generation, SharedFile, TargetSpec } from '../fields.js';

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
  live: EngineEndpoint;
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
    | {
        kind: 'open';
        arrivalsMs: number[];
        maxConcurrency?: number | null;
        /** Load stages (`schedule/stages` `stagedSchedule`): each stage after the previous drained. */
        stages?: { counts: number[]; pauseMs: number } | null;
      }
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
  /**
   * How often the server's `/metrics` is read during the run (ms; default 250, for sweep levels
   * that last a second or two). A sessions run of minutes needs fewer readings.
   */
  scrapeIntervalMs?: number;
}

/** A sessions load as the runner takes it. */
export type SessionsLoad = Extract<LoadMode, { kind: 'sessions' }>;

/**
 * A sessions load ({@link KindContext.sessions}) and the prefix sharing its workload intends (for
 * the run's sessions block). Times in simulated ms, as an open loop's arrivals.
 */
export type SessionsPlan = SessionsLoad & { intended?: IntendedSharing | null };

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

/** What a kind asks of {@link KindContext.workload}. */
export interface KindWorkloadOptions {
  count: number;
  inputLen?: string;
  outputLen?: string;
  seed?: number;
  /** Ignore the workload's dataset/shared-prefix settings (kinds that make their own prompts). */
  plain?: boolean;
}

/** One level's prompts ({@link KindContext.levelWorkload}). */
export interface LevelWorkload {
  specs: RequestSpec[];
  warmupSpecs: RequestSpec[] | undefined;
  coldPrompts: boolean;
}

/** A run a kind measured on its own path, with what the store keeps of it ({@link KindContext.addRun}). */
export interface StoredRun {
  records: readonly RequestRecord[];
  startedAtUnixMs: number;
  config: Record<string, unknown>;
}

/** What a cache reset did: `skipped` when the file says `cache.reset: none`. */
export type CacheReset = CacheResetOutcome;

/**
 * What a kind's `run` works with. `F` is the kind's own file: the shared fields and its own
 * section with its defaults filled in (`applyKindDefaults`), and no other kind's section. Runs
 * reach the store only through {@link measure} and {@link addRun}.
 */
export interface KindContext<F extends SharedFile = SharedFile> {
  /** The kind's file, its section defaulted. */
  readonly exp: F;
  /** The run's environment, progress log, signal and language (`t`: unset means English). */
  readonly deps: Pick<ExpDeps, 'env' | 'log' | 'signal' | 't'>;
  /** The translator of the progress lines. */
  readonly tr: T;
  /** The targets, started, in file order. */
  readonly targets: readonly LiveTarget[];
  /** Warnings printed under the result; a kind may add its own. */
  readonly warnings: string[];
  /** The target named `name`. */
  target(name: string): LiveTarget;
  /** How much faster than real time the target runs: `time_scale` of a real-time sim, else 1. */
  timeScale(t: LiveTarget): number;
  /**
   * Build `count` synthetic requests (or dataset prompts) with the experiment's seed; every
   * target gets the same ones. Lengths are token-exact with the first target's tokenizer.
   */
  workload(opts: KindWorkloadOptions): Promise<RequestSpec[]>;
  /**
   * The prompts of one level of a sweep or matrix and its warm-up prompts: fresh for every level
   * unless the file asks for `workload.reuse_prompts` (see `exp/harness/workloads`).
   */
  levelWorkload(
    level: Record<string, number | string>,
    opts: Omit<KindWorkloadOptions, 'seed'>,
  ): Promise<LevelWorkload>;
  /**
   * A sessions load of `users` users from the file's `load` and `workload`: the workload (its
   * turns as `specs`) and the load to measure it with. A plan made of them goes to
   * {@link measure} like any other.
   */
  sessions(
    users: number,
    opts?: { seed?: number; documentSeed?: number },
  ): Promise<{ workload: Workload; load: SessionsLoad }>;
  /** Measured requests for one level of a sweep: `load.requests`, else `max(16, 4 × concurrency)`. */
  requestsFor(concurrency: number): number;
  /**
   * Run one measurement on a target and record it (store run, records, series, summary,
   * verdict); with `repeats: N`, N measurements pooled (see `exp/harness/measure`).
   */
  measure(t: LiveTarget, plan: RunPlan): Promise<Measured>;
  /**
   * Keep a run that a kind measured on its own path (the voice kind's LLM legs), its summary
   * checked against the file's thresholds; with `stored`, it is kept in the store too.
   */
  addRun(r: Omit<RunInfo, 'thresholds'>, stored?: StoredRun): RunInfo;
  /** Empty the target's prefix cache (as `cache.reset` allows). */
  resetCache(t: LiveTarget): Promise<CacheReset>;
  /**
   * Apply `cache.policy: cold` before a run: reset every target, and refuse to compare a target
   * that could be reset with one that could not.
   */
  ensureCold(targets: readonly LiveTarget[]): Promise<Record<string, string>>;
}
