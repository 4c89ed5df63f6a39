/**
 * @module analysis/voice-metrics
 * The first-audio metrics of a voice turn, from a {@link VoiceRecord}'s raw timestamps
 * (definitions and units in docs/metrics.md, "Voice"). Pure; "no data" is `undefined` / null.
 *
 * `time_to_first_audio_ms` = playback start − speech end, and its six segments telescope, so
 * they add up to it exactly:
 *
 * | segment | from | to |
 * |---|---|---|
 * | endpoint | speech end | endpointing decided (ASR sent) |
 * | asr | endpointing decided | final transcript |
 * | llm_ttft | final transcript (LLM sent) | the LLM's first content token |
 * | first_chunk_wait | first content token | first text chunk complete (sent to TTS) |
 * | tts_first_byte | first text chunk sent | its first audio byte |
 * | buffer | first audio byte | jitter buffer full: playback starts |
 *
 * The LLM's own TTFT (`llm_ttft_ms`, `run`'s `ttft_ms` of the LLM record) sits beside it: the
 * rest of first audio (`not_text_ttft_ms`) is what a text-only benchmark never sees.
 */
import type { Outcome } from '../record/types.js';
import type { VoiceRecord, VoiceStage } from '../record/voice-turn.js';
import { errorHint } from './errors.js';
import { firstOutputAt, ttftMs } from './request.js';
import { describe, type Stats } from './stats.js';

/** The segments of the first-audio critical path, in order. */
export const VOICE_SEGMENTS = [
  'endpoint',
  'asr',
  'llm_ttft',
  'first_chunk_wait',
  'tts_first_byte',
  'buffer',
] as const;
export type VoiceSegment = (typeof VOICE_SEGMENTS)[number];

/** One turn's first audio and its breakdown (ms). */
export interface FirstAudio {
  time_to_first_audio_ms: number;
  segments: Record<VoiceSegment, number>;
  /** The LLM's own TTFT (first content − sent), as `run` computes `ttft_ms`. */
  llm_ttft_ms: number | undefined;
}

/**
 * A turn's first audio and its segments, or undefined when playback never started (a failed
 * stage) or a boundary is missing.
 */
export function firstAudio(rec: VoiceRecord): FirstAudio | undefined {
  const tts = rec.tts[0];
  const llmFirst = rec.llm ? firstOutputAt(rec.llm) : null;
  const b = [
    rec.speech_end_at_ms,
    rec.endpoint_at_ms,
    rec.asr?.end_at_ms ?? null,
    llmFirst,
    rec.first_chunk_at_ms,
    tts?.first_at_ms ?? null,
    rec.playback_start_at_ms,
  ];
  if (b.some((v) => v === null || v === undefined)) return undefined;
  const at = b as number[];
  const segments = Object.fromEntries(
    VOICE_SEGMENTS.map((s, i) => [s, (at[i + 1] as number) - (at[i] as number)]),
  ) as Record<VoiceSegment, number>;
  return {
    time_to_first_audio_ms: (at[6] as number) - (at[0] as number),
    segments,
    llm_ttft_ms: rec.llm ? ttftMs(rec.llm) : undefined,
  };
}

/** A voice run (or one condition of an experiment) in numbers. */
export interface VoiceSummary {
  /** Planned turns (= records). */
  turns: number;
  /** Turns whose playback started. */
  measured: number;
  outcomes: Partial<Record<Outcome, number>>;
  /** Failed turns by the stage that failed first. */
  failed_stages: Partial<Record<VoiceStage, number>>;
  time_to_first_audio_ms: Stats;
  segments: Record<VoiceSegment, Stats>;
  /** The LLM's own TTFT over the same turns. */
  llm_ttft_ms: Stats;
  /** time_to_first_audio_ms − llm_ttft_ms per turn: the wait a text benchmark does not see. */
  not_text_ttft_ms: Stats;
  /** LLM end − LLM first content: the generation a whole-reply chunker waits for. */
  llm_generation_ms: Stats;
  /** Seconds of speech per turn. */
  speech_seconds: Stats;
  /** The first error message of each failed stage, for the console. */
  first_errors: Partial<Record<VoiceStage, string>>;
  /** What to do about it, where `run`'s error hints know (`analysis/errors` errorHint). */
  hints: Partial<Record<VoiceStage, string>>;
}

/** The record of the stage a turn failed at (for its hint). */
function failedStageRecord(r: VoiceRecord) {
  if (r.failed_stage === 'asr') return r.asr;
  if (r.failed_stage === 'llm') return r.llm;
  return r.tts.find((x) => x.outcome !== 'ok') ?? null;
}

/**
 * Summarise turns: outcome counts, and the first-audio breakdown over the turns whose playback
 * started.
 * @example summarizeVoice(records).time_to_first_audio_ms.p50
 */
export function summarizeVoice(records: readonly VoiceRecord[]): VoiceSummary {
  const outcomes: Partial<Record<Outcome, number>> = {};
  const failed: Partial<Record<VoiceStage, number>> = {};
  const firstErrors: Partial<Record<VoiceStage, string>> = {};
  const hints: Partial<Record<VoiceStage, string>> = {};
  const total: number[] = [];
  const llm: number[] = [];
  const notText: number[] = [];
  const gen: number[] = [];
  const segs = Object.fromEntries(VOICE_SEGMENTS.map((s) => [s, [] as number[]])) as Record<
    VoiceSegment,
    number[]
  >;
  for (const r of records) {
    outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
    if (r.failed_stage !== null) {
      failed[r.failed_stage] = (failed[r.failed_stage] ?? 0) + 1;
      if (r.error !== null) firstErrors[r.failed_stage] ??= r.error;
      const rec = failedStageRecord(r);
      const hint = rec ? errorHint(rec) : null;
      if (hint) hints[r.failed_stage] ??= hint;
    }
    const fa = r.outcome === 'ok' ? firstAudio(r) : undefined;
    if (!fa) continue;
    total.push(fa.time_to_first_audio_ms);
    for (const s of VOICE_SEGMENTS) segs[s].push(fa.segments[s]);
    if (fa.llm_ttft_ms !== undefined) {
      llm.push(fa.llm_ttft_ms);
      notText.push(fa.time_to_first_audio_ms - fa.llm_ttft_ms);
    }
    const first = r.llm ? firstOutputAt(r.llm) : null;
    if (r.llm?.end_at_ms != null && first !== null) gen.push(r.llm.end_at_ms - first);
  }
  return {
    turns: records.length,
    measured: total.length,
    outcomes,
    failed_stages: failed,
    time_to_first_audio_ms: describe(total),
    segments: Object.fromEntries(VOICE_SEGMENTS.map((s) => [s, describe(segs[s])])) as Record<
      VoiceSegment,
      Stats
    >,
    llm_ttft_ms: describe(llm),
    not_text_ttft_ms: describe(notText),
    llm_generation_ms: describe(gen),
    speech_seconds: describe(records.map((r) => r.speech_seconds)),
    first_errors: firstErrors,
    hints,
  };
}

/**
 * The waterfall of one condition: each segment's mean and where it starts (the means before it),
 * so the bars end at the mean time to first audio. Null without measured turns.
 */
export function voiceWaterfall(
  s: VoiceSummary,
): { segment: VoiceSegment; start_ms: number; ms: number }[] | null {
  if (s.measured === 0) return null;
  let at = 0;
  return VOICE_SEGMENTS.map((segment) => {
    const ms = s.segments[segment].mean ?? 0;
    const bar = { segment, start_ms: at, ms };
    at += ms;
    return bar;
  });
}

/**
 * The segment with the largest mean share of first audio, and that share (0..1); null without
 * measured turns.
 */
export function dominantSegment(
  s: VoiceSummary,
): { segment: VoiceSegment; mean_ms: number; share: number } | null {
  const total = s.time_to_first_audio_ms.mean;
  if (s.measured === 0 || total === null || total <= 0) return null;
  let best: VoiceSegment = VOICE_SEGMENTS[0];
  for (const seg of VOICE_SEGMENTS)
    if ((s.segments[seg].mean ?? 0) > (s.segments[best].mean ?? 0)) best = seg;
  const ms = s.segments[best].mean ?? 0;
  return { segment: best, mean_ms: ms, share: ms / total };
}
