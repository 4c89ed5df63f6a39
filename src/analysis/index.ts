/**
 * @module analysis
 * Public surface of the metric math: per-request metrics, the run summary, SLOs and
 * thresholds. Everything here is pure (no I/O, no clock); definitions are in `docs/metrics.md`.
 */

export {
  contextLimitOf,
  type ErrorGroup,
  errorGroups,
  errorHint,
  FAIL_FAST_AFTER,
  FAIL_FAST_UNSENT,
  failFastClass,
  failFastReason,
  formatErrorGroup,
  isContextLengthError,
  isModelError,
  normalizeErrorMessage,
  TOP_ERRORS,
} from './errors.js';
export {
  clientPrefillWindow,
  engineTimes,
  type InterferenceTimeline,
  type PrefillInterference,
  type PrefillWindow,
  prefillInterference,
  prefillWindow,
  recordsInterference,
  splitGapsByOverlap,
} from './interference.js';
export {
  LITTLES_LAW_MAX_GAP,
  LITTLES_LAW_MIN_REQUESTS,
  LITTLES_LAW_MIN_SOJOURNS,
  type LittlesLaw,
  littlesLaw,
} from './littles-law.js';
export {
  cachedPromptShare,
  chunkGaps,
  e2eMs,
  firstOutputAt,
  isStreamed,
  type RequestMetricOptions,
  type RequestMetrics,
  requestMetrics,
  ttftMs,
} from './request.js';
export {
  type SessionsContext,
  type SessionsSummary,
  summarizeSessions,
  type TurnStats,
} from './sessions.js';
export {
  formatSlo,
  meetsSlo,
  parseSlo,
  SLO_METRICS,
  type Slo,
  type SloMetric,
  STREAM_SLO_METRICS,
  sloProblemsWithoutStream,
} from './slo.js';
export {
  describe,
  describeWeighted,
  emptyStats,
  insertSorted,
  lowerBound,
  mean,
  percentile,
  STAT_KEYS,
  type StatKey,
  type Stats,
  upperBound,
} from './stats.js';
export {
  type ClientHealth,
  type DialectStats,
  groupAttempts,
  SUMMARY_METRICS,
  type Summary,
  type SummaryContext,
  type SummaryDetail,
  type SummaryMetric,
  summarize,
} from './summary.js';
export {
  allPassed,
  evaluateThresholds,
  parseThreshold,
  parseThresholds,
  THRESHOLD_OPS,
  type Threshold,
  type ThresholdOp,
  type ThresholdResult,
} from './thresholds.js';
export {
  attemptEndAt,
  type InFlightProfile,
  inFlightProfile,
  type MeasurementWindow,
  measurementWindow,
  slotWaits,
} from './window.js';
