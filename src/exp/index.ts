/**
 * @module exp
 * Public surface of the experiment file format, its templates and the experiment record.
 * (Running the experiment kinds lives with their executors.)
 */

export type {
  Exec,
  ExecResult,
  ExperimentRecord,
  ExperimentRecordField,
  ExperimentRecordFieldName,
  ExperimentRecordInput,
  FieldSource,
  GpuProbe,
  HostInfo,
  ProbedGpu,
} from './experiment-record.js';
export {
  buildExperimentRecord,
  EXPERIMENT_RECORD_FIELDS,
  hostInfo,
  makeField,
  nodeExec,
  probeGpu,
  servelabVersion,
  setRecordField,
} from './experiment-record.js';
export {
  AB_METRICS,
  DEFAULT_AB_ALPHA,
  DEFAULT_AB_MIN_EFFECT_PCT,
  DEFAULT_AB_RESAMPLES,
  switchesBetween,
} from './kinds/ab.js';
export { EXPERIMENT_KINDS, type ExperimentKindModule, KINDS } from './kinds/index.js';
export { DEFAULT_MATRIX_CELLS, DEFAULT_MATRIX_CONCURRENCY } from './kinds/matrix.js';
export { MIXED_INPUT_ORDERS } from './kinds/mixed-input.js';
export { PREFIX_CACHE_PHASES } from './kinds/prefix-cache.js';
export {
  DEFAULT_CAPACITY_FRACTIONS,
  DEFAULT_STOP_E2E_P99_FACTOR,
  DEFAULT_STOP_ERROR_RATE,
  DEFAULT_STOP_TTFT_P99_FACTOR,
  DEFAULT_SWEEP_CONCURRENCY,
} from './kinds/sweep.js';
export { LESSON_NAMES } from './lesson-names.js';
export {
  ExperimentInterrupted,
  type ExperimentResult,
  formatExperimentResult,
  runExperiment,
} from './run-experiment.js';
export type {
  Declared,
  ExperimentFile,
  ExperimentKind,
  Generation,
  Load,
  SimOptions,
  TargetSpec,
  WorkloadSection,
} from './schema.js';
export {
  applyKindDefaults,
  experimentSchema,
  formatPath,
  KIND_SECTIONS,
  loadExperimentFile,
  parseExperiment,
  readExperimentFile,
  targetNames,
} from './schema.js';
export { experimentTemplate } from './templates.js';
