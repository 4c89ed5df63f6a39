/**
 * @module pipeline/settings
 * Validated settings for one measurement: load, workload, generation and output. The CLI
 * builds them from flags; experiments build them from files.
 */

import type { ApiEndpoint } from '../client/types.js';
import {
  fieldDefaults,
  type RUN_SETTINGS,
  type RunSettingKey,
  type WorkloadOptionFields,
} from '../config/run-settings.js';
import type { VllmMetric } from '../report/run/vllm.js';
import { drawSeed } from '../runtime/seed.js';
import type { LoadStage } from '../schedule/stages.js';

export interface LoadSettings {
  mode: 'closed' | 'open' | 'trace' | 'sessions';
  concurrency: number | null;
  requests: number | null;
  durationS: number | null;
  drainTimeoutS: number;
  rateRps: number | null;
  arrival: 'constant' | 'poisson' | 'gamma';
  burstiness: number;
  maxConcurrency: number | null;
  traceFile: string | null;
  traceSpeedup: number;
  /** `--trace-format` (null: detected from the file). */
  traceFormat: string | null;
  /** `--trace-window START:END`, seconds from the trace's first timestamp (endS null: to the end). */
  traceWindow: { startS: number; endS: number | null } | null;
  /** `--trace-rate-scale`: arrival rate × this (every gap ÷ it); multiplies with the speedup. */
  traceRateScale: number;
  /** `--trace-block-size` (Mooncake hash blocks; null: the format's, 512). */
  traceBlockSize: number | null;
  warmup: number;
  seed: number;
  /** Sessions mode (`--users`): the number of users, one session each; null otherwise. */
  users: number | null;
  /** `--turns`: turns per session, a distribution (`4`, `uniform:3-6`). */
  turns: string | null;
  /** `--think-time`: seconds from an answer to the next question, a distribution (`exp:10`). */
  thinkTime: string | null;
  /** `--ramp-up S`: users start evenly spread over S seconds (default 0: all at once). */
  rampUpS: number | null;
  /** `--session-rate R`: sessions start as Poisson arrivals at R per second (instead of a ramp). */
  sessionRateRps: number | null;
  /** `--stages` as given (null: no stages). */
  stagesText: string | null;
  /** `--stages` parsed (`schedule/stages`): an open loop of stages, each after the previous drained. */
  stages?: LoadStage[] | null;
  /** `--stage-pause`: seconds from a stage's drain to the next stage's start. */
  stagePauseS: number;
}

/** The workload's settings; those the workload builder reads as given are typed from their declarations. */
export interface WorkloadSettings extends WorkloadOptionFields {
  prompt: string | null;
  promptsFile: string | null;
  dataset: { kind: 'sharegpt'; path: string } | null;
  inputLen: string | null;
  outputLen: string | null;
  sharedPrefixLen: number | null;
  numPrefixGroups: number | null;
  /** The tokenizer to count prompts with, when it is not the model's (vLLM's --tokenizer). */
  tokenizer: string | null;
  /** `--documents D`: shared documents the sessions' turns start with (null: none). */
  documents: number | null;
  /** `--doc-len`: tokens per document, a distribution. */
  docLen: string | null;
  /** `--doc-popularity zipf:S`: how sessions pick their document (default zipf:1). */
  docPopularity: string | null;
}

export interface GenerationSettings {
  model: string | null;
  maxTokens: number | null;
  temperature: number;
  topP: number | null;
  stop: string[] | null;
  ignoreEos: boolean;
}

export interface OutputSettings {
  out: string | null;
  formatVllm: boolean;
  /** `vllm.json`'s percentile metrics and percentiles (null: vLLM's defaults) and per-request arrays. */
  vllm: {
    percentileMetrics: VllmMetric[] | null;
    metricPercentiles: number[] | null;
    detailed: boolean;
    /** Where to write it (null: `vllm.json` in `out`); `append`: add one JSON line (SGLang's --output-file). */
    file: string | null;
    append: boolean;
  };
  embedRecords: boolean;
  /** `true` = stdout, a string = file, null = off. */
  json: string | true | null;
  slo: string | null;
  thresholds: string[];
  baseline: string | null;
}

/** Everything `run` and `plan` share. */
export interface CommonSettings {
  load: LoadSettings;
  workload: WorkloadSettings;
  generation: GenerationSettings;
  output: OutputSettings;
}

type FieldPaths<O, P extends string = ''> = {
  [K in keyof O & string]: NonNullable<O[K]> extends readonly unknown[]
    ? `${P}${K}`
    : NonNullable<O[K]> extends object
      ? `${P}${K}` | FieldPaths<NonNullable<O[K]>, `${P}${K}.`>
      : `${P}${K}`;
}[keyof O & string];
/** The `CommonSettings` field each run setting declares it fills (`config/run-settings`). */
type DeclaredField = {
  [K in RunSettingKey]: (typeof RUN_SETTINGS)[K] extends { field: infer F } ? F : never;
}[RunSettingKey];
/** Checked when this compiles: every field a run setting declares is a field of {@link CommonSettings}. */
export const DECLARED_FIELDS_EXIST: [DeclaredField] extends [FieldPaths<CommonSettings>] ? true : never =
  true;

/**
 * Settings with every field at its CLI default, overridden section by section. The defaults of
 * the fields a run setting fills are its declared ones (`config/run-settings`); the rest are
 * what the command line makes of no flags.
 */
export function commonSettings(
  o: {
    load?: Partial<LoadSettings>;
    workload?: Partial<WorkloadSettings>;
    generation?: Partial<GenerationSettings>;
    output?: Partial<OutputSettings>;
  } = {},
): CommonSettings {
  return {
    load: {
      ...fieldDefaults<LoadSettings>('load'),
      mode: 'closed',
      concurrency: 1,
      requests: 100,
      // As the command line: a seed of its own unless one is given (`config/run-settings` seed).
      seed: drawSeed(),
      ...o.load,
    },
    workload: { ...fieldDefaults<WorkloadSettings>('workload'), ...o.workload },
    generation: { ...fieldDefaults<GenerationSettings>('generation'), ...o.generation },
    output: {
      ...fieldDefaults<OutputSettings>('output'),
      formatVllm: false,
      vllm: { percentileMetrics: null, metricPercentiles: null, detailed: false, file: null, append: false },
      ...o.output,
    },
  };
}

/** Where and how requests are sent: the target of a measurement. */
export interface TargetSettings {
  /** Base URL ending in /v1. */
  url: string;
  endpoint: ApiEndpoint;
  stream: boolean;
  /** Extra request headers (may hold secrets; redacted wherever stored). */
  headers: Record<string, string>;
  /** Name of the environment variable holding the API key. */
  apiKeyEnv: string;
  extraBody: Record<string, unknown> | null;
  timeoutS: number | null;
  timeoutTtftS: number | null;
  retries: number;
  /** Stop early when the first requests all fail the same unfixable way (default true; `--no-fail-fast`). */
  failFast?: boolean;
  /** vLLM's `--backend` name, when given (vllm.json's `backend`); null: derived from `endpoint`. */
  backend?: string | null;
  /** The header that carries a session turn's session id (`--session-header`; default x-session-id). */
  sessionHeader?: string | null;
}

/** An HTTP target with defaults: chat, streaming, no extra headers, key from INFERENCE_API_KEY. */
export function targetSettings(url: string, o: Partial<TargetSettings> = {}) {
  return {
    url,
    endpoint: 'chat' as const,
    stream: true,
    headers: {},
    apiKeyEnv: 'INFERENCE_API_KEY',
    extraBody: null,
    timeoutS: null,
    timeoutTtftS: null,
    retries: 0,
    sessionHeader: 'x-session-id',
    ...o,
  };
}
