/**
 * @module pipeline/capacity
 * The capacity question ("how many users can this engine serve within the SLOs?") as a search
 * over measurements: each probe is one run through the measurement pipeline, so the answer
 * comes from the same numbers `run` would print at that level. The level is the closed loop's
 * concurrency (`plan --find-max-concurrency`) or a sessions run's number of users
 * (`plan --find-max-users`); the search is the same.
 */

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
