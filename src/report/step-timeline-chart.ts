/**
 * @module report/step-timeline-chart
 * The step timeline of a run (`--record-steps`) against one request's tokens, on the run's clock:
 * each engine step's duration and its prefill tokens, and the request's gap before each token
 * (its inter-token latency) on the same ms axis, so the step that made a gap stands under it.
 * The request is the one asked for (`report --request`), else the one with the worst stall;
 * the worst gap is shaded and labelled with the prefill chunk that ran inside it
 * (`analysis/step-timeline` `stallCause`).
 */
import type { EChartsOption } from 'echarts';
import { EN } from '../analysis/diagnose/default-lang.js';
import type { LoadedRun } from '../analysis/loaded-run.js';
import { stallCause, stepsBetween, timelineRequest } from '../analysis/step-timeline.js';
import type { T } from '../i18n/index.js';
import { valueAxis, withBase } from './chart-kit.js';

/** Steps drawn at most on either side of the request (the rest of the run is in the trace export). */
const MAX_STEPS = 4000;

/** The stall's cause in one line (the chart's label, the page's caption). */
export function stallCauseText(run: LoadedRun, t: T = EN, wanted?: string): string | null {
  if (!run.steps?.length) return null;
  const rec = timelineRequest(run.records, wanted);
  if (!rec) return null;
  const cause = stallCause(run.steps, rec);
  if (!cause) return null;
  const gap = cause.gap.gap_ms.toFixed(1);
  if (cause.chunk)
    return t('steps.cause.chunk', {
      request: rec.id,
      gap,
      token: cause.gap.index,
      other: cause.chunk.id,
      tokens: cause.chunk.tokens,
      step: cause.chunk.step,
      dur: cause.chunk.dur_ms.toFixed(1),
    });
  if (cause.preempted.length)
    return t('steps.cause.preempted', {
      request: rec.id,
      gap,
      token: cause.gap.index,
      n: cause.preempted.length,
    });
  return t('steps.cause.none', { request: rec.id, gap, token: cause.gap.index, steps: cause.steps.length });
}

/** The chart; null when the run has no steps or no request streamed two tokens. */
export function stepTimelineOption(run: LoadedRun, t: T = EN, wanted?: string): EChartsOption | null {
  if (!run.steps?.length) return null;
  const rec = timelineRequest(run.records, wanted);
  if (!rec) return null;
  const times = rec.chunk_times_ms;
  const from = rec.sent_at_ms ?? times[0];
  const to = times[times.length - 1];
  let steps = stepsBetween(run.steps, from, to);
  if (steps.length > MAX_STEPS) steps = steps.slice(0, MAX_STEPS);
  if (!steps.length) return null;
  const dur: [number, number][] = [];
  const prefill: [number, number][] = [];
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    const end = s.t_ms + s.dur_ms;
    const p = s.prefill.reduce((a, c) => a + c.tokens, 0);
    dur.push([s.t_ms, s.dur_ms]);
    prefill.push([s.t_ms, p]);
    // Idle until the next step: nothing ran.
    const next = steps[i + 1];
    if (!next || next.t_ms > end + 1e-6) {
      dur.push([end, 0]);
      prefill.push([end, 0]);
    }
  }
  const gaps: [number, number][] = [];
  for (let i = 1; i < times.length; i++) gaps.push([times[i], times[i] - times[i - 1]]);
  const cause = stallCause(run.steps, rec);
  const label = cause?.chunk
    ? t('steps.mark.chunk', { other: cause.chunk.id, tokens: cause.chunk.tokens })
    : t('steps.mark.gap', { gap: (cause?.gap.gap_ms ?? 0).toFixed(0) });
  const series: NonNullable<EChartsOption['series']> = [
    {
      type: 'line',
      name: t('steps.series.stepMs'),
      step: 'end',
      showSymbol: false,
      data: dur,
      ...(cause
        ? {
            markArea: {
              silent: true,
              itemStyle: { color: 'rgba(220, 60, 60, 0.12)' },
              label: { show: true, position: 'insideTop', fontSize: 10, color: '#a02020' },
              data: [[{ name: label, xAxis: cause.gap.from_ms }, { xAxis: cause.gap.to_ms }]],
            },
          }
        : {}),
    },
    {
      type: 'scatter',
      name: t('steps.series.gapMs', { request: rec.id }),
      symbolSize: 4,
      data: gaps,
    },
    {
      type: 'line',
      name: t('steps.series.prefill'),
      step: 'end',
      showSymbol: false,
      yAxisIndex: 1,
      areaStyle: { opacity: 0.25 },
      lineStyle: { width: 0.5 },
      data: prefill,
    },
  ];
  // The axis spans every point drawn: a step that began before the request was sent, or ended
  // after its last token, is drawn whole.
  const xs = [from, to, ...dur.map((p) => p[0])];
  return withBase(t('steps.chart.title', { run: run.label, request: rec.id }), {
    xAxis: valueAxis(
      t('steps.axis.runMs'),
      { min: Math.floor(Math.min(...xs)), max: Math.ceil(Math.max(...xs)) },
      true,
    ),
    yAxis: [
      valueAxis(t('steps.axis.ms'), { min: 0 }),
      valueAxis(t('steps.axis.tokens'), { min: 0, splitLine: { show: false } }),
    ],
    series,
  });
}
