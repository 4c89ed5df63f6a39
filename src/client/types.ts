/**
 * @module client/types
 * The contract between the runner and whatever sends a request.
 */

import type { Dispatcher } from 'undici';
import type { ClientPrepared } from '../analysis/summary.js';
import type { RequestRecord } from '../record/types.js';
import type { Clock } from '../runtime/clock.js';
import type { RequestSpec } from '../workload/types.js';

/** Which OpenAI API a request is sent to: `/v1/chat/completions` or `/v1/completions`. */
export type ApiEndpoint = 'chat' | 'completions';

/** Everything needed to talk to one OpenAI-compatible server. */
export interface ClientOptions {
  /** Base URL ending in /v1, e.g. http://127.0.0.1:8000/v1 */
  baseUrl: string;
  endpoint: ApiEndpoint;
  model: string;
  stream: boolean;
  /** Generation settings. */
  maxTokens?: number | null;
  temperature?: number | null;
  topP?: number | null;
  stop?: string[] | null;
  ignoreEos?: boolean;
  /** Merged into the request body last (engine-specific fields). */
  extraBody?: Record<string, unknown>;
  /** Extra request headers (already validated; values may be secret). */
  headers?: Record<string, string>;
  /** Bearer token value (from the environment). Never stored or printed. */
  apiKey?: string;
  /** Per-request timeouts in ms (null = none). */
  timeoutMs?: number | null;
  timeoutTtftMs?: number | null;
  clock: Clock;
  /**
   * Send through this undici dispatcher instead of a connection pool of our own: the in-process
   * simulator (`sim/server/inprocess`). It is the caller's to close.
   */
  dispatcher?: Pick<Dispatcher, 'dispatch'>;
  /**
   * The header that carries a session turn's `spec.session_id` (sessions load mode), for routers
   * with session affinity; default `x-session-id`.
   */
  sessionHeader?: string;
  /**
   * Send a W3C `traceparent` with each attempt and keep its trace id on the record (`trace_id`),
   * so the engine's OpenTelemetry span for it can be joined (`run --otlp-port`).
   */
  traceparent?: boolean;
}

/** Where a session turn's answer text goes: the content deltas (or the body's content), in order. */
export interface AnswerSink {
  parts: string[];
  /**
   * Also called with each content delta and its arrival time (ms), as it arrives: what a voice
   * client chunks for its TTS (`runner/voice-turns`). Must not block.
   */
  onText?: (text: string, atMs: number) => void;
}

/** One attempt to send. The client fills in the record it is given. */
export interface SendArgs {
  id: string;
  planned_id: string;
  attempt: number;
  phase: 'warmup' | 'measure';
  spec: RequestSpec;
  planned_at_ms: number | null;
  /** Aborting cancels the request; the record's outcome becomes `cancelled`. */
  signal: AbortSignal;
  /** Called for each token-carrying chunk as it arrives (monitoring hooks); must not block. */
  onChunk?: (rec: RequestRecord) => void;
  /**
   * Keep what came back: the response text and, for a stream, every parsed data event in order
   * (`[DONE]` as the string). For probes that judge the wire itself (`gate`), never for load.
   */
  capture?: boolean;
  /**
   * Keep the answer's content text here (the sessions loop sends it back as the next turn's
   * history; the voice loop chunks it for TTS as it arrives). Absent for every other request,
   * so they pay nothing for it.
   */
  answer?: AnswerSink;
}

/** Sends one request and always resolves (never rejects) with exactly one record. */
export interface Target {
  send(args: SendArgs): Promise<RequestRecord>;
  close(): Promise<void>;
  /**
   * Get ready for a measured window of `n` concurrent requests: open `n` connections to the
   * server and leave them idle in the pool, so the first `n` requests reuse them instead of
   * each paying a TCP connect (and the server's accept) inside its TTFT, and run the client's
   * own request path once it is compiled (`client/warm`). Never rejects; says what it did, for
   * the run to report, or null when it did nothing (no connections of its own).
   */
  preconnect?(n: number): Promise<PreconnectReport | null>;
}

/** What {@link Target.preconnect} did before the window (none of it recorded). */
export type PreconnectReport = ClientPrepared;
