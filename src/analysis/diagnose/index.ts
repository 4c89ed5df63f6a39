/**
 * @module analysis/diagnose
 * `servelab diagnose` as a library: the validity verdict plus the symptom rules over one or
 * several loaded runs. Pure; the CLI loads runs and prints or writes the {@link Diagnosis}.
 */

import type { T } from '../../i18n/index.js';
import type { LoadedRun } from '../loaded-run.js';
import { type ValidityOptions, validityReasons, validitySkipped } from '../validity.js';
import { EN } from './default-lang.js';
import {
  ALL_RULES,
  NEEDS,
  type Need,
  RULE_DEFAULTS,
  type RuleContext,
  type RuleOptions,
} from './rules/index.js';
import type { Diagnosis, Finding, SkippedCheck } from './types.js';

export {
  generatorLatenessP99,
  noRecordsReason,
  tokenCounts,
  VALIDITY_DEFAULTS,
  type ValidityOptions,
  validityReasons,
  validitySkipped,
} from '../validity.js';
export { EN } from './default-lang.js';
export { ALL_RULES, precisionOf, RULE_DEFAULTS, type Rule, type RuleOptions, tpOf } from './rules/index.js';

export interface DiagnoseOptions {
  validity?: ValidityOptions;
  rules?: RuleOptions;
  /** The language of every sentence of the diagnosis (default English). */
  t?: T;
}

/** Whether a run has everything a rule needs. */
const ready = (rule: { needs: readonly Need[] }, run: LoadedRun) =>
  rule.needs.every((n) => NEEDS[n].met(run));

/**
 * The rules that cannot run on a run's data, with the reason, one entry per unmet need (in
 * {@link NEEDS}' order): the per-request rules without records; truncation and high TTFT on a
 * vLLM result file that lacks what they read.
 */
export function rulesSkipped(run: LoadedRun, t: T = EN): SkippedCheck[] {
  const out: SkippedCheck[] = [];
  for (const need of Object.keys(NEEDS) as Need[]) {
    const { met, reason, names } = NEEDS[need];
    if (met(run)) continue;
    const checks = ALL_RULES.filter((r) => r.needs.includes(need)).flatMap((r) =>
      names === 'emits' ? r.emits : [r.id],
    );
    if (checks.length) out.push({ run: run.id, checks, reason: reason(run, t) });
  }
  return out;
}

/**
 * Diagnose runs: per-run validity and the rules of `ALL_RULES` (`rules/index.ts`): each run's
 * own rules (cold start, high TTFT, pauses, batch growth, truncation), then the cross-run rules
 * (throughput vs load, quantised and multi-GPU A/B pairs), then the residue (a tail no finding
 * explains). A rule that cannot run on a run's data (no records; a vLLM result file) is listed
 * in `skipped`, with the reason.
 * Every sentence is in `opts.t`'s language (English by default); `report/diagnose/render`
 * prints it with each rule's findings grouped across the load levels.
 * @example
 * const d = diagnose([run], { t: translator('zh-CN') });
 * if (!d.valid) for (const r of d.reasons) console.error(r.message);
 */
export function diagnose(runs: readonly LoadedRun[], opts: DiagnoseOptions = {}): Diagnosis {
  const t = opts.t ?? EN;
  const o = { ...RULE_DEFAULTS, ...opts.rules, t };
  const reasons = runs.flatMap((r) => validityReasons(r, opts.validity, t));
  const findings: Finding[] = [];
  const unexplained: Diagnosis['unexplained'] = [];
  const ctx: RuleContext = { o, unexplained, findings };
  const skipped = runs.flatMap((r) => [...validitySkipped(r, t), ...rulesSkipped(r, t)]);
  const perRun = (scope: 'run' | 'residue') => {
    for (const run of runs)
      for (const rule of ALL_RULES)
        if (rule.scope === scope && ready(rule, run)) findings.push(...rule.run(run, ctx));
  };
  perRun('run');
  for (const rule of ALL_RULES) if (rule.scope === 'runs') findings.push(...rule.run(runs, ctx));
  perRun('residue');
  return { valid: reasons.length === 0, reasons, findings, unexplained, skipped };
}
