/**
 * @module exp/kinds/sweep-report
 * The sweeps' result and how it reads: the shape of `concurrency-sweep` and `rate-sweep`
 * results (per target, the levels, the knee, the stop, the SLO search), the console table, and
 * the answer (`report/answer`): the question, one verdict in which the knee, the stop reason and
 * the SLO search agree, the level table and the lead chart (throughput and p99 TTFT against the
 * level, with the knee). The measuring, the stop rules and the knee are in `exp/kinds/sweep`.
 */
import type { T } from '../../i18n/index.js';
import { translateStored } from '../../i18n/stored.js';
import type { AnswerChart, AnswerMark, ExperimentAnswer } from '../../report/answer.js';
import { cell, joinVerdict, pctCell, runIdsOf, searchBracket, withTarget } from './answer-kit.js';
import { pct, table } from './format.js';
import {
  fmt,
  formatPct,
  pctUnreliable,
  type RunHeadline,
  type StopRules,
  type StopTrip,
  stopTrip,
  unreliableNote,
  verdictOf,
} from './points.js';

/** One level of a sweep on one target. */
export interface SweepPoint extends RunHeadline {
  /** Concurrency (closed loop) or arrival rate in requests/s (open loop). */
  level: number;
  /** Measured send rate (open loop), requests/s. */
  achieved_rate_rps: number | null;
  /** Stop rule this level tripped (the sweep ended here). */
  stopped: string | null;
}

export interface MaxConcurrency {
  /** Largest concurrency that met the SLO (0 when even the first did not); null when undetermined. */
  concurrency: number | null;
  /** Why there is no answer: a probe that decided it was not valid. */
  undetermined: string | null;
  /** False when the SLO still held at the largest concurrency tried (the true maximum may be higher). */
  bounded: boolean;
  slo: Record<string, number>;
  probes: { concurrency: number; ok: boolean; valid: boolean; run_id: string | null }[];
}

export interface SweepTargetResult {
  target: string;
  /** `concurrency` (closed loop) or `rate_rps` (open loop). */
  factor: 'concurrency' | 'rate_rps';
  points: SweepPoint[];
  /** Level at the knee (over valid levels only), or null: not reached, or undetermined. */
  knee: number | null;
  /** False when the knee could not be found: throughput still rose, or too few levels were valid. */
  knee_determined: boolean;
  knee_reason: string;
  /** Levels left out of the knee and the SLO search because their runs are not valid. */
  left_out: { level: number; reasons: string[] }[];
  stopped_at: number | null;
  /** rate-sweep without `load.rates`: the measured capacity the rates derive from (requests/s). */
  capacity_rps?: number | null;
  max_concurrency?: MaxConcurrency;
}

export interface SweepResult {
  kind: 'concurrency-sweep' | 'rate-sweep';
  /** `fresh`: each level got its own prompts; `reused`: the same at every level (`workload.reuse_prompts`). */
  prompts: 'fresh' | 'reused';
  stop: { error_rate: number; ttft_p99_factor: number; e2e_p99_factor: number };
  knee_min_gain: number;
  targets: SweepTargetResult[];
  /** The experiment's SLO (its `slo` section), drawn on the answer's chart; absent in results stored before it. */
  slo?: Record<string, number>;
}

/** A knee needs this many valid levels: one comparison of a level with its successor. */
export const MIN_VALID_LEVELS_FOR_KNEE = 2;

/** A sweep's table per target: throughput and latency percentiles per level, the knee. */
/** A reason stored in English with a sweep's level or knee, in the reader's language. */
export const storedReason = (reason: string, tr: T) => translateStored(reason, tr, ['exp.reason.']);

export function formatSweep(res: SweepResult, tr: T): string[] {
  const out: string[] = [];
  for (const t of res.targets) {
    out.push(
      t.capacity_rps ? tr('exp.sweep.capacity', { target: t.target, rps: fmt(t.capacity_rps, 2) }) : t.target,
    );
    // The answer's table has each level's req/s, out tok/s, p99s, errors, verdict and stop;
    // this one adds what it leaves out, each number once.
    out.push(
      table(
        [
          t.factor === 'concurrency' ? tr('exp.sweep.concurrency') : tr('exp.sweep.rate'),
          tr('report.col.serverTokS'),
          'TTFT p50/p95 ms',
          'E2E p50/p95 ms',
          'TPOT p50 ms',
          tr('exp.sweep.cache_hit'),
        ],
        t.points.map((p) => [
          String(p.level),
          fmt(p.server_tokens_per_s),
          formatPct(p.ttft_ms, 1, false),
          formatPct(p.e2e_ms, 1, false),
          fmt(p.tpot_ms.p50, 2),
          pct(p.cache_hit_rate),
        ]),
      ),
    );
    if (t.points.some((p) => pctUnreliable(p.ttft_ms) || pctUnreliable(p.e2e_ms)))
      out.push(unreliableNote(tr));
    if (res.prompts === 'reused') out.push(tr('exp.sweep.reused'));
    const leftOut = t.left_out.length
      ? tr('exp.sweep.left_out', {
          list: t.left_out.map((l) => `${l.level} (${l.reasons.join(', ')})`).join(', '),
        })
      : '';
    const knee = { knee: t.knee, reason: storedReason(t.knee_reason, tr), left_out: leftOut };
    out.push(
      t.knee_determined
        ? tr('exp.sweep.knee', knee)
        : t.points.length - t.left_out.length < MIN_VALID_LEVELS_FOR_KNEE
          ? tr('exp.sweep.knee_undetermined', knee)
          : tr('exp.sweep.knee_not_reached', knee),
    );
    const mc = t.max_concurrency;
    if (mc)
      out.push(
        mc.concurrency === null
          ? tr('exp.sweep.max_conc_undetermined', { why: mc.undetermined })
          : tr(mc.bounded ? 'exp.sweep.max_conc' : 'exp.sweep.max_conc_unbounded', { n: mc.concurrency }),
      );
  }
  return out;
}

// ---- the answer --------------------------------------------------------------------------------

/** A level as the answer names it: `concurrency 8` or `4 req/s`. */
const levelText = (t: SweepTargetResult, level: number, tr: T): string =>
  tr(t.factor === 'concurrency' ? 'answer.sweep.level_c' : 'answer.sweep.level_rate', { level });

/** A level's throughput as the answer quotes it: output tokens/s, else requests/s. */
function throughputText(p: RunHeadline | undefined, tr: T): string {
  if (p?.output_throughput_tok_s != null)
    return tr('answer.sweep.tok_s', { v: fmt(p.output_throughput_tok_s) });
  return tr('answer.sweep.rps', { v: fmt(p?.request_throughput_rps, 2) });
}

/** The stop rule a level tripped, in `t`'s language. */
export function stopText(s: StopTrip, tr: T): string {
  if (s.rule === 'error_rate')
    return tr('answer.sweep.rule.error_rate', { value: pct(s.value), limit: pct(s.base) });
  return tr(s.rule === 'ttft_p99' ? 'answer.sweep.rule.ttft_p99' : 'answer.sweep.rule.e2e_p99', {
    value: fmt(s.value),
    k: s.factor ?? '',
    base: fmt(s.base),
  });
}

/** The stop of a target's sweep: the level that tripped a rule and which rule (recomputed from the levels). */
export function sweepStop(
  t: SweepTargetResult,
  rules: StopRules,
): { point: SweepPoint; trip: StopTrip | null } | null {
  const point = t.points.find((p) => p.stopped);
  if (!point) return null;
  return { point, trip: stopTrip(point, t.points[0], rules) };
}

/**
 * One target's verdict clause. The knee, the stop and the SLO search are told together so they
 * cannot disagree: a stop that ended the sweep names the knee as the level before it (see
 * `concludeSweep`), and "still rising" is said only of a sweep that did not stop.
 */
function targetVerdict(res: SweepResult, t: SweepTargetResult, tr: T): string {
  const stop = sweepStop(t, res.stop);
  const stopWhy = stop ? (stop.trip ? stopText(stop.trip, tr) : (stop.point.stopped ?? '')) : '';
  const kneePoint = t.points.find((p) => p.level === t.knee);
  const valid = t.points.filter((p) => p.validity.length === 0);
  let text: string;
  if (t.knee_determined && t.knee !== null) {
    // The stop ended the sweep right after the knee: no valid level between them.
    const stopEnds =
      stop !== null && !valid.some((p) => p.level > (t.knee as number) && p.level < stop.point.level);
    text = stopEnds
      ? tr('answer.sweep.knee_stop', {
          knee: levelText(t, t.knee, tr),
          tput: throughputText(kneePoint, tr),
          stop: levelText(t, stop.point.level, tr),
          why: stopWhy,
        })
      : tr('answer.sweep.knee', { knee: levelText(t, t.knee, tr), tput: throughputText(kneePoint, tr) });
    if (stop && !stopEnds)
      text += tr('answer.sweep.and_stop', { stop: levelText(t, stop.point.level, tr), why: stopWhy });
  } else if (valid.length < MIN_VALID_LEVELS_FOR_KNEE) {
    text = tr('answer.sweep.undetermined', { valid: valid.length, n: t.points.length });
    if (stop) text += tr('answer.sweep.and_stop', { stop: levelText(t, stop.point.level, tr), why: stopWhy });
  } else {
    const last = valid[valid.length - 1];
    text = tr('answer.sweep.rising', { last: levelText(t, last.level, tr), tput: throughputText(last, tr) });
  }
  const mc = t.max_concurrency;
  if (mc) {
    const slo = Object.entries(mc.slo)
      .map(([k, v]) => `${k} ≤ ${v}`)
      .join(', ');
    text +=
      mc.concurrency === null
        ? tr('answer.sweep.slo_undetermined', { why: mc.undetermined ?? '' })
        : mc.concurrency === 0
          ? tr('answer.sweep.slo_none', { slo })
          : tr(mc.bounded ? 'answer.sweep.slo' : 'answer.sweep.slo_unbounded', { n: mc.concurrency, slo });
    // The search may go past the stop (it doubles past the last level while the SLO holds):
    // say why the two do not contradict each other.
    if (stop && mc.concurrency !== null && mc.concurrency >= stop.point.level)
      text += tr('answer.sweep.slo_past_stop');
  }
  return text;
}

/**
 * An SLO's line on a latency series: drawn where the chart's latency axis can show it (at most
 * 3 × the series' highest value, as the report's load curve does), else none.
 */
function sloMark(slo: number | undefined, values: readonly (number | null)[], label: string): AnswerMark[] {
  const top = Math.max(0, ...values.map((v) => v ?? 0));
  return slo === undefined || top === 0 || slo > 3 * top ? [] : [{ at: 'y', value: slo, label }];
}

/**
 * The lead chart: output throughput against the level on the left axis (the knee marked on it),
 * p99 TTFT and p99 E2E on the right axis in ms (each SLO drawn on its own latency series), per
 * target. Two axes: tok/s and ms share no scale. It replaces the report's load curve, which
 * drew the same lines.
 */
function sweepChart(res: SweepResult, tr: T): AnswerChart {
  const many = res.targets.length > 1;
  const name = (t: SweepTargetResult, key: Parameters<T>[0]) => (many ? `${t.target} ${tr(key)}` : tr(key));
  const conc = res.kind === 'concurrency-sweep';
  const slo = res.slo ?? res.targets.find((t) => t.max_concurrency)?.max_concurrency?.slo ?? {};
  return {
    type: 'line',
    title: tr('answer.sweep.chart_title'),
    x: {
      name: tr(conc ? 'exp.sweep.concurrency' : 'exp.sweep.rate'),
      unit: conc ? null : 'req/s',
      log: conc,
    },
    y: { name: tr('answer.sweep.axis.throughput'), unit: 'tok/s', log: false },
    y2: { name: tr('answer.sweep.axis.latency'), unit: 'ms' },
    series: res.targets.flatMap((t) => {
      const ttft = t.points.map((p) => cell(p.ttft_ms.p99));
      const e2e = t.points.map((p) => cell(p.e2e_ms.p99));
      return [
        {
          name: name(t, 'answer.sweep.series.throughput'),
          points: t.points.map((p): [number, number | null] => [p.level, cell(p.output_throughput_tok_s)]),
          ...(t.knee !== null
            ? {
                marks: [
                  {
                    at: 'x' as const,
                    value: t.knee,
                    label: many
                      ? `${t.target} ${tr('answer.sweep.knee_mark')}`
                      : tr('answer.sweep.knee_mark'),
                  },
                ],
              }
            : {}),
        },
        {
          name: name(t, 'answer.sweep.series.ttft_p99'),
          points: t.points.map((p, i): [number, number | null] => [p.level, ttft[i]]),
          axis: 'y2' as const,
          dashed: true,
          marks: sloMark(
            slo.ttft_ms,
            ttft,
            tr('answer.sweep.slo_line', { metric: 'TTFT', value: slo.ttft_ms }),
          ),
        },
        {
          name: name(t, 'answer.sweep.series.e2e_p99'),
          points: t.points.map((p, i): [number, number | null] => [p.level, e2e[i]]),
          axis: 'y2' as const,
          dashed: true,
          marks: sloMark(slo.e2e_ms, e2e, tr('answer.sweep.slo_line', { metric: 'E2E', value: slo.e2e_ms })),
        },
      ];
    }),
    replaces: ['load-curve'],
  };
}

/**
 * The sweep's answer: does more load still pay, where it stops paying (the knee) and why the
 * sweep ended, and, with `find_max_concurrency`, the largest concurrency meeting the SLO.
 */
export function sweepAnswer(res: SweepResult, tr: T): ExperimentAnswer {
  const many = res.targets.length > 1;
  const col = withTarget(many, tr);
  const search = res.targets.some((t) => t.max_concurrency);
  const conc = res.kind === 'concurrency-sweep';
  const rows = res.targets.flatMap((t) => {
    const probes = new Map((t.max_concurrency?.probes ?? []).map((p) => [p.concurrency, p.ok]));
    const stop = sweepStop(t, res.stop);
    return t.points.map((p) => {
      const ok = probes.get(p.level);
      return col.row(t.target, [
        p.level,
        cell(p.request_throughput_rps, 2),
        cell(p.output_throughput_tok_s),
        cell(p.ttft_ms.p99),
        cell(p.e2e_ms.p99),
        pctCell(p.error_rate),
        verdictOf(p, tr),
        p.level === t.knee ? tr('answer.sweep.knee_mark') : '',
        stop && stop.point === p ? (stop.trip ? stopText(stop.trip, tr) : p.stopped) : '',
        ...(search ? [ok === undefined ? null : ok ? '✓' : '✗'] : []),
      ]);
    });
  });
  const one = res.targets.length === 1 ? res.targets[0] : null;
  const mc = one?.max_concurrency;
  return {
    kind: res.kind,
    question: tr(
      conc
        ? search
          ? 'answer.sweep.question_c_slo'
          : 'answer.sweep.question_c'
        : 'answer.sweep.question_rate',
    ),
    verdict: joinVerdict(
      res.targets.map((t) => ({ target: t.target, text: targetVerdict(res, t, tr) })),
      tr,
    ),
    table: {
      columns: col.columns([
        tr(conc ? 'exp.sweep.concurrency' : 'exp.sweep.rate'),
        'req/s',
        tr('report.col.outTokS'),
        'TTFT p99 ms',
        'E2E p99 ms',
        tr('answer.col.errors_pct'),
        tr('exp.col.verdict'),
        tr('answer.sweep.col.knee'),
        tr('exp.col.stop'),
        ...(search ? [tr('answer.sweep.col.slo')] : []),
      ]),
      rows,
    },
    chart: sweepChart(res, tr),
    run_ids: runIdsOf(
      res.targets.flatMap((t) => [
        ...t.points.map((p) => p.run_id),
        ...(t.max_concurrency?.probes ?? []).map((p) => p.run_id),
      ]),
    ),
    interval:
      mc && mc.concurrency !== null && mc.bounded
        ? searchBracket(
            'max_concurrency',
            mc.concurrency,
            mc.probes.filter((p) => !p.ok).map((p) => p.concurrency),
            tr,
          )
        : null,
  };
}
