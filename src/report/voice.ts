/**
 * @module report/voice
 * The console view of a voice measurement: the first-audio breakdown (mean, p50, p90 of each
 * segment), the LLM's own TTFT beside it, the turns' outcomes, and the sentence that says how
 * much of the wait is not text TTFT. Pure: summary in, text out; "no data" prints `-`.
 */
import { VOICE_SEGMENTS, type VoiceSummary } from '../analysis/voice.js';
import { type T, translator } from '../core/i18n/index.js';
import { OUTCOMES } from '../record/types.js';
import { VOICE_STAGES } from '../record/voice.js';
import { grid } from './run/table.js';

const EN = translator('en');

function ms(v: number | null | undefined): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(1);
}

/**
 * The breakdown table and the outcome line of one voice measurement.
 * @example process.stdout.write(formatVoiceSummary(summary, t));
 */
export function formatVoiceSummary(s: VoiceSummary, t: T = EN): string {
  const row = (
    label: string,
    st: { n: number; mean: number | null; p50: number | null; p90: number | null },
  ) => [label, String(st.n), ms(st.mean), ms(st.p50), ms(st.p90)];
  const rows = [
    [t('voice.table.metric'), 'n', 'mean', 'p50', 'p90'],
    row('time_to_first_audio_ms', s.time_to_first_audio_ms),
    ...VOICE_SEGMENTS.map((seg) => row(`  ${seg}`, s.segments[seg])),
    row(t('voice.table.llm_ttft'), s.llm_ttft_ms),
    row(t('voice.table.not_text_ttft'), s.not_text_ttft_ms),
  ];
  const lines = grid(rows).map((l) => `  ${l}`);
  const outcomes = OUTCOMES.filter((o) => s.outcomes[o])
    .map((o) => `${o} ${s.outcomes[o]}`)
    .join(', ');
  const out = [t('voice.table.title', { turns: s.turns, measured: s.measured }), ...lines];
  out.push(`  ${t('voice.table.outcomes', { outcomes: outcomes || '-' })}`);
  for (const st of VOICE_STAGES) {
    const n = s.failed_stages[st];
    if (n) out.push(`  ${t('voice.table.failed', { stage: st, n, error: s.first_errors[st] ?? '-' })}`);
  }
  const fa = s.time_to_first_audio_ms.mean;
  const tt = s.llm_ttft_ms.mean;
  if (fa !== null && tt !== null && fa > 0)
    out.push(
      '',
      t('voice.table.why', {
        first_audio: fa.toFixed(0),
        ttft: tt.toFixed(0),
        rest: (fa - tt).toFixed(0),
        share: (((fa - tt) / fa) * 100).toFixed(0),
      }),
    );
  return `${out.join('\n')}\n`;
}
