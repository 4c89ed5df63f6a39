/**
 * @module analysis/diagnose/voice-slow
 * The diagnosis rule for the symptom "a voice user feels it is slow" (`voice_slow`): from a voice
 * measurement's summary (`analysis/voice-metrics`), it names the segment of the first-audio
 * critical path that dominates, the next experiment to run on it (`servelab exp init voice`, with
 * the one switch that moves that segment), and why first audio is not text TTFT, with this run's
 * numbers. Pure; {@link diagnoseVoice} returns a {@link Diagnosis} that
 * `renderDiagnosisText` prints.
 */

import type { T } from '../../i18n/index.js';
import type { VoiceRecord } from '../../record/voice-turn.js';
import {
  dominantSegment,
  firstAudio,
  VOICE_SEGMENTS,
  type VoiceSegment,
  type VoiceSummary,
} from '../voice-metrics.js';
import { EN } from './default-lang.js';
import type { Diagnosis, Finding } from './types.js';

/** First audio (mean, ms) above which a voice turn counts as slow. */
export const VOICE_SLOW_MS = 500;

/** The experiment that moves each segment: the voice kind's switch and its values. */
const NEXT: Record<VoiceSegment, { vary: string; values: string }> = {
  endpoint: { vary: 'endpoint_ms', values: '[500, 300, 150]' },
  asr: { vary: 'asr_gpu', values: '[colocated, separate]' },
  llm_ttft: { vary: 'concurrency', values: '[1, 4, 16]' },
  first_chunk_wait: { vary: 'tts_chunk', values: '[whole, sentence, chars:40]' },
  tts_first_byte: { vary: 'concurrency', values: '[1, 4, 16]' },
  buffer: { vary: 'tts_chunk', values: '[sentence, chars:40]' },
};

const f0 = (v: number | null | undefined) => (v == null ? '—' : v.toFixed(0));

/**
 * The `voice_slow` finding of one voice measurement (`id` names it), or null when first audio is
 * under `slowMs` or nothing reached playback.
 */
export function voiceSlow(
  id: string,
  s: VoiceSummary,
  records: readonly VoiceRecord[] = [],
  t: T = EN,
  slowMs = VOICE_SLOW_MS,
): Finding | null {
  const dom = dominantSegment(s);
  const fa = s.time_to_first_audio_ms;
  const total = fa.mean;
  if (!dom || total === null || total < slowMs) return null;
  const ttft = s.llm_ttft_ms.mean;
  const seg = (g: VoiceSegment) => s.segments[g].mean;
  const share = (g: VoiceSegment) => f0(((seg(g) ?? 0) / total) * 100);
  const slowest = records
    .map((r) => [r.id, firstAudio(r)?.time_to_first_audio_ms] as const)
    .filter((x): x is readonly [string, number] => x[1] !== undefined)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([rid]) => rid);
  const next = NEXT[dom.segment];
  const sum = VOICE_SEGMENTS.map((g) => `${g} ${f0(seg(g))}`).join(' + ');
  return {
    rule: 'voice_slow',
    severity: 'warn',
    runs: [id],
    symptom: t('voice.diag.symptom', { mean: f0(fa.mean), p90: f0(fa.p90), ttft: f0(ttft) }),
    evidence: [
      t('voice.diag.ev_sum', { sum, total: f0(fa.mean) }),
      ...VOICE_SEGMENTS.map((g) => `${g}: ${f0(seg(g))} ms (${share(g)}%)`),
      t('voice.diag.ev_dominant', { segment: dom.segment, ms: f0(dom.mean_ms), share: f0(dom.share * 100) }),
      t('voice.diag.ev_not_ttft', {
        rest: f0(s.not_text_ttft_ms.mean),
        share: ttft === null ? '—' : f0(((total - ttft) / total) * 100),
      }),
    ],
    request_ids: slowest,
    mechanism: `${t(`voice.diag.why.${dom.segment}` as 'voice.diag.why.endpoint', { ms: f0(dom.mean_ms) })} ${t(
      'voice.diag.not_ttft',
      {
        ttft: f0(ttft),
        before: f0((seg('endpoint') ?? 0) + (seg('asr') ?? 0)),
        after: f0((seg('first_chunk_wait') ?? 0) + (seg('tts_first_byte') ?? 0) + (seg('buffer') ?? 0)),
        total: f0(fa.mean),
      },
    )}`,
    next: {
      command: `servelab exp init voice > voice.yaml   # voice: {vary: ${next.vary}, values: ${next.values}}`,
      change: t(`voice.diag.next.${dom.segment}` as 'voice.diag.next.endpoint'),
    },
  };
}

/** The diagnosis of voice measurements: the `voice_slow` rule over each. */
export function diagnoseVoice(
  runs: readonly { id: string; summary: VoiceSummary; records?: readonly VoiceRecord[] }[],
  t: T = EN,
): Diagnosis {
  const findings = runs.flatMap((r) => {
    const f = voiceSlow(r.id, r.summary, r.records ?? [], t);
    return f ? [f] : [];
  });
  return { valid: true, reasons: [], findings, unexplained: [], skipped: [] };
}
