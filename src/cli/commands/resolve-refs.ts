/**
 * @module cli/commands/resolve-refs
 * Resolve what `report`, `diagnose` and `runs` are pointed at: run ids or experiment ids from
 * the store (unique prefixes are fine), or `report.json` files (with `requests.jsonl` next to
 * them), into loaded runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Problem } from '../../core/errors.js';
import { UsageError } from '../../core/errors.js';
import { loadedRunFromStore } from '../../dashboard/store-runs.js';
import type { RequestRecord } from '../../record/types.js';
import { loadedRunFromReport } from '../../report/report-json.js';
import { type RunReport, runReportProblem } from '../../report/run/report.js';
import type { LoadedRun } from '../../report/types.js';
import { openStore, type Store } from '../../store/index.js';

export function openStoreForReading(db: string | undefined, cwd: string): Store {
  const path = resolve(cwd, db ?? 'servelab.db');
  if (!existsSync(path))
    throw new UsageError([
      {
        path: '--db',
        message: `no store at ${path}`,
        hint: 'run `servelab run`, `servelab plan` or `servelab exp run` first, or point --db at the store',
      },
    ]);
  return openStore(path, { readonly: true });
}

function readJsonl(path: string): RequestRecord[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RequestRecord);
}

/** Load every referenced run; every unknown reference is reported at once. */
export async function loadRuns(refs: string[], opts: { db?: string; cwd: string }): Promise<LoadedRun[]> {
  if (!refs.length)
    throw new UsageError([
      {
        message: 'name at least one run, experiment or report.json',
        hint: 'see `servelab runs list` and `servelab exp list`',
      },
    ]);
  const problems: Problem[] = [];
  const runs: LoadedRun[] = [];
  let store: Store | null = null;
  try {
    for (const ref of refs) {
      const path = resolve(opts.cwd, ref);
      if (ref.endsWith('.json') || (existsSync(path) && !ref.match(/^[a-z0-9]{1,12}$/))) {
        try {
          const file = existsSync(path) && !path.endsWith('.json') ? join(path, 'report.json') : path;
          const report = JSON.parse(readFileSync(file, 'utf8')) as RunReport;
          const problem = runReportProblem(report);
          if (problem) throw new Error(problem);
          runs.push(
            loadedRunFromReport(
              ref,
              report,
              report.records ?? readJsonl(join(dirname(file), 'requests.jsonl')),
              report.series ? { series: report.series } : {},
            ),
          );
        } catch (err) {
          problems.push({
            path: ref,
            message: `not a readable servelab report.json (${(err as Error).message})`,
            hint: 'give the report.json that `servelab run --out DIR` writes',
          });
        }
        continue;
      }
      store ??= openStoreForReading(opts.db, opts.cwd);
      const row = store.getRun(ref);
      if (row) {
        if (!row.summary)
          problems.push({
            path: ref,
            message: `run ${row.id} has no summary yet (status ${row.status})`,
            hint: 'wait for it to finish',
          });
        else runs.push(loadedRunFromStore(store, row));
        continue;
      }
      const exp = store.getExperiment(ref);
      if (exp) {
        const rows = store.listRuns({ experimentId: exp.id, order: 'asc' }).filter((r) => r.summary);
        if (!rows.length)
          problems.push({
            path: ref,
            message: `experiment ${exp.id} has no finished runs`,
            hint: 'run it with `servelab exp run`',
          });
        for (const r of rows) runs.push(loadedRunFromStore(store, r));
        continue;
      }
      problems.push({
        path: ref,
        message: 'no such run, experiment or file',
        hint: 'see `servelab runs list` and `servelab exp list`',
      });
    }
  } finally {
    store?.close();
  }
  if (problems.length) throw new UsageError(problems);
  return runs;
}
