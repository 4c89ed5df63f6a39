/**
 * @module analysis/diagnose/types
 * What judging a run returns: the validity reasons (why a number cannot bear weight), the
 * diagnosis findings (a symptom, its evidence, mechanism and next experiment), the checks that
 * could not run, and the {@link Diagnosis} that holds them. `report/` renders these.
 */

/** Severity of a finding. */
export type Severity = 'info' | 'warn' | 'critical';

/** One diagnosis finding: a symptom, its evidence, the likely mechanism and how to confirm it. */
export interface Finding {
  /** Stable rule id (`cold_start`, `high_ttft_queueing`, `kv_pressure` …). */
  rule: string;
  severity: Severity;
  /** Which run(s) it is about (ids). */
  runs: string[];
  symptom: string;
  /** Numbers that show it, each a short `name: value` line. */
  evidence: string[];
  /** Request ids that show it (at most a handful). */
  request_ids: string[];
  mechanism: string;
  /** The next experiment that would confirm it. */
  next: { command: string; change: string };
  /**
   * The share (0..1) of the run's TTFT p99 tail that this cause explains, from the engine's
   * own split of each request (`analysis/ttft-breakdown` ttftTailShares); absent for causes
   * that are not a part of TTFT, or where the engine timed nothing. Findings are ranked by it.
   */
  ttft_p99_share?: number;
}

/** A validity reason: why a number from this run cannot bear weight. */
export interface ValidityReason {
  /** Stable code (`lateness`, `event_loop_lag`, `client_cpu`, `usage_missing`, `token_mismatch`, `error_rate`, `littles_law`). */
  code: string;
  run: string;
  message: string;
}

/** The diagnosis of one or several runs. */
export interface Diagnosis {
  valid: boolean;
  reasons: ValidityReason[];
  findings: Finding[];
  /**
   * Oddities that no rule explains, stated as observations; `rule` names the rule that looked
   * (`high_ttft`, `pauses`, `throughput_plateau`, `tail`), so a sweep's are grouped across levels.
   */
  unexplained: { run: string; observation: string; request_ids: string[]; rule?: string }[];
  /**
   * Checks (validity codes and rule ids) that could not run on a run's data, with the reason:
   * a run without per-request records, or one read from another tool's result file, is not
   * "valid" or "clean" on the points nobody could look at.
   */
  skipped: SkippedCheck[];
}

/** Checks that did not run on one run, and why. */
export interface SkippedCheck {
  run: string;
  /** Validity codes (`lateness`, `client_cpu` …) and rule ids (`cold_start`, `pauses` …). */
  checks: string[];
  reason: string;
}
