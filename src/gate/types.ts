/**
 * @module gate/types
 * The contract every upgrade-gate check implements (docs/gate.md). A check has a stable id and
 * a number, says what it sends, what must hold and how it is observed, and runs against one
 * target at a time ({@link EachCheck}) or against the old and new versions together
 * ({@link PairCheck}, for checks such as the load comparison that must interleave both).
 *
 * The gate runs every selected check on each target and judges the new version: a check that
 * fails on the new version is a regression (exit 2), whatever the old one did; a check that
 * cannot run on a server (no tool support, no reasoning model) is `skipped` with the reason,
 * never passed.
 */
import type { Dispatcher } from 'undici';
import type { MessageKey, T } from '../i18n/index.js';
import type { Clock } from '../runtime/clock.js';

export type CheckStatus = 'pass' | 'fail' | 'skipped';

/** The check groups of docs/gate.md, in order. */
export const CHECK_GROUPS = [
  'stream', // 1 stream framing and parity
  'errors', // 2 errors
  'context', // 3 context limits
  'cancel', // 4 cancellation and overload
  'structured', // 5 structured output
  'tools', // 6 tool calls
  'reasoning', // 7 reasoning
  'cache', // 8 cache parity
  'metrics', // 9 metric names
  'load', // 10 quality and latency against the old version
] as const;
export type CheckGroup = (typeof CHECK_GROUPS)[number];

/** One piece of evidence for a result: what was sent and what came back, trimmed. */
export interface Evidence {
  /** The request id the server gave (or servelab sent), when there is one. */
  request_id?: string;
  /** What this piece shows, in the gate's language. */
  note: string;
  /** The request body, trimmed to 2 KB ({@link trimEvidence}). */
  sent?: string;
  /** The response (body, SSE text or metric lines), trimmed to 2 KB. */
  received?: string;
}

/** A check's outcome on one target. */
export interface SideResult {
  status: CheckStatus;
  /** Why it failed or was skipped, in the gate's language; absent on a plain pass. */
  reason?: string;
  /**
   * What was observed, in a form a diff can compare (a field name, a max_model_len, a status
   * code, p99s): printed in the table's old/new columns and compared by {@link EachCheck.judge}.
   */
  observed?: string | number | boolean | null | Record<string, unknown>;
  evidence: Evidence[];
}

/** One target: a base URL (with /v1) and the model to ask for. */
export interface GateTarget {
  /** `old`, `new`, or `url` for a single-endpoint conformance run. */
  role: 'old' | 'new' | 'url';
  /** OpenAI base URL, ending in /v1. */
  baseUrl: string;
  model: string;
  /** Authorization header value's key; never printed (core/redact). */
  apiKey?: string;
  /** Where requests go; undefined means undici's global dispatcher (real HTTP). */
  dispatcher?: Dispatcher;
}

/** What every check gets. */
export interface CheckContext {
  t: T;
  /** Per-request timeout for the check's requests, in ms. */
  timeoutMs: number;
  /** The seed for everything the check samples. */
  seed: number;
  /** Aborted when the user interrupts the gate. */
  signal: AbortSignal;
  /** `--probe`: a low-rate pass of the cheap checks (only checks with `probe: true` run). */
  probe: boolean;
  /** The clock for timeouts, pauses and durations; absent: the real clock (`gate/http` clockOf). */
  clock?: Clock;
}

interface CheckBase {
  /** Stable across versions, `group.name` (e.g. `stream.role-first`); never renumbered or reused. */
  id: string;
  /** Its number in docs/gate.md, e.g. `1.3`. */
  number: string;
  group: CheckGroup;
  /** The check's one-line title (catalogue key). */
  title: MessageKey;
  /** Cheap and load-free, so part of `servelab gate --probe` (docs/gate.md lists them). */
  probe: boolean;
}

/** A check run on each target on its own, then judged. */
export interface EachCheck extends CheckBase {
  kind: 'each';
  run(target: GateTarget, ctx: CheckContext): Promise<SideResult>;
  /**
   * The verdict on the new version given both sides, for checks that compare (max_model_len
   * unchanged, the reasoning field's name, reject-or-clamp the same way). Default: the new
   * side's own result.
   */
  judge?(old: SideResult, next: SideResult, ctx: CheckContext): SideResult;
}

/** A check that must drive both targets together (interleaved load, paired blocks). */
export interface PairCheck extends CheckBase {
  kind: 'pair';
  /** `old` and `new` results; the gate judges `new`. Not run for a single endpoint. */
  run(old: GateTarget, next: GateTarget, ctx: CheckContext): Promise<{ old: SideResult; new: SideResult }>;
}

export type Check = EachCheck | PairCheck;

/** One row of the gate's result. */
export interface CheckRow {
  id: string;
  number: string;
  group: CheckGroup;
  title: string;
  /** The verdict on the new version (or on the one endpoint). */
  status: CheckStatus;
  reason?: string;
  old?: SideResult;
  new: SideResult;
}

const EVIDENCE_MAX = 2048;

/** Trim a body or stream for evidence to 2 KB, saying how much was cut. */
export function trimEvidence(s: string): string {
  if (s.length <= EVIDENCE_MAX) return s;
  return `${s.slice(0, EVIDENCE_MAX)}… [${s.length - EVIDENCE_MAX} more chars]`;
}
