/**
 * @module analysis/diagnose/rules/quantised-slower
 * A quantised run (or A/B side) slower than its full-precision pair (`quantised_slower`).
 */
import type { LoadedRun } from '../../loaded-run.js';
import type { Finding } from '../types.js';
import { abEvidence, loss, pairs, precisionOf, sideIds } from './ab-pairs.js';
import type { Opts, Rule } from './rule.js';
import { fmt } from './shared.js';

const FULL_PRECISION = new Set(['bf16', 'bfloat16', 'fp16', 'float16', 'half', 'auto', 'fp32', 'float32']);

/** A quantised run (or A/B side) slower than its full-precision pair at the same level. */
export function quantisedSlower(runs: readonly LoadedRun[], o: Opts): Finding[] {
  const out: Finding[] = [];
  for (const [a, b] of pairs(runs, precisionOf)) {
    const qa = !FULL_PRECISION.has(a.key);
    const qb = !FULL_PRECISION.has(b.key);
    if (qa === qb) continue;
    const [q, full] = qa ? [a, b] : [b, a];
    const l = loss(q, full);
    if (l === null || l < o.ab_min_loss) continue;
    const t = o.t;
    out.push({
      rule: 'quantised_slower',
      severity: 'warn',
      runs: [...sideIds(q), ...sideIds(full)],
      symptom: t('diagnose.quantised_slower.symptom', { q: q.key, pct: fmt(100 * l, 0), full: full.key }),
      evidence: abEvidence(t, q, full, (r) => precisionOf(r) ?? '?'),
      request_ids: [],
      mechanism: t('diagnose.quantised_slower.mechanism'),
      next: {
        command: 'servelab exp init matrix',
        change: t('diagnose.quantised_slower.next', {
          full: full.key,
          q: q.key,
          c: q.runs[0].level?.concurrency ?? 64,
        }),
      },
    });
  }
  return out;
}

export const rule: Rule = {
  id: 'quantised_slower',
  scope: 'runs',
  needs: [],
  emits: ['quantised_slower'],
  run: (runs, { o }) => quantisedSlower(runs, o),
};
