/**
 * @module workload
 * Prompt sources and length distributions: what each request sends, independent of when.
 */
export {
  buildWorkload,
  readSource,
  type StreamedWorkload,
  streamWorkload,
  type TraceInfo,
  type Workload,
  type WorkloadDeps,
} from './build.js';
export {
  approximateCounter,
  fitText,
  remoteCounter,
  type TokenCounter,
  type TokenizeTrial,
  tokenizerCounter,
  tryTokenize,
  WordStream,
} from './exact.js';
export {
  type PromptEntry,
  parsePromptsJsonl,
  parseShareGpt,
  type ReadText,
  readTextFile,
  type ShareGptPair,
} from './files.js';
export {
  type DistUnit,
  distMean,
  LENGTH_FORMS_HINT,
  type LengthDist,
  type LengthSpec,
  lengthDist,
  parseLengthDist,
  parseLengthDistOrThrow,
} from './lengths.js';
export {
  DATASET_KINDS,
  syntheticPrompts,
  type WorkloadOptions,
  type WorkloadSource,
  workloadProblems,
} from './options.js';
export {
  buildSessions,
  type CheckedSessions,
  checkSessions,
  type IntendedSharing,
  intendedSharing,
  type PlannedSession,
  type PlannedTurn,
  type SessionOptions,
  type SessionWorkload,
  sessionPrefix,
  zipfPick,
} from './sessions.js';
export {
  azureTimeMs,
  blockTexts,
  detectTraceFormat,
  isTraceFormat,
  MOONCAKE_BLOCK_SIZE,
  type ParsedTrace,
  parseTrace,
  skipNotes,
  TRACE_FORMATS,
  type TraceEntry,
  type TraceFormat,
  type TraceSkip,
  type TraceWindow,
  windowTrace,
} from './traces/index.js';
export type { ChatMessage, RequestSpec, SpecList, SpecStream, TokenizationMethod } from './types.js';
