/**
 * @module exp/kinds/mixed-input
 * `mixed-input`: long and short requests arriving `spacing_ms` apart in a controlled order
 * (short-first, long-first, interleaved), open loop. Reports the stalls of requests already
 * decoding: each short request's chunk gaps are split into those that overlap a long request's
 * prefill and those that do not, and the two distributions are compared.
 *
 * A long request's prefill interval is, when the server exposes its timings (`servelab sim
 * --expose-timings`, and the in-process simulator of a virtual target: token times and prefill
 * time in engine ms), the engine's own [first scheduled, first token] window, and the short
 * requests' gaps are taken on the engine's timeline; otherwise the client's [sent, first token]
 * window of that request (queueing included, so an upper bound) and the client's chunk gaps. A
 * gap (t₍ₖ₋₁₎, tₖ] overlaps an interval [s, e] when s < tₖ and e > t₍ₖ₋₁₎. The split and the stall
 * ratio are `analysis/interference`'s, the same functions the diagnosis rule uses.
 */
import { z } from 'zod';
import {
  cachedPromptShare,
  describe,
  type PrefillInterference,
  recordsInterference,
  ttftMs,
} from '../../analysis/index.js';
import { lengthDist } from '../../config/run-settings.js';
import { listOf, nonNegNum, oneOf, posInt } from '../../core/fields.js';
import type { MessageKey, T } from '../../i18n/index.js';
import type { RequestRecord } from '../../record/types.js';
import type { ExperimentAnswer } from '../../report/answer.js';
import type { RequestSpec } from '../../workload/types.js';
import { refuseRates } from '../fields.js';
import { cell, joinVerdict, runIdsOf, withTarget } from './answer-kit.js';
import type { KindContext } from './context.js';
import { defineKind, type OwnFile } from './kind.js';
import { fmt } from './points.js';

type Order = 'short-first' | 'long-first' | 'interleaved';

/**
 * One order's result: the short requests' gaps with and without a long prefill overlapping
 * (`analysis/interference`, the numbers `servelab diagnose` names), and TTFT by class.
 */
export interface MixedOrderResult extends PrefillInterference {
  order: Order;
  run_id: string | null;
  short_ttft_ms_p50: number | null;
  long_ttft_ms_p50: number | null;
  /**
   * Share of the order's prompt tokens the server served from its prefix cache
   * (`analysis/request` cachedPromptShare): 0 when every order's prompts are fresh; null when
   * the server reports no cached tokens. Absent in results stored before it was kept.
   */
  cache_hit_rate?: number | null;
}

export interface MixedTargetResult {
  target: string;
  orders: MixedOrderResult[];
}

export interface MixedInputResult {
  kind: 'mixed-input';
  long: { input_len: string; output_len: string; count: number };
  short: { input_len: string; output_len: string; count: number };
  spacing_ms: number;
  targets: MixedTargetResult[];
}

/** Place `longs` among `shorts` in the given order; each entry says which class it is. */
export function arrange<T>(order: Order, longs: T[], shorts: T[]): { item: T; long: boolean }[] {
  const L = longs.map((item) => ({ item, long: true }));
  const S = shorts.map((item) => ({ item, long: false }));
  if (order === 'short-first') return [...S, ...L];
  if (order === 'long-first') return [...L, ...S];
  // Interleaved: longs spread evenly, each after an equal share of shorts.
  const out: { item: T; long: boolean }[] = [];
  const every = S.length / Math.max(1, L.length);
  let li = 0;
  S.forEach((s, i) => {
    while (li < L.length && li * every <= i) out.push(L[li++]);
    out.push(s);
  });
  while (li < L.length) out.push(L[li++]);
  return out;
}

/** Run the mixed-input experiment on every target. */
export async function runMixedInput(
  ctx: KindContext<OwnFile<'mixed-input', 'mixed_input', typeof mixedInputSchema>>,
): Promise<MixedInputResult> {
  const mi = ctx.exp.mixed_input;
  // Fresh prompts for every order (seeded from the experiment seed, the order and the class):
  // the same prompts in a second order would be prefix-cache hits, a prefill that never runs.
  const prompts = async (order: Order, long: boolean) =>
    ctx.levelWorkload(
      { order, class: long ? 'long' : 'short' },
      {
        count: long ? mi.long.count : mi.short.count,
        inputLen: long ? mi.long.input_len : mi.short.input_len,
        outputLen: long ? mi.long.output_len : mi.short.output_len,
        plain: true,
      },
    );
  const out: MixedTargetResult[] = [];
  for (const t of ctx.targets) {
    const orders: MixedOrderResult[] = [];
    for (const order of mi.orders as Order[]) {
      const longW = await prompts(order, true);
      const shortW = await prompts(order, false);
      const longs = longW.specs;
      const shorts = shortW.specs;
      const placed = arrange(order, longs, shorts);
      const specs: RequestSpec[] = placed.map((p, i) => ({ ...p.item, index: i }));
      const isLong = placed.map((p) => p.long);
      if (ctx.exp.cache.policy === 'cold') await ctx.ensureCold([t]);
      const m = await ctx.measure(t, {
        label: `order=${order}`,
        level: { order },
        specs,
        load: { kind: 'open', arrivalsMs: specs.map((_, i) => i * mi.spacing_ms), maxConcurrency: null },
        coldPrompts: longW.coldPrompts && shortW.coldPrompts,
      });
      orders.push(analyse(order, m.run.run_id, m.records, isLong));
    }
    out.push({ target: t.name, orders });
  }
  return {
    kind: 'mixed-input',
    long: mi.long,
    short: mi.short,
    spacing_ms: mi.spacing_ms,
    targets: out,
  };
}

function analyse(
  order: Order,
  runId: string | null,
  recs: RequestRecord[],
  isLong: boolean[],
): MixedOrderResult {
  const long = (r: RequestRecord) => isLong[r.index] ?? false;
  const ttft = { long: [] as number[], short: [] as number[] };
  for (const r of recs) {
    const t = ttftMs(r);
    if (t !== undefined) (long(r) ? ttft.long : ttft.short).push(t);
  }
  // The records alone (the engine timeline when the server exposes it, as the in-process
  // simulator of a virtual target does), exactly as the diagnosis rule reads them.
  const interference: PrefillInterference = recordsInterference(recs, long);
  const p50 = (xs: number[]) => describe(xs).p50;
  return {
    order,
    run_id: runId,
    ...interference,
    short_ttft_ms_p50: p50(ttft.short),
    long_ttft_ms_p50: p50(ttft.long),
    cache_hit_rate: cachedPromptShare(recs.filter((r) => r.phase === 'measure')),
  };
}

// ---- the answer --------------------------------------------------------------------------------

const ORDER_KEY: Record<Order, MessageKey> = {
  'short-first': 'answer.mixed.order.short_first',
  'long-first': 'answer.mixed.order.long_first',
  interleaved: 'answer.mixed.order.interleaved',
};

/** One target's verdict clause: the order whose long prefills stall decoding most, and by how much. */
function mixedVerdict(t: MixedTargetResult, tr: T): string {
  const measured = t.orders.filter((o) => o.stall_ratio !== null);
  if (!measured.length) return tr('answer.mixed.no_ratio');
  const worst = measured.reduce((a, b) => ((b.stall_ratio as number) > (a.stall_ratio as number) ? b : a));
  const best = measured.reduce((a, b) => ((b.stall_ratio as number) < (a.stall_ratio as number) ? b : a));
  const name = (o: MixedOrderResult) => tr(ORDER_KEY[o.order]);
  // A ratio at or below 1: a gap during a long prefill is no longer than a clean one.
  if ((worst.stall_ratio as number) <= 1)
    return tr('answer.mixed.no_stall', { ratio: fmt(worst.stall_ratio, 2), order: name(worst) });
  if (measured.length === 1)
    return tr('answer.mixed.verdict_one', { order: name(worst), ratio: fmt(worst.stall_ratio, 2) });
  return tr('answer.mixed.verdict', {
    worst: name(worst),
    ratio: fmt(worst.stall_ratio, 2),
    best: name(best),
    best_ratio: fmt(best.stall_ratio, 2),
  });
}

/**
 * The mixed-input answer: in which arrival order long prefills stall the short requests'
 * decoding most (the stall ratio per order), the gap table, and the ratio per order as bars.
 */
export function mixedInputAnswer(res: MixedInputResult, tr: T): ExperimentAnswer {
  const many = res.targets.length > 1;
  const col = withTarget(many, tr);
  const orders = MIXED_INPUT_ORDERS.filter((o) =>
    res.targets.some((t) => t.orders.some((x) => x.order === o)),
  );
  // Whose timeline the gaps were timed on: a column only when the orders differ, else one note
  // (twelve columns do not fit 800 px).
  const timelineOf = (o: MixedInputResult['targets'][number]['orders'][number]) =>
    tr(o.intervals_from === 'server' ? 'answer.mixed.timeline_server' : 'answer.mixed.timeline_client');
  const timelines = new Set(res.targets.flatMap((t) => t.orders.map(timelineOf)));
  const oneTimeline = timelines.size === 1 ? [...timelines][0] : null;
  return {
    kind: res.kind,
    question: tr('answer.mixed.question', {
      long: res.long.input_len,
      short: res.short.input_len,
    }),
    verdict: joinVerdict(
      res.targets.map((t) => ({ target: t.target, text: mixedVerdict(t, tr) })),
      tr,
    ),
    table: {
      columns: col.columns([
        tr('exp.col.order'),
        tr('exp.mixed.overlap_n'),
        tr('answer.mixed.col.overlap_mean'),
        tr('answer.mixed.col.overlap_p99'),
        tr('exp.mixed.clean_n'),
        tr('answer.mixed.col.clean_mean'),
        tr('answer.mixed.col.clean_p99'),
        tr('exp.mixed.stall_ratio'),
        tr('answer.mixed.col.short_ttft'),
        tr('answer.mixed.col.long_ttft'),
        tr('answer.mixed.col.cache_hits'),
        ...(oneTimeline === null ? [tr('answer.mixed.col.timeline')] : []),
      ]),
      rows: res.targets.flatMap((t) =>
        t.orders.map((o) =>
          col.row(t.target, [
            tr(ORDER_KEY[o.order]),
            o.gaps_overlapping_ms.n,
            cell(o.gaps_overlapping_ms.mean, 2),
            cell(o.gaps_overlapping_ms.p99, 2),
            o.gaps_clean_ms.n,
            cell(o.gaps_clean_ms.mean, 2),
            cell(o.gaps_clean_ms.p99, 2),
            cell(o.stall_ratio, 2),
            cell(o.short_ttft_ms_p50),
            cell(o.long_ttft_ms_p50),
            o.cache_hit_rate == null ? null : `${fmt(100 * o.cache_hit_rate, 1)}%`,
            ...(oneTimeline === null ? [timelineOf(o)] : []),
          ]),
        ),
      ),
    },
    chart: {
      type: 'bar',
      title: tr('answer.mixed.chart_title'),
      x: { name: tr('exp.col.order'), unit: null, categories: orders.map((o) => tr(ORDER_KEY[o])) },
      y: { name: tr('exp.mixed.stall_ratio'), unit: '×' },
      series: res.targets.map((t) => ({
        name: t.target,
        points: orders.map((o, i): [number, number | null] => [
          i,
          cell(t.orders.find((x) => x.order === o)?.stall_ratio, 2),
        ]),
      })),
    },
    run_ids: runIdsOf(res.targets.flatMap((t) => t.orders.map((o) => o.run_id))),
    interval: null,
    ...(oneTimeline === null ? {} : { notes: [tr('answer.mixed.timeline_note', { timeline: oneTimeline })] }),
  };
}

// ---- the kind module: file section and rules, defaults, template, console output ----------

export const MIXED_INPUT_ORDERS = ['short-first', 'long-first', 'interleaved'] as const;

const mixedClassSchema = z.strictObject({
  input_len: lengthDist(),
  output_len: lengthDist(),
  count: posInt(),
});
export const mixedInputSchema = z.strictObject({
  long: mixedClassSchema.default({ input_len: '4096', output_len: '32', count: 4 }),
  short: mixedClassSchema.default({ input_len: '128', output_len: '128', count: 16 }),
  orders: listOf(oneOf(MIXED_INPUT_ORDERS)).default([...MIXED_INPUT_ORDERS]),
  /** Gap between consecutive arrivals, ms. */
  spacing_ms: nonNegNum().default(50),
});

export const mixedInputKind = defineKind({
  kind: 'mixed-input',
  section: 'mixed_input',
  sectionSchema: mixedInputSchema,
  rules(f, report) {
    refuseRates(f, report, 'mixed-input', 'mixed_input');
  },
  defaults: (f) => ({ ...f, mixed_input: f.mixed_input ?? mixedInputSchema.parse({}) }),
  template: (t) => `${t.head('mixed-input', 'mixed-input', t.tr('tpl.mixed_input.about'))}
targets:
${t.simTarget({ name: 'sim', full: true, set: ['max_num_batched_tokens: 512', 'max_num_seqs: 256', 'record_steps: true'] })}
${t.urlTargets}

mixed_input:
  long: {input_len: 4096, output_len: 32, count: 4}
  short: {input_len: 128, output_len: 128, count: 16}
  orders: [short-first, long-first, interleaved]
  spacing_ms: 50                      # ${t.tr('tpl.mixed.spacing')}

${t.common({ load: [`# ${t.tr('tpl.mixed.load')}`], warmup: 0 })}
`,
  run: runMixedInput,
  answer: mixedInputAnswer,
  // The answer's table carries every number of the stall per order: nothing to repeat.
  format: () => [],
});
