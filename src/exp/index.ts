/**
 * @module exp
 * Public surface of the experiment file format, its templates and the experiment record.
 * (Running the experiment kinds lives with their executors.)
 */

export type {
  EngineName,
  Exec,
  ExecResult,
  ExperimentRecord,
  FieldSource,
  GpuInfo,
  GpuProbe,
  HostInfo,
  ProbedModel,
  ProbeOptions,
  ProbeResult,
  RecordField,
  RecordFieldName,
  RecordInput,
} from './record.js';
export {
  buildExperimentRecord,
  hostInfo,
  isLocalUrl,
  makeField,
  nodeExec,
  probeGpu,
  probeTarget,
  RECORD_FIELDS,
  servelabVersion,
  serverRoot,
  setRecordField,
} from './record.js';
export {
  ExperimentInterrupted,
  type ExperimentResult,
  formatExperimentResult,
  runExperiment,
} from './run.js';
export type {
  Declared,
  ExperimentFile,
  ExperimentKind,
  Generation,
  Load,
  SimOptions,
  TargetSpec,
  Workload,
} from './schema.js';
export {
  AB_METRICS,
  applyKindDefaults,
  DEFAULT_AB_ALPHA,
  DEFAULT_AB_MIN_EFFECT_PCT,
  DEFAULT_AB_RESAMPLES,
  DEFAULT_CAPACITY_FRACTIONS,
  DEFAULT_MATRIX_CELLS,
  DEFAULT_MATRIX_CONCURRENCY,
  DEFAULT_STOP_E2E_P99_FACTOR,
  DEFAULT_STOP_ERROR_RATE,
  DEFAULT_STOP_TTFT_P99_FACTOR,
  DEFAULT_SWEEP_CONCURRENCY,
  EXPERIMENT_KINDS,
  experimentSchema,
  formatPath,
  KIND_SECTIONS,
  loadExperimentFile,
  MIXED_INPUT_ORDERS,
  PREFIX_CACHE_PHASES,
  parseExperiment,
  readExperimentFile,
  SIM_FAULTS,
  SIM_GPUS,
  SIM_MODELS,
  switchesBetween,
  targetNames,
} from './schema.js';
export { experimentTemplate } from './templates.js';
