/**
 * @module report/diagnose
 * `servelab diagnose` as a library: the validity verdict plus the symptom rules over one or
 * several loaded runs. Pure; the CLI loads runs and prints or writes the {@link Diagnosis}.
 */
import type { Diagnosis, Finding, LoadedRun } from '../types.js';
import {
  batchGrowth,
  coldStart,
  highTtft,
  multiGpuSlower,
  pauses,
  quantisedSlower,
  RULE_DEFAULTS,
  type RuleOptions,
  throughputPlateaus,
  truncation,
  unexplainedTail,
} from './rules.js';
import { type ValidityOptions, validityReasons } from './validity.js';

export { precisionOf, RULE_DEFAULTS, type RuleOptions, tpOf } from './rules.js';
export {
  generatorLatenessP99,
  tokenCounts,
  VALIDITY_DEFAULTS,
  type ValidityOptions,
  validityReasons,
} from './validity.js';

export interface DiagnoseOptions {
  validity?: ValidityOptions;
  rules?: RuleOptions;
}

/**
 * Diagnose runs: per-run validity and rules (cold start, high TTFT, pauses, batch growth, truncation), then
 * cross-run rules (throughput vs load, quantised and multi-GPU A/B pairs).
 * @example
 * const d = diagnose([run]);
 * if (!d.valid) for (const r of d.reasons) console.error(r.message);
 */
export function diagnose(runs: readonly LoadedRun[], opts: DiagnoseOptions = {}): Diagnosis {
  const o = { ...RULE_DEFAULTS, ...opts.rules };
  const reasons = runs.flatMap((r) => validityReasons(r, opts.validity));
  const findings: Finding[] = [];
  const unexplained: Diagnosis['unexplained'] = [];
  const push = (f: Finding | null) => {
    if (f) findings.push(f);
  };
  for (const run of runs) {
    push(coldStart(run, o));
    push(highTtft(run, o, unexplained));
    findings.push(...pauses(run, o, unexplained));
    push(batchGrowth(run, o));
    push(truncation(run, o));
  }
  findings.push(...throughputPlateaus(runs, o, unexplained));
  findings.push(...quantisedSlower(runs, o));
  findings.push(...multiGpuSlower(runs, o));
  for (const run of runs) unexplainedTail(run, findings, unexplained);
  return { valid: reasons.length === 0, reasons, findings, unexplained };
}
