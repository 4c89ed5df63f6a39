/**
 * @module analysis/diagnose/rules/cold-start
 * Cold start (`cold_start`): the first request(s) slow, then normal.
 */
import type { RequestRecord } from '../../../record/types.js';
import type { LoadedRun } from '../../loaded-run.js';
import { describe } from '../../stats.js';
import { measuredSuccesses } from '../../summary.js';
import type { Finding } from '../types.js';
import { type Opts, one, type Rule } from './rule.js';
import { fmt, median, ttftOf } from './shared.js';

/**
 * First request(s) slow, then normal: the leading requests (by send time) whose TTFT exceeds
 * `cold_factor` × the median of the run's second half, when everything after them is normal.
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
    mechanism: t('diagnose.cold_start.mechanism'),
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
