/**
 * @module analysis/stage-summary
 * Per-stage figures of a staged run (`--stages`, `schedule/stages`), as inference-perf reports
 * each stage: a record carries its stage (`RequestRecord.stage`); a record without one (written
 * before the field existed) is placed by its index, since the measured requests are numbered in
 * send order, stage 0's first, so request `index` belongs to the stage whose cumulative count
 * first exceeds it. For each stage: its planned and succeeded requests, its achieved send rate
 * (the summary's `achieved_rate_rps` over the stage's first attempts) and the TTFT and E2E of its
 * successful final attempts (the same per-request metrics as the summary, `analysis/request`).
 * A stage with no success has null figures, never 0.
 */
import type { RequestRecord } from '../record/types.js';
import { e2eMs, ttftMs } from './request.js';
import { describe } from './stats.js';
import { groupAttempts, type StageSummary, sendRate } from './summary.js';

/** The stage of each measured request index, from the stages' request counts. */
export function stageOfIndex(counts: readonly number[], index: number): number {
  let end = 0;
  for (let s = 0; s < counts.length; s++) {
    end += counts[s];
    if (index < end) return s;
  }
  return counts.length - 1;
}

/**
 * Per-stage summaries of a staged run's records.
 * @example stageSummaries(records, [3000, 6000]) // [{ stage: 0, planned: 3000, … }, { stage: 1, … }]
 */
export function stageSummaries(records: readonly RequestRecord[], counts: readonly number[]): StageSummary[] {
  const ttft = counts.map(() => [] as number[]);
  const e2e = counts.map(() => [] as number[]);
  const measured = counts.map(() => 0);
  const succeeded = counts.map(() => 0);
  const sends = counts.map(() => [] as number[]);
  for (const g of groupAttempts(records).values()) {
    const r = g.final;
    if (r.phase !== 'measure') continue;
    const s = Math.min(r.stage ?? stageOfIndex(counts, r.index), counts.length - 1);
    measured[s]++;
    if (g.first.sent_at_ms !== null) sends[s].push(g.first.sent_at_ms);
    if (r.outcome !== 'ok') continue;
    succeeded[s]++;
    const t = ttftMs(r);
    if (t !== undefined) ttft[s].push(t);
    const e = e2eMs(r);
    if (e !== undefined) e2e[s].push(e);
  }
  return counts.map((planned, stage) => ({
    stage,
    planned,
    measured: measured[stage],
    succeeded: succeeded[stage],
    achieved_rate_rps: sendRate(sends[stage]),
    ttft_ms: describe(ttft[stage]),
    e2e_ms: describe(e2e[stage]),
  }));
}
