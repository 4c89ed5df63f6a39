/**
 * @module servelab
 * Public programmatic API.
 */
export { RealClock, VirtualClock } from './runtime/clock.js';
export type { Clock } from './runtime/clock.js';
export { Rng } from './runtime/rng.js';
export type { RequestRecord, Outcome, Usage } from './record/types.js';
export type { RequestSpec } from './workload/types.js';
