/**
 * @module exp/kinds/team-assistant
 * `team-assistant`: the course's question. Xiao Lin's document assistant works for one user;
 * what happens when 32 colleagues ask questions at the same time? Each colleague is a session
 * (`KindContext.sessions`): 3–6 turns, a think time between an answer and the next question, every
 * turn resending the history, the turns starting with one of a few shared documents. The kind
 * sweeps the number of users over `load.users` and bisects between the last level meeting the
 * SLO and the first failing one (the one search of `analysis/capacity`), and reports:
 *
 * - the largest team meeting the SLO: the most users for which at least `team.attainment` of the
 *   planned turns met every SLO (goodput; a turn never sent misses it); each level pools
 *   replications (the same users, new sessions over the same documents) until it has
 *   `team.min_turns` planned turns, and is judged with its 95% Wilson interval
 *   (`analysis/binomial` `judgeAttainment`: meets, fails, cannot tell); only a level that meets
 *   passes the search; unbounded when the largest level tried still met it, undetermined when a
 *   probe that decided the search is not valid;
 * - where the wait is, per level: queueing, prefill and decode interference (defined below, and in
 *   docs/experiments.md#team-assistant), with the diagnosis rules that fired on the run;
 * - the prefix-cache hit rate: the server's (its counters over the run), the cached share the
 *   responses reported, and the sharing the workload intended.
 *
 * The split of a turn's wait (means over the successful turns of the run, ms):
 * - queueing: client-side wait (sent − the moment the user asked: a concurrency slot, the
 *   sender) + the engine's queue (`server.queue_ms`: arrival → first scheduled, wall ms);
 * - prefill: TTFT − the engine's queue (the prompt's uncached part computed, sharing steps with
 *   the others, and the frontend);
 * - decode interference: the time the turn's answer lost to other turns' prefills: over the
 *   token gaps that overlap another turn's prefill window, Σ (gap − mean clean gap), divided by
 *   the turns (`analysis/interference`).
 * The engine's queue and prefill windows need the server's timings (the simulator sends them);
 * without them queueing is the client-side wait only, prefill includes the engine's queue, the
 * windows are the client's [sent, first token], and where the wait is comes from the diagnosis
 * rules (`high_ttft_queueing`, `high_ttft_prefill`, `stall_prefill_interference`).
 *
 * `team.time_scale` divides think times and session starts (ramp-up, session arrivals): the
 * colleagues think that many times faster, which is a different, heavier question; it exists for
 * tests and smoke runs. A virtual-clock simulator costs no wall time for thinking anyway.
 *
 * This module measures and searches; the result's shape and how it reads (console, answer lines,
 * write-up) are in `exp/kinds/team-assistant-report`.
 */
import { z } from 'zod';
import { judgeAttainment } from '../../analysis/binomial.js';
import { judgeProbe, searchMaxLevel } from '../../analysis/capacity.js';
import { diagnose } from '../../analysis/diagnose/index.js';
import { mean, prefillInterference, type SessionsSummary, summarize, ttftMs } from '../../analysis/index.js';
import { engineTimes } from '../../analysis/interference.js';
import type { LoadedRun } from '../../analysis/loaded-run.js';
import type { Slo } from '../../analysis/slo.js';
import { bool, fraction, posInt, posNum } from '../../core/fields.js';
import { serverTimes } from '../../record/server-times.js';
import { type RequestRecord, SUCCESS_OUTCOMES } from '../../record/types.js';
import { hashString } from '../../runtime/rng.js';
import { increasing } from '../fields.js';
import { shareText } from './answer-kit.js';
import type { KindContext, LiveTarget, Measured, SessionsPlan } from './context.js';
import { defineKind, type OwnFile } from './kind.js';
import { fmt, verdictOf } from './points.js';
import {
  formatTeam,
  type TeamLevel,
  type TeamResult,
  type TeamTargetResult,
  teamAnswer,
  teamConclusion,
  teamWriteup,
  type WaitSplit,
} from './team-assistant-report.js';

/** The diagnosis rules that say where the wait is (`stall_batch_growth` is listed with them, as decode slowing with the batch). */
const WAIT_RULES = {
  high_ttft_queueing: 'queueing',
  high_ttft_prefill: 'prefill',
  stall_prefill_interference: 'decode',
} as const;

/** The levels around a team of `n`: n/8, n/4, n/2, n, 1.5 n, 2 n (4 … 64 for 32). */
export function levelsAround(n: number): number[] {
  const xs = [n / 8, n / 4, n / 2, n, 1.5 * n, 2 * n].map((x) => Math.max(1, Math.round(x)));
  return [...new Set(xs)];
}

/** A sessions load with its think times and session starts divided by `scale`. */
export function scaleSessions<L extends SessionsPlan>(load: L, scale: number): L {
  if (scale === 1) return load;
  return {
    ...load,
    sessions: load.sessions.map((s) => ({
      ...s,
      startMs: s.startMs / scale,
      turns: s.turns.map((u) => ({ ...u, thinkMs: u.thinkMs / scale })),
    })),
  };
}

/**
 * Where a run's wait goes (see the module comment): queueing, prefill and decode interference
 * per successful turn, and the diagnosis rules about the wait that fired.
 */
export function waitSplit(records: readonly RequestRecord[], rules: readonly string[]): WaitSplit {
  const ok = records.filter((r) => r.phase === 'measure' && SUCCESS_OUTCOMES.includes(r.outcome));
  // The engine's queue and times, in wall ms (`record/server-times`, `engineTimes`).
  const engine = ok.length > 0 && ok.every((r) => serverTimes(r)?.queue_ms != null && engineTimes(r));
  const ttft: number[] = [];
  const queue: number[] = [];
  const prefill: number[] = [];
  for (const r of ok) {
    const t = ttftMs(r);
    if (t === undefined) continue;
    const client =
      r.sent_at_ms !== null && r.planned_at_ms !== null ? Math.max(0, r.sent_at_ms - r.planned_at_ms) : 0;
    const q = engine ? (serverTimes(r)?.queue_ms ?? 0) : 0;
    ttft.push(t);
    queue.push(client + q);
    prefill.push(t - q);
  }
  // Prefill windows and token times on one timeline: the engine's, else the client's.
  const windows: [number, number][] = [];
  const times: number[][] = [];
  for (const r of ok) {
    if (engine) {
      const e = engineTimes(r);
      if (!e?.tokens.length) continue;
      windows.push([e.tokens[0] - e.prefill_ms, e.tokens[0]]);
      times.push(e.tokens);
    } else {
      const first = r.chunk_times_ms[0];
      if (r.sent_at_ms !== null && first !== undefined) windows.push([r.sent_at_ms, first]);
      times.push([...r.chunk_times_ms]);
    }
  }
  // A turn's own window ends at its first token, where its first gap starts: it never overlaps itself.
  const pi = prefillInterference(times, windows, engine ? 'server' : 'client');
  const o = pi.gaps_overlapping_ms;
  const c = pi.gaps_clean_ms;
  // No gap overlapped another turn's prefill: nothing was lost to one (with gaps to tell it by).
  const interference =
    o.n === 0 && c.n > 0
      ? 0
      : o.mean !== null && c.mean !== null && ok.length
        ? Math.max(0, (o.n * (o.mean - c.mean)) / ok.length)
        : null;
  const split = {
    queue_ms: mean(queue),
    prefill_ms: engine ? mean(prefill) : null,
    decode_interference_ms: interference,
  };
  const waitRules = rules.filter((r) => r in WAIT_RULES || r === 'stall_batch_growth');
  let dominant: WaitSplit['dominant'] = null;
  if (engine && split.queue_ms !== null && split.prefill_ms !== null) {
    const parts: [NonNullable<WaitSplit['dominant']>, number][] = [
      ['queueing', split.queue_ms],
      ['prefill', split.prefill_ms],
      ['decode', split.decode_interference_ms ?? 0],
    ];
    dominant = parts.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
  } else {
    const named = waitRules.find((r) => r in WAIT_RULES) as keyof typeof WAIT_RULES | undefined;
    if (named) dominant = WAIT_RULES[named];
  }
  return {
    from: engine ? 'engine' : 'client',
    ttft_ms_mean: mean(ttft),
    ...split,
    stall_ratio: pi.stall_ratio,
    dominant,
    rules: waitRules,
  };
}

/** The run as the diagnosis rules take it (its records and scraped series). */
function loadedRun(m: Measured, t: LiveTarget): LoadedRun {
  return {
    id: m.run.run_id ?? m.run.label,
    label: m.run.label,
    kind: 'team-assistant',
    config: { target: t.name, model: t.model, level: m.run.level },
    environment: {},
    summary: m.summary,
    records: m.records,
    series: m.series,
  };
}

const p5090 = (s: { p50: number | null; p90: number | null } | undefined) => ({
  p50: s?.p50 ?? null,
  p90: s?.p90 ?? null,
});

/** One replication's numbers from its measurement (its verdict is the pooled level's: {@link poolLevels}). */
function levelOf(
  users: number,
  m: Measured,
  t: LiveTarget,
  search: boolean,
  s: SessionsSummary | null,
): TeamLevel {
  const rules = diagnose([loadedRun(m, t)]).findings.map((f) => f.rule);
  const planned = s?.turns.planned ?? m.summary.requests.measured;
  const attainment = m.summary.goodput.fraction ?? null;
  return {
    users,
    run_id: m.run.run_id,
    run_ids: [m.run.run_id],
    search,
    replications: 1,
    turns_planned: planned,
    turns_succeeded: s?.turns.succeeded ?? m.summary.requests.succeeded,
    turns_met: attainment === null ? 0 : Math.round(attainment * m.summary.requests.measured),
    attainment,
    attainment_ci: null,
    judgement: null,
    meets: false,
    validity: m.run.validity.map((v) => ({ code: v.code, message: v.message })),
    ttft_ms: p5090(m.summary.ttft_ms),
    tpot_ms: p5090(m.summary.tpot_ms),
    user_ttft_ms: p5090(s?.user_ttft_ms),
    wait: waitSplit(m.records, rules),
    cache: {
      server_hit_rate: m.run.cache?.hit_rate ?? s?.server_prefix_hit_rate ?? null,
      usage_hit_rate: s?.cache_hit_rate ?? null,
      intended: s?.intended_sharing ?? null,
      intended_documents: s?.intended_document_sharing ?? null,
    },
  };
}

/** The mean of the non-null `xs`, each weighted by `w`; null when none is known. */
function weighted(xs: readonly (number | null)[], w: readonly number[]): number | null {
  let sum = 0;
  let n = 0;
  xs.forEach((x, i) => {
    if (x === null || !(w[i] > 0)) return;
    sum += x * w[i];
    n += w[i];
  });
  return n > 0 ? sum / n : null;
}

/**
 * A level from its replications: the turns and the turns meeting every SLO summed, the
 * attainment their ratio, judged against `target` with its 95% Wilson interval
 * (`analysis/binomial` `judgeAttainment`); TTFT and TPOT percentiles over every replication's
 * turns; the wait split, the cache rates and the user's wait the replications' values weighted by
 * their successful turns (the wait split's parts are means per turn, so theirs is exact); every
 * replication's validity reasons and diagnosis rules.
 */
export function poolLevels(
  users: number,
  parts: readonly TeamLevel[],
  records: readonly RequestRecord[],
  slo: Slo | null,
  target: number,
): TeamLevel {
  const first = parts[0];
  const planned = parts.reduce((a, p) => a + p.turns_planned, 0);
  const met = parts.reduce((a, p) => a + p.turns_met, 0);
  const j = judgeAttainment(met, planned, target);
  const pooled = parts.length > 1 ? summarize(records, { slo }) : null;
  const w = parts.map((p) => p.turns_succeeded);
  const avg = (f: (p: TeamLevel) => number | null) => weighted(parts.map(f), w);
  const waits = parts.map((p) => p.wait);
  const wait: WaitSplit =
    parts.length === 1
      ? first.wait
      : {
          from: waits.every((x) => x.from === 'engine') ? 'engine' : 'client',
          ttft_ms_mean: avg((p) => p.wait.ttft_ms_mean),
          queue_ms: avg((p) => p.wait.queue_ms),
          prefill_ms: avg((p) => p.wait.prefill_ms),
          decode_interference_ms: avg((p) => p.wait.decode_interference_ms),
          stall_ratio: avg((p) => p.wait.stall_ratio),
          dominant: null,
          rules: [...new Set(waits.flatMap((x) => x.rules))],
        };
  if (parts.length > 1) {
    // The largest part of the pooled split; without the engine's timings, the first replication that names one.
    const split: [NonNullable<WaitSplit['dominant']>, number | null][] = [
      ['queueing', wait.queue_ms],
      ['prefill', wait.prefill_ms],
      ['decode', wait.decode_interference_ms ?? 0],
    ];
    if (wait.from === 'engine' && split.every(([, v]) => v !== null))
      wait.dominant = split.reduce((a, b) => ((b[1] as number) > (a[1] as number) ? b : a))[0];
    else wait.dominant = waits.find((x) => x.dominant !== null)?.dominant ?? null;
  }
  // Each validity reason once (by code), over every replication.
  const validity = [...new Map(parts.flatMap((p) => p.validity).map((v) => [v.code, v])).values()];
  return {
    users,
    run_id: first.run_id,
    run_ids: parts.flatMap((p) => p.run_ids),
    search: first.search,
    replications: parts.length,
    turns_planned: planned,
    turns_succeeded: parts.reduce((a, p) => a + p.turns_succeeded, 0),
    turns_met: met,
    attainment: planned > 0 ? met / planned : null,
    attainment_ci: j ? { low: j.low, high: j.high } : null,
    judgement: j?.judgement ?? null,
    meets: j?.judgement === 'meets',
    validity,
    ttft_ms: pooled ? p5090(pooled.ttft_ms) : first.ttft_ms,
    tpot_ms: pooled ? p5090(pooled.tpot_ms) : first.tpot_ms,
    user_ttft_ms: {
      p50: avg((p) => p.user_ttft_ms.p50),
      p90: avg((p) => p.user_ttft_ms.p90),
    },
    wait,
    cache: {
      server_hit_rate: avg((p) => p.cache.server_hit_rate),
      usage_hit_rate: avg((p) => p.cache.usage_hit_rate),
      intended: avg((p) => p.cache.intended),
      intended_documents: avg((p) => p.cache.intended_documents),
    },
  };
}

/** The file's SLO as `metric: limit` (only the limits set). */
function sloOf(ctx: KindContext): Record<string, number> {
  return Object.fromEntries(Object.entries(ctx.exp.slo ?? {}).filter(([, v]) => v !== undefined)) as Record<
    string,
    number
  >;
}

/**
 * The seed of replication `k` (0-based) of a level: the experiment's own for the first, so a
 * level measured once is the run it always was; a hash of it and `k` after that, so the
 * replications of seed 1 share no sessions with those of seed 2.
 */
export function replicationSeed(base: number, k: number): number | undefined {
  return k === 0 ? undefined : hashString(`${base}:team-rep:${k}`);
}

/**
 * How often a level's run reads the server's `/metrics` (ms): a session run lasts minutes (a
 * 60 s ramp, 10–60 s of thinking between turns), and on the virtual clock every reading is a
 * stop of the simulation, so the sweeps' 250 ms would be most of the cost of a replicated level.
 * The cache hit rate needs only the first and last readings; the diagnosis rules' series keep a
 * point a second.
 */
const SCRAPE_INTERVAL_MS = 1000;

/** Turns a replication planned (its sessions block, else its measured requests). */
const plannedTurns = (m: Measured) => m.sessions?.turns.planned ?? m.summary.requests.measured;

/** Run the team-assistant experiment on every target. */
export async function runTeamAssistant(
  ctx: KindContext<OwnFile<'team-assistant', 'team', typeof teamSchema>>,
): Promise<TeamResult> {
  const team = ctx.exp.team;
  const levels = ctx.exp.load.users ?? levelsAround(team.colleagues);
  const base = ctx.exp.workload.seed ?? ctx.exp.seed ?? 0;
  const out: TeamTargetResult[] = [];
  for (const t of ctx.targets) {
    const measured: TeamLevel[] = [];
    const inList = new Set(levels);
    /**
     * One level: independent replications (the same number of users, sessions drawn from another
     * seed) until the level has `team.min_turns` planned turns, so that its attainment rests on
     * enough turns to be judged against the required share.
     */
    const measureLevel = async (users: number): Promise<Measured[]> => {
      const reps: Measured[] = [];
      let turns = 0;
      let met = 0;
      for (let k = 0; k === 0 || turns < team.min_turns; k++) {
        // New sessions over the same shared documents: the team's documents stay the team's.
        const seed = replicationSeed(base, k);
        const { workload, load } = await ctx.sessions(
          users,
          seed === undefined ? {} : { seed, documentSeed: base },
        );
        const plan = scaleSessions(
          { ...load, intended: workload.sessions?.intended ?? null },
          team.time_scale,
        );
        if (ctx.exp.cache.policy === 'cold') await ctx.ensureCold([t]);
        const m = await ctx.measure(t, {
          label: k === 0 ? `users=${users}` : `users=${users} rep=${k + 1}`,
          level: { users },
          specs: workload.specs,
          load: plan,
          scrapeIntervalMs: SCRAPE_INTERVAL_MS,
        });
        reps.push(m);
        const n = plannedTurns(m);
        // A replication that plans no turn adds none: stop rather than loop.
        if (n === 0) break;
        turns += n;
        met += Math.round((m.summary.goodput.fraction ?? 0) * m.summary.requests.measured);
        // A level that already fails (even its 95% upper bound under the target) stays failed: stop.
        if (judgeAttainment(met, turns, team.attainment)?.judgement === 'fails') break;
      }
      return reps;
    };
    const found = await searchMaxLevel(
      async (users) => {
        const reps = await measureLevel(users);
        const level = poolLevels(
          users,
          reps.map((m) => levelOf(users, m, t, !inList.has(users), m.sessions)),
          reps.flatMap((m) => m.records),
          reps[0].summary.goodput.slo,
          team.attainment,
        );
        measured.push(level);
        // A replication that is not valid makes the level undecided (the one definition, `judgeProbe`).
        const { undecided } = judgeProbe(
          users,
          { summary: reps[0].summary, validity: level.validity },
          {
            rule: { attainment: team.attainment },
            invalid: (u, codes) => ctx.tr('team.undetermined_probe', { users: u, codes }),
          },
        );
        ctx.deps.log(
          ctx.tr('team.progress.level', {
            target: t.name,
            users,
            met: shareText(level.attainment, team.attainment),
            ttft: fmt(level.ttft_ms.p90),
            tpot: fmt(level.tpot_ms.p90, 2),
            verdict: verdictOf(level, ctx.tr),
          }) +
            (reps.length > 1
              ? ctx.tr('team.progress.replicated', { reps: reps.length, turns: level.turns_planned })
              : ''),
        );
        // Only a level shown to meet the SLO passes; one that cannot tell bounds the search like a failure.
        return { ok: level.judgement === 'meets', attainment: level.attainment, undecided };
      },
      { levels, max: levels[levels.length - 1], bisect: team.bisect },
    );
    const failing = measured.filter((l) => !l.meets).map((l) => l.users);
    const deciding = failing.length
      ? Math.min(...failing)
      : measured.length
        ? Math.max(...measured.map((l) => l.users))
        : null;
    const largest = found.undetermined ? null : found.level;
    out.push({
      target: t.name,
      levels: measured,
      largest,
      bounded: found.bounded,
      undetermined: found.undetermined,
      deciding,
      colleagues_fit: colleaguesFit(measured, team.colleagues, largest, found.bounded),
      simulated: t.simOptions !== null,
    });
  }
  return {
    kind: 'team-assistant',
    colleagues: team.colleagues,
    attainment: team.attainment,
    min_turns: team.min_turns,
    time_scale: team.time_scale,
    slo: sloOf(ctx),
    turns: String(ctx.exp.load.turns ?? '1'),
    think_time_s: String(ctx.exp.load.think_time_s ?? '0'),
    targets: out,
  };
}

/**
 * Whether a team of `n` meets the SLO: measured at `n` (by a valid run), else implied by the search (at most the
 * largest team: yes; above it with a failing level at or below `n`: no); null when not known.
 */
function colleaguesFit(
  levels: readonly TeamLevel[],
  n: number,
  largest: number | null,
  bounded: boolean,
): boolean | null {
  const at = levels.find((l) => l.users === n);
  // A level whose run is not valid, or whose turns cannot tell, says nothing either way.
  if (at) return at.validity.length || at.judgement === 'cannot_tell' ? null : at.meets;
  if (largest === null) return null;
  if (n <= largest) return true;
  return bounded ? false : null;
}

// ---- the kind module: file section and rules, defaults, template, console output ----------

export const teamSchema = z.strictObject({
  /** The team the question is about (the course's 32 colleagues); the levels default around it. */
  colleagues: posInt().default(32),
  /** Bisect between the last level meeting the SLO and the first failing one. */
  bisect: bool().default(true),
  /** Divide think times and session starts by this (tests and smoke runs). */
  time_scale: posNum().default(1),
  /** The share of planned turns that must meet every SLO (as `plan --find-max-users`). */
  attainment: fraction().default(0.99),
  /**
   * The fewest planned turns a level's attainment rests on: a level whose run plans fewer is
   * replicated (the same users, sessions from another seed) until the pooled turns reach it.
   */
  min_turns: posInt().default(300),
});

export const teamAssistantKind = defineKind({
  kind: 'team-assistant',
  section: 'team',
  sectionSchema: teamSchema,
  rules(f, report) {
    const load = (f.load && typeof f.load === 'object' ? f.load : {}) as Record<string, unknown>;
    const users = load.users;
    if (Array.isArray(users) && !increasing(users))
      report(['load', 'users'], 'levels must increase', 'e.g. users: [4, 8, 16, 32, 48, 64]');
    const slo = (f.slo && typeof f.slo === 'object' ? f.slo : {}) as Record<string, unknown>;
    if (slo.ttft_ms === undefined && slo.tpot_ms === undefined && slo.e2e_ms === undefined)
      report(
        ['slo'],
        'the largest team is judged against an SLO, and there is none',
        'add e.g. slo: {ttft_ms: 2000, tpot_ms: 100}',
      );
    for (const k of ['concurrency', 'rates', 'requests', 'duration_s'])
      if (load[k] !== undefined)
        report(['load', k], 'a team is a number of users, each a session', 'use load.users for the levels');
    if (f.warmup !== undefined && f.warmup !== 0)
      report(
        ['warmup'],
        'sessions have no warm-up: the first turns are the cold start',
        'set warmup: 0 or leave it out',
      );
  },
  defaults: (f) => {
    const team = f.team ?? teamSchema.parse({});
    return {
      ...f,
      team,
      load: {
        ...f.load,
        users: f.load.users ?? levelsAround(team.colleagues),
        turns: f.load.turns ?? 'uniform:3-6',
        think_time_s: f.load.think_time_s ?? 'uniform:10-60',
      },
    };
  },
  template: (t) => `${t.head('team-assistant', 'team-assistant', t.tr('tpl.team_assistant.about'))}
targets:
${t.simTarget({ name: 'sim', full: true, model: 'llama-3.1-8b', gpu: 'l4' })}
${t.urlTargets}

team:
  colleagues: 32                      # ${t.tr('tpl.team.colleagues')}
  bisect: true                        # ${t.tr('tpl.team.bisect')}
  attainment: 0.99                    # ${t.tr('tpl.team.attainment')}
  min_turns: 300                      # ${t.tr('tpl.team.min_turns')}
  time_scale: 1                       # ${t.tr('tpl.team.time_scale')}

${t.common({
  load: [
    `users: [4, 8, 16, 32, 48, 64]    # ${t.tr('tpl.team.users')}`,
    `turns: uniform:3-6               # ${t.tr('tpl.team.turns')}`,
    `think_time_s: uniform:10-60      # ${t.tr('tpl.team.think')}`,
    `ramp_up_s: 60                    # ${t.tr('tpl.team.ramp')}`,
    `# session_rate: 0.5              # ${t.tr('tpl.team.session_rate')}`,
  ],
  workload: [
    `input_len: 100                   # ${t.tr('tpl.team.input')}`,
    `output_len: 200                  # ${t.tr('tpl.team.output')}`,
    `documents: {count: 3, tokens: uniform:2000-8000, popularity: zipf:1}   # ${t.tr('tpl.team.documents')}`,
  ],
  slo: ['ttft_ms: 2000', 'tpot_ms: 100'],
  warmup: 0,
})}
`,
  run: runTeamAssistant,
  format: formatTeam,
  writeup: teamWriteup,
  conclusion: teamConclusion,
  answer: teamAnswer,
});
