/**
 * @module report/voice-waterfall
 * The console view of a voice measurement: the first-audio breakdown (mean, p50, p90 of each
 * segment), the LLM's own TTFT beside it, the turns' outcomes, and the sentence that says how
 * much of the wait is not text TTFT. Pure: summary in, text out; "no data" prints `-`.
 */
import type { EChartsOption } from 'echarts';
import { VOICE_SEGMENTS, type VoiceSummary, voiceWaterfall } from '../analysis/voice-metrics.js';
import { displayWidth, padColumns } from '../core/text-width.js';
import { type T, translator } from '../i18n/index.js';
import { OUTCOMES } from '../record/types.js';
import { VOICE_STAGES } from '../record/voice-turn.js';
import { renderSvg, valueAxis, withBase } from './chart-kit.js';
import { grid } from './run/summary-table.js';

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
    if (!n) continue;
    out.push(`  ${t('voice.table.failed', { stage: st, n, error: s.first_errors[st] ?? '-' })}`);
    const hint = s.hints?.[st];
    if (hint) out.push(`    ${t('cli.hint', { hint })}`);
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

/** One condition of a voice comparison: its label and summary. */
export interface VoiceCondition {
  label: string;
  summary: VoiceSummary;
}

/**
 * The waterfall of the first-audio critical path, one bar per condition: the six segments' means
 * laid end to end (stacked), so each bar ends at the condition's mean time to first audio, with
 * the LLM's own TTFT marked on it. Null when no condition has a measured turn.
 */
export function voiceWaterfallOption(conditions: readonly VoiceCondition[], t: T = EN): EChartsOption | null {
  const shown = conditions.filter((c) => voiceWaterfall(c.summary) !== null);
  if (shown.length === 0) return null;
  const labels = shown.map((c) => c.label);
  return withBase(t('voice.chart.waterfall'), {
    // Server-side rendering measures text narrower than a browser draws it: room to spare, so
    // the legend's names and the conditions' labels are not clipped or overlapped.
    legend: { top: 26, type: 'plain', itemGap: 16 },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    grid: { left: 48, right: 30, top: 80, bottom: 44, containLabel: true },
    xAxis: valueAxis(t('voice.chart.axis_ms'), {}, true),
    yAxis: { type: 'category', data: labels, inverse: true },
    series: [
      ...VOICE_SEGMENTS.map((seg) => ({
        type: 'bar' as const,
        name: seg,
        stack: 'first-audio',
        barWidth: 22,
        data: shown.map((c) => Number((c.summary.segments[seg].mean ?? 0).toFixed(1))),
      })),
      {
        type: 'scatter' as const,
        name: t('voice.chart.text_ttft'),
        symbol: 'diamond',
        symbolSize: 12,
        // where text TTFT would put first audio: the LLM's own TTFT, from the transcript on
        data: shown.map((c) => {
          const s = c.summary.segments;
          return [
            Number(
              ((s.endpoint.mean ?? 0) + (s.asr.mean ?? 0) + (c.summary.llm_ttft_ms.mean ?? 0)).toFixed(1),
            ),
            c.label,
          ];
        }),
      },
    ],
  });
}

/** The waterfall as SVG (echarts' server-side renderer), or null without data. */
export function voiceWaterfallSvg(conditions: readonly VoiceCondition[], t: T = EN): string | null {
  const o = voiceWaterfallOption(conditions, t);
  return o === null ? null : renderSvg(o, 860, 120 + 48 * conditions.length);
}

/**
 * The waterfall as console lines: per condition, its mean first audio and each segment's share as
 * a bar of `#` along one scale.
 */
export function formatVoiceWaterfall(conditions: readonly VoiceCondition[], t: T = EN, width = 48): string[] {
  const max = Math.max(0, ...conditions.map((c) => c.summary.time_to_first_audio_ms.mean ?? 0));
  const rows = [[t('voice.waterfall.condition'), 'time_to_first_audio_ms', ...VOICE_SEGMENTS, 'llm ttft_ms']];
  for (const c of conditions) {
    const s = c.summary;
    rows.push([
      c.label,
      ms(s.time_to_first_audio_ms.mean),
      ...VOICE_SEGMENTS.map((g) => ms(s.segments[g].mean)),
      ms(s.llm_ttft_ms.mean),
    ]);
  }
  const out = grid(rows).map((l) => `  ${l}`);
  if (max > 0) {
    out.push('', `  ${t('voice.waterfall.legend')}`);
    const marks = 'eaLwtb';
    const labelWidth = Math.max(...conditions.map((c) => displayWidth(c.label)));
    for (const c of conditions) {
      const w = voiceWaterfall(c.summary);
      if (!w) continue;
      const bar = w.map((seg, i) => (marks[i] as string).repeat(Math.round((seg.ms / max) * width))).join('');
      out.push(`  ${padColumns(c.label, labelWidth)} |${bar}`);
    }
    for (const line of voiceComparison(conditions, t)) out.push(`  ${line}`);
  }
  return out;
}

/**
 * Each condition against the first: how much earlier or later first audio came, and how much of
 * that is the wait for the first text chunk (the LLM generation a chunk policy waits for).
 */
export function voiceComparison(conditions: readonly VoiceCondition[], t: T = EN): string[] {
  const out: string[] = [];
  const first = conditions[0]?.summary;
  for (const c of conditions.slice(1)) {
    const d = (a: number | null, b: number | null | undefined) => (a === null || b == null ? null : a - b);
    const dt = d(c.summary.time_to_first_audio_ms.mean, first?.time_to_first_audio_ms.mean);
    const dw = d(c.summary.segments.first_chunk_wait.mean, first?.segments.first_chunk_wait.mean);
    if (dt !== null && dw !== null)
      out.push(
        t('voice.waterfall.delta', {
          label: c.label,
          first: conditions[0]?.label ?? '',
          delta: ms(dt),
          wait: ms(dw),
          gen: ms(c.summary.llm_generation_ms.mean),
        }),
      );
  }
  return out;
}
