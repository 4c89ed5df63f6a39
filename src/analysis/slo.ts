/**
 * @module analysis/slo
 * Service-level objectives for goodput: parsing `--slo ttft_ms=500,tpot_ms=50,e2e_ms=10000`
 * and deciding whether one request met every objective.
 */
import { type Problem, UsageError } from '../core/errors.js';
import type { RequestRecord } from '../record/types.js';
import { SUCCESS_OUTCOMES } from '../record/types.js';
import type { RequestMetrics } from './request.js';

/** Per-request metrics an SLO may bound (each an upper limit, in the metric's unit). */
export const SLO_METRICS = [
  'ttft_ms',
  'vllm_ttft_ms',
  'ttfr_ms',
  'tpot_ms',
  'e2e_ms',
  'max_gap_ms',
  'ttft_from_planned_ms',
  'e2e_from_planned_ms',
] as const;
export type SloMetric = (typeof SLO_METRICS)[number];

/**
 * SLO metrics that need per-token times, which only a streamed response has: on a
 * non-streaming run they are never computable, so an objective on them could never be judged.
 */
export const STREAM_SLO_METRICS: readonly SloMetric[] = [
  'ttft_ms',
  'vllm_ttft_ms',
  'ttfr_ms',
  'tpot_ms',
  'max_gap_ms',
  'ttft_from_planned_ms',
];

/** Upper limits per metric (ms). A request meets the SLO when every listed metric is ≤ its limit. */
export type Slo = Partial<Record<SloMetric, number>>;

const isSloMetric = (s: string): s is SloMetric => (SLO_METRICS as readonly string[]).includes(s);

/**
 * Parse `metric=limit` pairs separated by commas, e.g. `ttft_ms=500,tpot_ms=50,e2e_ms=10000`.
 * Limits are in the metric's unit (ms) and must be positive numbers.
 * @param text the flag's value
 * @param path where the text came from, for error messages (default `--slo`)
 * @throws UsageError listing every bad pair, each with a hint
 */
export function parseSlo(text: string, path = '--slo'): Slo {
  const problems: Problem[] = [];
  const slo: Slo = {};
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  if (parts.length === 0) {
    problems.push({ path, message: 'empty SLO', hint: 'write e.g. ttft_ms=500,tpot_ms=50,e2e_ms=10000' });
  }
  for (const part of parts) {
    const m = /^([A-Za-z0-9_]+)\s*[=:]\s*(.*)$/.exec(part);
    if (!m) {
      problems.push({ path, message: `"${part}" is not metric=limit`, hint: 'write e.g. ttft_ms=500' });
      continue;
    }
    const [, name, raw] = m;
    if (!isSloMetric(name)) {
      problems.push({
        path,
        message: `unknown SLO metric "${name}"`,
        hint: `use one of ${SLO_METRICS.join(', ')} (units are in the name: ms)`,
      });
      continue;
    }
    const value = raw.trim() === '' ? Number.NaN : Number(raw);
    if (!Number.isFinite(value) || value <= 0) {
      problems.push({
        path,
        message: `${name}: limit "${raw}" is not a positive number`,
        hint: `give milliseconds as a plain number, e.g. ${name}=500`,
      });
      continue;
    }
    if (slo[name] !== undefined) {
      problems.push({ path, message: `${name} is given twice`, hint: 'give each metric once' });
      continue;
    }
    slo[name] = value;
  }
  if (problems.length > 0) throw new UsageError(problems);
  return slo;
}

/**
 * Problems with an SLO for a run whose responses are not streamed (`--no-stream`): one per
 * objective on a metric in {@link STREAM_SLO_METRICS}, which such a run cannot measure.
 * @param path where the SLO came from, for the message (default `--slo`)
 */
export function sloProblemsWithoutStream(slo: Slo, path = '--slo'): Problem[] {
  return STREAM_SLO_METRICS.filter((k) => slo[k] !== undefined).map((k) => ({
    path,
    message: `${k} needs per-token times, and a non-streaming run (--no-stream) has none: its responses arrive whole, so ${k} is never measured`,
    hint: 'drop --no-stream to measure it, or bound the whole request instead, e.g. --slo e2e_ms=10000',
  }));
}

/** Render an SLO back to its flag form (`ttft_ms=500,tpot_ms=50`), in {@link SLO_METRICS} order. */
export function formatSlo(slo: Slo): string {
  return SLO_METRICS.filter((k) => slo[k] !== undefined)
    .map((k) => `${k}=${slo[k]}`)
    .join(',');
}

/**
 * Whether one request is "good": it succeeded (`ok` or `length`) and every metric in the SLO
 * is at or under its limit. A metric the request lacks counts as a miss, with one exception:
 * `tpot_ms` of a request with at most one completion token (no decode phase) counts as met,
 * as in vLLM bench.
 * @param rec the request's final attempt
 * @param m its metrics (from `requestMetrics`)
 */
export function meetsSlo(rec: RequestRecord, m: RequestMetrics, slo: Slo): boolean {
  if (!SUCCESS_OUTCOMES.includes(rec.outcome)) return false;
  for (const k of SLO_METRICS) {
    const limit = slo[k];
    if (limit === undefined) continue;
    const v = m[k];
    if (v === undefined) {
      const n = rec.usage?.completion_tokens;
      if (k === 'tpot_ms' && n != null && n <= 1) continue;
      return false;
    }
    if (v > limit) return false;
  }
  return true;
}
