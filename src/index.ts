/**
 * @module servelab
 * Public programmatic API: the same stages the CLI wires together.
 */

export { measurementWindow, requestMetrics, summarize } from './analysis/index.js';
export type { Summary } from './analysis/summary.js';
export { createHttpTarget, runCheck } from './client/index.js';
export { ExitCode, UsageError } from './core/errors.js';
export { experimentTemplate, loadExperimentFile } from './exp/index.js';
export { simEndpoint, urlEndpoint } from './pipeline/endpoint.js';
export { measureOn } from './pipeline/measure.js';
export { measure } from './pipeline/measure-settings.js';
export type { Outcome, RequestRecord, Usage } from './record/types.js';
export { runLoad } from './runner/loops.js';
export type { Clock } from './runtime/clock.js';
export { RealClock, VirtualClock } from './runtime/clock.js';
export { Rng } from './runtime/rng.js';
export { arrivalOffsetsMs } from './schedule/index.js';
export { simulate, simulateDetailed } from './sim/batch-driver.js';
export { resolveEngineConfig } from './sim/engine/index.js';
export { startSimServer } from './sim/server/index.js';
export { startInProcessSim } from './sim/server/inprocess.js';
export { exportRun, openStore } from './store/index.js';
export { buildWorkload } from './workload/index.js';
export type { RequestSpec } from './workload/types.js';
