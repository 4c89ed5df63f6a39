/**
 * @module client/audio
 * The voice client's two audio exchanges, each ending as exactly one record (never rejecting),
 * timed from the caller's clock and classified with `run`'s outcome precedence
 * ({@link classifyOutcome}):
 *
 * - {@link transcribe}: `POST {base}/audio/transcriptions`, a multipart form (`file`, `model`,
 *   `response_format=json`, `stream`), as OpenAI documents it
 *   (https://platform.openai.com/docs/api-reference/audio/createTranscription) and vLLM serves it
 *   (`vllm-project/vllm:vllm/entrypoints/openai/speech_to_text/protocol.py`, `TranscriptionRequest`).
 *   A streamed answer is read in either shape: OpenAI's events `transcript.text.delta` `{delta}` and
 *   `transcript.text.done` `{text}`
 *   (https://platform.openai.com/docs/api-reference/audio/transcript-text-delta-event), or vLLM's
 *   `transcription.chunk` with `choices[0].delta.content` and a closing `data: [DONE]`. A JSON body
 *   `{text}` (or plain text) is the non-stream answer.
 * - {@link synthesize}: `POST {base}/audio/speech` with JSON `{model, input, voice, response_format}`
 *   (https://platform.openai.com/docs/api-reference/audio/createSpeech): the audio body is read as it
 *   streams; its first byte and the moment the jitter buffer holds enough audio are recorded.
 *   `pcm` is OpenAI's 24 kHz 16-bit mono; `wav` carries its rate in the header.
 */
import { randomBytes } from 'node:crypto';
import { createParser } from 'eventsource-parser';
import { type Dispatcher, request } from 'undici';
import { targetHeaders } from '../core/headers.js';
import { scrubSecrets } from '../core/redact.js';
import type { AsrRecord, AudioStageRecord, TtsRecord } from '../record/voice-turn.js';
import { emptyStage } from '../record/voice-turn.js';
import { whenAborted } from '../runtime/abort.js';
import type { Clock } from '../runtime/clock.js';
import { parseWav } from '../workload/audio.js';
import { classifyOutcome, clip, errorMessageOf } from './stream.js';

/** OpenAI's `pcm` speech format: 24 kHz, 16-bit signed little-endian, mono. */
export const OPENAI_PCM_RATE = 24_000;

/** Where and how to reach one audio server. */
export interface AudioTarget {
  /** Base URL ending in /v1. */
  baseUrl: string;
  model: string;
  headers?: Record<string, string>;
  apiKey?: string;
  clock: Clock;
  /** The whole exchange's limit (ms); null = none. */
  timeoutMs?: number | null;
  /** Limit to the first text delta (ASR stream) or first audio byte (TTS), ms; null = none. */
  timeoutFirstMs?: number | null;
  dispatcher?: Pick<Dispatcher, 'dispatch'>;
}

/** The multipart/form-data body of a transcription request. */
export function transcriptionForm(
  wav: Buffer,
  fields: Record<string, string>,
  boundary = `servelab-${randomBytes(8).toString('hex')}`,
): { body: Buffer; contentType: string } {
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="speech.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
    ),
    wav,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** How one exchange ended at the transport level (the inputs of {@link classifyOutcome}). */
interface Ended {
  cancelled: boolean;
  connectError: boolean;
  timedOut: boolean;
  streamError: boolean;
}

type BodyHandler = (chunk: Buffer, atMs: number) => void;

/**
 * Send one request and read its body chunk by chunk with arrival times; never rejects. The
 * first-byte and total timeouts, and the caller's signal, abort it.
 */
async function exchange(
  t: AudioTarget,
  path: string,
  body: Buffer | string,
  contentType: string,
  rec: AudioStageRecord,
  signal: AbortSignal,
  onHeaders: (status: number, headers: Record<string, string | string[] | undefined>) => void,
  onBody: BodyHandler,
): Promise<Ended & { errorBody: string }> {
  const ctl = new AbortController();
  const ended: Ended = { cancelled: false, connectError: false, timedOut: false, streamError: false };
  let why: string | null = null;
  const stop = (reason: 'cancelled' | 'first' | 'total') => {
    if (why !== null) return;
    why = reason;
    if (reason === 'cancelled') ended.cancelled = true;
    else ended.timedOut = true;
    ctl.abort(new Error(reason));
  };
  const stopWaiting = whenAborted(signal, () => stop('cancelled'));
  const cancelTotal =
    t.timeoutMs && t.timeoutMs > 0 ? t.clock.setTimer(() => stop('total'), t.timeoutMs) : () => {};
  let cancelFirst =
    t.timeoutFirstMs && t.timeoutFirstMs > 0
      ? t.clock.setTimer(() => stop('first'), t.timeoutFirstMs)
      : () => {};
  const url = `${t.baseUrl.replace(/\/+$/, '')}${path}`;
  const errParts: Buffer[] = [];
  let started = false;
  try {
    if (signal.aborted) {
      ended.cancelled = true;
      rec.error = 'cancelled before send';
      return { ...ended, errorBody: '' };
    }
    rec.sent_at_ms = t.clock.now();
    const res = await request(url, {
      method: 'POST',
      headers: { ...targetHeaders(t.apiKey, t.headers), 'content-type': contentType },
      body,
      signal: ctl.signal,
      headersTimeout: 0,
      bodyTimeout: 0,
      ...(t.dispatcher ? { dispatcher: t.dispatcher as Dispatcher } : {}),
    });
    started = true;
    rec.headers_at_ms = t.clock.now();
    rec.http_status = res.statusCode;
    onHeaders(res.statusCode, res.headers);
    const ok = res.statusCode >= 200 && res.statusCode <= 299;
    for await (const chunk of res.body) {
      const at = t.clock.now();
      const buf = chunk as Buffer;
      if (!ok) {
        if (errParts.reduce((n, b) => n + b.length, 0) < 16_384) errParts.push(buf);
        continue;
      }
      if (buf.length > 0) {
        cancelFirst();
        cancelFirst = () => {};
      }
      onBody(buf, at);
    }
    rec.end_at_ms = t.clock.now();
  } catch (err) {
    rec.end_at_ms = t.clock.now();
    if (why === 'first')
      rec.error = `no first ${path.endsWith('speech') ? 'audio byte' : 'response'} within ${t.timeoutFirstMs} ms (timeout)`;
    else if (why === 'total') rec.error = `exceeded ${t.timeoutMs} ms (timeout)`;
    else if (why === 'cancelled') rec.error = 'cancelled';
    else if (!started) {
      ended.connectError = true;
      rec.error = transportText(err);
    } else {
      ended.streamError = true;
      rec.error = `stream broken: ${transportText(err)}`;
    }
  } finally {
    cancelTotal();
    cancelFirst();
    stopWaiting();
  }
  return { ...ended, errorBody: Buffer.concat(errParts).toString('utf8') };
}

function transportText(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : '';
  const msg = typeof e?.message === 'string' ? e.message : String(err);
  const cause =
    typeof e?.cause?.message === 'string' && !msg.includes(e.cause.message) ? ` (${e.cause.message})` : '';
  return code && !msg.includes(code) ? `${code}: ${msg}${cause}` : `${msg}${cause}`;
}

/** The message of a non-2xx body. */
function httpErrorText(status: number, body: string): string {
  let msg = body.trim();
  try {
    msg = errorMessageOf(JSON.parse(body));
  } catch {
    // plain text
  }
  return `HTTP ${status}: ${msg || '(empty body)'}`;
}

/** Classify and finish a stage record: the outcome, a clipped key-free error. */
function finish(
  rec: AudioStageRecord,
  e: Ended & { errorBody: string },
  complete: boolean,
  hasContent: boolean,
  streamError: string | null,
  secrets: readonly (string | undefined)[],
): void {
  const httpError = rec.http_status !== null && (rec.http_status < 200 || rec.http_status > 299);
  if (httpError && rec.error === null) rec.error = httpErrorText(rec.http_status as number, e.errorBody);
  if (streamError !== null && rec.error === null) rec.error = streamError;
  rec.outcome = classifyOutcome({
    cancelled: e.cancelled,
    connectError: e.connectError,
    httpError,
    timedOut: e.timedOut,
    streamError: e.streamError || streamError !== null,
    finishReason: complete ? 'stop' : null,
    hasContent,
  });
  if (rec.outcome === 'incomplete' && rec.error === null)
    rec.error = 'stream ended before the final transcript';
  if (rec.outcome === 'no_content' && rec.error === null) rec.error = 'no text/audio in the response';
  if (rec.error !== null) rec.error = clip(scrubSecrets(rec.error, secrets));
}

/**
 * Transcribe one utterance. The record's `first_at_ms` is the first text delta of a stream
 * (null without streaming), `end_at_ms` the final transcript; an empty transcript is `no_content`.
 */
export async function transcribe(
  t: AudioTarget,
  wav: Buffer,
  opts: { stream: boolean; signal: AbortSignal; language?: string },
): Promise<AsrRecord> {
  const rec: AsrRecord = { ...emptyStage(opts.stream), text: null };
  const fields: Record<string, string> = { model: t.model, response_format: 'json' };
  if (opts.language) fields.language = opts.language;
  if (opts.stream) fields.stream = 'true';
  const form = transcriptionForm(wav, fields);
  let mode = 'json' as 'sse' | 'json' | 'text';
  let text = '';
  let done = false;
  let streamError: string | null = null;
  const bodyParts: Buffer[] = [];
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent: (ev) => {
      if (ev.data === '[DONE]') {
        done = true;
        return;
      }
      let o: Record<string, unknown>;
      try {
        o = JSON.parse(ev.data) as Record<string, unknown>;
      } catch {
        streamError ??= `malformed JSON on a data line: ${clip(ev.data, 80)}`;
        return;
      }
      if (ev.event === 'error' || (o.error !== undefined && o.error !== null)) {
        streamError ??= `in-band error: ${errorMessageOf(o.error ?? o)}`;
        return;
      }
      let delta = '';
      if (o.type === 'transcript.text.delta' && typeof o.delta === 'string') delta = o.delta;
      else if (o.type === 'transcript.text.done') {
        if (typeof o.text === 'string') text = o.text;
        done = true;
      } else if (Array.isArray(o.choices))
        for (const c of o.choices as { delta?: { content?: unknown } }[])
          if (typeof c?.delta?.content === 'string') delta += c.delta.content;
      if (delta) {
        rec.first_at_ms ??= at;
        text += delta;
      }
    },
  });
  let at = 0;
  const e = await exchange(
    t,
    '/audio/transcriptions',
    form.body,
    form.contentType,
    rec,
    opts.signal,
    (_s, h) => {
      const ct = String(h['content-type'] ?? '').toLowerCase();
      mode = ct.includes('event-stream') ? 'sse' : ct.includes('json') ? 'json' : 'text';
      rec.stream = mode === 'sse';
    },
    (chunk, when) => {
      at = when;
      if (mode === 'sse') parser.feed(decoder.decode(chunk, { stream: true }));
      else bodyParts.push(chunk);
    },
  );
  const ok = rec.http_status !== null && rec.http_status >= 200 && rec.http_status <= 299;
  let complete = done;
  if (ok && mode !== 'sse' && !e.cancelled && !e.timedOut && !e.streamError) {
    const raw = Buffer.concat(bodyParts).toString('utf8');
    if (mode === 'json') {
      try {
        const o = JSON.parse(raw) as { text?: unknown };
        if (typeof o?.text === 'string') text = o.text;
        complete = true;
      } catch {
        streamError = `malformed JSON body: ${clip(raw, 80)}`;
      }
    } else {
      text = raw;
      complete = true;
    }
  }
  rec.text = complete || text ? text.trim() : null;
  finish(rec, e, complete, (rec.text ?? '') !== '', streamError, [t.apiKey]);
  return rec;
}

/** Milliseconds of 16-bit audio in `bytes` at `rate` Hz with `channels` channels. */
export function pcmMs(bytes: number, rate: number, channels = 1): number {
  return (bytes / (2 * channels * rate)) * 1000;
}

/**
 * Speak one text chunk. `first_at_ms` is the first audio byte; `buffered_at_ms` when
 * `bufferMs` of audio had arrived (or the stream ended with less).
 */
export async function synthesize(
  t: AudioTarget,
  input: string,
  opts: {
    voice: string;
    format: 'pcm' | 'wav';
    bufferMs: number;
    chunk: number;
    textReadyAtMs: number;
    signal: AbortSignal;
  },
): Promise<TtsRecord> {
  const rec: TtsRecord = {
    ...emptyStage(true),
    chunk: opts.chunk,
    chars: [...input].length,
    text_ready_at_ms: opts.textReadyAtMs,
    audio_bytes: 0,
    audio_ms: null,
    buffered_at_ms: null,
  };
  const payload = JSON.stringify({ model: t.model, input, voice: opts.voice, response_format: opts.format });
  let rate: number | null = opts.format === 'pcm' ? OPENAI_PCM_RATE : null;
  let channels = 1;
  let headerBytes = 0;
  let head = Buffer.alloc(0);
  const e = await exchange(
    t,
    '/audio/speech',
    payload,
    'application/json',
    rec,
    opts.signal,
    () => {},
    (chunk, at) => {
      if (chunk.length === 0) return;
      rec.first_at_ms ??= at;
      rec.audio_bytes += chunk.length;
      if (rate === null) {
        // a WAV stream: its rate is in the header
        head = Buffer.concat([head, chunk]);
        const w = parseWav(head);
        if (w.ok) {
          rate = w.info.sampleRate;
          channels = w.info.channels;
          headerBytes = head.length - w.info.dataBytes;
        } else if (head.length >= 4096) rate = OPENAI_PCM_RATE;
      }
      if (rate !== null) {
        rec.audio_ms = pcmMs(Math.max(0, rec.audio_bytes - headerBytes), rate, channels);
        if (rec.buffered_at_ms === null && rec.audio_ms >= opts.bufferMs) rec.buffered_at_ms = at;
      }
    },
  );
  const ok = rec.http_status !== null && rec.http_status >= 200 && rec.http_status <= 299;
  const complete = ok && !e.cancelled && !e.timedOut && !e.streamError && !e.connectError;
  // A stream shorter than the buffer starts playing when it ends.
  if (complete && rec.buffered_at_ms === null && rec.audio_bytes > headerBytes)
    rec.buffered_at_ms = rec.end_at_ms;
  finish(rec, e, complete, rec.audio_bytes > headerBytes, null, [t.apiKey]);
  return rec;
}
