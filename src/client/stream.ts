/**
 * @module client/stream
 * Turns a response body into a {@link RequestRecord}: the incremental SSE parse of an
 * OpenAI-compatible stream (vLLM, SGLang, llama.cpp shapes), the parse of a non-stream JSON
 * body, and the outcome classification ({@link classifyOutcome}). No I/O and no clock here: the transport
 * (`client/http`) hands in bytes with their arrival time, so this is testable on its own.
 *
 * Hot path: one `feed()` per network read. Per read: one streaming UTF-8 decode and one parser
 * feed; per SSE event: one `JSON.parse`. All events of one read share that read's arrival time,
 * which is the only honest time we have for them.
 */
import { TextDecoder } from 'node:util';
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { isTruncated } from '../record/outcome.js';
import { serverTimesOf } from '../record/server-times.js';
import type { ChunkKind, Outcome, RequestRecord, Usage } from '../record/types.js';
import type { AnswerSink } from './types.js';

/** What the stream looked like on the wire, beyond the record (used by `check`). */
export interface StreamInfo {
  /** Delta field that carried reasoning, when any did. */
  reasoning_field: 'reasoning_content' | 'reasoning' | null;
  /** Where usage arrived: its own `choices: []` chunk, the finish chunk, every chunk, a non-stream body, elsewhere. */
  usage_where: 'separate_chunk' | 'finish_chunk' | 'every_chunk' | 'body' | 'other' | null;
  /** SSE data events seen (including `[DONE]`). */
  data_events: number;
  /** `:` comment / keep-alive lines seen. */
  comments: number;
  /** llama.cpp `timings` seen. */
  timings_seen: boolean;
}

/** Inputs to the outcome precedence of {@link classifyOutcome}. */
export interface OutcomeFlags {
  cancelled: boolean;
  connectError: boolean;
  httpError: boolean;
  timedOut: boolean;
  streamError: boolean;
  finishReason: string | null;
  /** A content or tool-call delta was seen. */
  hasContent: boolean;
  /** The request's expected output length (the record's `output_len`); null or absent = none. */
  expectedLen?: number | null;
  /** `usage.completion_tokens`; null or absent = no usage. */
  completionTokens?: number | null;
}

/**
 * The outcome class: the first match of cancelled > connect_error / http_error / timeout >
 * stream_error > incomplete > length > no_content > ok. A `finish_reason: "length"` stop is
 * `length` only when it is a truncation ({@link isTruncated}); one that reached the expected
 * length is complete, `ok`, even when all of it was reasoning.
 */
export function classifyOutcome(f: OutcomeFlags): Outcome {
  if (f.cancelled) return 'cancelled';
  if (f.connectError) return 'connect_error';
  if (f.httpError) return 'http_error';
  if (f.timedOut) return 'timeout';
  if (f.streamError) return 'stream_error';
  if (f.finishReason === null) return 'incomplete';
  if (f.finishReason === 'error' || f.finishReason === 'abort') return 'stream_error';
  if (f.finishReason === 'length') {
    const cut = isTruncated({
      finish_reason: f.finishReason,
      output_len: f.expectedLen ?? null,
      completion_tokens: f.completionTokens ?? null,
    });
    return cut ? 'length' : 'ok';
  }
  if (!f.hasContent) return 'no_content';
  return 'ok';
}

/** Longest error message kept in a record (characters). */
const MAX_ERROR_CHARS = 240;
const DECODE_STREAM = { stream: true } as const;

/** Shorten a message for a record. */
export function clip(s: string, max = MAX_ERROR_CHARS): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The message of an OpenAI/vLLM/SGLang/llama.cpp error object (nested or flat), or a JSON dump. */
export function errorMessageOf(err: unknown): string {
  if (typeof err === 'string') return err;
  if (err && typeof err === 'object') {
    const o = err as Record<string, unknown>;
    if (typeof o.message === 'string') return o.message;
    if (o.error !== undefined && o.error !== null) return errorMessageOf(o.error);
    if (typeof o.detail === 'string') return o.detail;
  }
  return JSON.stringify(err) ?? String(err);
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** A {@link Usage} from a server's `usage` object, or null when it is absent or not an object. */
export function parseUsage(u: unknown): Usage | null {
  if (u === null || typeof u !== 'object') return null;
  const o = u as Record<string, unknown>;
  const usage: Usage = {
    prompt_tokens: num(o.prompt_tokens),
    completion_tokens: num(o.completion_tokens),
    total_tokens: num(o.total_tokens),
  };
  const ctd = o.completion_tokens_details as Record<string, unknown> | null | undefined;
  const reasoning = num(ctd?.reasoning_tokens) ?? num(o.reasoning_tokens);
  if (reasoning !== null) usage.reasoning_tokens = reasoning;
  const ptd = o.prompt_tokens_details as Record<string, unknown> | null | undefined;
  const cached = num(ptd?.cached_tokens) ?? num(o.cached_tokens);
  if (cached !== null) usage.cached_tokens = cached;
  return usage;
}

function nonEmptyString(v: unknown): boolean {
  return typeof v === 'string' && v.length > 0;
}

function nonEmptyArray(v: unknown): boolean {
  return Array.isArray(v) && v.length > 0;
}

/**
 * A parsed token chunk whose JSON text differs from the stream's next chunks only in the token's
 * text: `before` + a JSON string + `after`. Servers repeat a stream's id, model and fields in
 * every chunk, so most events of a stream have one shape; parsing each with `JSON.parse` was the
 * client's largest cost per token (`plan` reads 2.2 million of them on fit-data experiment 61).
 * An event of that shape whose text is a plain JSON string (no escape, quote or control
 * character) parses to this object with `holder[key]` set to that text, by JSON's grammar; the
 * accumulator then applies this object with the text swapped in, which keeps no reference to it.
 */
interface ChunkShape {
  before: string;
  after: string;
  obj: Record<string, unknown>;
  holder: Record<string, unknown>;
  key: string;
}

/**
 * Events of a stream parsed in full that may teach it a {@link ChunkShape}: a chat stream's first
 * chunk carries the role, a reasoning model's stream changes shape once, the last chunk is unlike
 * the others.
 */
const MAX_SHAPE_TRIES = 4;
const SHAPE_PROBE = 'servelab:shape-probe';
const TEXT_KEYS = ['content', 'reasoning_content', 'reasoning'] as const;

/**
 * The shape of `data`, parsed as `obj`, when it is one choice's text chunk whose text occurs once
 * in `data` as `"key":"…"` in JSON.stringify's form, and a probe text put there parses back into
 * that very field; else null. A chunk with llama.cpp's `timings` (which the record keeps) has none.
 */
function chunkShapeOf(data: string, obj: unknown): ChunkShape | null {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return null;
  const o = obj as Record<string, unknown>;
  if (o.timings !== undefined || !Array.isArray(o.choices) || o.choices.length !== 1) return null;
  const holderIn = (root: Record<string, unknown>): Record<string, unknown> | null => {
    const c = (root.choices as unknown[])[0] as Record<string, unknown> | null;
    if (c === null || typeof c !== 'object') return null;
    const d = c.delta as Record<string, unknown> | null | undefined;
    return d !== null && typeof d === 'object' ? d : c;
  };
  const holder = holderIn(o);
  if (holder === null) return null;
  const keys = holder === o.choices[0] ? ['text'] : TEXT_KEYS.filter((k) => typeof holder[k] === 'string');
  if (keys.length !== 1 || typeof holder[keys[0]] !== 'string') return null;
  const key = keys[0];
  const field = `"${key}":${JSON.stringify(holder[key])}`;
  const at = data.indexOf(field);
  if (at < 0 || data.indexOf(field, at + 1) >= 0) return null;
  const before = data.slice(0, at + key.length + 3);
  const after = data.slice(at + field.length);
  try {
    const probe = JSON.parse(`${before}${JSON.stringify(SHAPE_PROBE)}${after}`) as Record<string, unknown>;
    if (!Array.isArray(probe.choices) || probe.choices.length !== 1) return null;
    if (holderIn(probe)?.[key] !== SHAPE_PROBE || holder[key] === SHAPE_PROBE) return null;
  } catch {
    return null;
  }
  return { before, after, obj: o, holder, key };
}

/**
 * The text of an event of `shape` (see {@link ChunkShape}); null when it has the shape but its
 * text holds an escape, a quote or a control character (left to JSON.parse); undefined when it
 * has another shape, or none.
 */
function sameShapeText(shape: ChunkShape, data: string): string | null | undefined {
  const { before, after } = shape;
  const end = data.length - after.length;
  if (end - before.length < 2 || !data.startsWith(before) || !data.endsWith(after)) return undefined;
  if (data.charCodeAt(before.length) !== 34 || data.charCodeAt(end - 1) !== 34) return undefined;
  for (let i = before.length + 1; i < end - 1; i++) {
    const c = data.charCodeAt(i);
    if (c === 34 || c === 92 || c < 32) return null;
  }
  return data.slice(before.length + 1, end - 1);
}

/**
 * Per-request response state. The transport calls {@link ResponseAccumulator.feedSse} (stream
 * mode) or {@link ResponseAccumulator.applyJsonBody} (non-stream), then
 * {@link ResponseAccumulator.finish} with the transport-level flags.
 */
export class ResponseAccumulator {
  readonly rec: RequestRecord;
  readonly info: StreamInfo = {
    reasoning_field: null,
    usage_where: null,
    data_events: 0,
    comments: 0,
    timings_seen: false,
  };
  /** `[DONE]` seen: the transport may finish the record now. */
  done = false;
  /** When not null, every parsed data event is kept here in order (`[DONE]` as the string). */
  events: unknown[] | null = null;
  /** When set, the content text is appended here as it arrives (session turns only). */
  answer: AnswerSink | undefined = undefined;
  /** First in-band error (event, object, malformed JSON, finish_reason error/abort). */
  streamError: string | null = null;
  /** A content or tool-call delta was seen. */
  private hasContentOrTool = false;
  private usageChunks = 0;
  private usageOnFinish = false;
  private usageSeparate = false;
  private readonly onChunk: ((rec: RequestRecord) => void) | undefined;
  private parser: EventSourceParser | null = null;
  private decoder: TextDecoder | null = null;
  /**
   * The decoder has read at least once (a leading BOM is behind it) and carries no partial
   * character over: the next read may be decoded on its own ({@link ResponseAccumulator.decode}).
   */
  private decoderClean = false;
  /** Arrival time of the read being parsed (ms). */
  private t = 0;
  /** A token chunk of this stream whose shape the next ones share ({@link chunkShapeOf}), once learnt. */
  private shape: ChunkShape | null = null;
  private shapeTries = 0;
  /** The body has ended; what the parser emits now is a flushed partial event. */
  private atEnd = false;
  /**
   * {@link ResponseAccumulator.finish} ran: the record is classified and handed back, so it must
   * not change any more. An observer that cancels the request from its chunk callback does so
   * in the middle of a read; the rest of that read is not part of the record.
   */
  private sealed = false;

  constructor(rec: RequestRecord, onChunk?: (rec: RequestRecord) => void) {
    this.rec = rec;
    this.onChunk = onChunk;
  }

  /**
   * Feed one network read of an SSE body that arrived at `atMs`. Multi-byte characters and
   * events split across reads are carried over to the next call.
   */
  feedSse(buf: Uint8Array, atMs: number): void {
    if (this.done || this.sealed) return;
    if (this.parser === null) {
      this.decoder = new TextDecoder('utf-8');
      this.parser = createParser({
        onEvent: (ev) => this.onEvent(ev),
        onComment: () => {
          this.info.comments++;
        },
      });
    }
    this.t = atMs;
    this.parser.feed(this.decode(buf));
  }

  /**
   * One read as text, as the streaming decoder gives it. A read that starts and ends on a
   * character boundary with nothing carried over (the usual case: a whole SSE event of ASCII
   * JSON) is decoded by `Buffer#toString`, which gives the same text at a third of the CPU
   * (WHATWG UTF-8 decoding either way, U+FFFD for what is invalid); the streaming decoder takes
   * the first read (its BOM handling) and any read that may leave or finish a split character.
   */
  private decode(buf: Uint8Array): string {
    const n = buf.length;
    if (this.decoderClean && n > 0 && buf[n - 1] < 0x80)
      return (buf instanceof Buffer ? buf : Buffer.from(buf.buffer, buf.byteOffset, n)).toString('utf8');
    // clean again after a read that ends on an ASCII byte: nothing is carried over
    this.decoderClean = n > 0 && buf[n - 1] < 0x80;
    return (this.decoder as TextDecoder).decode(buf, DECODE_STREAM);
  }

  /** The stream ended: flush a final event that lacked its blank line (lenient, like browsers are not). */
  endSse(atMs: number): void {
    if (this.parser === null || this.done || this.sealed) return;
    this.t = atMs;
    const tail = (this.decoder as TextDecoder).decode();
    // two line ends complete a pending line and then dispatch a pending event; on a clean
    // boundary they are empty lines, which do nothing
    this.atEnd = true;
    this.parser.feed(`${tail}\n\n`);
  }

  private onEvent(ev: EventSourceMessage): void {
    if (this.done || this.sealed) return;
    const t = this.t;
    const rec = this.rec;
    this.info.data_events++;
    if (rec.first_chunk_at_ms === null) rec.first_chunk_at_ms = t;
    const data = ev.data;
    if (ev.event === 'error') {
      let msg = data;
      try {
        msg = errorMessageOf(JSON.parse(data));
      } catch {
        // a plain-text error event: keep the text
      }
      this.setStreamError(`error event: ${msg || '(empty)'}`);
      return;
    }
    if (data === '[DONE]') {
      this.done = true;
      this.events?.push(data);
      return;
    }
    if (data.length === 0) return;
    const shape = this.shape;
    let text: string | null | undefined;
    if (shape !== null && this.events === null) {
      text = sameShapeText(shape, data);
      if (typeof text === 'string') {
        shape.holder[shape.key] = text;
        this.applyStreamChunk(shape.obj, t);
        return;
      }
    }
    let obj: unknown;
    try {
      obj = JSON.parse(data);
    } catch {
      // a half event cut off by the end of the stream is truncation (incomplete), not malformed
      if (!this.atEnd) this.setStreamError(`malformed JSON on a data line: ${clip(data, 80)}`);
      this.events?.push(data);
      return;
    }
    this.events?.push(obj);
    this.applyStreamChunk(obj, t);
    // no shape yet, or this event has another (a chat stream's role chunk came first): learn
    // this one's, a few times per stream at most
    if (this.events === null && text !== null && this.shapeTries < MAX_SHAPE_TRIES) {
      this.shapeTries++;
      this.shape = chunkShapeOf(data, obj) ?? shape;
    }
  }

  /** Keep a content delta that arrived at `t` for the answer sink (and tell its listener). */
  private keep(text: string, t: number): void {
    const a = this.answer as AnswerSink;
    a.parts.push(text);
    if (a.onText !== undefined) {
      try {
        a.onText(text, t);
      } catch {
        // an observer's bug must not corrupt the measurement
      }
    }
  }

  private setStreamError(msg: string): void {
    if (this.streamError === null) this.streamError = clip(msg);
  }

  /** Apply one parsed `chat.completion.chunk` / `text_completion` chunk that arrived at `t`. */
  applyStreamChunk(obj: unknown, t: number): void {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      this.setStreamError('data line is not a JSON object');
      return;
    }
    const o = obj as Record<string, unknown>;
    if (o.error !== undefined && o.error !== null) {
      this.setStreamError(`in-band error: ${errorMessageOf(o.error)}`);
      return;
    }
    if (o.object === 'error') {
      this.setStreamError(`in-band error: ${errorMessageOf(o)}`);
      return;
    }
    const rec = this.rec;
    const choices = o.choices;
    let finishHere = false;
    let hasR = false;
    let hasC = false;
    let hasT = false;
    if (Array.isArray(choices)) {
      for (let i = 0; i < choices.length; i++) {
        const c = choices[i] as Record<string, unknown> | null;
        if (c === null || typeof c !== 'object') continue;
        const d = c.delta as Record<string, unknown> | null | undefined;
        if (d !== null && typeof d === 'object') {
          if (nonEmptyString(d.reasoning_content)) {
            hasR = true;
            this.info.reasoning_field ??= 'reasoning_content';
          } else if (nonEmptyString(d.reasoning)) {
            hasR = true;
            this.info.reasoning_field ??= 'reasoning';
          }
          if (nonEmptyString(d.content)) {
            hasC = true;
            if (this.answer !== undefined) this.keep(d.content as string, t);
          }
          if (
            nonEmptyArray(d.tool_calls) ||
            (d.function_call !== null && typeof d.function_call === 'object')
          )
            hasT = true;
        } else if (nonEmptyString(c.text)) {
          // /completions streams carry `text` on the choice itself
          hasC = true;
          if (this.answer !== undefined) this.keep(c.text as string, t);
        }
        const fr = c.finish_reason;
        if (typeof fr === 'string' && fr.length > 0 && rec.finish_reason === null) {
          rec.finish_reason = fr;
          rec.end_at_ms = t;
          finishHere = true;
          if (fr === 'error' || fr === 'abort') this.setStreamError(`finish_reason ${fr}`);
        }
      }
    }
    const u = o.usage;
    if (u !== null && u !== undefined && typeof u === 'object') {
      rec.usage = parseUsage(u);
      this.usageChunks++;
      if (finishHere) this.usageOnFinish = true;
      else if (Array.isArray(choices) && choices.length === 0) this.usageSeparate = true;
    }
    const tm = o.timings;
    if (tm !== null && typeof tm === 'object' && !Array.isArray(tm)) {
      rec.timings = tm as Record<string, unknown>;
      this.info.timings_seen = true;
    }
    if (hasR || hasC || hasT) this.tokenChunk(hasR, hasC, hasT, t);
  }

  /**
   * Record one token-carrying chunk. A chunk that carries both reasoning and content (a
   * transition chunk) counts as content; its reasoning still sets `first_reasoning_at_ms`.
   */
  private tokenChunk(hasR: boolean, hasC: boolean, hasT: boolean, t: number): void {
    const rec = this.rec;
    const kind: ChunkKind = hasC ? 'c' : hasT ? 't' : 'r';
    rec.chunk_times_ms.push(t);
    rec.chunk_kinds.push(kind);
    if (hasR && rec.first_reasoning_at_ms === null) rec.first_reasoning_at_ms = t;
    if (hasC) {
      if (rec.first_content_at_ms === null) rec.first_content_at_ms = t;
      rec.last_content_at_ms = t;
    }
    if (hasR || hasC) {
      if (rec.first_token_at_ms === null) rec.first_token_at_ms = t;
      rec.last_token_at_ms = t;
    }
    if (hasC || hasT) this.hasContentOrTool = true;
    if (this.onChunk !== undefined) {
      try {
        this.onChunk(rec);
      } catch {
        // an observer's bug must not corrupt the measurement
      }
    }
  }

  /**
   * Apply a complete non-stream body (`stream: false`) that finished arriving at `t`:
   * first chunk = first token = end = body complete; one token-carrying chunk is recorded
   * (content if any, else tool call, else reasoning).
   */
  applyJsonBody(text: string, t: number): void {
    const rec = this.rec;
    rec.first_chunk_at_ms = t;
    let obj: unknown;
    try {
      obj = JSON.parse(text);
    } catch {
      this.setStreamError(`malformed JSON body: ${clip(text, 80)}`);
      return;
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      this.setStreamError('response body is not a JSON object');
      return;
    }
    const o = obj as Record<string, unknown>;
    if ((o.error !== undefined && o.error !== null) || o.object === 'error') {
      this.setStreamError(`in-band error: ${errorMessageOf(o.error ?? o)}`);
      return;
    }
    let hasR = false;
    let hasC = false;
    let hasT = false;
    const choices = Array.isArray(o.choices) ? o.choices : [];
    for (const c of choices as (Record<string, unknown> | null)[]) {
      if (c === null || typeof c !== 'object') continue;
      const m = c.message as Record<string, unknown> | null | undefined;
      if (m !== null && typeof m === 'object') {
        if (nonEmptyString(m.reasoning_content)) {
          hasR = true;
          this.info.reasoning_field ??= 'reasoning_content';
        } else if (nonEmptyString(m.reasoning)) {
          hasR = true;
          this.info.reasoning_field ??= 'reasoning';
        }
        if (nonEmptyString(m.content)) {
          hasC = true;
          if (this.answer !== undefined) this.keep(m.content as string, t);
        }
        if (nonEmptyArray(m.tool_calls)) hasT = true;
      } else if (nonEmptyString(c.text)) {
        hasC = true;
        if (this.answer !== undefined) this.keep(c.text as string, t);
      }
      if (typeof c.finish_reason === 'string' && c.finish_reason && rec.finish_reason === null) {
        rec.finish_reason = c.finish_reason;
        if (c.finish_reason === 'error' || c.finish_reason === 'abort')
          this.setStreamError(`finish_reason ${c.finish_reason}`);
      }
    }
    rec.end_at_ms = t;
    const usage = parseUsage(o.usage);
    if (usage !== null) {
      rec.usage = usage;
      this.info.usage_where = 'body';
    }
    if (o.timings !== null && typeof o.timings === 'object' && !Array.isArray(o.timings)) {
      rec.timings = o.timings as Record<string, unknown>;
      this.info.timings_seen = true;
    }
    // one chunk for the whole body, so every first_*/last_* time is `t`
    if (hasR || hasC || hasT) this.tokenChunk(hasR, hasC, hasT, t);
    this.done = true;
  }

  /**
   * Close the record: set `done`, `has_content`, usage placement, and the outcome from the
   * transport flags plus what the body said.
   */
  finish(
    transport: Omit<
      OutcomeFlags,
      'streamError' | 'finishReason' | 'hasContent' | 'expectedLen' | 'completionTokens'
    >,
  ): RequestRecord {
    const rec = this.rec;
    this.sealed = true;
    rec.done = this.done;
    rec.has_content = this.hasContentOrTool;
    if (this.info.usage_where === null && this.usageChunks > 0) {
      // vLLM's continuous_usage_stats and SGLang-style servers repeat usage; more than the
      // finish chunk plus a usage chunk means "every chunk"
      this.info.usage_where =
        this.usageChunks > 2
          ? 'every_chunk'
          : this.usageSeparate
            ? 'separate_chunk'
            : this.usageOnFinish
              ? 'finish_chunk'
              : 'other';
    }
    rec.outcome = classifyOutcome({
      ...transport,
      streamError: this.streamError !== null,
      finishReason: rec.finish_reason,
      hasContent: this.hasContentOrTool,
      expectedLen: rec.output_len,
      completionTokens: rec.usage?.completion_tokens ?? null,
    });
    if (rec.error === null && this.streamError !== null) rec.error = this.streamError;
    rec.server = serverTimesOf(rec.timings);
    return rec;
  }
}
