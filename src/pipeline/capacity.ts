/**
 * @module pipeline/capacity
 * The capacity question ("how many users can this engine serve within the SLOs?") as a search
 * over measurements: each probe is one run through the measurement pipeline, so the answer
 * comes from the same numbers `run` would print at that concurrency.
 */

/** One probe of the capacity search. */
export interface ConcurrencyProbe {
  concurrency: number;
  ok: boolean;
  /** Share of the probe's requests that met every SLO. */
  attainment: number | null;
}

/**
 * The largest closed-loop concurrency whose run meets `ok`: doubles from `min` until it fails
 * (or `max` is reached), then bisects. Assumes that meeting a latency SLO is monotone in
 * concurrency, which holds on one engine.
 */
export async function searchMaxConcurrency(
  probe: (concurrency: number) => Promise<{ ok: boolean; attainment: number | null }>,
  opts: { min?: number; max: number },
): Promise<{ concurrency: number; probes: ConcurrencyProbe[] }> {
  const min = Math.max(1, Math.floor(opts.min ?? 1));
  const max = Math.max(min, Math.floor(opts.max));
  const probes: ConcurrencyProbe[] = [];
  const run = async (c: number) => {
    const r = await probe(c);
    probes.push({ concurrency: c, ...r });
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
  return { concurrency: lo, probes };
}
