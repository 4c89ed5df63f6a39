/**
 * @module workload/types
 * What one request asks for, independent of when it is sent.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | string;
  content: string;
}

/** One request's content and lengths, produced by a prompt source. */
export interface RequestSpec {
  /** Position in the workload (0-based). */
  index: number;
  /** Prompt text (completions endpoint, or the single user message for chat). */
  prompt?: string;
  /** Chat messages; when present they win over `prompt` on the chat endpoint. */
  messages?: ChatMessage[];
  /** Requested input length in tokens (synthetic workloads), or the counted length when known. */
  input_len: number | null;
  /** Requested output length (max_tokens); null = the run's default. */
  output_len: number | null;
  /** Shared-prefix group, when the workload has them. */
  prefix_group?: number;
  /** Trace timestamp (ms) for trace replay. */
  timestamp_ms?: number;
  /** The session this turn belongs to (sessions load mode; sent in the session header). */
  session_id?: string;
  /** The turn's position in its session (0-based). */
  turn?: number;
}

/** How synthetic prompts were made exact in tokens. Recorded in the run's report. */
export type TokenizationMethod = 'tokenizer' | 'server_tokenize' | 'approximate' | 'none';

/**
 * A workload's specs generated as they are read (`workload/spec-stream`): `length` of them,
 * read front to back (a read may not go back before the last one read); each is the spec an
 * array of the same workload holds at that index.
 */
export interface SpecStream {
  readonly streamed: true;
  readonly length: number;
  at(index: number): Promise<RequestSpec>;
}

/** What the runner reads request specs from: an array, or a {@link SpecStream}. */
export type SpecList = readonly RequestSpec[] | SpecStream;
