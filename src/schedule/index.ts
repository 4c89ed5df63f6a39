/**
 * @module schedule
 * Pure open-loop schedules: seeded arrival offsets (constant, Poisson, gamma) and trace replay.
 */
export {
  ARRIVAL_KINDS,
  type ArrivalKind,
  type ArrivalOptions,
  arrivalOffsetsMs,
  arrivalProblems,
  openLoopCount,
  traceOffsetsMs,
} from './arrivals.js';
