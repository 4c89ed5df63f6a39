/**
 * @module analysis/diagnose/rules/batch-growth
 * Decode gaps that grow with the batch (`stall_batch_growth`).
 */
import type { T } from '../../../i18n/index.js';
import { clientPrefillWindow } from '../../interference.js';
import type { LoadedRun } from '../../loaded-run.js';
import { percentile } from '../../stats.js';
import { measuredSuccesses } from '../../summary.js';
import { validityReasons } from '../../validity.js';
import { attemptEndAt } from '../../window.js';
import { engineTerms } from '../engine-terms.js';
import type { Finding } from '../types.js';
import { type Opts, one, type Rule } from './rule.js';
import { bound, Coverage, fmt, median } from './shared.js';

/** Spearman rank correlation (ties get their mean rank), or null when either side is constant. */
export function spearman(xs: readonly number[], ys: readonly number[]): number | null {
  const rank = (v: readonly number[]) => {
    const idx = v.map((_, i) => i).sort((a, b) => v[a] - v[b]);
    const r = new Float64Array(v.length);
    for (let i = 0; i < idx.length; ) {
      let j = i;
      while (j + 1 < idx.length && v[idx[j + 1]] === v[idx[i]]) j++;
      for (let k = i; k <= j; k++) r[idx[k]] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const n = xs.length;
  if (n < 3) return null;
  const rx = rank(xs);
  const ry = rank(ys);
  const m = (n - 1) / 2;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (rx[i] - m) * (ry[i] - m);
    sxx += (rx[i] - m) ** 2;
    syy += (ry[i] - m) ** 2;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

/**
 * The batch size at an instant: the scraped `running` series (last sample at or before it) when
 * present, since it counts only scheduled requests, not queued ones; else the number of
 * requests in flight from the records' [sent, end] intervals.
 */
function batchSizeAt(run: LoadedRun, t: T): { at: (t_ms: number) => number; source: string } {
  const running = (run.series ?? []).filter((p) => p.name === 'running');
  const src = running[0]?.source;
  const pts = running.filter((p) => p.source === src).sort((a, b) => a.t_ms - b.t_ms);
  if (pts.length >= 10) {
    const ts = Float64Array.from(pts.map((p) => p.t_ms));
    return {
      at: (x) => pts[Math.max(0, bound(ts, x, true) - 1)].value,
      source: t('diagnose.stall_batch_growth.source_series'),
    };
  }
  const cov = new Coverage(
    run.records
      .filter((r) => r.sent_at_ms !== null)
      .map((r) => [r.sent_at_ms as number, attemptEndAt(r) as number] as const),
  );
  return { at: (x) => cov.at(x, false), source: t('diagnose.stall_batch_growth.source_inflight') };
}

/**
 * Decode gaps that grow with the batch: in continuous batching every running request gets one
 * token per engine step, and a decode step reads more KV and pays more per-request overhead as
 * the batch grows, so each stream's chunk gaps lengthen with the number of requests in flight.
 * Gaps that overlap any other request's prefill window [sent, first token] are left out (that
 * is interference, not the batch), and a run whose client lagged is not judged (its gaps
 * include the client's own pauses), nor are gaps after the last send (the drain). Speaks when the gap p50 at the highest-batch decile is
 * ≥ `batch_gap_ratio` × the lowest one's, the batch itself grew ≥ `batch_min_spread`×, and the
 * rank correlation of gap and batch size is ≥ `batch_min_rho`.
 */
export function batchGrowth(run: LoadedRun, o: Opts): Finding | null {
  if (validityReasons(run).some((x) => x.code === 'event_loop_lag' || x.code === 'client_cpu')) return null;
  const rs = measuredSuccesses(run.records);
  const prefills = run.records.map(clientPrefillWindow).filter((w): w is [number, number] => w !== null);
  // Prefill windows that began before a gap's end and ended after its start overlap it:
  // started before `to` minus ended at or before `from`. A request's own prefill ends at its
  // first token, before any of its gaps, so it never counts.
  const prefillStarts = Float64Array.from(prefills.map((p) => p[0])).sort();
  const prefillEnds = Float64Array.from(prefills.map((p) => p[1])).sort();
  const overlapping = (from: number, to: number) =>
    bound(prefillStarts, to, false) - bound(prefillEnds, from, true);
  // After the last send the offered load stops and the batch only drains: every finite run
  // ends so (a closed loop included), and the faster tail gaps are not a symptom. Judge only
  // gaps that ended while load was still being offered.
  let lastSent = Number.NEGATIVE_INFINITY;
  for (const r of run.records) if (r.sent_at_ms !== null && r.sent_at_ms > lastSent) lastSent = r.sent_at_ms;
  const t = o.t;
  const batch = batchSizeAt(run, t);
  const pts: { id: string; gap: number; b: number }[] = [];
  for (const r of rs) {
    const ts = r.chunk_times_ms;
    for (let i = 1; i < ts.length && ts[i] <= lastSent; i++) {
      if (overlapping(ts[i - 1], ts[i]) > 0) continue;
      pts.push({ id: r.id, gap: ts[i] - ts[i - 1], b: batch.at((ts[i - 1] + ts[i]) / 2) });
    }
  }
  if (pts.length < 100) return null;
  const bs = Float64Array.from(pts.map((p) => p.b)).sort();
  const loB = percentile(bs, 10) as number;
  const hiB = percentile(bs, 90) as number;
  if (loB <= 0 || hiB < o.batch_min_spread * loB) return null;
  const lo = pts.filter((p) => p.b <= loB);
  const hi = pts.filter((p) => p.b >= hiB);
  if (lo.length < 20 || hi.length < 20) return null;
  const loGap = median(lo.map((p) => p.gap));
  const hiGap = median(hi.map((p) => p.gap));
  const rho = spearman(
    pts.map((p) => p.b),
    pts.map((p) => p.gap),
  );
  if (loGap <= 0 || hiGap < o.batch_gap_ratio * loGap || rho === null || rho < o.batch_min_rho) return null;
  // The streams with the slowest high-batch gaps.
  const slow = [...new Set([...hi].sort((a, b) => b.gap - a.gap).map((p) => p.id))].slice(0, 5);
  return {
    rule: 'stall_batch_growth',
    severity: 'warn',
    runs: [run.id],
    symptom: t('diagnose.stall_batch_growth.symptom', {
      lo: fmt(loGap, 2),
      loB: fmt(loB, 0),
      hi: fmt(hiGap, 2),
      hiB: fmt(hiB, 0),
      ratio: fmt(hiGap / loGap, 2),
    }),
    evidence: [
      t('diagnose.stall_batch_growth.ev_gaps', { n: pts.length, source: batch.source }),
      t('diagnose.stall_batch_growth.ev_batch', { lo: fmt(loB, 0), hi: fmt(hiB, 0) }),
      t('diagnose.stall_batch_growth.ev_deciles', {
        lo: fmt(loGap, 2),
        lon: lo.length,
        hi: fmt(hiGap, 2),
        hin: hi.length,
      }),
      t('diagnose.stall_batch_growth.ev_rho', { rho: fmt(rho, 2) }),
    ],
    request_ids: slow,
    mechanism: t('diagnose.stall_batch_growth.mechanism'),
    next: {
      command: 'servelab exp init concurrency-sweep',
      change: t('diagnose.stall_batch_growth.next', {
        lo: fmt(loB, 0),
        hi: fmt(hiB, 0),
        maxSeqs: engineTerms(run, t).maxSeqs,
      }),
    },
  };
}

export const rule: Rule = {
  id: 'stall_batch_growth',
  scope: 'run',
  needs: ['records'],
  emits: ['stall_batch_growth'],
  run: (run, { o }) => one(batchGrowth(run, o)),
};
