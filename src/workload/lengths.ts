/**
 * @module workload/lengths
 * The one distribution grammar of servelab's workloads: `512`, `uniform:A-B`, `normal:MEAN,STD`,
 * `exp:MEAN` and `lognormal:MEDIAN,SIGMA`, parsed into a {@link LengthDist} that samples from a
 * seeded {@link Rng}. The same text describes whole things (token lengths, turns: integers ≥ 1)
 * and real things (think times in seconds: reals ≥ 0); the caller says which with `unit`.
 */
import { type Problem, UsageError } from '../core/errors.js';
import { translator } from '../i18n/index.js';
import type { Rng } from '../runtime/rng.js';

/** The parameters of a distribution (tokens, turns or seconds, as its caller uses it). */
export type LengthSpec =
  | { kind: 'fixed'; value: number }
  | { kind: 'uniform'; min: number; max: number }
  | { kind: 'normal'; mean: number; std: number }
  | { kind: 'exp'; mean: number }
  | { kind: 'lognormal'; median: number; sigma: number };

/** What the samples are: whole numbers ≥ 1 (`int`: lengths, turns) or reals ≥ 0 (`real`: seconds). */
export type DistUnit = 'int' | 'real';

/** A seeded distribution. `int` samples are integers ≥ 1; `real` samples are reals ≥ 0. */
export interface LengthDist {
  readonly spec: LengthSpec;
  readonly unit: DistUnit;
  /** The smallest value a sample can have. */
  readonly min: number;
  /** Draw one value. */
  sample(rng: Rng): number;
  /** The text form, which parses back to the same distribution. */
  toString(): string;
}

const EN = translator('en');

/** The accepted forms, shown in every hint. */
export const LENGTH_FORMS_HINT = EN('sessions.dist.forms_hint');

const NUM = '(\\d+(?:\\.\\d+)?)';
const FIXED_RE = new RegExp(`^${NUM}$`);
const UNIFORM_RE = new RegExp(`^uniform:${NUM}-${NUM}$`);
const NORMAL_RE = new RegExp(`^normal:${NUM},${NUM}$`);
const EXP_RE = new RegExp(`^exp:${NUM}$`);
const LOGNORMAL_RE = new RegExp(`^lognormal:${NUM},${NUM}$`);

function textOf(spec: LengthSpec): string {
  switch (spec.kind) {
    case 'fixed':
      return String(spec.value);
    case 'uniform':
      return `uniform:${spec.min}-${spec.max}`;
    case 'normal':
      return `normal:${spec.mean},${spec.std}`;
    case 'exp':
      return `exp:${spec.mean}`;
    case 'lognormal':
      return `lognormal:${spec.median},${spec.sigma}`;
  }
}

/** A raw draw of the distribution, before the unit's rounding and clamping. */
function rawDraw(spec: LengthSpec, rng: Rng, unit: DistUnit): number {
  switch (spec.kind) {
    case 'fixed':
      return spec.value;
    case 'uniform':
      return unit === 'int' ? rng.int(spec.min, spec.max) : spec.min + rng.next() * (spec.max - spec.min);
    case 'normal':
      return rng.normal(spec.mean, spec.std);
    case 'exp':
      return rng.exponential(spec.mean);
    case 'lognormal':
      // ln X ~ N(ln MEDIAN, SIGMA²): the median of X is MEDIAN, its mean MEDIAN·e^(σ²/2).
      return spec.median * Math.exp(spec.sigma * rng.normal());
  }
}

/**
 * Build a distribution from its parameters (assumed valid: see {@link parseLengthDist}).
 * Integer samples are rounded and clamped to ≥ 1, so for `normal`, `exp` and `lognormal` with a
 * small mean the sample mean sits slightly above the parameter: the price of never drawing a
 * zero-token prompt or a session of no turns. Real samples are clamped to ≥ 0.
 */
export function lengthDist(spec: LengthSpec, unit: DistUnit = 'int'): LengthDist {
  const text = textOf(spec);
  const exact = spec.kind === 'fixed' || spec.kind === 'uniform';
  const min =
    spec.kind === 'fixed' ? spec.value : spec.kind === 'uniform' ? spec.min : unit === 'int' ? 1 : 0;
  const sample =
    unit === 'int'
      ? exact
        ? (rng: Rng) => rawDraw(spec, rng, unit)
        : (rng: Rng) => Math.max(1, Math.round(rawDraw(spec, rng, unit)))
      : (rng: Rng) => Math.max(0, rawDraw(spec, rng, unit));
  return { spec, unit, min, sample, toString: () => text };
}

/**
 * Parse a distribution from its text form.
 * @param text `512`, `uniform:A-B` (inclusive), `normal:MEAN,STD`, `exp:MEAN` or
 *   `lognormal:MEDIAN,SIGMA`. A number is taken as a fixed value.
 * @param path where the text came from (e.g. `--input-len`), used in the problem.
 * @param unit `int` (default: token lengths, turns; integers ≥ 1) or `real` (seconds; ≥ 0).
 * @returns the distribution, or a problem with a hint showing the forms.
 * @example parseLengthDist('uniform:128-1024') // { ok: true, dist } with dist.sample(rng) in 128..1024
 * @example parseLengthDist('exp:2', '--think-time', 'real') // seconds, mean 2
 */
export function parseLengthDist(
  text: string | number,
  path?: string,
  unit: DistUnit = 'int',
): { ok: true; dist: LengthDist } | { ok: false; problem: Problem } {
  const s = String(text).trim().toLowerCase();
  const bad = (why: string) => ({
    ok: false as const,
    problem: {
      path,
      message: EN('sessions.dist.invalid', { text: String(text), why }),
      hint: LENGTH_FORMS_HINT,
    },
  });
  const int = unit === 'int';
  const floor = int ? 1 : 0;
  const ok = (spec: LengthSpec) => ({ ok: true as const, dist: lengthDist(spec, unit) });
  let m = FIXED_RE.exec(s);
  if (m) {
    const value = Number(m[1]);
    if (int && !Number.isInteger(value)) return bad(EN('sessions.dist.whole'));
    if (value < floor) return bad(EN('sessions.dist.value_min', { min: floor }));
    return ok({ kind: 'fixed', value });
  }
  m = UNIFORM_RE.exec(s);
  if (m) {
    const min = Number(m[1]);
    const max = Number(m[2]);
    if (int && !(Number.isInteger(min) && Number.isInteger(max))) return bad(EN('sessions.dist.whole'));
    if (min < floor) return bad(EN('sessions.dist.minimum_min', { min: floor }));
    if (max < min) return bad(EN('sessions.dist.max_below_min'));
    return ok({ kind: 'uniform', min, max });
  }
  m = NORMAL_RE.exec(s);
  if (m) {
    const mean = Number(m[1]);
    const std = Number(m[2]);
    if (mean < floor) return bad(EN('sessions.dist.mean_min', { min: floor }));
    return ok({ kind: 'normal', mean, std });
  }
  m = EXP_RE.exec(s);
  if (m) {
    const mean = Number(m[1]);
    if (!(mean > 0)) return bad(EN('sessions.dist.positive', { what: 'MEAN' }));
    return ok({ kind: 'exp', mean });
  }
  m = LOGNORMAL_RE.exec(s);
  if (m) {
    const median = Number(m[1]);
    const sigma = Number(m[2]);
    if (!(median > 0)) return bad(EN('sessions.dist.positive', { what: 'MEDIAN' }));
    return ok({ kind: 'lognormal', median, sigma });
  }
  return bad(EN('sessions.dist.no_form'));
}

/** {@link parseLengthDist} that throws a {@link UsageError} instead of returning the problem. */
export function parseLengthDistOrThrow(
  text: string | number,
  path?: string,
  unit: DistUnit = 'int',
): LengthDist {
  const r = parseLengthDist(text, path, unit);
  if (!r.ok) throw new UsageError([r.problem]);
  return r.dist;
}

/** The distribution's mean (before the unit's rounding and clamping), e.g. for a planned duration. */
export function distMean(spec: LengthSpec): number {
  switch (spec.kind) {
    case 'fixed':
      return spec.value;
    case 'uniform':
      return (spec.min + spec.max) / 2;
    case 'normal':
    case 'exp':
      return spec.mean;
    case 'lognormal':
      return spec.median * Math.exp((spec.sigma * spec.sigma) / 2);
  }
}
