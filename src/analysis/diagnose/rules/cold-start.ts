/**
 * @module analysis/diagnose/rules/cold-start
 * Cold start (`cold_start`): the first request(s) slow, then normal, on an engine that had
 * served nothing before them.
 */
import { type RequestRecord, SUCCESS_OUTCOMES } from '../../../record/types.js';
import type { LoadedRun } from '../../loaded-run.js';
import { describe } from '../../stats.js';
import { measuredSuccesses } from '../../summary.js';
import { engineFamily, runEngine } from '../engine-terms.js';
import type { Finding } from '../types.js';
import { type Opts, one, type Rule } from './rule.js';
import { fmt, median, ttftOf } from './shared.js';

/**
 * Whether the engine had already served requests before `atMs` (run clock): a warm-up request of
 * this run that succeeded and ended by then, or a generated-token counter already above 0 at the
 * first scrape, which is taken before the run's first request (earlier runs, or an experiment's
 * earlier levels on the same engine). Such an engine has paid its one-off costs (weight loading,
 * lazy init, compilation and CUDA graph capture happen at start-up or on the first requests),
 * so slow first requests on it are something else: typically requests arriving together and
 * queueing behind each other's prefills, which a closed loop's simultaneous start does.
 */
export function engineServedBefore(run: LoadedRun, atMs: number): boolean {
  for (const r of run.records)
    if (
      r.phase === 'warmup' &&
      SUCCESS_OUTCOMES.includes(r.outcome) &&
      r.end_at_ms !== null &&
      r.end_at_ms <= atMs
    )
      return true;
  let first: { t_ms: number; value: number } | null = null;
  for (const p of run.series ?? [])
    if (p.name === 'generation_tokens_total' && (first === null || p.t_ms < first.t_ms)) first = p;
  return first !== null && first.t_ms <= atMs && first.value > 0;
}

/**
 * A request's own prefill time per prompt token it had to compute (its prompt less the tokens
 * served from the prefix cache), from the engine's own evidence (`record.server.prefill_ms`:
 * llama.cpp's `timings.prompt_ms`, the simulator's timings); null without it.
 */
export function prefillMsPerToken(r: RequestRecord): number | null {
  const prefill = r.server?.prefill_ms ?? null;
  const prompt = r.usage?.prompt_tokens ?? null;
  if (prefill === null || prompt === null) return null;
  const computed = prompt - (r.usage?.cached_tokens ?? 0);
  return computed > 0 ? prefill / computed : null;
}

/**
 * Whether the engine's own prefill times explain the slow leading requests: each prefilled at
 * most twice the steady requests' median time per computed prompt token, so they were slow for
 * their long uncached prompts (a session's first turn over a fresh document), not for a one-off
 * start-up cost, which would make their per-token prefill far slower. False without the evidence.
 */
export function ownPrefillExplains(lead: readonly RequestRecord[], rest: readonly RequestRecord[]): boolean {
  const steady = rest.map(prefillMsPerToken).filter((v): v is number => v !== null);
  if (steady.length < 3) return false;
  const norm = median(steady);
  return lead.every((r) => {
    const v = prefillMsPerToken(r);
    return v !== null && v <= 2 * norm;
  });
}

/**
 * First request(s) slow, then normal: the leading requests (by send time) whose TTFT exceeds
 * `cold_factor` × the median of the run's second half, when everything after them is normal,
 * on an engine that had served nothing before them ({@link engineServedBefore}). A burst of
 * simultaneous arrivals on a warm engine looks the same from the client and is not a cold start;
 * neither are first requests whose own long uncached prompts the engine's prefill times account
 * for ({@link ownPrefillExplains}).
 */
export function coldStart(run: LoadedRun, o: Opts): Finding | null {
  const rs = measuredSuccesses(run.records)
    .map((r) => ({ r, t: ttftOf(r) }))
    .filter((x): x is { r: RequestRecord; t: number } => x.t !== null)
    .sort((a, b) => (a.r.sent_at_ms as number) - (b.r.sent_at_ms as number));
  if (rs.length < 6) return null;
  const base = median(rs.slice(Math.floor(rs.length / 2)).map((x) => x.t));
  const slow = (t: number) => t > o.cold_factor * base && t - base > o.cold_min_excess_ms;
  let k = 0;
  while (k < rs.length && slow(rs[k].t)) k++;
  if (k === 0 || k > rs.length / 4) return null;
  // "then normal": the rest must not keep being slow.
  const rest = describe(rs.slice(k).map((x) => x.t));
  if ((rest.p90 ?? 0) > 2 * base + o.cold_min_excess_ms) return null;
  const lead = rs.slice(0, k);
  if (engineServedBefore(run, lead[0].r.sent_at_ms as number)) return null;
  if (
    ownPrefillExplains(
      lead.map((x) => x.r),
      rs.slice(k).map((x) => x.r),
    )
  )
    return null;
  const t = o.t;
  const warm = run.summary.requests.planned - run.summary.requests.measured;
  return {
    rule: 'cold_start',
    severity: 'warn',
    runs: [run.id],
    symptom: t('diagnose.cold_start.symptom', { k, first: fmt(lead[0].t), base: fmt(base) }),
    evidence: [
      t('diagnose.cold_start.ev_leading', { k, list: lead.map((x) => fmt(x.t, 0)).join(', ') }),
      t('diagnose.cold_start.ev_steady', { base: fmt(base) }),
      t('diagnose.cold_start.ev_after', { p90: fmt(rest.p90) }),
      t('diagnose.cold_start.ev_warmup', { n: warm }),
    ],
    request_ids: lead.slice(0, 5).map((x) => x.r.id),
    mechanism: t(
      engineFamily(runEngine(run)) === 'llamacpp'
        ? 'diagnose.cold_start.mechanism_llamacpp'
        : 'diagnose.cold_start.mechanism',
    ),
    next: { command: 'servelab exp init baseline', change: t('diagnose.cold_start.next') },
  };
}

export const rule: Rule = {
  id: 'cold_start',
  scope: 'run',
  needs: ['records'],
  emits: ['cold_start'],
  run: (run, { o }) => one(coldStart(run, o)),
};
