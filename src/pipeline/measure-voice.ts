/**
 * @module pipeline/measure-voice
 * One voice measurement end to end: resolve the LLM model, read or generate the utterances,
 * build the three clients (the ASR and TTS clients of `client/audio`, and for the LLM the very
 * client `run` uses, `client/http`), run the turns (`runner/voice-turns`), write the records
 * and summarise them (`analysis/voice-metrics`). `servelab voice`, `servelab demo voice` and the
 * `voice` experiment kind all call {@link measureVoice}.
 *
 * Files under `out`: `voice.jsonl` (one {@link VoiceRecord} per planned turn), `requests.jsonl`
 * (the LLM legs, exactly the records `run` writes there) and `voice.json` (settings and summary).
 */
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { summarizeVoice, type VoiceSummary } from '../analysis/voice-metrics.js';
import { createHttpTarget, listModels } from '../client/index.js';
import { TargetError } from '../core/errors.js';
import { rememberSecret } from '../core/redact.js';
import { redactUrl } from '../core/url.js';
import { type T, translator } from '../i18n/index.js';
import { writeJsonFile, writeTextFile } from '../output/write.js';
import type { RequestRecord } from '../record/types.js';
import type { VoiceRecord } from '../record/voice-turn.js';
import { openRecordWriter } from '../record/writer.js';
import { type VoiceCondition, voiceWaterfallSvg } from '../report/voice-waterfall.js';
import { type ChunkPolicy, chunkPolicyText } from '../runner/chunker.js';
import { runVoice } from '../runner/voice-turns.js';
import { type Clock, RealClock } from '../runtime/clock.js';
import { Rng } from '../runtime/rng.js';
import { generateUtterances, readAudioDir, type Utterance } from '../workload/audio.js';
import { parseLengthDistOrThrow } from '../workload/lengths.js';
import { clientOptionsOf } from './client-options.js';

/** Everything one voice measurement needs (validated by the caller). */
export interface VoiceSettings {
  /** Base URLs ending in /v1; they may be the same server. */
  asrUrl: string;
  llmUrl: string;
  ttsUrl: string;
  asrModel: string;
  asrStream: boolean;
  ttsModel: string;
  ttsVoice: string;
  ttsFormat: 'pcm' | 'wav';
  /** The LLM model; null = the first the LLM server lists. */
  model: string | null;
  /** Simulated users (each a closed loop of turns). */
  users: number;
  /** Planned turns in all. */
  turns: number;
  seed: number;
  /** A directory of WAV files, or null to generate audio of `speechSeconds`. */
  audioDir: string | null;
  speechSeconds: string;
  endpointMs: number;
  chunk: ChunkPolicy;
  bufferMs: number;
  /** Output length distribution (max_tokens per turn), or null for the server's default. */
  outputLen: string | null;
  maxTokens: number | null;
  temperature: number;
  /** `--top-p` and `--stop`, as `run` sends them (null: not sent). */
  topP?: number | null;
  stop?: string[] | null;
  ignoreEos: boolean;
  /** Per-exchange limits, seconds (null = none). */
  timeoutS: number | null;
  timeoutFirstS: number | null;
  headers: Record<string, string>;
  apiKeyEnv: string;
  out: string | null;
  /** Whether the users' speaking time passes in real time (default true). */
  speakRealTime?: boolean;
}

export interface VoiceMeasureDeps {
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  t?: T;
  clock?: Clock;
  /** Reach all three servers through this dispatcher (an in-process simulator). */
  dispatcher?: Dispatcher;
}

export interface VoiceMeasurement {
  records: VoiceRecord[];
  /** The LLM legs, as `run` records requests. */
  llmRecords: RequestRecord[];
  /** Unix ms of the clock's origin: the anchor of every record time. */
  startedAtUnixMs: number;
  summary: VoiceSummary;
  model: string;
  /** What was measured, for voice.json and experiment records. */
  config: Record<string, unknown>;
  files: string[];
}

/** The description of a voice measurement stored beside its summary (URLs redacted). */
export function voiceConfig(s: VoiceSettings, model: string): Record<string, unknown> {
  return {
    asr_url: redactUrl(s.asrUrl),
    llm_url: redactUrl(s.llmUrl),
    tts_url: redactUrl(s.ttsUrl),
    asr_model: s.asrModel,
    asr_stream: s.asrStream,
    tts_model: s.ttsModel,
    tts_voice: s.ttsVoice,
    tts_format: s.ttsFormat,
    model,
    users: s.users,
    turns: s.turns,
    seed: s.seed,
    audio: s.audioDir ?? `generated ${s.speechSeconds} s`,
    endpoint_ms: s.endpointMs,
    tts_chunk: chunkPolicyText(s.chunk),
    playback_buffer_ms: s.bufferMs,
    output_len: s.outputLen,
    max_tokens: s.maxTokens,
  };
}

/** Read or generate the turns' utterances (a bad WAV is a usage error naming the file). */
export async function voiceUtterances(s: VoiceSettings, t: T): Promise<Utterance[]> {
  return s.audioDir ? readAudioDir(s.audioDir, t) : generateUtterances(s.speechSeconds, s.turns, s.seed, t);
}

/** Run one voice measurement. Throws UsageError (bad audio) or TargetError (LLM unreachable). */
export async function measureVoice(s: VoiceSettings, deps: VoiceMeasureDeps): Promise<VoiceMeasurement> {
  const t = deps.t ?? translator('en');
  const utterances = await voiceUtterances(s, t);
  const apiKey = deps.env[s.apiKeyEnv] || undefined;
  rememberSecret(apiKey);
  let model = s.model;
  if (!model) {
    const models = await listModels(s.llmUrl, apiKey, s.headers, s.apiKeyEnv, deps.dispatcher);
    if (!models.length)
      throw new TargetError(t('voice.no_model', { url: redactUrl(s.llmUrl) }), t('voice.no_model_hint'));
    model = models[0] as string;
  }
  const clock = deps.clock ?? new RealClock();
  const dispatcher = deps.dispatcher ? { dispatcher: deps.dispatcher } : {};
  const client = clientOptionsOf(
    {
      endpoint: 'chat',
      model,
      stream: true,
      headers: s.headers,
      apiKey,
      timeoutS: s.timeoutS,
      timeoutTtftS: s.timeoutFirstS,
    },
    s,
  );
  const llm = createHttpTarget({ ...client, baseUrl: s.llmUrl, clock, ...dispatcher });
  // The ASR and TTS exchanges keep the same limits as the LLM leg.
  const audio = {
    headers: s.headers,
    apiKey,
    clock,
    timeoutMs: client.timeoutMs ?? null,
    timeoutFirstMs: client.timeoutTtftMs ?? null,
    ...dispatcher,
  };
  const dist = s.outputLen ? parseLengthDistOrThrow(s.outputLen, '--output-len') : null;
  const rng = new Rng(s.seed).fork('voice-output-len');
  const lengths = Array.from({ length: s.turns }, () => (dist ? dist.sample(rng) : null));
  const llmWriter = s.out ? openRecordWriter(join(s.out, 'requests.jsonl')) : null;
  const voiceWriter = s.out ? openRecordWriter<VoiceRecord>(join(s.out, 'voice.jsonl')) : null;
  const llmRecords: RequestRecord[] = [];
  let records: VoiceRecord[];
  try {
    records = await runVoice(
      {
        users: s.users,
        turns: s.turns,
        utterances,
        endpointMs: s.endpointMs,
        chunk: s.chunk,
        bufferMs: s.bufferMs,
        speakRealTime: s.speakRealTime,
        asr: { ...audio, baseUrl: s.asrUrl, model: s.asrModel, stream: s.asrStream },
        tts: { ...audio, baseUrl: s.ttsUrl, model: s.ttsModel, voice: s.ttsVoice, format: s.ttsFormat },
        llm,
        outputLen: (i) => lengths[i] ?? null,
      },
      {
        clock,
        signal: deps.signal,
        onRecord: (r) => voiceWriter?.write(r),
        onLlmRecord: (r) => {
          llmRecords.push(r);
          llmWriter?.write(r);
        },
      },
    );
  } finally {
    await llm.close();
    await llmWriter?.close();
    await voiceWriter?.close();
  }
  const summary = summarizeVoice(records);
  const config = voiceConfig(s, model);
  const files: string[] = [];
  if (s.out) {
    const path = join(s.out, 'voice.json');
    await writeJsonFile(path, { config, summary });
    files.push(join(s.out, 'voice.jsonl'), join(s.out, 'requests.jsonl'), path);
    const svg = await writeVoiceWaterfall(s.out, [{ label: chunkPolicyText(s.chunk), summary }], t);
    if (svg) files.push(svg);
  }
  return { records, llmRecords, summary, model, config, files, startedAtUnixMs: clock.originUnixMs };
}

/**
 * Write the waterfall of `conditions` to `dir/waterfall.svg`; returns its path, or null when no
 * condition reached playback (nothing to draw).
 */
export async function writeVoiceWaterfall(
  dir: string,
  conditions: readonly VoiceCondition[],
  t: T = translator('en'),
): Promise<string | null> {
  const svg = voiceWaterfallSvg(conditions, t);
  if (svg === null) return null;
  const path = join(dir, 'waterfall.svg');
  await writeTextFile(path, svg);
  return path;
}
