/**
 * @module analysis/diagnose/rules/rule
 * What a diagnosis rule is: `{ id, scope, needs, emits, run }`, registered in
 * `rules/index.ts` (`ALL_RULES`), the only place `diagnose` finds rules. A rule turns a symptom
 * in client records (and, when scraped, server series) into {@link Finding}s with evidence, the
 * likely mechanism and the next experiment; a symptom that no cause explains goes to
 * `unexplained` instead of being forced into a rule. Thresholds live in {@link RuleOptions};
 * every rule has a positive and a clean-run test.
 */
import type { T } from '../../../i18n/index.js';
import type { LoadedRun } from '../../loaded-run.js';
import { noRecordsReason } from '../../validity.js';
import type { Diagnosis, Finding } from '../types.js';

/** Rule thresholds (all overridable). */
export interface RuleOptions {
  /** Cold start: the leading requests' TTFT must exceed this multiple of the steady median… */
  cold_factor?: number;
  /** …and exceed it by at least this much, ms. */
  cold_min_excess_ms?: number;
  /** High TTFT: p90 above this, ms… */
  high_ttft_ms?: number;
  /** …and p50 above this multiple of TPOT p50 (TTFT dominates the request). */
  ttft_over_tpot?: number;
  /** Pauses: at least this many stalls before the rule speaks. */
  min_stalls?: number;
  /**
   * Prefill interference without stalls: the stall ratio (mean chunk gap while a long prefill
   * overlaps / mean clean gap, `analysis/interference`) at or above this…
   */
  interference_ratio?: number;
  /** …over at least this many overlapping gaps. */
  min_overlap_gaps?: number;
  /**
   * A stall is prefill interference when other requests' prefill windows cover at least this
   * fraction of it (0..1): a long gap that merely touches a short prefill is not explained by it.
   */
  stall_prefill_cover?: number;
  /** Truncation: fraction of measured requests cut by `length` that is worth a finding. */
  max_truncated_fraction?: number;
  /** A/B: relative throughput loss that counts as "slower". */
  ab_min_loss?: number;
  /** KV pressure: peak KV usage at or above this (0..1). */
  kv_high?: number;
  /** Batch growth: gap p50 at the high-batch decile over the low-batch decile at least this. */
  batch_gap_ratio?: number;
  /** Batch growth: Spearman rank correlation of gap vs batch size at least this. */
  batch_min_rho?: number;
  /** Batch growth: the high-batch decile's batch size at least this multiple of the low one's. */
  batch_min_spread?: number;
}

export const RULE_DEFAULTS: Required<RuleOptions> = {
  cold_factor: 3,
  cold_min_excess_ms: 100,
  high_ttft_ms: 500,
  ttft_over_tpot: 20,
  min_stalls: 3,
  interference_ratio: 1.2,
  min_overlap_gaps: 20,
  stall_prefill_cover: 0.5,
  max_truncated_fraction: 0.05,
  ab_min_loss: 0.05,
  kv_high: 0.9,
  batch_gap_ratio: 1.3,
  batch_min_rho: 0.5,
  batch_min_spread: 2,
};

/** The thresholds, and the translator the findings are written with. */
export type Opts = Required<RuleOptions> & { t: T };
export type Unexplained = Diagnosis['unexplained'];

/** What a rule gets besides the run(s) it judges. */
export interface RuleContext {
  /** The thresholds and the translator. */
  o: Opts;
  /** Where a rule puts a symptom that no cause explains. */
  unexplained: Unexplained;
  /** The findings of the rules that ran before this one (a `residue` rule reads them). */
  findings: readonly Finding[];
}

/**
 * What a rule needs of a run's data. A run without it does not get the rule; the diagnosis
 * lists the rule under `skipped`, with the reason, instead of calling the run clean on it.
 */
export type Need = 'records' | 'own_outcomes' | 'ttft_p90';

/** When each need is met, why it is not, and how a skipped rule is named. */
export const NEEDS: Record<
  Need,
  { met(run: LoadedRun): boolean; reason(run: LoadedRun, t: T): string; names: 'emits' | 'id' }
> = {
  /** The per-request rules read the records' send and token times; each finding they could not look for is named. */
  records: {
    met: (run) => run.records.length > 0,
    reason: (run, t) => noRecordsReason(run, t),
    names: 'emits',
  },
  /** A vLLM result's outcome counts are placeholders (no finish reasons). */
  own_outcomes: {
    met: (run) => !run.source,
    reason: (_, t) => t('diagnose.skipped.vllm_truncation'),
    names: 'id',
  },
  /** A vLLM result file without a TTFT p90 (the high-TTFT rule's trigger). */
  ttft_p90: {
    met: (run) => !(run.source && run.summary.ttft_ms.p90 === null),
    reason: (_, t) => t('diagnose.skipped.vllm_ttft_p90'),
    names: 'id',
  },
};

interface RuleBase {
  /** Stable id: the rule's name in `unexplained` and in `skipped` (`high_ttft`, `pauses` …). */
  id: string;
  /** What the rule needs of a run (see {@link NEEDS}); a run that lacks one skips it. */
  needs: readonly Need[];
  /** The finding ids (`Finding.rule`) it can return, e.g. `high_ttft_queueing`. */
  emits: readonly string[];
}

/**
 * A rule over one run: `run` judges each run on its own; `residue` also judges each run, but
 * after every other rule, over what they left unexplained (it reads `ctx.findings`).
 */
export interface RunRule extends RuleBase {
  scope: 'run' | 'residue';
  run(run: LoadedRun, ctx: RuleContext): Finding[];
}

/** A rule across all the runs diagnosed together: load curves, A/B pairs. */
export interface RunsRule extends RuleBase {
  scope: 'runs';
  run(runs: readonly LoadedRun[], ctx: RuleContext): Finding[];
}

export type Rule = RunRule | RunsRule;

/** A rule's one finding, or none, as the list every rule returns. */
export const one = (f: Finding | null): Finding[] => (f ? [f] : []);
