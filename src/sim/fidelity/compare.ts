/**
 * @module sim/fidelity/compare
 * Runs every row of the fidelity table through the engine (`simulateDetailed`) and compares the
 * simulated number with the measured one. Metrics come from `analysis/` (the same definitions a
 * real run is judged by). Pure: no clock, no I/O.
 */
import { requestMetrics } from '../../analysis/request.js';
import { mean, percentile } from '../../analysis/stats.js';
import { Rng } from '../../runtime/rng.js';
import { arrivalOffsetsMs } from '../../schedule/index.js';
import { type PlanLoad, type PlanRequest, simulateDetailed } from '../batch-driver.js';
import { resolveEngineConfig } from '../engine/config.js';
import { FIDELITY_ROWS, type FidelityRow, type Regime } from './measurements.js';

export interface FidelityResult {
  id: string;
  regime: Regime;
  metric: FidelityRow['metric'];
  measured: number;
  simulated: number;
  /** (simulated − measured) / measured, percent. */
  errorPct: number;
}

export interface RegimeBand {
  regime: Regime;
  rows: number;
  /** Median and largest |error|, percent. */
  medianAbsErrorPct: number;
  maxAbsErrorPct: number;
}

function requestsFor(row: FidelityRow): PlanRequest[] {
  const rng = new Rng(11);
  return Array.from({ length: row.requests }, (_, i) => ({
    id: `f${i}`,
    planned_id: `f${i}`,
    phase: 'measure' as const,
    index: i,
    spec: { index: i, input_len: row.inputLen, output_len: row.outputLen },
    promptIds: Array.from({ length: row.inputLen }, () => rng.int(0, 150_000)),
    maxTokens: row.outputLen,
    eosLen: row.outputLen,
  }));
}

/** Simulate one row and return the number its metric names. */
export function simulateRow(row: FidelityRow): number {
  const cfg = resolveEngineConfig({
    model: row.model,
    gpu: row.gpu,
    tp: row.tp,
    engine: row.engine === 'sglang' ? 'sglang' : 'vllm-v1',
    ...row.flags,
  });
  const load: PlanLoad =
    'concurrency' in row.load
      ? { kind: 'closed', concurrency: row.load.concurrency }
      : {
          kind: 'open',
          arrivalsMs: arrivalOffsetsMs({
            rateRps: row.load.rateRps,
            arrival: 'poisson',
            count: row.requests,
            seed: 1,
          }),
        };
  const res = simulateDetailed(cfg, requestsFor(row), load);
  const ms = res.records.map((r) => requestMetrics(r));
  const pick = (k: 'ttft_ms' | 'tpot_ms') =>
    ms
      .map((m) => m[k])
      .filter((x): x is number => x !== undefined)
      .sort((a, b) => a - b);
  switch (row.metric) {
    case 'ttft_mean':
      return mean(pick('ttft_ms')) ?? Number.NaN;
    case 'ttft_median':
      return percentile(pick('ttft_ms'), 50) ?? Number.NaN;
    case 'tpot_mean':
      return mean(pick('tpot_ms')) ?? Number.NaN;
    case 'tpot_median':
      return percentile(pick('tpot_ms'), 50) ?? Number.NaN;
    case 'output_tps': {
      const tokens = res.records.reduce((s, r) => s + (r.usage?.completion_tokens ?? 0), 0);
      return tokens / (res.durationMs / 1000);
    }
  }
}

/** Every row of {@link FIDELITY_ROWS}, simulated and compared. */
export function runFidelity(rows: readonly FidelityRow[] = FIDELITY_ROWS): FidelityResult[] {
  return rows.map((row) => {
    const simulated = simulateRow(row);
    return {
      id: row.id,
      regime: row.regime,
      metric: row.metric,
      measured: row.measured,
      simulated,
      errorPct: ((simulated - row.measured) / row.measured) * 100,
    };
  });
}

/** Median and max |error| per regime. */
export function bandsOf(results: readonly FidelityResult[]): RegimeBand[] {
  return (['low', 'saturated'] as const).map((regime) => {
    const errs = results
      .filter((r) => r.regime === regime)
      .map((r) => Math.abs(r.errorPct))
      .sort((a, b) => a - b);
    return {
      regime,
      rows: errs.length,
      medianAbsErrorPct: percentile(errs, 50) ?? Number.NaN,
      maxAbsErrorPct: errs.length ? errs[errs.length - 1] : Number.NaN,
    };
  });
}
