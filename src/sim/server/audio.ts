/**
 * @module sim/server/audio
 * The simulator's audio endpoints, on the same port as its LLM API:
 *
 * - `POST /v1/audio/transcriptions` (multipart form: `file`, `model`, `stream`,
 *   `response_format`, `stream_include_usage`), shaped like vLLM's speech-to-text server
 *   (`vllm-project/vllm:vllm/entrypoints/openai/speech_to_text/protocol.py`:
 *   `TranscriptionResponse` `{text, usage: {type: "duration", seconds}}`, and with `stream=true`
 *   SSE `transcription.chunk` events whose `choices[0].delta.content` carries the text, then
 *   `data: [DONE]`). One transcription costs `asr_fixed_ms + asr_rtf × audio ms` of simulated
 *   GPU time ({@link AsrDevice}): with `asr_gpu: colocated` on the LLM's GPU, between engine
 *   steps (the next step waits for it, and it waits for the step in flight), with `separate`
 *   on a GPU of its own. Transcriptions run one at a time, in arrival order.
 * - `POST /v1/audio/speech` (JSON `{model, input, voice, response_format}`), OpenAI's text to
 *   speech (https://platform.openai.com/docs/api-reference/audio/createSpeech): the audio is
 *   streamed as it is made, `pcm` (24 kHz 16-bit mono little-endian, OpenAI's `pcm`) or `wav`
 *   (the same samples behind a header of unknown length). Response headers go out at once; the
 *   first audio bytes after `tts_first_byte_ms`, then one chunk of `tts_chunk_ms` of audio every
 *   `tts_rtf × tts_chunk_ms` engine ms. Speech streams do not compete with each other or the
 *   LLM (a TTS server of its own).
 *
 * Any `model` is accepted: a voice stack names its ASR and TTS models, not the LLM's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../runtime/clock.js';
import { hashString } from '../../runtime/rng.js';
import { parseWav, wavHeader } from '../../workload/audio.js';
import type { ResolvedServerOptions } from '../settings.js';
import { mix32, tokenText } from './text.js';
import { SSE_DONE, sseData } from './wire.js';

/** OpenAI's `pcm` speech: 24 kHz, 16-bit, mono. */
export const SPEECH_SAMPLE_RATE = 24_000;
/** Words a speaker says per second of audio (the length of a simulated transcript). */
export const WORDS_PER_SECOND = 2.5;
/** Speech time of one character of text, ms: ~15 characters a second of English, 4 of Chinese. */
const MS_PER_CHAR = 66;
const MS_PER_CJK_CHAR = 250;

/** Milliseconds of speech the simulated TTS makes for `text`. */
export function speechMsOf(text: string): number {
  let ms = 0;
  for (const ch of text) ms += /[\u3000-\u9fff\uff00-\uffef]/.test(ch) ? MS_PER_CJK_CHAR : MS_PER_CHAR;
  return ms;
}

/**
 * The transcription device's timeline (engine ms): one job at a time, in arrival order. Pure:
 * the caller passes the times.
 */
export class AsrDevice {
  private busyUntilMs = 0;
  constructor(
    private readonly fixedMs: number,
    private readonly rtf: number,
  ) {}

  /** GPU ms of one transcription of `seconds` of audio. */
  costMs(seconds: number): number {
    return this.fixedMs + this.rtf * seconds * 1000;
  }

  /**
   * Book a transcription arriving at `arrivalMs`: it starts when the device is free and, when it
   * shares the LLM's GPU, once the engine step in flight (ending at `llmBusyUntilMs`) is done.
   */
  reserve(arrivalMs: number, seconds: number, llmBusyUntilMs = 0): { startMs: number; endMs: number } {
    const startMs = Math.max(arrivalMs, this.busyUntilMs, llmBusyUntilMs);
    const endMs = startMs + this.costMs(seconds);
    this.busyUntilMs = endMs;
    return { startMs, endMs };
  }

  /** When the device is next free (engine ms); the engine's next step waits for it when colocated. */
  freeAtMs(): number {
    return this.busyUntilMs;
  }
}

/** What the audio endpoints need of the server around them. */
export interface AudioHost {
  clock: Clock;
  so: ResolvedServerOptions;
  modelId: string;
  /** Engine time now (ms). */
  engineNow(): number;
  /** Wall ms on the server clock for engine time `ms`. */
  toWallMs(engineMs: number): number;
  /** End of the engine step in flight (engine ms), 0 when idle. */
  llmBusyUntilMs(): number;
  sendError(res: ServerResponse, status: number, message: string, param?: string | null): void;
  sendJson(res: ServerResponse, status: number, payload: unknown): void;
  log(line: string): void;
}

/** A multipart/form-data body's parts: name → value (file parts keep their bytes). */
export function parseMultipart(body: Buffer, contentType: string): Map<string, Buffer> | null {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!m) return null;
  const delim = Buffer.from(`--${m[1] ?? m[2]}`);
  const parts = new Map<string, Buffer>();
  let pos = body.indexOf(delim);
  while (pos >= 0) {
    const start = pos + delim.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const headEnd = body.indexOf('\r\n\r\n', start);
    if (headEnd < 0) break;
    const next = body.indexOf(delim, headEnd + 4);
    if (next < 0) break;
    const head = body.subarray(start, headEnd).toString('utf8');
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    // the part's bytes end before the CRLF that precedes the next delimiter
    if (name !== undefined) parts.set(name, body.subarray(headEnd + 4, next - 2));
    pos = next;
  }
  return parts;
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size <= maxBytes) chunks.push(c as Buffer);
  }
  return size > maxBytes ? null : Buffer.concat(chunks);
}

const truthy = (b: Buffer | undefined) => b !== undefined && /^(true|1)$/i.test(b.toString().trim());

/** The audio endpoints of one simulator. */
export class SimAudio {
  readonly asr: AsrDevice;

  constructor(private readonly host: AudioHost) {
    this.asr = new AsrDevice(host.so.asrFixedMs, host.so.asrRtf);
  }

  /** When the LLM's GPU is free of transcriptions (engine ms); only colocated ASR holds it. */
  gpuFreeAtMs(): number {
    return this.host.so.asrGpu === 'colocated' ? this.asr.freeAtMs() : 0;
  }

  /** Cancel the timers of a response when its client goes away. */
  private onClose(res: ServerResponse, cancel: () => void): void {
    (res as unknown as { on?: (e: string, f: () => void) => void }).on?.('close', cancel);
  }

  /** The request body, or null after answering 413 to one over `max_body_bytes`. */
  private async body(req: IncomingMessage, res: ServerResponse): Promise<Buffer | null> {
    const max = this.host.so.maxBodyBytes;
    const body = await readBody(req, max);
    if (body === null)
      this.host.sendError(res, 413, `The request body exceeds ${max} bytes (--max-body-bytes).`);
    return body;
  }

  async transcribe(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const h = this.host;
    const arrival = h.engineNow();
    const body = await this.body(req, res);
    if (body === null) return;
    const parts = parseMultipart(body, String(req.headers['content-type'] ?? ''));
    if (!parts) return h.sendError(res, 400, 'Expected a multipart/form-data body with a file part.', 'file');
    const file = parts.get('file');
    if (!file || file.length === 0) return h.sendError(res, 400, 'Field required: file.', 'file');
    const wav = parseWav(file);
    if (!wav.ok)
      return h.sendError(
        res,
        400,
        'Invalid or unsupported audio file: the simulator reads WAV (RIFF/WAVE).',
        'file',
      );
    const seconds = wav.info.seconds;
    const format = parts.get('response_format')?.toString().trim() || 'json';
    if (format !== 'json' && format !== 'text')
      return h.sendError(
        res,
        400,
        `response_format ${format} is not served here; use json or text.`,
        'response_format',
      );
    const stream = truthy(parts.get('stream'));
    const includeUsage = truthy(parts.get('stream_include_usage'));
    const model = parts.get('model')?.toString().trim() || h.modelId;
    const colocated = h.so.asrGpu === 'colocated';
    const { startMs, endMs } = this.asr.reserve(arrival, seconds, colocated ? h.llmBusyUntilMs() : 0);
    const seed = mix32(
      h.so.seed,
      hashString(file.subarray(0, Math.min(file.length, 4096)).toString('latin1')),
    );
    const n = Math.round(seconds * WORDS_PER_SECOND);
    const words = Array.from({ length: n }, (_, i) => tokenText(seed, i));
    const text = words.join('').trim();
    const id = `trsc-${seed.toString(16).padStart(8, '0')}`;
    h.log(
      `sim transcription id=${id} audio_s=${seconds.toFixed(2)} queue_ms=${(startMs - arrival).toFixed(1)} ` +
        `gpu_ms=${(endMs - startMs).toFixed(1)} gpu=${h.so.asrGpu} stream=${stream}`,
    );
    const timers: (() => void)[] = [];
    this.onClose(res, () => {
      for (const c of timers) c();
    });
    const at = (engineMs: number, fn: () => void) =>
      timers.push(h.clock.setTimer(fn, Math.max(0, h.toWallMs(engineMs) - h.clock.now())));
    if (!stream) {
      at(endMs, () => {
        if (format === 'text') {
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
          return;
        }
        h.sendJson(res, 200, { text, usage: { type: 'duration', seconds: Math.ceil(seconds) } });
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders?.();
    const created = Math.floor((h.clock.originUnixMs + h.clock.now()) / 1000);
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      sseData({
        id,
        object: 'transcription.chunk',
        created,
        model,
        choices: [{ delta, finish_reason: finish }],
      });
    // The decoder's text comes out over the part of the job that scales with the audio.
    const decodeFrom = startMs + Math.min(h.so.asrFixedMs, endMs - startMs);
    words.forEach((w, i) => {
      at(decodeFrom + ((endMs - decodeFrom) * (i + 1)) / words.length, () => {
        res.write(chunk({ content: i === 0 ? w.trimStart() : w }, null));
      });
    });
    at(endMs, () => {
      let out = chunk({}, 'stop');
      if (includeUsage)
        out += sseData({
          id,
          object: 'transcription.chunk',
          created,
          model,
          choices: [],
          usage: { prompt_tokens: 0, completion_tokens: n, total_tokens: n },
        });
      res.end(out + SSE_DONE);
    });
  }

  async speech(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const h = this.host;
    const t0 = h.engineNow();
    const body = await this.body(req, res);
    if (body === null) return;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new Error('not an object');
    } catch {
      return h.sendError(res, 400, 'The request body is not a JSON object.');
    }
    const input = parsed.input;
    if (typeof input !== 'string' || input.trim() === '')
      return h.sendError(res, 400, 'input must be a non-empty string.', 'input');
    const format = parsed.response_format ?? 'mp3';
    if (format !== 'pcm' && format !== 'wav')
      return h.sendError(
        res,
        400,
        `response_format ${String(format)} is not served by the simulator; use pcm or wav.`,
        'response_format',
      );
    if (parsed.stream_format === 'sse')
      return h.sendError(
        res,
        400,
        'stream_format sse is not served by the simulator; use audio.',
        'stream_format',
      );
    const audioMs = speechMsOf(input);
    const chunkMs = h.so.ttsChunkMs;
    const chunks = Math.max(1, Math.ceil(audioMs / chunkMs));
    const bytesPerMs = (SPEECH_SAMPLE_RATE * 2) / 1000;
    const totalBytes = Math.round(audioMs * bytesPerMs) & ~1;
    h.log(`sim speech chars=${input.length} audio_ms=${audioMs} chunks=${chunks} format=${format}`);
    res.writeHead(200, {
      'content-type': format === 'pcm' ? 'audio/pcm' : 'audio/wav',
      'transfer-encoding': 'chunked',
    });
    res.flushHeaders?.();
    let k = 0;
    let sent = 0;
    let cancel = () => {};
    let closed = false;
    this.onClose(res, () => {
      closed = true;
      cancel();
    });
    const next = () => {
      if (closed) return;
      const n =
        k === chunks - 1
          ? totalBytes - sent
          : Math.min(totalBytes - sent, Math.round(chunkMs * bytesPerMs) & ~1);
      const data = Buffer.alloc(Math.max(0, n));
      const out =
        k === 0 && format === 'wav' ? Buffer.concat([wavHeader(SPEECH_SAMPLE_RATE, 1, null), data]) : data;
      sent += data.length;
      k++;
      if (k >= chunks) {
        res.end(out);
        return;
      }
      res.write(out);
      const due = t0 + h.so.ttsFirstByteMs + k * h.so.ttsRtf * chunkMs;
      cancel = h.clock.setTimer(next, Math.max(0, h.toWallMs(due) - h.clock.now()));
    };
    cancel = h.clock.setTimer(next, Math.max(0, h.toWallMs(t0 + h.so.ttsFirstByteMs) - h.clock.now()));
  }
}
