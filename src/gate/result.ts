/**
 * @module gate/result
 * Building a check's {@link SideResult}: pass, fail or skipped, with what was observed and the
 * evidence; and {@link judgeSame}, the verdict of checks whose new value must equal the old one.
 */
import type { CheckContext, Evidence, SideResult } from './types.js';

type Observed = SideResult['observed'];

export function pass(observed?: Observed, evidence: Evidence[] = []): SideResult {
  return { status: 'pass', observed, evidence };
}

export function fail(reason: string, evidence: Evidence[] = [], observed?: Observed): SideResult {
  return { status: 'fail', reason, observed, evidence };
}

export function skipped(reason: string, evidence: Evidence[] = [], observed?: Observed): SideResult {
  return { status: 'skipped', reason, observed, evidence };
}

/** JSON text of an observed value, for comparing two sides. */
export function observedText(v: Observed): string {
  return JSON.stringify(v ?? null);
}

/**
 * The verdict of a check whose observed value must not change: the new side's own result when it
 * failed or was skipped, or when the old one has nothing to compare; else a FAIL when the
 * observed values differ, saying `changed` (from the catalogue, with `{old}` and `{new}`).
 */
export function judgeSame(
  old: SideResult,
  next: SideResult,
  ctx: CheckContext,
  changed: (o: string, n: string) => string = (o, n) => ctx.t('gate.judge.changed', { old: o, new: n }),
): SideResult {
  if (next.status !== 'pass' || old.status !== 'pass') return next;
  const o = observedText(old.observed);
  const n = observedText(next.observed);
  if (o === n) return next;
  return { ...next, status: 'fail', reason: changed(o, n), evidence: [...old.evidence, ...next.evidence] };
}
