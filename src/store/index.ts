/**
 * @module store
 * Public surface of the embedded results store (see `store/store` for the design).
 */

export type { ExportFormat } from './export.js';
export { CSV_COLUMNS, csvCell, EXPORT_FORMATS, exportRun, flattenRecord } from './export.js';
export type { RandomBytes } from './ids.js';
export { cryptoRandomBytes, ID_LENGTH, isIdPrefix, newShortId, rngRandomBytes } from './ids.js';
export { effectiveStatus, isProcessAlive, type LifecycleStatus } from './liveness.js';
export { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
export type {
  ExperimentRow,
  ExperimentStatus,
  GetRecordsOptions,
  JsonObject,
  ListRunsOptions,
  NewExperiment,
  NewRun,
  RunKind,
  RunRow,
  RunStatus,
  SeriesSample,
} from './rows.js';
export { addRunSteps, getRunSteps } from './steps.js';
export type { StoreOptions } from './store.js';
export { openStore, Store } from './store.js';
