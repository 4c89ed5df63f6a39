/**
 * @module analysis/errors
 * Errors that explain themselves: the failed requests of a run grouped by what went wrong
 * (outcome class, HTTP status and a normalised message), each group with a hint saying what
 * to change, and the fail-fast rule that stops a run whose first requests all failed for the
 * same reason no retry or more load can fix. Pure: records in, groups and verdicts out.
 * Definitions are in `docs/metrics.md` ("Top errors", "Fail fast").
 */
import { type Outcome, type RequestRecord, SUCCESS_OUTCOMES } from '../record/types.js';

/** One group of failed requests: how many, their class, the server's message and what to do. */
export interface ErrorGroup {
  count: number;
  outcome: Outcome;
  http_status: number | null;
  /**
   * The most frequent message in the group as recorded (`HTTP 401: …`); without one, `HTTP
   * <status>` or the outcome's name.
   */
  message: string;
  /** What to change, or null when servelab has no advice for this class. */
  hint: string | null;
}

/** Groups kept by {@link errorGroups} by default. */
export const TOP_ERRORS = 5;

/** The default number of finished measured requests the fail-fast rule looks at. */
export const FAIL_FAST_AFTER = 20;

/**
 * Text of the `cancelled` records the runner writes for requests a fail-fast stop left unsent
 * (the reason follows it).
 */
export const FAIL_FAST_UNSENT = 'not sent: the run stopped early (fail fast)';

// Context-length messages, e.g. vLLM's "This model's maximum context length is 2048 tokens.
// However, you requested 2100 tokens …" (vllm/entrypoints/openai/serving_engine.py, input
// validation) and llama.cpp's "the request exceeds the available context size (1024 tokens),
// try increasing it" (tools/server/server.cpp, github.com/ggml-org/llama.cpp).
const CONTEXT_LIMIT_PATTERNS: readonly RegExp[] = [
  /maximum context length is (\d+)/i,
  /available context size \((\d+) tokens?\)/i,
  /context (?:length|size|window)[^\d]{0,40}?(\d+) tokens?/i,
  /max_model_len[^\d]{0,20}(\d+)/i,
];
const CONTEXT_WORDS = /context (?:length|size|window)|max_model_len|too many tokens|prompt is too long/i;
const MODEL_WORDS =
  /\bmodel\b.*\b(?:does not exist|not found|unknown|not served|is not available)|\bunknown model\b|model_not_found/i;

/** The context-length limit a 400 message names (tokens), or null. */
export function contextLimitOf(message: string | null): number | null {
  if (!message) return null;
  for (const re of CONTEXT_LIMIT_PATTERNS) {
    const m = re.exec(message);
    if (m) return Number(m[1]);
  }
  return null;
}

/** True when an error message is about the context length (prompt + output too long). */
export function isContextLengthError(message: string | null): boolean {
  return !!message && CONTEXT_WORDS.test(message);
}

/** True when an error message says the model is unknown to the server. */
export function isModelError(message: string | null): boolean {
  return !!message && MODEL_WORDS.test(message);
}

/**
 * The message as a grouping key: digit runs become `#` (token counts, ports and request ids
 * vary per request), whitespace collapses, case folds.
 */
export function normalizeErrorMessage(message: string): string {
  return message.replace(/\d+/g, '#').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** `HOST:PORT` from a connection error's text (`connect ECONNREFUSED 127.0.0.1:8000`), or null. */
function refusedAddress(message: string): string | null {
  const m = /ECONNREFUSED\s+(\[[^\]]+\]:\d+|[^\s:()]+:\d+)/.exec(message);
  return m ? m[1] : null;
}

/**
 * The hint for one failed request's class, or null. Classes: 401/403 (the API key), 404 (model
 * or URL), 400 about the context length (names the server's limit), 429 (rate limited),
 * ECONNREFUSED (server down), timeout, and the `cancelled` records a fail-fast stop left unsent.
 */
export function errorHint(rec: Pick<RequestRecord, 'outcome' | 'http_status' | 'error'>): string | null {
  const msg = rec.error ?? '';
  if (rec.outcome === 'http_error') {
    const s = rec.http_status;
    if (s === 401 || s === 403) return 'set INFERENCE_API_KEY (or name the variable with --api-key-env)';
    if (s === 404) return 'check --model (GET /v1/models lists the served names) and that --url ends in /v1';
    if (s === 400 && isContextLengthError(msg)) {
      const limit = contextLimitOf(msg);
      // llama-server's message ("exceeds the available context size", error type
      // exceed_context_size_error) names one slot's context: -c/--ctx-size over -np/--parallel.
      if (/available context size|exceed_context_size/i.test(msg))
        return `${limit !== null ? `llama-server's per-slot context is ${limit} tokens: ` : ''}shorten --input-len/--output-len, or raise -c/--ctx-size (each of the -np/--parallel slots gets -c divided by their number)`;
      return `${limit !== null ? `the server's context limit is ${limit} tokens: ` : ''}shorten --input-len/--output-len or raise the server's max_model_len`;
    }
    if (s === 400 && isModelError(msg)) return 'check --model (GET /v1/models lists the served names)';
    if (s === 429)
      return 'the server rate-limits: lower --rate/--concurrency, or add --retries (Retry-After is honoured)';
    return null;
  }
  if (rec.outcome === 'connect_error' && /ECONNREFUSED/.test(msg)) {
    const at = refusedAddress(msg);
    return `is the server running on ${at ?? 'the host and port of --url'}?`;
  }
  if (rec.outcome === 'timeout') return 'raise --timeout, or lower the load';
  if (rec.outcome === 'cancelled' && msg.startsWith(FAIL_FAST_UNSENT))
    return 'fix the error that stopped the run, or pass --no-fail-fast to send every request anyway';
  return null;
}

/**
 * Group failed requests by outcome class, HTTP status and normalised message; the `top`
 * largest groups, by count (descending) then message (ascending), so the order never depends
 * on the order records ended. Each group shows its most frequent message as recorded (ties:
 * the first in text order) and the hint for it.
 * @param finals one record per request (the final attempt); successes are skipped
 * @example
 * errorGroups(finals)[0]; // { count: 300, outcome: 'http_error', http_status: 401, message: 'HTTP 401: …', hint: 'set INFERENCE_API_KEY …' }
 */
export function errorGroups(
  finals: readonly Pick<RequestRecord, 'outcome' | 'http_status' | 'error'>[],
  top = TOP_ERRORS,
): ErrorGroup[] {
  const groups = new Map<
    string,
    { outcome: Outcome; http_status: number | null; count: number; messages: Map<string, number> }
  >();
  for (const r of finals) {
    if (SUCCESS_OUTCOMES.includes(r.outcome)) continue;
    const message =
      r.error ?? (r.http_status !== null && r.outcome === 'http_error' ? `HTTP ${r.http_status}` : r.outcome);
    const key = `${r.outcome}|${r.http_status ?? ''}|${normalizeErrorMessage(message)}`;
    let g = groups.get(key);
    if (!g) {
      g = { outcome: r.outcome, http_status: r.http_status, count: 0, messages: new Map() };
      groups.set(key, g);
    }
    g.count += 1;
    g.messages.set(message, (g.messages.get(message) ?? 0) + 1);
  }
  const out: ErrorGroup[] = [];
  for (const g of groups.values()) {
    let message = '';
    let best = -1;
    for (const [m, n] of g.messages)
      if (n > best || (n === best && m < message)) {
        message = m;
        best = n;
      }
    out.push({
      count: g.count,
      outcome: g.outcome,
      http_status: g.http_status,
      message,
      hint: errorHint({ outcome: g.outcome, http_status: g.http_status, error: message }),
    });
  }
  // The requests a fail-fast stop left unsent come last: they are the consequence, and the
  // errors that caused the stop are what a reader needs first.
  const unsent = (g: ErrorGroup) =>
    g.outcome === 'cancelled' && g.message.startsWith(FAIL_FAST_UNSENT) ? 1 : 0;
  out.sort(
    (a, b) =>
      unsent(a) - unsent(b) ||
      b.count - a.count ||
      (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  );
  return out.slice(0, Math.max(0, top));
}

/** One error group as a line: `300 × HTTP 401: Invalid or missing API key`. */
export function formatErrorGroup(g: Pick<ErrorGroup, 'count' | 'message'>): string {
  return `${g.count} × ${g.message}`;
}

/**
 * The fail-fast class of a failed request: a failure that repeating the request, or sending
 * more, cannot fix. HTTP 401, 403 and 404, and a 400 about the model or the context length.
 * Null for anything else (a success, a 429 or 5xx, a timeout, a dropped connection).
 */
export function failFastClass(rec: Pick<RequestRecord, 'outcome' | 'http_status' | 'error'>): string | null {
  if (rec.outcome !== 'http_error') return null;
  const s = rec.http_status;
  if (s === 401 || s === 403 || s === 404) return `HTTP ${s}`;
  if (s === 400 && isContextLengthError(rec.error)) return 'HTTP 400 (context length)';
  if (s === 400 && isModelError(rec.error)) return 'HTTP 400 (model)';
  return null;
}

/**
 * The fail-fast rule. Given the first finished measured requests (their final attempts, in the
 * order they ended) and how many the rule waits for (`after`, or fewer when fewer were planned),
 * the reason to stop the run, or null to go on: every one of them failed with the same
 * {@link failFastClass}. The reason reads `20 × HTTP 401: Invalid or missing API key`.
 * @example
 * failFastReason(first20, 20); // '20 × HTTP 401: Invalid or missing API key' or null
 */
export function failFastReason(
  finished: readonly Pick<RequestRecord, 'outcome' | 'http_status' | 'error'>[],
  after: number,
): string | null {
  if (after < 1 || finished.length < after) return null;
  const seen = finished.slice(0, after);
  const cls = failFastClass(seen[0]);
  if (cls === null) return null;
  for (const r of seen) if (failFastClass(r) !== cls) return null;
  const g = errorGroups(seen, 1)[0];
  return g.count === seen.length ? formatErrorGroup(g) : `${seen.length} × ${cls}: ${g.message}`;
}
