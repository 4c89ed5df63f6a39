/**
 * @module analysis/capacity
 * The capacity question ("how many users can this engine serve within the SLOs?") as a search
 * over measurements: each probe is one run through the measurement pipeline, so the answer
 * comes from the same numbers `run` would print at that level. The level is the closed loop's
 * concurrency (`plan --find-max-concurrency`, the concurrency sweep's `find_max_concurrency`, the
 * load gate's maximum-goodput search) or a sessions run's number of users (`plan
 * --find-max-users`, `team-assistant`); the search is the same.
 *
 * Two parts: {@link searchMaxLevel}, the search over verdicts (which level to try next; no
 * I/O), and {@link findMaxLevel}, which measures each probe with the caller's
 * `measureLevel` and judges it with {@link judgeProbe}, the one definition of a probe's
 * verdict (SLO attainment, pass or fail, undecided when its run is not valid).
 */
import type { Summary } from './summary.js';

/** One probe of {@link searchMaxLevel}, at `level` (concurrency, users, …). */
export interface LevelProbe {
  level: number;
  ok: boolean;
  /** Share of the probe's requests that met every SLO. */
  attainment: number | null;
}

/** What a probe of {@link searchMaxLevel} found at one level. */
export interface ProbeVerdict {
  ok: boolean;
  attainment: number | null;
  /**
   * Why this probe cannot decide (its run is not valid, say): the search stops here and its
   * answer is undetermined. Absent or null when the probe decides.
   */
  undecided?: string | null;
}

/** The outcome of {@link searchMaxLevel}. */
export interface LevelSearch {
  /** The largest level that met `ok` (0 when even the first failed); meaningless when `undetermined`. */
  level: number;
  probes: LevelProbe[];
  /** False when no level failed: the largest level tried met it, so the true maximum may be higher. */
  bounded: boolean;
  /** The first undecided probe's reason; the search stopped there. */
  undetermined: string | null;
}

/**
 * The largest level whose run meets `ok`: the given `levels` in order until one fails (none
 * given: `min`), then doubling until one fails or `max` is reached, then bisecting between the
 * last pass and the first failure. Assumes that meeting a latency SLO is monotone in the level
 * (more concurrency, more users), which holds on one engine. 0 when even the first level fails.
 * A probe that cannot decide (`undecided`) stops the search, undetermined. `bisect: false`
 * stops at the first failing level.
 */
export async function searchMaxLevel(
  probe: (level: number) => Promise<ProbeVerdict>,
  opts: { min?: number; max: number; levels?: readonly number[]; bisect?: boolean },
): Promise<LevelSearch> {
  const min = Math.max(1, Math.floor(opts.min ?? 1));
  const max = Math.max(min, Math.floor(opts.max));
  const probes: LevelProbe[] = [];
  let undetermined: string | null = null;
  const run = async (level: number) => {
    const r = await probe(level);
    probes.push({ level, ok: r.ok, attainment: r.attainment });
    if (r.undecided) undetermined ??= r.undecided;
    return r.ok;
  };
  let lo = 0;
  let hi = 0;
  const given = opts.levels?.length ? [...opts.levels] : [min];
  for (const c of given) {
    if (!(await run(c))) hi = c;
    else lo = c;
    if (hi || undetermined) break;
  }
  // Every given level passed: keep doubling up to max.
  for (let c = Math.min(max, lo * 2); !undetermined && !hi && lo > 0 && c > lo; c = Math.min(max, c * 2)) {
    if (!(await run(c))) hi = c;
    else lo = c;
  }
  // Invariant: lo met the SLO (or is 0), hi failed; bisect between them.
  while (opts.bisect !== false && !undetermined && hi && hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await run(mid)) lo = mid;
    else hi = mid;
  }
  return { level: lo, probes, bounded: hi > 0 || lo === 0, undetermined };
}

/**
 * What a probe must meet:
 * - `attainment`: at least this share of its requests met every SLO (goodput; a request never
 *   sent misses it), as `plan --find-max-concurrency`, `plan --find-max-users` and
 *   `team-assistant` judge it;
 * - `p90`: the run's p90 of each SLO metric is within its limit (`itl_ms`: p90 of all token gaps)
 *   and its error rate within `maxErrorRate`, as the concurrency sweep judges it.
 */
export type ProbeRule = { attainment: number } | { p90: Record<string, number>; maxErrorRate: number };

/** What a probe's verdict reads of its run: its summary and its validity (empty = valid). */
export interface ProbeRun {
  summary: Summary;
  validity: readonly { code: string }[];
}

/**
 * How a capacity search judges each probe. `invalid` words why a probe whose run is not valid
 * cannot decide (given the level and the run's validity codes, joined by ", "); null: the
 * search takes every probe's numbers as they are.
 */
export interface ProbeJudge {
  rule: ProbeRule;
  invalid: ((level: number, codes: string) => string) | null;
}

/** Whether a run meets an SLO on its p90s (each metric's p90 within its limit) and its error rate. */
export function meetsSloP90(s: Summary, slo: Record<string, number>, maxErrorRate: number): boolean {
  if (s.error_rate === null || s.error_rate > maxErrorRate) return false;
  for (const [k, limit] of Object.entries(slo)) {
    const st = (s as unknown as Record<string, { p90: number | null } | undefined>)[k];
    if (!st || st.p90 === null || st.p90 > limit) return false;
  }
  return true;
}

/** The verdict of the probe at `level` on its run: met the rule or not, and undecided when the run is not valid. */
export function judgeProbe(level: number, run: ProbeRun, judge: ProbeJudge): ProbeVerdict {
  const { rule } = judge;
  const attainment = 'attainment' in rule ? (run.summary.goodput.fraction ?? null) : null;
  const ok =
    'attainment' in rule
      ? (attainment ?? 0) >= rule.attainment
      : meetsSloP90(run.summary, rule.p90, rule.maxErrorRate);
  // An invalid probe cannot decide the answer: the search stops there, undetermined.
  const undecided =
    judge.invalid && run.validity.length
      ? judge.invalid(level, run.validity.map((v) => v.code).join(', '))
      : null;
  return { ok, attainment, undecided };
}

/**
 * {@link searchMaxLevel} over measurements: each probe is `measureLevel(level)`, judged by
 * {@link judgeProbe}; `onProbe` sees each run with its verdict (to keep it, log it), in the
 * order measured.
 */
export async function findMaxLevel<R extends ProbeRun>(
  measureLevel: (level: number) => Promise<R>,
  judge: ProbeJudge & { onProbe?: (level: number, run: R, verdict: ProbeVerdict) => void },
  opts: { min?: number; max: number; levels?: readonly number[]; bisect?: boolean },
): Promise<LevelSearch> {
  return searchMaxLevel(async (level) => {
    const run = await measureLevel(level);
    const verdict = judgeProbe(level, run, judge);
    judge.onProbe?.(level, run, verdict);
    return verdict;
  }, opts);
}
