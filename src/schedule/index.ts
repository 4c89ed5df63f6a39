/**
 * @module schedule
 * Pure open-loop schedules: seeded arrival offsets (constant, Poisson, gamma) and trace replay.
 */
export {
  ARRIVAL_KINDS,
  type ArrivalKind,
  type ArrivalList,
  type ArrivalOptions,
  arrivalOffsetsMs,
  arrivalProblems,
  openLoopCount,
  type StreamedArrivals,
  streamArrivals,
  traceOffsetsMs,
} from './arrivals.js';
