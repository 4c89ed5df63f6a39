/**
 * @module analysis/diagnose/rules/multi-gpu-slower
 * A higher tensor-parallel run (or A/B side) slower than its lower-tp pair (`multi_gpu_slower`).
 */
import type { LoadedRun } from '../../loaded-run.js';
import type { Finding } from '../types.js';
import { abEvidence, loss, pairs, sideIds, tpOf } from './ab-pairs.js';
import type { Opts, Rule } from './rule.js';
import { fmt } from './shared.js';

/** A higher tensor-parallel run (or A/B side) slower than its lower-tp pair at the same level. */
export function multiGpuSlower(runs: readonly LoadedRun[], o: Opts): Finding[] {
  const out: Finding[] = [];
  for (const [a, b] of pairs(runs, tpOf)) {
    const [hi, lo] = a.key > b.key ? [a, b] : [b, a];
    const l = loss(hi, lo);
    if (l === null || l < o.ab_min_loss) continue;
    const link = hi.runs[0].record?.device?.value?.interconnect;
    const t = o.t;
    out.push({
      rule: 'multi_gpu_slower',
      severity: 'warn',
      runs: [...sideIds(hi), ...sideIds(lo)],
      symptom: t('diagnose.multi_gpu_slower.symptom', { hi: hi.key, pct: fmt(100 * l, 0), lo: lo.key }),
      evidence: [
        ...abEvidence(t, hi, lo, (r) => `tp=${tpOf(r)}`),
        typeof link === 'string'
          ? t('diagnose.multi_gpu_slower.ev_link', { link })
          : t('diagnose.multi_gpu_slower.ev_link_missing'),
      ],
      request_ids: [],
      mechanism: t('diagnose.multi_gpu_slower.mechanism'),
      next: {
        command: 'servelab exp init ab',
        change: t('diagnose.multi_gpu_slower.next', { lo: lo.key, hi: hi.key }),
      },
    });
  }
  return out;
}

export const rule: Rule = {
  id: 'multi_gpu_slower',
  scope: 'runs',
  needs: [],
  emits: ['multi_gpu_slower'],
  run: (runs, { o }) => multiGpuSlower(runs, o),
};
