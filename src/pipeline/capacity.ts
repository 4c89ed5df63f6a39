/**
 * @module pipeline/capacity
 * The capacity question ("how many users can this engine serve within the SLOs?") as a search
 * over measurements: each probe is one run through the measurement pipeline, so the answer
 * comes from the same numbers `run` would print at that level. The level is the closed loop's
 * concurrency (`plan --find-max-concurrency`) or a sessions run's number of users
 * (`plan --find-max-users`); the search is the same.
 */

/** One probe of the capacity search. */
export interface ConcurrencyProbe {
  concurrency: number;
  ok: boolean;
  /** Share of the probe's requests that met every SLO. */
  attainment: number | null;
}

/** One probe of {@link searchMaxLevel}, at `level` (concurrency, users, …). */
export interface LevelProbe {
  level: number;
  ok: boolean;
  /** Share of the probe's requests that met every SLO. */
  attainment: number | null;
}

/**
 * The largest level whose run meets `ok`: doubles from `min` until it fails (or `max` is
 * reached), then bisects. Assumes that meeting a latency SLO is monotone in the level (more
 * concurrency, more users), which holds on one engine. 0 when even `min` fails.
 */
export async function searchMaxLevel(
  probe: (level: number) => Promise<{ ok: boolean; attainment: number | null }>,
  opts: { min?: number; max: number },
): Promise<{ level: number; probes: LevelProbe[] }> {
  const min = Math.max(1, Math.floor(opts.min ?? 1));
  const max = Math.max(min, Math.floor(opts.max));
  const probes: LevelProbe[] = [];
  const run = async (level: number) => {
    const r = await probe(level);
    probes.push({ level, ...r });
    return r.ok;
  };
  let lo = 0;
  let hi = 0;
  for (let c = min; ; c = Math.min(max, c * 2)) {
    if (!(await run(c))) {
      hi = c;
      break;
    }
    lo = c;
    if (c === max) break;
  }
  // Invariant: lo met the SLO (or is 0), hi failed; bisect between them.
  while (hi && hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await run(mid)) lo = mid;
    else hi = mid;
  }
  return { level: lo, probes };
}

/** {@link searchMaxLevel} over a closed loop's concurrency. */
export async function searchMaxConcurrency(
  probe: (concurrency: number) => Promise<{ ok: boolean; attainment: number | null }>,
  opts: { min?: number; max: number },
): Promise<{ concurrency: number; probes: ConcurrencyProbe[] }> {
  const r = await searchMaxLevel(probe, opts);
  return {
    concurrency: r.level,
    probes: r.probes.map((p) => ({ concurrency: p.level, ok: p.ok, attainment: p.attainment })),
  };
}
