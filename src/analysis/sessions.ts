/**
 * @module analysis/sessions
 * The sessions block of a run's summary: how TTFT grows with the turn (the history the prompt
 * carries), what the user waits for from asking to the first content, how fast users get their
 * turns done, and how much of the prompt the server's prefix cache served, per turn and next to
 * the sharing the workload intended. Pure over the records; definitions in `docs/metrics.md`.
 * "No data" is null, never 0.
 */
import { OUTCOMES, type Outcome, type RequestRecord, SUCCESS_OUTCOMES } from '../record/types.js';
import { firstOutputAt, ttftMs } from './request.js';
import { describe, mean, percentile, type Stats } from './stats.js';
import { groupAttempts } from './summary.js';

/** One turn index's numbers (over the sessions that reached that turn). */
export interface TurnStats {
  /** 0-based turn index. */
  turn: number;
  /** Planned turns with this index (every session that has it). */
  planned: number;
  /** Of those, the ones that succeeded (`ok` or `length`). */
  succeeded: number;
  /** Server-side TTFT of the successful turns: first content − sent (ms). */
  ttft_ms: { p50: number | null; p90: number | null };
  /** The user's wait: first content − the moment the question was asked (ms; see {@link SessionsSummary}). */
  user_ttft_ms: { p50: number | null; p90: number | null };
  /** Mean `usage.prompt_tokens` of the successful turns (tokens), null without usage. */
  prompt_tokens_mean: number | null;
  /** Σ `usage.prompt_tokens_details.cached_tokens` / Σ `usage.prompt_tokens` over the successful turns that report both; null when none do. */
  cache_hit_rate: number | null;
  /** The hit rate the workload intends for this turn (`workload/sessions` intendedSharing), when known. */
  intended_sharing: number | null;
}

/** The sessions block of `report.json` (null for runs that are not sessions runs). */
export interface SessionsSummary {
  /** Sessions (users) planned, and how they ended. */
  sessions: { planned: number; completed: number; ended_early: number; never_started: number };
  /** Planned turns by final outcome class. */
  turns: {
    planned: number;
    succeeded: number;
    failed: number;
    cancelled: number;
    outcomes: Record<Outcome, number>;
  };
  /**
   * The user-perceived time to first content (ms): first content of the turn's final attempt −
   * the planned time of its first attempt. The planned time is when the user asked (the session's
   * start for turn 0, the previous answer's end + the think time after it), so this includes
   * every client-side wait: a concurrency slot (`--max-concurrency`), the sender's lateness,
   * failed attempts and their back-offs. Successful turns only.
   */
  user_ttft_ms: Stats;
  /**
   * Successful turns / user-minutes, where a session's user-minutes run from the planned time of
   * its first turn to the end of its last record (think times included), summed over sessions that
   * sent a turn. Turns per minute per active user; null when no time passed.
   */
  turns_per_user_minute: number | null;
  per_turn: TurnStats[];
  /** {@link TurnStats.cache_hit_rate} over every successful turn. */
  cache_hit_rate: number | null;
  /** The prefix sharing the workload intended, over every planned turn (0–1), when known. */
  intended_sharing: number | null;
  /** The part of `intended_sharing` that the shared documents give (across sessions). */
  intended_document_sharing: number | null;
  /** The server's own prefix-cache hit rate over the window (its /metrics counters), when scraped. */
  server_prefix_hit_rate: number | null;
}

/** What {@link summarizeSessions} needs besides the records. */
export interface SessionsContext {
  /** The workload's intended sharing (`IntendedSharing` of `workload/sessions`), when known. */
  intended?: {
    ratio: number | null;
    per_turn: readonly (number | null)[];
    document_ratio: number | null;
  } | null;
  /** The scraped prefix-cache hit rate over the window (`seriesSummary(...).prefix_hit_rate`). */
  server_prefix_hit_rate?: number | null;
}

const pair = (xs: number[]) => {
  xs.sort((a, b) => a - b);
  return { p50: percentile(xs, 50), p90: percentile(xs, 90) };
};

/**
 * The sessions block from a run's records: measured records that carry a `session_id` (any
 * order, every attempt). Null when there are none (not a sessions run).
 * @example summarizeSessions(records, { server_prefix_hit_rate: 0.62 })?.per_turn[2].ttft_ms.p50
 */
export function summarizeSessions(
  records: readonly RequestRecord[],
  ctx: SessionsContext = {},
): SessionsSummary | null {
  const measured = [...groupAttempts(records).values()].filter(
    (g) => g.final.phase === 'measure' && g.final.session_id != null,
  );
  if (measured.length === 0) return null;
  type Acc = {
    planned: number;
    ok: number;
    ttft: number[];
    user: number[];
    prompt: number[];
    hitNum: number;
    hitDen: number;
  };
  const turns: Acc[] = [];
  const bySession = new Map<
    string,
    { failed: boolean; sent: boolean; from: number | null; to: number | null }
  >();
  const outcomes = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  const user: number[] = [];
  let succeeded = 0;
  let cancelled = 0;
  let okTurns = 0;
  let hitNum = 0;
  let hitDen = 0;
  for (const { first, final } of measured) {
    const k = final.turn ?? 0;
    if (!turns[k]) turns[k] = { planned: 0, ok: 0, ttft: [], user: [], prompt: [], hitNum: 0, hitDen: 0 };
    const acc = turns[k];
    acc.planned++;
    outcomes[final.outcome]++;
    const sid = final.session_id as string;
    const s = bySession.get(sid) ?? { failed: false, sent: false, from: null, to: null };
    bySession.set(sid, s);
    if (first.sent_at_ms !== null) {
      s.sent = true;
      if (first.planned_at_ms !== null)
        s.from = s.from === null ? first.planned_at_ms : Math.min(s.from, first.planned_at_ms);
      const end = final.end_at_ms ?? final.sent_at_ms;
      if (end !== null) s.to = s.to === null ? end : Math.max(s.to, end);
    }
    if (final.outcome === 'cancelled') cancelled++;
    if (!SUCCESS_OUTCOMES.includes(final.outcome)) {
      s.failed = true;
      continue;
    }
    succeeded++;
    okTurns++;
    acc.ok++;
    const ttft = ttftMs(final);
    if (ttft !== undefined) acc.ttft.push(ttft);
    const at = firstOutputAt(final);
    if (at !== null && first.planned_at_ms !== null) {
      acc.user.push(at - first.planned_at_ms);
      user.push(at - first.planned_at_ms);
    }
    const u = final.usage;
    if (u?.prompt_tokens != null) {
      acc.prompt.push(u.prompt_tokens);
      if (u.cached_tokens != null && u.prompt_tokens > 0) {
        acc.hitNum += u.cached_tokens;
        acc.hitDen += u.prompt_tokens;
        hitNum += u.cached_tokens;
        hitDen += u.prompt_tokens;
      }
    }
  }
  let userMs = 0;
  let completed = 0;
  let neverStarted = 0;
  for (const s of bySession.values()) {
    if (!s.sent) neverStarted++;
    else if (!s.failed) completed++;
    if (s.from !== null && s.to !== null) userMs += Math.max(0, s.to - s.from);
  }
  const intended = ctx.intended ?? null;
  return {
    sessions: {
      planned: bySession.size,
      completed,
      ended_early: bySession.size - completed - neverStarted,
      never_started: neverStarted,
    },
    turns: { planned: measured.length, succeeded, failed: measured.length - succeeded, cancelled, outcomes },
    user_ttft_ms: describe(user),
    turns_per_user_minute: userMs > 0 ? okTurns / (userMs / 60_000) : null,
    per_turn: Array.from({ length: turns.length }, (_, turn) => turns[turn] as Acc | undefined).map(
      (a, turn) => ({
        turn,
        planned: a?.planned ?? 0,
        succeeded: a?.ok ?? 0,
        ttft_ms: pair(a ? [...a.ttft] : []),
        user_ttft_ms: pair(a ? [...a.user] : []),
        prompt_tokens_mean: a ? mean(a.prompt) : null,
        cache_hit_rate: a && a.hitDen > 0 ? a.hitNum / a.hitDen : null,
        intended_sharing: intended?.per_turn[turn] ?? null,
      }),
    ),
    cache_hit_rate: hitDen > 0 ? hitNum / hitDen : null,
    intended_sharing: intended?.ratio ?? null,
    intended_document_sharing: intended?.document_ratio ?? null,
    server_prefix_hit_rate: ctx.server_prefix_hit_rate ?? null,
  };
}
