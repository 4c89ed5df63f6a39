/**
 * @module analysis/diagnose/rules/tail
 * A large E2E tail that no rule explains (`tail`): an observation in `unexplained`, after
 * every other rule has spoken.
 */
import type { T } from '../../../i18n/index.js';
import type { LoadedRun } from '../../loaded-run.js';
import { e2eMs } from '../../request.js';
import { measuredSuccesses } from '../../summary.js';
import { EN } from '../default-lang.js';
import type { Finding } from '../types.js';
import type { Rule, Unexplained } from './rule.js';
import { fmt, topIds } from './shared.js';

/** A large E2E tail (p99 > 3 × p50, n ≥ 100) in a run with no finding. */
export function unexplainedTail(
  run: LoadedRun,
  findings: readonly Finding[],
  unexplained: Unexplained,
  t: T = EN,
): void {
  const e = run.summary.e2e_ms;
  if (e.n < 100 || e.p50 === null || e.p99 === null || e.p99 <= 3 * e.p50) return;
  if (findings.some((f) => f.runs.includes(run.id))) return;
  const worst = topIds(measuredSuccesses(run.records).map((r) => [r.id, e2eMs(r) ?? 0]));
  unexplained.push({
    rule: 'tail',
    run: run.id,
    observation: t(
      run.records.length ? 'diagnose.tail.unexplained' : 'diagnose.tail.unexplained_no_records',
      {
        p99: fmt(e.p99, 0),
        ratio: fmt(e.p99 / e.p50, 1),
        p50: fmt(e.p50, 0),
      },
    ),
    request_ids: worst,
  });
}

export const rule: Rule = {
  id: 'tail',
  scope: 'residue',
  needs: [],
  emits: [],
  run: (run, { o, findings, unexplained }) => {
    unexplainedTail(run, findings, unexplained, o.t);
    return [];
  },
};
