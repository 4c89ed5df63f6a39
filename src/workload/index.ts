/**
 * @module workload
 * Prompt sources and length distributions: what each request sends, independent of when.
 */
export {
  buildWorkload,
  DATASET_KINDS,
  type Workload,
  type WorkloadDeps,
  type WorkloadOptions,
  type WorkloadSource,
  workloadProblems,
} from './build.js';
export {
  approximateCounter,
  fitText,
  remoteCounter,
  type TokenCounter,
  tokenizerCounter,
  WordStream,
} from './exact.js';
export {
  type PromptEntry,
  parsePromptsJsonl,
  parseShareGpt,
  parseTraceJsonl,
  type ReadText,
  readTextFile,
  type ShareGptPair,
  type TraceEntry,
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
export { type TokenizeTrial, tokenizeRemote, tryTokenize } from './tokenize-remote.js';
export type { ChatMessage, RequestSpec, TokenizationMethod } from './types.js';
