/**
 * @module analysis/diagnose/rules/throughput-plateau
 * Throughput stops rising at high load (`throughput_plateau`), on each target's own load
 * curve: KV pressure or a client-side limit explain it; otherwise it goes to `unexplained`.
 */
import { curvesOf, loadPoints } from '../../load-curve.js';
import type { LoadedRun } from '../../loaded-run.js';
import { measuredSuccesses } from '../../summary.js';
import { validityReasons } from '../../validity.js';
import { engineTerms } from '../engine-terms.js';
import type { Finding } from '../types.js';
import type { Opts, Rule, Unexplained } from './rule.js';
import { fmt, runSeries, topIds, ttftOf } from './shared.js';

/**
 * Throughput stops rising (or falls) at high concurrency, across ≥ 3 load levels. KV pressure
 * (peak KV usage ≥ `kv_high` and the preemption counter rising) or a client-side limit (the
 * high-load runs fail the client checks) explain it; otherwise it goes to `unexplained`.
 */
export function throughputPlateau(
  runs: readonly LoadedRun[],
  o: Opts,
  unexplained: Unexplained,
): Finding | null {
  const lp = loadPoints(runs);
  if (!lp || lp.points.length < 3) return null;
  const pts = lp.points.filter((p) => p.output_tok_s !== null);
  if (pts.length < 3) return null;
  const peak = pts.reduce((a, b) => ((b.output_tok_s as number) > (a.output_tok_s as number) ? b : a));
  const last = pts[pts.length - 1];
  const prev = pts[pts.length - 2];
  const falls = (last.output_tok_s as number) < 0.9 * (peak.output_tok_s as number);
  // "Stops rising": the last step multiplied the load by ≥ 1.5 but throughput grew by less than
  // a quarter of that (linear scaling would grow it as much as the load).
  const loadGain = last.x / prev.x - 1;
  const tputGain = (last.output_tok_s as number) / (prev.output_tok_s as number) - 1;
  const flat = last.x >= 1.5 * prev.x && tputGain < 0.25 * loadGain;
  if (!falls && !flat) return null;
  // The runs past the point where scaling stopped.
  const fromX = falls ? peak.x : prev.x;
  const high = runs.filter((r) => (r.level?.[lp.axis] ?? 0) >= fromX);
  const t = o.t;
  const curve = pts.map((p) => t('diagnose.plateau.point', { x: p.x, v: fmt(p.output_tok_s, 0) })).join(', ');
  const symptom = t(
    lp.axis === 'concurrency'
      ? falls
        ? 'diagnose.plateau.falls_concurrency'
        : 'diagnose.plateau.flat_concurrency'
      : falls
        ? 'diagnose.plateau.falls_rate'
        : 'diagnose.plateau.flat_rate',
    { curve },
  );
  const kv = high
    .map((r) => ({ r, s: runSeries(r) }))
    .filter((x) => x.s && (x.s.max_kv_usage ?? 0) >= o.kv_high && (x.s.preemptions_delta ?? 0) > 0);
  if (kv.length) {
    return {
      rule: 'kv_pressure',
      severity: 'warn',
      runs: kv.map((x) => x.r.id),
      symptom,
      evidence: kv.map((x) =>
        t('diagnose.kv_pressure.ev', {
          label: x.r.label,
          pct: fmt(100 * (x.s?.max_kv_usage ?? 0), 0),
          n: x.s?.preemptions_delta,
          waiting: fmt(x.s?.max_waiting, 0),
          running: fmt(x.s?.max_running, 0),
        }),
      ),
      request_ids: topIds(
        kv.flatMap((x) =>
          measuredSuccesses(x.r.records).map((r) => [r.id, ttftOf(r) ?? 0] as [string, number]),
        ),
      ),
      mechanism: t('diagnose.kv_pressure.mechanism'),
      next: {
        command: 'servelab exp init ab',
        change: t('diagnose.kv_pressure.next', { how: engineTerms(kv[0].r, t).kvCapacity }),
      },
    };
  }
  const client = high
    .map((r) => ({
      r,
      reasons: validityReasons(r, {}, t).filter((x) =>
        ['lateness', 'event_loop_lag', 'client_cpu'].includes(x.code),
      ),
    }))
    .filter((x) => x.reasons.length > 0);
  if (client.length) {
    return {
      rule: 'client_limit',
      severity: 'warn',
      runs: client.map((x) => x.r.id),
      symptom,
      evidence: client.flatMap((x) => x.reasons.map((m) => `${x.r.label}: ${m.message}`)),
      request_ids: [],
      mechanism: t('diagnose.client_limit.mechanism'),
      next: { command: 'servelab exp init concurrency-sweep', change: t('diagnose.client_limit.next') },
    };
  }
  unexplained.push({
    rule: 'throughput_plateau',
    run: high.map((r) => r.id).join(','),
    observation: t(
      high.some((r) => r.series?.length)
        ? 'diagnose.plateau.unexplained'
        : 'diagnose.plateau.unexplained_not_scraped',
      { symptom },
    ),
    request_ids: [],
  });
  return null;
}

/** {@link throughputPlateau} on each target's own load curve. */
export function throughputPlateaus(runs: readonly LoadedRun[], o: Opts, unexplained: Unexplained): Finding[] {
  const out: Finding[] = [];
  for (const c of curvesOf(runs)) {
    const f = throughputPlateau(c.runs, o, unexplained);
    if (f) out.push(f);
  }
  return out;
}

export const rule: Rule = {
  id: 'throughput_plateau',
  scope: 'runs',
  needs: [],
  emits: ['kv_pressure', 'client_limit'],
  run: (runs, { o, unexplained }) => throughputPlateaus(runs, o, unexplained),
};
