/**
 * @module workload/lengths
 * Token-length distributions for synthetic workloads: the text forms `512`, `uniform:A-B` and
 * `normal:MEAN,STD`, parsed into a {@link LengthDist} that samples whole token counts ≥ 1 from
 * a seeded {@link Rng}.
 */
import { type Problem, UsageError } from '../core/errors.js';
import type { Rng } from '../runtime/rng.js';

/** The parameters of a length distribution (tokens). */
export type LengthSpec =
  | { kind: 'fixed'; value: number }
  | { kind: 'uniform'; min: number; max: number }
  | { kind: 'normal'; mean: number; std: number };

/** A distribution of token lengths. Every sample is an integer ≥ 1. */
export interface LengthDist {
  readonly spec: LengthSpec;
  /** The smallest length a sample can have (tokens). */
  readonly min: number;
  /** Draw one length (tokens, integer ≥ 1). */
  sample(rng: Rng): number;
  /** The text form, which parses back to the same distribution. */
  toString(): string;
}

/** The accepted forms, shown in every hint. */
export const LENGTH_FORMS_HINT =
  'use a token count (512), uniform:MIN-MAX (uniform:128-1024) or normal:MEAN,STD (normal:512,64)';

const FIXED_RE = /^(\d+)$/;
const UNIFORM_RE = /^uniform:(\d+)-(\d+)$/;
const NORMAL_RE = /^normal:(\d+(?:\.\d+)?),(\d+(?:\.\d+)?)$/;

/** Build a distribution from its parameters (assumed valid: see {@link parseLengthDist}). */
export function lengthDist(spec: LengthSpec): LengthDist {
  switch (spec.kind) {
    case 'fixed':
      return { spec, min: spec.value, sample: () => spec.value, toString: () => String(spec.value) };
    case 'uniform':
      return {
        spec,
        min: spec.min,
        sample: (rng) => rng.int(spec.min, spec.max),
        toString: () => `uniform:${spec.min}-${spec.max}`,
      };
    case 'normal':
      // Clamped and rounded, so the sample mean sits slightly above MEAN when STD is large
      // relative to it; that is the price of never asking for a zero-token prompt.
      return {
        spec,
        min: 1,
        sample: (rng) => Math.max(1, Math.round(rng.normal(spec.mean, spec.std))),
        toString: () => `normal:${spec.mean},${spec.std}`,
      };
  }
}

/**
 * Parse a length distribution from its text form.
 * @param text `512`, `uniform:A-B` (inclusive, tokens) or `normal:MEAN,STD` (tokens; samples are
 *   rounded and clamped to ≥ 1). A number is taken as a fixed length.
 * @param path where the text came from (e.g. `--input-len`), used in the problem.
 * @returns the distribution, or a problem with a hint showing the three forms.
 * @example parseLengthDist('uniform:128-1024') // { ok: true, dist } with dist.sample(rng) in 128..1024
 */
export function parseLengthDist(
  text: string | number,
  path?: string,
): { ok: true; dist: LengthDist } | { ok: false; problem: Problem } {
  const s = String(text).trim().toLowerCase();
  const bad = (why: string) => ({
    ok: false as const,
    problem: { path, message: `invalid length '${String(text)}': ${why}`, hint: LENGTH_FORMS_HINT },
  });
  let m = FIXED_RE.exec(s);
  if (m) {
    const value = Number(m[1]);
    if (value < 1) return bad('a length must be ≥ 1 token');
    return { ok: true, dist: lengthDist({ kind: 'fixed', value }) };
  }
  m = UNIFORM_RE.exec(s);
  if (m) {
    const min = Number(m[1]);
    const max = Number(m[2]);
    if (min < 1) return bad('the minimum must be ≥ 1 token');
    if (max < min) return bad('the maximum must be ≥ the minimum');
    return { ok: true, dist: lengthDist({ kind: 'uniform', min, max }) };
  }
  m = NORMAL_RE.exec(s);
  if (m) {
    const mean = Number(m[1]);
    const std = Number(m[2]);
    if (mean < 1) return bad('the mean must be ≥ 1 token');
    return { ok: true, dist: lengthDist({ kind: 'normal', mean, std }) };
  }
  return bad('not one of the accepted forms');
}

/** {@link parseLengthDist} that throws a {@link UsageError} instead of returning the problem. */
export function parseLengthDistOrThrow(text: string | number, path?: string): LengthDist {
  const r = parseLengthDist(text, path);
  if (!r.ok) throw new UsageError([r.problem]);
  return r.dist;
}
