/**
 * @module analysis/diagnose
 * `servelab diagnose` as a library: the validity verdict plus the symptom rules over one or
 * several loaded runs. Pure; the CLI loads runs and prints or writes the {@link Diagnosis}.
 */

import type { T } from '../../i18n/index.js';
import type { LoadedRun } from '../loaded-run.js';
import { measuredSuccesses } from '../summary.js';
import { type TtftTailShares, ttftTailShares } from '../ttft-breakdown.js';
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

/**
 * Which part of the TTFT split each TTFT cause is: queueing is the engine's queue (the rest
 * where the engine reports none: llama.cpp's wait for a slot is not in its timings), prefill
 * the request's own prefill, a front-end cost the rest (network and the API server).
 */
const TTFT_PART: Partial<Record<string, (s: TtftTailShares) => number | null>> = {
  high_ttft_queueing: (s) => s.queue ?? s.rest,
  high_ttft_prefill: (s) => s.prefill,
  high_ttft_frontend: (s) => s.rest,
};

/**
 * Give each TTFT finding the share of its run's TTFT p99 tail that its cause explains, with an
 * evidence line naming every part ("78% queue, 15% prefill, 7% rest"), and rank the findings by
 * it: the causes that explain most of the tail first, the others after in rule order.
 */
function rankByTtftShare(findings: Finding[], runs: readonly LoadedRun[], t: T): Finding[] {
  const shares = new Map<string, TtftTailShares | null>();
  const of = (id: string) => {
    if (!shares.has(id)) {
      const run = runs.find((r) => r.id === id);
      shares.set(id, run ? ttftTailShares(measuredSuccesses(run.records)) : null);
    }
    return shares.get(id) ?? null;
  };
  const pct = (x: number | null) => (x === null ? '—' : `${Math.round(100 * x)}%`);
  for (const f of findings) {
    const part = TTFT_PART[f.rule];
    const s = part && f.runs.length === 1 ? of(f.runs[0]) : null;
    const share = s && part ? part(s) : null;
    if (!s || share === null) continue;
    f.ttft_p99_share = share;
    f.evidence.push(
      t(s.queue === null ? 'diagnose.ttft_share.ev_no_queue' : 'diagnose.ttft_share.ev', {
        n: s.n,
        ttft: s.ttft_ms.toFixed(0),
        queue: pct(s.queue),
        prefill: pct(s.prefill),
        rest: pct(s.rest),
      }),
    );
  }
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => (b.f.ttft_p99_share ?? -1) - (a.f.ttft_p99_share ?? -1) || a.i - b.i)
    .map((x) => x.f);
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
  return {
    valid: reasons.length === 0,
    reasons,
    findings: rankByTtftShare(findings, runs, t),
    unexplained,
    skipped,
  };
}
