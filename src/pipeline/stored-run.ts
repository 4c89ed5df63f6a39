/**
 * @module pipeline/stored-run
 * A run measured off the live path, kept in the store as `measureOn` keeps the runs it measures:
 * its row (config, environment, record), its records, the server's series, its summary, window
 * and status, so that `runs`, `report` and `diagnose` find it by id. `run --workers` stores its
 * merged run with it; experiments, the runs a kind measures on its own path (the voice kind's
 * LLM legs).
 */
import type { RequestRecord } from '../record/types.js';
import type { NewRun, SeriesSample, Store } from '../store/index.js';

/** A finished run and what the store keeps of it. */
export interface FinishedRun {
  /** The run's row: kind, experiment, label, start, config, environment, record. */
  row: NewRun;
  records: readonly RequestRecord[];
  /** The server's scraped series (none: nothing was scraped). */
  series?: readonly SeriesSample[] | null;
  summary: unknown;
  status: 'completed' | 'interrupted';
  /** The measured window; left out: the row's own. */
  window?: unknown;
}

/**
 * Record a finished run in the store.
 * @returns the store's id for the run
 */
export function storeFinishedRun(store: Store, run: FinishedRun): string {
  const row = store.createRun(run.row);
  for (const r of run.records) store.appendRecord(row.id, r);
  if (run.series?.length) store.addSeries(row.id, run.series);
  store.finishRun(row.id, run.summary as never, run.status, run.window as never);
  return row.id;
}
