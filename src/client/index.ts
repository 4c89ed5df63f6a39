/**
 * @module client
 * The measurement client: the OpenAI-compatible HTTP target, the SSE/record accumulator,
 * secret redaction, and `check`.
 */
export {
  type CheckOptions,
  type CheckResult,
  formatCheck,
  guessEngine,
  type ProbeResult,
  runCheck,
} from './check.js';
export {
  buildRequestBody,
  createHttpTarget,
  type HttpTarget,
  parseRetryAfter,
  type SendResult,
} from './http.js';
export { isSecretHeader, REDACTED, redactHeaders, redactUrl, scrubSecrets } from './redact.js';
export {
  classifyOutcome,
  type OutcomeFlags,
  parseUsage,
  ResponseAccumulator,
  type StreamInfo,
} from './stream.js';
export type { ClientOptions, Endpoint, SendArgs, Target } from './types.js';
