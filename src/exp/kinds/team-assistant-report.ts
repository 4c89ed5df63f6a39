/**
 * @module exp/kinds/team-assistant-report
 * The `team-assistant` kind's answer: the shape of its result (per target, the levels measured,
 * the largest team meeting the SLO and where the wait goes) and how it reads: the console table,
 * the answer lines (which the HTML report puts at its head), the answer (`report/answer`: the
 * largest team, the table of SLO attainment per number of users, its chart) and the Markdown
 * write-up, in the course's terms. The measuring and the search are in `exp/kinds/team-assistant`.
 */
import type { AttainmentJudgement } from '../../analysis/binomial.js';
import type { T } from '../../i18n/index.js';
import type { AnswerChart, AnswerInterval, ExperimentAnswer } from '../../report/answer.js';
import { bandInterval } from '../../sim/fidelity/band.js';
import {
  cell,
  joinVerdict,
  runIdsOf,
  searchBracket,
  shareCell,
  shareText,
  withTarget,
} from './answer-kit.js';
import { pct, table } from './format.js';
import { fmt, verdictOf } from './points.js';

/** Where a turn's wait goes (ms per successful turn; see the module comment). */
export interface WaitSplit {
  /** `engine`: the server's timings split queue from prefill; `client`: the client's view only. */
  from: 'engine' | 'client';
  ttft_ms_mean: number | null;
  queue_ms: number | null;
  prefill_ms: number | null;
  decode_interference_ms: number | null;
  /** Mean gap overlapping another turn's prefill / mean clean gap (`analysis/interference`). */
  stall_ratio: number | null;
  /** The largest of the three; from the diagnosis rules without the server's timings; null when neither tells. */
  dominant: 'queueing' | 'prefill' | 'decode' | null;
  /** The diagnosis rules about the wait that fired on the run. */
  rules: string[];
}

/** One number of users on one target. */
export interface TeamLevel {
  users: number;
  /** The first replication's run (the level's cards). */
  run_id: string | null;
  /** Every replication's run, in the order measured. */
  run_ids: (string | null)[];
  /** A probe of the bisection, not one of `load.users`. */
  search: boolean;
  /** Independent runs pooled into the level (the same users, sessions from another seed) to reach `team.min_turns`. */
  replications: number;
  turns_planned: number;
  turns_succeeded: number;
  /** Planned turns that met every SLO (a turn never sent misses it). */
  turns_met: number;
  /** Share of the planned turns meeting every SLO (goodput): turns_met / turns_planned. */
  attainment: number | null;
  /** The attainment's 95% Wilson interval (`analysis/binomial`); null without turns. */
  attainment_ci: { low: number; high: number } | null;
  /** The attainment judged against `team.attainment` with its interval (`judgeAttainment`); null without turns. */
  judgement: AttainmentJudgement | null;
  /** The judgement is `meets`: the search's pass. */
  meets: boolean;
  validity: { code: string; message: string }[];
  ttft_ms: { p50: number | null; p90: number | null };
  tpot_ms: { p50: number | null; p90: number | null };
  /** The user's wait from asking to the first content (`report.sessions`). */
  user_ttft_ms: { p50: number | null; p90: number | null };
  wait: WaitSplit;
  cache: {
    /** The server's prefix-cache hit rate over the run (its counters); null when it has none. */
    server_hit_rate: number | null;
    /** Σ cached_tokens / Σ prompt_tokens the responses reported. */
    usage_hit_rate: number | null;
    /** The share of prompt tokens an unbounded prefix cache could serve (the workload's plan). */
    intended: number | null;
    /** The part of `intended` the shared documents give. */
    intended_documents: number | null;
  };
}

export interface TeamTargetResult {
  target: string;
  /** Levels in the order measured (the sweep's, then the bisection's probes). */
  levels: TeamLevel[];
  /** The largest team meeting the SLO (0 when even the first level missed it); null when undetermined. */
  largest: number | null;
  /** False when the largest level tried still met the SLO (the true limit may be higher). */
  bounded: boolean;
  undetermined: string | null;
  /** The level whose wait is explained: the smallest failing one, else the largest measured. */
  deciding: number | null;
  /** Whether `team.colleagues` users meet the SLO: from a level at or around it, null when not known. */
  colleagues_fit: boolean | null;
  /** The target is the built-in simulator (its numbers carry the fitted error bands); absent in older results. */
  simulated?: boolean;
}

export interface TeamResult {
  kind: 'team-assistant';
  colleagues: number;
  attainment: number;
  /** The fewest planned turns a level's attainment rests on (`team.min_turns`). */
  min_turns: number;
  time_scale: number;
  slo: Record<string, number>;
  turns: string;
  think_time_s: string;
  targets: TeamTargetResult[];
}

const WAIT_KEY = {
  queueing: 'team.wait.queueing',
  prefill: 'team.wait.prefill',
  decode: 'team.wait.decode',
} as const;

/** The "largest team" line (exactly `largest team meeting the SLO: N users` when bounded). */
export function largestLine(r: TeamTargetResult, tr: T): string {
  if (r.largest === null) return tr('team.largest_undetermined', { why: r.undetermined ?? '' });
  if (!r.bounded) return tr('team.largest_unbounded', { n: r.largest });
  return tr('team.largest', { n: r.largest });
}

/** The console lines of the result: a table per target and its answer. */
export function formatTeam(res: TeamResult, tr: T): string[] {
  const out: string[] = [];
  for (const t of res.targets) {
    out.push(
      tr('team.header', {
        target: t.target,
        turns: res.turns,
        think: res.think_time_s,
        slo: Object.entries(res.slo)
          .map(([k, v]) => `${k} ≤ ${v}`)
          .join(', '),
        pct: res.attainment * 100,
      }),
    );
    const sorted = [...t.levels].sort((a, b) => a.users - b.users);
    out.push(
      table(
        [
          tr('team.col.users'),
          tr('team.col.turns'),
          tr('team.col.met'),
          'TTFT p50/p90',
          'TPOT p50/p90',
          tr('team.col.queue'),
          tr('team.col.prefill'),
          tr('team.col.interference'),
          tr('team.col.server_hit'),
          tr('team.col.intended'),
          tr('exp.col.verdict'),
        ],
        sorted.map((l) => [
          `${l.users}${l.search ? '*' : ''}`,
          `${l.turns_succeeded}/${l.turns_planned}`,
          `${shareText(l.attainment, res.attainment)} ${markOf(l)}`,
          `${fmt(l.ttft_ms.p50, 0)}/${fmt(l.ttft_ms.p90, 0)}`,
          `${fmt(l.tpot_ms.p50, 1)}/${fmt(l.tpot_ms.p90, 1)}`,
          fmt(l.wait.queue_ms, 0),
          fmt(l.wait.prefill_ms, 0),
          fmt(l.wait.decode_interference_ms, 0),
          pct(l.cache.server_hit_rate),
          pct(l.cache.intended),
          verdictOf(l, tr),
        ]),
      ),
    );
    if (sorted.some((l) => l.search)) out.push(tr('team.search_note'));
    out.push(tr('answer.team.rule', { pct: res.attainment * 100, min_turns: res.min_turns }));
    out.push(...answerLines(res, t, tr));
  }
  if (res.time_scale !== 1) out.push(tr('team.time_scale', { scale: res.time_scale }));
  return out;
}

/**
 * One target's answer: the largest team, whether the asked-for team fits, where the wait is and
 * what the prefix cache did. The console prints it under the table; the HTML report at its head.
 */
export function answerLines(res: TeamResult, t: TeamTargetResult, tr: T): string[] {
  const out = [largestLine(t, tr)];
  if (t.colleagues_fit !== null)
    out.push(tr(t.colleagues_fit ? 'team.colleagues_fit' : 'team.colleagues_no_fit', { n: res.colleagues }));
  const d = t.levels.find((l) => l.users === t.deciding);
  if (d)
    out.push(
      ...waitLines(d, tr),
      tr('team.cache', {
        users: d.users,
        server: pct(d.cache.server_hit_rate),
        usage: pct(d.cache.usage_hit_rate),
        intended: pct(d.cache.intended),
        documents: pct(d.cache.intended_documents),
      }),
    );
  return out;
}

/** The kind's answer for the HTML report: each target's {@link answerLines}, named. */
export function teamConclusion(res: TeamResult, tr: T): string[] {
  return res.targets.flatMap((t) =>
    answerLines(res, t, tr).map((line, i) => (i === 0 ? `${t.target}: ${line}` : line.trim())),
  );
}

/** The "where the wait is" lines of one level. */
export function waitLines(d: TeamLevel, tr: T): string[] {
  const w = d.wait;
  const out = [
    tr(w.from === 'engine' ? 'team.wait.split' : 'team.wait.split_client', {
      users: d.users,
      queue: fmt(w.queue_ms, 0),
      prefill: fmt(w.prefill_ms, 0),
      decode: fmt(w.decode_interference_ms, 0),
      ratio: fmt(w.stall_ratio, 2),
    }),
    w.dominant ? tr('team.wait.verdict', { where: tr(WAIT_KEY[w.dominant]) }) : tr('team.wait.unknown'),
  ];
  if (w.rules.length) out.push(tr('team.wait.rules', { rules: w.rules.join(', ') }));
  return out;
}

/**
 * The write-up's section for this kind (Markdown lines): the course's question, the answer,
 * where the wait is and what the prefix cache did, in the course's terms.
 */
export function teamWriteup(res: TeamResult, tr: T): string[] {
  const L: string[] = [
    `### ${tr('team.writeup.title')}`,
    '',
    tr('team.writeup.question', { n: res.colleagues }),
    '',
  ];
  L.push(
    tr('team.writeup.design', {
      turns: res.turns,
      think: res.think_time_s,
      slo: Object.entries(res.slo)
        .map(([k, v]) => `\`${k}\` ≤ ${v}`)
        .join(', '),
      pct: res.attainment * 100,
    }),
    '',
  );
  for (const t of res.targets) {
    L.push(`**${t.target}**: ${largestLine(t, tr)}`, '');
    if (t.colleagues_fit !== null)
      L.push(tr(t.colleagues_fit ? 'team.writeup.fit' : 'team.writeup.no_fit', { n: res.colleagues }), '');
    L.push(
      `| ${tr('team.col.users')} | ${tr('team.col.met')} | TTFT p90 | TPOT p90 | ${tr('team.col.queue')} | ${tr('team.col.prefill')} | ${tr('team.col.interference')} | ${tr('team.col.server_hit')} | ${tr('team.col.intended')} |`,
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const l of [...t.levels].sort((a, b) => a.users - b.users))
      L.push(
        `| ${l.users} | ${shareText(l.attainment, res.attainment)} ${markOf(l)} | ${fmt(l.ttft_ms.p90, 0)} | ${fmt(l.tpot_ms.p90, 1)} | ${fmt(l.wait.queue_ms, 0)} | ${fmt(l.wait.prefill_ms, 0)} | ${fmt(l.wait.decode_interference_ms, 0)} | ${pct(l.cache.server_hit_rate)} | ${pct(l.cache.intended)} |`,
      );
    L.push('');
    const d = t.levels.find((l) => l.users === t.deciding);
    if (d) {
      L.push(tr('team.writeup.wait_intro'), '');
      for (const line of waitLines(d, tr)) L.push(`- ${line.replace(/^\s*(→\s*)?/, '')}`);
      if (d.wait.dominant) L.push('', tr(`team.writeup.means_${d.wait.dominant}`));
      L.push(
        '',
        tr('team.writeup.cache', {
          server: pct(d.cache.server_hit_rate),
          intended: pct(d.cache.intended),
          documents: pct(d.cache.intended_documents),
        }),
        '',
      );
    }
  }
  if (res.time_scale !== 1) L.push(`> ${tr('team.time_scale', { scale: res.time_scale })}`, '');
  return L;
}

// ---- the answer --------------------------------------------------------------------------------

const sloText = (res: TeamResult) =>
  Object.entries(res.slo)
    .map(([k, v]) => `${k} ≤ ${v}`)
    .join(', ');

/**
 * A level's SLO attainment with its 95% Wilson interval (`analysis/binomial`): the turns that met
 * every SLO of the planned ones, pooled over the level's replications.
 */
export function attainmentOf(l: TeamLevel): {
  met: number;
  n: number;
  ci: { low: number; high: number } | null;
} {
  return { met: l.turns_met, n: l.turns_planned, ci: l.attainment_ci };
}

/** A level's mark: ✓ meets, ✗ fails, ? cannot tell (its interval holds the required share). */
export const markOf = (l: TeamLevel): string =>
  l.judgement === 'meets' ? '✓' : l.judgement === 'cannot_tell' ? '?' : '✗';

/**
 * A 95% interval as `98.1–99.7%`, `-` without one; both ends cut down as the attainment is
 * ({@link shareText}), so a failing level's upper end never reads as the required share.
 */
const ciText = (ci: { low: number; high: number } | null, target: number) =>
  ci ? `${shareText(ci.low, target).replace(/%$/, '')}–${shareText(ci.high, target)}` : '-';

/**
 * The levels the evidence cannot judge (`cannot_tell`: attainment under the required share, its
 * 95% interval still holding it). The search treats them as not meeting; the verdict names them.
 * Sorted by users.
 */
export function unsettledLevels(t: TeamTargetResult): number[] {
  return [...t.levels]
    .sort((a, b) => a.users - b.users)
    .filter((l) => l.judgement === 'cannot_tell')
    .map((l) => l.users);
}

/** One target's verdict clause: the largest team, the level that bounds it, and the asked-for team. */
function teamVerdict(res: TeamResult, t: TeamTargetResult, tr: T): string {
  const byUsers = [...t.levels].sort((a, b) => a.users - b.users);
  const users = (n: number) => (n === 1 ? tr('answer.team.one_user') : tr('answer.team.users', { n }));
  let text: string;
  if (t.largest === null) text = tr('answer.team.undetermined', { why: t.undetermined ?? '' });
  else if (t.largest === 0)
    text = tr('answer.team.none', {
      users: byUsers.length ? users(byUsers[0].users) : '-',
      met: shareText(byUsers[0]?.attainment, res.attainment),
    });
  else {
    const at = byUsers.find((l) => l.users === t.largest);
    // The level that bounds the answer: the first above it shown to fail, else the first not shown to meet.
    const above = byUsers.filter((l) => l.users > (t.largest as number));
    const miss = above.find((l) => l.judgement === 'fails') ?? above.find((l) => !l.meets);
    text =
      t.bounded && miss
        ? tr('answer.team.largest', {
            n: users(t.largest),
            met: shareText(at?.attainment, res.attainment),
            ci: ciText(at ? attainmentOf(at).ci : null, res.attainment),
            fail: users(miss.users),
            fail_ci: ciText(attainmentOf(miss).ci, res.attainment),
            fail_met: shareText(miss.attainment, res.attainment),
          })
        : tr('answer.team.unbounded', {
            n: users(t.largest),
            met: shareText(at?.attainment, res.attainment),
            ci: ciText(at ? attainmentOf(at).ci : null, res.attainment),
          });
  }
  const unsure = unsettledLevels(t);
  if (unsure.length)
    text += tr('answer.team.cannot_tell', { levels: unsure.join(', '), pct: res.attainment * 100 });
  if (t.colleagues_fit !== null)
    text += tr(t.colleagues_fit ? 'answer.team.fit' : 'answer.team.no_fit', { n: res.colleagues });
  return text;
}

/** The lead chart: SLO attainment against users, per target, with the required share as a line. */
function teamChart(res: TeamResult, tr: T): AnswerChart {
  const many = res.targets.length > 1;
  const users = res.targets.flatMap((t) => t.levels.map((l) => l.users));
  const span = users.length ? [Math.min(...users), Math.max(...users)] : [];
  const lows = res.targets.flatMap((t) => t.levels.map((l) => (l.attainment ?? 0) * 100));
  const yMin = Math.max(0, Math.floor(Math.min(res.attainment * 100, ...lows) / 5) * 5 - 5);
  return {
    type: 'line',
    title: tr('answer.team.chart_title'),
    x: { name: tr('team.col.users'), unit: null, integer: true },
    // From just under the lowest attainment: at 0–100% every level near the target is one line.
    y: { name: tr('team.col.met'), unit: '%', log: false, min: yMin, max: 100 },
    series: [
      ...res.targets.map((t) => ({
        name: many ? `${t.target} ${tr('team.col.met')}` : tr('team.col.met'),
        points: [...t.levels]
          .sort((a, b) => a.users - b.users)
          .map((l): [number, number | null] => [l.users, shareCell(l.attainment, res.attainment)]),
      })),
      {
        name: tr('answer.team.required', { pct: res.attainment * 100 }),
        points: span.map((u): [number, number | null] => [u, cell(res.attainment * 100)]),
      },
    ],
  };
}

/**
 * The team's answer: the largest number of users for which at least `team.attainment` of the
 * turns met the SLO, the attainment at every level measured (the bisection's probes too), and
 * the bracket the search leaves around the answer.
 */
export function teamAnswer(res: TeamResult, tr: T): ExperimentAnswer {
  const many = res.targets.length > 1;
  const col = withTarget(many, tr);
  const one = res.targets.length === 1 ? res.targets[0] : null;
  return {
    kind: res.kind,
    question: tr('answer.team.question', { n: res.colleagues, pct: res.attainment * 100, slo: sloText(res) }),
    verdict: joinVerdict(
      res.targets.map((t) => ({ target: t.target, text: teamVerdict(res, t, tr) })),
      tr,
    ),
    table: {
      columns: col.columns([
        tr('team.col.users'),
        tr('answer.team.col.turns_met'),
        `${tr('team.col.met')} %`,
        tr('answer.team.col.ci95'),
        tr('answer.team.col.meets'),
        'TTFT p90 ms',
        'TPOT p90 ms',
        tr('answer.team.col.user_ttft'),
        tr('exp.col.verdict'),
      ]),
      rows: res.targets.flatMap((t) =>
        [...t.levels]
          .sort((a, b) => a.users - b.users)
          .map((l) =>
            col.row(t.target, [
              l.users,
              `${l.turns_met}/${l.turns_planned}`,
              shareCell(l.attainment, res.attainment),
              ciText(attainmentOf(l).ci, res.attainment),
              markOf(l),
              cell(l.ttft_ms.p90, 0),
              cell(l.tpot_ms.p90, 1),
              cell(l.user_ttft_ms.p90, 0),
              verdictOf(l, tr),
            ]),
          ),
      ),
    },
    // How a level is judged, whatever the outcome: the answer rests on this rule.
    notes: [tr('answer.team.rule', { pct: res.attainment * 100, min_turns: res.min_turns })],
    chart: teamChart(res, tr),
    run_ids: runIdsOf(res.targets.flatMap((t) => t.levels.flatMap((l) => l.run_ids))),
    // The cards under the answer show the largest team meeting the SLO, not the level that failed.
    focus_run_id:
      one && one.largest !== null ? (one.levels.find((l) => l.users === one.largest)?.run_id ?? null) : null,
    bands: teamBands(res, tr),
    interval: one?.bounded ? teamBracket(res, one, tr) : null,
  };
}

/**
 * The search's bracket around the answer: met at the largest team, not shown to meet just above.
 * Each level pools replications, so the sweeps' note ("each level was measured once") is not
 * this one's.
 */
function teamBracket(res: TeamResult, t: TeamTargetResult, tr: T): ExperimentAnswer['interval'] {
  const notMet = t.levels.filter((l) => !l.meets).map((l) => l.users);
  const b = searchBracket('users', t.largest, notMet, tr);
  if (!b) return null;
  return {
    ...b,
    note: tr('answer.team.interval', { met: b.low, missed: b.high + 1, min_turns: res.min_turns }),
  };
}

/**
 * The simulator's 80% bands (sim/fidelity/band) of the TTFT p90 (the SLO's metric) at each
 * simulated target's largest team meeting the SLO: "TTFT p90 at 21 users: between 350 and 520".
 */
function teamBands(res: TeamResult, tr: T): AnswerInterval[] {
  const out: AnswerInterval[] = [];
  for (const t of res.targets) {
    if (!t.simulated || !t.largest) continue;
    const l = t.levels.find((x) => x.users === t.largest);
    const b = bandInterval(
      'ttft_p90',
      l?.ttft_ms.p90 ?? null,
      tr('answer.team.band_what', { target: t.target, n: t.largest, value: Math.round(l?.ttft_ms.p90 ?? 0) }),
      tr,
    );
    if (b) out.push(b);
  }
  return out;
}
