/**
 * @module sim/fidelity/band
 * The simulator's error bands. Per metric (issue 26): the 80% band of the fitted step-time
 * model, from the leave-one-experiment-out errors `npm run fit` stored with the coefficients
 * (`engine/fitted-coefficients.json`; docs/fidelity.md "Error bands"), applied to a simulated
 * value; `plan` prints one per headline number and the experiments' answers carry them. Per
 * regime (older): the median |error| measured on the project's own public rows, read from
 * `npm run fidelity -- --write` (src/sim/fidelity/results.json).
 */

import { type T, translator } from '../../i18n/index.js';
import { FITTED_BANDS } from '../engine/fitted.js';
import type { Regime } from './measurements.js';
import results from './results.json' with { type: 'json' };

export interface FidelityBand {
  regime: Regime;
  rows: number;
  medianAbsErrorPct: number;
  maxAbsErrorPct: number;
}

/** The measured band of `regime` (see docs/fidelity.md). */
export function fidelityBand(regime: Regime): FidelityBand {
  const b = (results.bands as FidelityBand[]).find((x) => x.regime === regime);
  if (!b) throw new Error(`no fidelity band for ${regime}`);
  return b;
}

/** One reading of the simulator's /metrics series (`report.series`): a vocabulary name at a time. */
export interface RegimeReading {
  t_ms: number;
  name: string;
  value: number;
}

/** Share of `waiting` readings above zero from which a run counts as saturated. */
export const SATURATED_WAITING_SHARE = 0.25;
/** KV usage (0..1) counted as "near full", and the share of readings at or above it that saturates. */
export const KV_NEAR_FULL = 0.95;
export const SATURATED_KV_SHARE = 0.25;
/** Fewer `waiting` readings than this are no evidence; the client heuristic decides. */
const MIN_READINGS = 3;

/**
 * The regime a run falls in. With the server's own series (`report.series`, which `plan` always
 * has: the simulator's /metrics), the engine decides: saturated when requests waited in its queue
 * (`waiting` > 0) in at least {@link SATURATED_WAITING_SHARE} of the readings, or its KV cache was
 * near full ({@link KV_NEAR_FULL}) in at least {@link SATURATED_KV_SHARE} of them; else low.
 * Readings are taken at a fixed scrape interval, so a share of readings is a share of the window.
 * Without enough readings, a client heuristic: saturated when the median TTFT exceeds 20 median
 * decode steps (requests waited for the engine or for the API server).
 */
export function regimeOf(
  ttftP50Ms: number | null,
  tpotP50Ms: number | null,
  series?: readonly RegimeReading[],
): Regime {
  const waiting = series?.filter((p) => p.name === 'waiting') ?? [];
  if (waiting.length >= MIN_READINGS) {
    const kv = series?.filter((p) => p.name === 'kv_usage') ?? [];
    const waitShare = waiting.filter((p) => p.value > 0).length / waiting.length;
    const kvShare = kv.length ? kv.filter((p) => p.value >= KV_NEAR_FULL).length / kv.length : 0;
    return waitShare >= SATURATED_WAITING_SHARE || kvShare >= SATURATED_KV_SHARE ? 'saturated' : 'low';
  }
  if (ttftP50Ms === null || tpotP50Ms === null || tpotP50Ms <= 0) return 'low';
  return ttftP50Ms > 20 * tpotP50Ms ? 'saturated' : 'low';
}

/** One summary line, e.g. `fidelity (low load): median |error| 5.4%, max 76.4% over 7 public measurements`. */
export function fidelityLine(regime: Regime, t: T = translator('en')): string {
  const b = fidelityBand(regime);
  return t(regime === 'low' ? 'sim.fidelity.low' : 'sim.fidelity.saturation', {
    median: b.medianAbsErrorPct.toFixed(1),
    max: b.maxAbsErrorPct.toFixed(1),
    rows: b.rows,
  });
}

/** Metrics with a fitted band (the fit data's whole-run metrics). */
export type BandMetric =
  | 'ttft_mean'
  | 'ttft_p90'
  | 'ttft_p99'
  | 'e2e_mean'
  | 'e2e_p90'
  | 'e2e_p99'
  | 'itl_mean';

/**
 * The 80% band of the measured value around a simulated one: `value × (1 + q10)` to
 * `value × (1 + q90)`, q the stored quantiles of measured ÷ predicted − 1. Null when the value is
 * not a positive number or no fit stored bands.
 */
export function fittedBand(metric: BandMetric, value: number | null): { low: number; high: number } | null {
  const q = FITTED_BANDS?.metrics[metric];
  if (!q || value === null || !(value > 0)) return null;
  return { low: value * (1 + q.q10), high: value * (1 + q.q90) };
}

/** Round a band's ends as they are shown. */
const shown = (x: number) => (x >= 100 ? Math.round(x) : Number(x.toPrecision(3)));

/** Labels of the band metrics as `plan` prints them (metric names stay English). */
const BAND_LABELS: Record<BandMetric, string> = {
  ttft_mean: 'TTFT mean',
  ttft_p90: 'TTFT p90',
  ttft_p99: 'TTFT p99',
  e2e_mean: 'E2E mean',
  e2e_p90: 'E2E p90',
  e2e_p99: 'E2E p99',
  itl_mean: 'ITL mean',
};

/**
 * One line per headline number with its band, e.g. `TTFT p99 410 ms, 80% band 350–520 ms`,
 * after a head line naming where the bands come from; empty when no band applies.
 */
export function bandLines(
  values: Partial<Record<BandMetric, number | null>>,
  t: T = translator('en'),
): string[] {
  const lines: string[] = [];
  for (const m of Object.keys(BAND_LABELS) as BandMetric[]) {
    const v = values[m] ?? null;
    const b = fittedBand(m, v);
    if (!b || v === null) continue;
    lines.push(
      `  ${t('sim.band.line', { metric: BAND_LABELS[m], value: shown(v), low: shown(b.low), high: shown(b.high) })}`,
    );
  }
  if (lines.length === 0) return [];
  const n = new Set(Object.values(FITTED_BANDS?.metrics ?? {}).map((q) => q.n)).values().next().value ?? 0;
  return [t('sim.band.head', { n }), ...lines];
}

/** A band as an answer's interval (`report/answer` `AnswerInterval`), or null. */
export function bandInterval(
  metric: BandMetric,
  value: number | null,
  what: string,
  t: T = translator('en'),
): { what: string; low: number; high: number; note: string } | null {
  const b = fittedBand(metric, value);
  if (!b) return null;
  return { what, low: shown(b.low), high: shown(b.high), note: t('sim.band.note') };
}
