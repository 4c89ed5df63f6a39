/**
 * @module analysis/diagnose
 * `servelab diagnose` as a library: the validity verdict plus the symptom rules over one or
 * several loaded runs. Pure; the CLI loads runs and prints or writes the {@link Diagnosis}.
 */

import type { T } from '../../core/i18n/index.js';
import type { LoadedRun } from '../loaded-run.js';
import { noRecordsReason, type ValidityOptions, validityReasons, validitySkipped } from '../validity.js';
import { EN } from './default-lang.js';
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
export { precisionOf, RULE_DEFAULTS, type RuleOptions, tpOf } from './rules.js';

export interface DiagnoseOptions {
  validity?: ValidityOptions;
  rules?: RuleOptions;
  /** The language of every sentence of the diagnosis (default English). */
  t?: T;
}

/** The per-request rules: they read the records' send and token times. */
const RECORD_RULES = [
  'cold_start',
  'stall_prefill_interference',
  'stall_client',
  'stall_preemption',
  'stall_batch_growth',
] as const;

/**
 * The per-run rules that cannot run on a run's data, with the reason: the per-request rules
 * without records; truncation and high TTFT on a vLLM result file that lacks what they read.
 */
export function rulesSkipped(run: LoadedRun, t: T = EN): SkippedCheck[] {
  const out: SkippedCheck[] = [];
  if (run.records.length === 0)
    out.push({ run: run.id, checks: [...RECORD_RULES], reason: noRecordsReason(run, t) });
  if (run.source) {
    out.push({ run: run.id, checks: ['truncation'], reason: t('diagnose.skipped.vllm_truncation') });
    if (run.summary.ttft_ms.p90 === null)
      out.push({ run: run.id, checks: ['high_ttft'], reason: t('diagnose.skipped.vllm_ttft_p90') });
  }
  return out;
}

/**
 * Diagnose runs: per-run validity and rules (cold start, high TTFT, pauses, batch growth, truncation), then
 * cross-run rules (throughput vs load, quantised and multi-GPU A/B pairs). A check that cannot
 * run on a run's data (no records; a vLLM result file) is listed in `skipped`, with the reason.
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
  const push = (f: Finding | null) => {
    if (f) findings.push(f);
  };
  const skipped = runs.flatMap((r) => [...validitySkipped(r, t), ...rulesSkipped(r, t)]);
  for (const run of runs) {
    const records = run.records.length > 0;
    if (records) push(coldStart(run, o));
    push(highTtft(run, o, unexplained));
    if (records) findings.push(...pauses(run, o, unexplained));
    if (records) push(batchGrowth(run, o));
    // A vLLM result's outcome counts are placeholders (no finish reasons).
    if (!run.source) push(truncation(run, o));
  }
  findings.push(...throughputPlateaus(runs, o, unexplained));
  findings.push(...quantisedSlower(runs, o));
  findings.push(...multiGpuSlower(runs, o));
  for (const run of runs) unexplainedTail(run, findings, unexplained, t);
  return { valid: reasons.length === 0, reasons, findings, unexplained, skipped };
}
