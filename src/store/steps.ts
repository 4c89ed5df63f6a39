/**
 * @module store/steps
 * A run's engine step timeline (`--record-steps`; `record/engine-step`) in the store's
 * `engine_steps` table: written once at the end of the run, read by `report` for the timeline
 * and the trace export.
 */
import type { RunStepRecord } from '../record/engine-step.js';
import type { Store } from './store.js';

/** Keep a run's steps (one transaction). */
export function addRunSteps(store: Store, runId: string, steps: readonly RunStepRecord[]): void {
  const run = store.getRun(runId);
  if (!run) throw new Error(`no run ${runId}`);
  const ins = store.db.prepare(
    'INSERT OR REPLACE INTO engine_steps (run_id, step, t_ms, record) VALUES (?, ?, ?, ?)',
  );
  store.db
    .transaction(() => {
      for (const s of steps) ins.run(run.id, s.step, s.t_ms, JSON.stringify(s));
    })
    .immediate();
}

/** A run's steps in step order; empty when it recorded none. */
export function getRunSteps(store: Store, runId: string): RunStepRecord[] {
  const run = store.getRun(runId);
  if (!run) return [];
  const rows = store.db
    .prepare('SELECT record FROM engine_steps WHERE run_id = ? ORDER BY step')
    .all(run.id) as { record: string }[];
  return rows.map((r) => JSON.parse(r.record) as RunStepRecord);
}
