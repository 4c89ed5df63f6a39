/**
 * @module workload/audio
 * What a voice user "speaks": WAV files read from `--audio DIR`, or generated WAV audio whose
 * durations follow `--speech-seconds DIST` (the distribution grammar of `workload/lengths`, in
 * seconds). One WAV reader ({@link parseWav}) serves the voice client and the simulator's
 * transcription endpoint, so both agree on what a file's duration is.
 *
 * The RIFF/WAVE layout read and written here is the canonical one: a `RIFF` header, a `fmt `
 * chunk (PCM format 1, or 3 for IEEE float, and WAVE_FORMAT_EXTENSIBLE 0xFFFE), then a `data`
 * chunk; other chunks (LIST, fact) are skipped (Microsoft's "Multimedia Programming Interface
 * and Data Specifications 1.0", 1991, as summarised in
 * http://soundfile.sapp.org/doc/WaveFormat/).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Problem, UsageError } from '../core/errors.js';
import { type T, translator } from '../i18n/index.js';
import { Rng } from '../runtime/rng.js';
import { parseLengthDist } from './lengths.js';

/** What a WAV file holds. */
export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Bytes of sample data (the `data` chunk). */
  dataBytes: number;
  /** Duration of the audio, seconds. */
  seconds: number;
}

/** One utterance a user speaks: a WAV file's bytes and duration. */
export interface Utterance {
  /** Where it came from: a file name, or `generated-N.wav`. */
  name: string;
  wav: Buffer;
  seconds: number;
}

/** The sample rate of generated audio (Hz): 16 kHz mono 16-bit, what Whisper-style ASR takes. */
export const GENERATED_SAMPLE_RATE = 16_000;

/**
 * The header fields of a WAV file, or why it is not one (a short reason in English words of the
 * caller's language: see {@link readWavFile} for the user-facing error).
 */
export function parseWav(buf: Uint8Array): { ok: true; info: WavInfo } | { ok: false; why: string } {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < 12 || b.toString('ascii', 0, 4) !== 'RIFF' || b.toString('ascii', 8, 12) !== 'WAVE')
    return { ok: false, why: 'riff' };
  let fmt: { channels: number; sampleRate: number; bits: number; blockAlign: number } | null = null;
  let pos = 12;
  while (pos + 8 <= b.length) {
    const id = b.toString('ascii', pos, pos + 4);
    const size = b.readUInt32LE(pos + 4);
    const body = pos + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > b.length) return { ok: false, why: 'fmt' };
      const format = b.readUInt16LE(body);
      if (format !== 1 && format !== 3 && format !== 0xfffe) return { ok: false, why: 'codec' };
      fmt = {
        channels: b.readUInt16LE(body + 2),
        sampleRate: b.readUInt32LE(body + 4),
        blockAlign: b.readUInt16LE(body + 12),
        bits: b.readUInt16LE(body + 14),
      };
      if (fmt.channels < 1 || fmt.sampleRate < 1 || fmt.blockAlign < 1) return { ok: false, why: 'fmt' };
    } else if (id === 'data') {
      if (!fmt) return { ok: false, why: 'fmt' };
      // A streamed WAV may carry 0 or 0xFFFFFFFF as its size: what is there is the data.
      const avail = b.length - body;
      const dataBytes = size === 0 || size === 0xffffffff || size > avail ? avail : size;
      const frames = Math.floor(dataBytes / fmt.blockAlign);
      return {
        ok: true,
        info: {
          sampleRate: fmt.sampleRate,
          channels: fmt.channels,
          bitsPerSample: fmt.bits,
          dataBytes,
          seconds: frames / fmt.sampleRate,
        },
      };
    }
    pos = body + size + (size % 2);
  }
  return { ok: false, why: fmt ? 'data' : 'fmt' };
}

/** The 44-byte header of a 16-bit PCM WAV; `dataBytes` null = unknown length (a stream). */
export function wavHeader(sampleRate: number, channels: number, dataBytes: number | null): Buffer {
  const h = Buffer.alloc(44);
  const size = dataBytes ?? 0xffffffff - 36;
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(Math.min(0xffffffff, size + 36), 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * channels * 2, 28);
  h.writeUInt16LE(channels * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes ?? 0xffffffff, 40);
  return h;
}

/**
 * A generated utterance of `seconds` of 16 kHz mono 16-bit audio: a quiet tone whose pitch comes
 * from `seed`, so different users' files differ, and the same seed gives the same bytes.
 */
export function generateWav(seconds: number, seed: number): Buffer {
  const frames = Math.round(seconds * GENERATED_SAMPLE_RATE);
  const data = Buffer.alloc(frames * 2);
  const hz = 120 + (seed % 120);
  for (let i = 0; i < frames; i++)
    data.writeInt16LE(Math.round(2000 * Math.sin((2 * Math.PI * hz * i) / GENERATED_SAMPLE_RATE)), i * 2);
  return Buffer.concat([wavHeader(GENERATED_SAMPLE_RATE, 1, data.length), data]);
}

/** The problem of a file that is not a WAV this reader understands (no stack trace: a usage error). */
function notWav(path: string, why: string, t: T): Problem {
  return {
    path: '--audio',
    message: t('voice.wav.not_wav', { file: path, why: t(`voice.wav.why.${why}` as 'voice.wav.why.riff') }),
    hint: t('voice.wav.not_wav_hint'),
  };
}

/** Read one WAV file; a file that is not a WAV is a {@link UsageError} naming it. */
export async function readWavFile(path: string, t: T = translator('en')): Promise<Utterance> {
  const wav = await readFile(path);
  const r = parseWav(wav);
  if (!r.ok) throw new UsageError([notWav(path, r.why, t)]);
  return { name: path, wav, seconds: r.info.seconds };
}

/**
 * The `.wav` files of `dir`, in name order, each read and checked: every file that is not a WAV
 * is reported at once. A directory without any is a usage error too.
 */
export async function readAudioDir(dir: string, t: T = translator('en')): Promise<Utterance[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.toLowerCase().endsWith('.wav')).sort();
  } catch (err) {
    throw new UsageError([
      {
        path: '--audio',
        message: t('voice.audio.unreadable', { dir, error: (err as Error).message }),
        hint: t('voice.audio.dir_hint'),
      },
    ]);
  }
  if (names.length === 0)
    throw new UsageError([
      { path: '--audio', message: t('voice.audio.empty', { dir }), hint: t('voice.audio.dir_hint') },
    ]);
  const problems: Problem[] = [];
  const out: Utterance[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const wav = await readFile(path);
    const r = parseWav(wav);
    if (!r.ok) problems.push(notWav(path, r.why, t));
    else out.push({ name, wav, seconds: r.info.seconds });
  }
  if (problems.length) throw new UsageError(problems);
  return out;
}

/** The shortest generated utterance, seconds: a draw below it (a real distribution may give 0) is raised to it. */
export const MIN_SPEECH_SECONDS = 0.1;

/**
 * `count` generated utterances whose durations are drawn from `dist`, the distribution grammar
 * of `workload/lengths` in seconds (`3`, `uniform:2-6`, `normal:4,1`, `exp:3`,
 * `lognormal:3,0.5`; real-valued, at least {@link MIN_SPEECH_SECONDS}), from a seeded stream: the
 * same seed gives the same files.
 */
export function generateUtterances(
  dist: string,
  count: number,
  seed: number,
  t: T = translator('en'),
): Utterance[] {
  const parsed = parseLengthDist(dist, '--speech-seconds', 'real');
  if (!parsed.ok) throw new UsageError([{ ...parsed.problem, hint: t('voice.speech_seconds.hint') }]);
  const rng = new Rng(seed).fork('speech-seconds');
  return Array.from({ length: count }, (_, i) => {
    const seconds = Math.max(MIN_SPEECH_SECONDS, Math.round(parsed.dist.sample(rng) * 1000) / 1000);
    return { name: `generated-${i}.wav`, wav: generateWav(seconds, seed + i), seconds };
  });
}
