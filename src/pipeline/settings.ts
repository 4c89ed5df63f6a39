/**
 * @module pipeline/settings
 * Validated settings for one measurement: load, workload, generation and output. The CLI
 * builds them from flags; experiments build them from files.
 */

export interface LoadSettings {
  mode: 'closed' | 'open' | 'trace';
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
  warmup: number;
  seed: number;
}

export interface WorkloadSettings {
  prompt: string | null;
  promptsFile: string | null;
  dataset: { kind: 'sharegpt'; path: string } | null;
  inputLen: string | null;
  outputLen: string | null;
  sharedPrefixLen: number | null;
  numPrefixGroups: number | null;
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
