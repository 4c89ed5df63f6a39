/**
 * @module exp/harness/store
 * What an experiment keeps in the store about its runs beyond what `pipeline/measure` writes:
 * the target's record with the run's metrics and quality (handed to `measureOn`, whose store
 * writer merges it into the run's row), and the one row of a run a kind measured on its own path
 * (the voice kind's LLM legs), written by the same writer as `run --workers`' merged run
 * (`pipeline/stored-run`), so that `report EXP` and `runs` find it like any measured run.
 */
import { mean, type Summary } from '../../analysis/index.js';
import { storeFinishedRun } from '../../pipeline/stored-run.js';
import type { RequestRecord } from '../../record/types.js';
import type { Store } from '../../store/index.js';
import { type ExperimentRecord, makeField, setRecordField } from '../experiment-record.js';
import type { RunInfo, StoredRun } from '../kinds/context.js';

const MEASURED = 'probed: measured by servelab in this run';

/**
 * The target's record with this run's `metrics` (TTFT, E2E, TPOT, chunk gaps, the server's token
 * counts) and `quality` (requests, successes, truncations, errors) filled in.
 */
export function runRecord(
  base: ExperimentRecord,
  s: Summary,
  recs: readonly RequestRecord[],
): ExperimentRecord {
  const meanOf = (xs: (number | null | undefined)[]) =>
    mean(xs.filter((x): x is number => typeof x === 'number'));
  const pick = (k: 'ttft_ms' | 'e2e_ms' | 'tpot_ms' | 'itl_ms' | 'max_gap_ms') => ({
    p50: s[k].p50,
    p90: s[k].p90,
    p99: s[k].p99,
    mean: s[k].mean,
  });
  const withMetrics = setRecordField(
    base,
    'metrics',
    makeField({
      ttft_ms: [pick('ttft_ms'), MEASURED],
      e2e_ms: [pick('e2e_ms'), MEASURED],
      tpot_ms: [pick('tpot_ms'), MEASURED],
      itl_ms: [pick('itl_ms'), MEASURED],
      max_gap_ms: [pick('max_gap_ms'), MEASURED],
      output_throughput_tok_s: [s.output_throughput_tok_s, MEASURED],
      server_prompt_tokens_mean: [meanOf(recs.map((r) => r.usage?.prompt_tokens)), 'probed: usage'],
      server_completion_tokens_mean: [meanOf(recs.map((r) => r.usage?.completion_tokens)), 'probed: usage'],
      server_cached_tokens_mean: [meanOf(recs.map((r) => r.usage?.cached_tokens)), 'probed: usage'],
    }),
  );
  return setRecordField(
    withMetrics,
    'quality',
    makeField({
      samples: [s.requests.measured, MEASURED],
      successes: [s.requests.succeeded, MEASURED],
      truncations: [s.outcomes.length, MEASURED],
      errors: [s.requests.failed, MEASURED],
    }),
  );
}

/**
 * Keep a run a kind measured on its own path as one of the experiment's runs: its row (config
 * with the target and level, its verdict), its records and its summary. `virtualClock`: it ran
 * on a virtual clock, so the store dates it by the wall clock, not by its virtual start.
 * @returns the store's id for the run
 */
export function storeOwnRun(
  store: Store,
  experimentId: string | null,
  r: Omit<RunInfo, 'thresholds'>,
  stored: StoredRun,
  virtualClock = false,
): string {
  return storeFinishedRun(store, {
    row: {
      kind: 'exp',
      experimentId,
      label: `${r.target} ${r.label}`,
      startedAtUnixMs: stored.startedAtUnixMs,
      virtualClock,
      config: { ...stored.config, target: r.target, level: r.level } as never,
      record: { validity: { valid: r.validity.length === 0, reasons: r.validity } } as never,
    },
    records: stored.records,
    summary: r.summary,
    status: 'completed',
  });
}
