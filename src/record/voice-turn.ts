/**
 * @module record/voice-turn
 * The per-turn record of `servelab voice`: every boundary of the first-audio critical path
 * (speech end → endpointing → ASR → LLM → text chunk → TTS → playback) as raw timestamps, the
 * LLM leg as the very {@link RequestRecord} `run` writes, and each audio stage's own record.
 * Every planned turn ends as exactly one record. Metrics (the first-audio breakdown) are derived
 * in `analysis/voice-metrics`. Times: ms since the run started, monotonic; null = never happened.
 */
import type { Outcome, Phase, RequestRecord } from './types.js';

/** The stages of a turn that talk to a server. */
export const VOICE_STAGES = ['asr', 'llm', 'tts'] as const;
export type VoiceStage = (typeof VOICE_STAGES)[number];

/** One exchange with an audio endpoint (`/v1/audio/transcriptions` or `/v1/audio/speech`). */
export interface AudioStageRecord {
  sent_at_ms: number | null;
  headers_at_ms: number | null;
  /** ASR: the first text delta of a stream; TTS: the first audio byte. */
  first_at_ms: number | null;
  /** The response's end (ASR: the final transcript). */
  end_at_ms: number | null;
  http_status: number | null;
  /** The response came as a stream (SSE text for ASR, chunked audio for TTS). */
  stream: boolean;
  /** Classified like `run`'s records (`record/types` OUTCOMES). */
  outcome: Outcome;
  error: string | null;
}

export interface AsrRecord extends AudioStageRecord {
  /** The final transcript (null: none came). */
  text: string | null;
}

export interface TtsRecord extends AudioStageRecord {
  /** Which text chunk of the reply (0 = the first). */
  chunk: number;
  /** Characters of text sent. */
  chars: number;
  /** When the text chunk was complete (sent to TTS). */
  text_ready_at_ms: number;
  audio_bytes: number;
  /** Milliseconds of audio received (from the bytes and the sample rate). */
  audio_ms: number | null;
  /** When the jitter buffer (`--playback-buffer-ms` of audio) was full, or the stream ended shorter. */
  buffered_at_ms: number | null;
}

/** One planned turn of one simulated user. */
export interface VoiceRecord {
  /** `u{user}t{turn}`. */
  id: string;
  user: number;
  /** 0-based turn of this user. */
  turn: number;
  phase: Phase;
  /** The utterance spoken (a file name, or `generated-N.wav`). */
  audio: string;
  speech_seconds: number;
  /** The condition: chunk policy, endpoint window, jitter buffer. */
  tts_chunk: string;
  endpoint_ms: number;
  playback_buffer_ms: number;

  /** When the user started speaking. */
  speech_start_at_ms: number | null;
  /** Speech ends: the end of the audio file the user spoke. */
  speech_end_at_ms: number | null;
  /** Endpointing decided the turn was over (speech end + the silence window); ASR is sent. */
  endpoint_at_ms: number | null;
  asr: AsrRecord | null;
  /** The LLM leg, exactly as `run` records a request. */
  llm: RequestRecord | null;
  /** When the first text chunk was complete and went to TTS. */
  first_chunk_at_ms: number | null;
  /** One TTS exchange per text chunk, in order. */
  tts: TtsRecord[];
  /** Playback started: the first chunk's jitter buffer was full. */
  playback_start_at_ms: number | null;
  /** Every TTS stream of the turn ended. */
  end_at_ms: number | null;

  /** The first failed stage's outcome, or `ok`. */
  outcome: Outcome;
  /** Which stage failed first (null: none did). */
  failed_stage: VoiceStage | null;
  error: string | null;
}

/** An audio stage record with nothing yet. */
export function emptyStage(stream: boolean): AudioStageRecord {
  return {
    sent_at_ms: null,
    headers_at_ms: null,
    first_at_ms: null,
    end_at_ms: null,
    http_status: null,
    stream,
    outcome: 'cancelled',
    error: null,
  };
}
