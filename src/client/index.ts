/**
 * @module client
 * The measurement client: the OpenAI-compatible HTTP target, the SSE/record accumulator,
 * an engine's plain HTTP API (models, version, tokenize, cache reset), secret redaction, and
 * `check`.
 */

export { isSecretName, REDACTED, redactHeaders, scrubSecrets } from '../core/redact.js';
export { redactUrl } from '../core/url.js';
export {
  type CheckOptions,
  type CheckResult,
  formatCheck,
  guessEngine,
  type ProbeRequestResult,
  runCheck,
} from './check.js';
export {
  type ApiAnswer,
  apiRequest,
  type CacheResetHow,
  type CacheResetOptions,
  type CacheResetOutcome,
  type EngineApiOptions,
  getMetrics,
  getModels,
  getVersion,
  listModels,
  modelsUrl,
  postCompletion,
  resetPrefixCache,
  tokenizeRemote,
} from './engine-api.js';
export {
  buildRequestBody,
  createHttpTarget,
  DEFAULT_SESSION_HEADER,
  type HttpTarget,
  parseRetryAfter,
  type SendResult,
} from './http.js';
export {
  classifyOutcome,
  type OutcomeFlags,
  parseUsage,
  ResponseAccumulator,
  type StreamInfo,
} from './stream.js';
export type { AnswerSink, ApiEndpoint, ClientOptions, SendArgs, Target } from './types.js';
