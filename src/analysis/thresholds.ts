/**
 * @module analysis/thresholds
 * `--threshold` pass/fail gates over the summary: `ttft_ms.p99<500`, `error_rate<0.01`, or,
 * against a `--baseline` report's summary, `ttft_ms.p99<+10%`. Paths are checked against the
 * real summary shape when parsed, so a typo is a usage error (exit 1), not a silent pass.
 */
import { type Problem, UsageError } from '../core/errors.js';
import { SLO_METRICS, type Slo } from './slo.js';
import { type Summary, summarize } from './summary.js';

export const THRESHOLD_OPS = ['<=', '>=', '==', '<', '>'] as const;
export type ThresholdOp = (typeof THRESHOLD_OPS)[number];

/** A parsed threshold. Exactly one of `value` and `relative_percent` is set. */
export interface Threshold {
  /** The text as given, e.g. `ttft_ms.p99<500`. */
  text: string;
  /** Dotted path under `summary`, e.g. `ttft_ms.p99`. */
  path: string;
  op: ThresholdOp;
  /** Absolute limit, in the unit of the addressed metric. */
  value: number | null;
  /** Relative limit: the baseline's value × (1 + relative_percent / 100). */
  relative_percent: number | null;
}

/** The verdict on one threshold. */
export interface ThresholdResult {
  threshold: string;
  path: string;
  op: ThresholdOp;
  /** The limit compared against (for a relative threshold, computed from the baseline); null if none. */
  limit: number | null;
  /** This run's value at `path`; null when the run has no data for it (then the threshold fails). */
  actual: number | null;
  /** The baseline's value at `path` (relative thresholds only). */
  baseline: number | null;
  pass: boolean;
  /** Why it failed without a comparison (no data), absent otherwise. */
  reason?: string;
}

/**
 * A summary with every optional part filled, used only as the map of valid paths: a path is
 * valid when it resolves here to a number or null. Built from the real `summarize`, so the map
 * can never drift from the summary's actual shape.
 */
let template: Summary | undefined;
function pathTemplate(): Summary {
  if (!template) {
    const slo: Slo = Object.fromEntries(SLO_METRICS.map((k) => [k, 1]));
    template = summarize([], {
      slo,
      client: { event_loop_delay_ms: { p50: 0, p99: 0, max: 0 }, cpu_percent: 0 },
    });
  }
  return template;
}

/** Objects whose keys depend on the run (any key is valid; a missing one reads as 0). */
const OPEN_MAPS = ['finish_reasons'];

type Resolved = { ok: true; value: unknown } | { ok: false; at: string; options: string[] };

function resolve(root: unknown, path: string): Resolved {
  const parts = path.split('.');
  let node: unknown = root;
  for (let i = 0; i < parts.length; i++) {
    const here = parts.slice(0, i).join('.');
    // A null object on the way (e.g. `goodput.slo` without --slo) means "no data", not a bad path.
    if (node === null) return { ok: true, value: null };
    if (typeof node !== 'object' || Array.isArray(node)) return { ok: false, at: here, options: [] };
    const obj = node as Record<string, unknown>;
    if (!Object.hasOwn(obj, parts[i])) {
      if (OPEN_MAPS.includes(here)) return { ok: true, value: 0 };
      return { ok: false, at: here, options: Object.keys(obj) };
    }
    node = obj[parts[i]];
  }
  return { ok: true, value: node };
}

const isNumericLeaf = (v: unknown): boolean => v === null || typeof v === 'number';

/** Children of an object node that lead to numbers (for hints). */
function numericChildren(node: Record<string, unknown>): string[] {
  return Object.keys(node).filter((k) => {
    const v = node[k];
    return isNumericLeaf(v) || (typeof v === 'object' && !Array.isArray(v));
  });
}

function checkPath(path: string, where: string): Problem | undefined {
  const t = pathTemplate();
  if (!/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(path)) {
    return {
      path: where,
      message: `"${path}" is not a dotted summary path`,
      hint: 'write e.g. ttft_ms.p99<500',
    };
  }
  const r = resolve(t, path);
  if (!r.ok) {
    const head = path.split('.')[0];
    const guess = Object.hasOwn(t, `${head}_ms`) ? `; did you mean ${head}_ms?` : '';
    const opts = r.options.filter((k) => k !== 'warnings' && k !== 'definition');
    const scope = r.at === '' ? 'summary' : `summary.${r.at}`;
    return {
      path: where,
      message: `"${path}" is not a numeric path under the summary`,
      hint: opts.length
        ? `valid keys of ${scope}: ${opts.join(', ')}${guess}`
        : `${scope} is a number, not an object${guess}`,
    };
  }
  if (r.value !== null && typeof r.value === 'object' && !Array.isArray(r.value)) {
    const kids = numericChildren(r.value as Record<string, unknown>).filter((k) => k !== 'definition');
    if (kids.length === 0) kids.push('stop'); // an open map (finish_reasons) has no fixed keys
    return {
      path: where,
      message: `"${path}" is an object, not a number`,
      hint: `add one of: ${kids.join(', ')} (e.g. ${path}.${kids.includes('p99') ? 'p99' : kids[0]})`,
    };
  }
  if (!isNumericLeaf(r.value)) {
    return {
      path: where,
      message: `"${path}" resolved to no number`,
      hint: 'address a numeric field, e.g. ttft_ms.p99',
    };
  }
  return undefined;
}

/**
 * Parse one threshold, `<path><op><limit>`: path is any numeric path under the summary,
 * op is one of `< <= > >= ==`, limit is a plain number in the metric's unit or a signed
 * percentage (`+10%`, `-5%`) relative to a baseline.
 * @param where where the text came from, for error messages (default `--threshold`)
 * @throws UsageError with a hint when the text or path is invalid
 * @example parseThreshold('ttft_ms.p99<500') // { path: 'ttft_ms.p99', op: '<', value: 500, ... }
 */
export function parseThreshold(text: string, where = '--threshold'): Threshold {
  const problems: Problem[] = [];
  const t = parseOne(text, where, problems);
  if (!t) throw new UsageError(problems);
  return t;
}

/** Parse several thresholds, reporting every problem at once. @throws UsageError */
export function parseThresholds(texts: readonly string[], where = '--threshold'): Threshold[] {
  const problems: Problem[] = [];
  const out: Threshold[] = [];
  for (const text of texts) {
    const t = parseOne(text, where, problems);
    if (t) out.push(t);
  }
  if (problems.length > 0) throw new UsageError(problems);
  return out;
}

function parseOne(text: string, where: string, problems: Problem[]): Threshold | undefined {
  const m = /^\s*([^<>=\s]+)\s*(<=|>=|==|<|>)\s*(\S.*?)\s*$/.exec(text);
  if (!m) {
    problems.push({
      path: where,
      message: `"${text}" is not <path><op><limit>`,
      hint: "write e.g. 'ttft_ms.p99<500' or 'error_rate<0.01'; operators: < <= > >= ==",
    });
    return undefined;
  }
  const [, path, op, raw] = m;
  const bad = checkPath(path, where);
  if (bad) {
    problems.push(bad);
    return undefined;
  }
  const rel = /^([+-])(\d+(?:\.\d+)?|\.\d+)%$/.exec(raw);
  if (rel) {
    const pct = Number(rel[2]) * (rel[1] === '-' ? -1 : 1);
    return { text, path, op: op as ThresholdOp, value: null, relative_percent: pct };
  }
  if (/%$/.test(raw)) {
    problems.push({
      path: where,
      message: `"${text}": "${raw}" needs a sign to be relative`,
      hint: "a relative limit is signed, e.g. '+10%' (vs --baseline); an absolute ratio is a plain number, e.g. 0.01",
    });
    return undefined;
  }
  const value = Number(raw);
  if (!Number.isFinite(value)) {
    problems.push({
      path: where,
      message: `"${text}": limit "${raw}" is not a number`,
      hint: `units are in the metric name; write a plain number, e.g. ${path}${op}500`,
    });
    return undefined;
  }
  return { text, path, op: op as ThresholdOp, value, relative_percent: null };
}

function compare(actual: number, op: ThresholdOp, limit: number): boolean {
  switch (op) {
    case '<':
      return actual < limit;
    case '<=':
      return actual <= limit;
    case '>':
      return actual > limit;
    case '>=':
      return actual >= limit;
    case '==':
      return actual === limit;
  }
}

function numberAt(root: unknown, path: string): { found: boolean; value: number | null } {
  const r = resolve(root, path);
  if (!r.ok) return { found: false, value: null };
  if (r.value === null) return { found: true, value: null };
  return typeof r.value === 'number' ? { found: true, value: r.value } : { found: false, value: null };
}

/**
 * Check every threshold against a summary. A threshold whose value is null (no data) fails.
 * A relative threshold compares with `baseline`'s value at the same path, scaled by its
 * percentage; it fails when the baseline has no number there.
 * @param summary this run's summary
 * @param thresholds parsed thresholds
 * @param baseline the baseline report's `summary` (needed by relative thresholds)
 * @throws UsageError when a relative threshold has no baseline or a path resolves to no number
 */
export function evaluateThresholds(
  summary: Summary,
  thresholds: readonly Threshold[],
  baseline?: object | null,
): ThresholdResult[] {
  const problems: Problem[] = [];
  const results: ThresholdResult[] = [];
  for (const t of thresholds) {
    const got = numberAt(summary, t.path);
    if (!got.found) {
      problems.push({
        path: '--threshold',
        message: `"${t.text}": ${t.path} resolved to no number in this summary`,
        hint: 'address a numeric field, e.g. ttft_ms.p99',
      });
      continue;
    }
    const base: ThresholdResult = {
      threshold: t.text,
      path: t.path,
      op: t.op,
      limit: t.value,
      actual: got.value,
      baseline: null,
      pass: false,
    };
    if (t.relative_percent !== null) {
      if (!baseline) {
        problems.push({
          path: '--threshold',
          message: `"${t.text}" is relative but there is no baseline`,
          hint: 'pass --baseline report.json, or give an absolute limit',
        });
        continue;
      }
      const b = numberAt(baseline, t.path).value;
      base.baseline = b;
      if (b === null) {
        results.push({ ...base, reason: `the baseline has no value at ${t.path}` });
        continue;
      }
      base.limit = b * (1 + t.relative_percent / 100);
    }
    if (got.value === null) {
      results.push({ ...base, reason: 'no data in this run' });
      continue;
    }
    results.push({ ...base, pass: compare(got.value, t.op, base.limit as number) });
  }
  if (problems.length > 0) throw new UsageError(problems);
  return results;
}

/** True when every threshold passed (vacuously true for none). */
export function allPassed(results: readonly ThresholdResult[]): boolean {
  return results.every((r) => r.pass);
}
