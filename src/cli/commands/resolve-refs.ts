/**
 * @module cli/commands/resolve-refs
 * Resolve what `report`, `diagnose` and `runs` are pointed at: run ids or experiment ids from
 * the store (unique prefixes are fine), `report.json` files (with `requests.jsonl` next to
 * them), or vLLM result files (`vllm bench serve --save-result`, told apart by their shape in
 * report/vllm-result), into loaded runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { EN } from '../../analysis/diagnose/default-lang.js';
import type { LoadedRun } from '../../analysis/loaded-run.js';
import type { Problem } from '../../core/errors.js';
import { UsageError } from '../../core/errors.js';
import { loadedRunFromStore } from '../../dashboard/store-runs.js';
import type { T } from '../../i18n/index.js';
import { STEPS_FILE } from '../../pipeline/outputs.js';
import type { RunStepRecord } from '../../record/engine-step.js';
import type { RequestRecord } from '../../record/types.js';
import { loadedRunFromReport } from '../../report/report-json.js';
import { runReportProblem } from '../../report/run/report.js';
import { loadedRunFromVllmResult, parseRunFile, RUN_FILE_HINT } from '../../report/vllm-result.js';
import { openStore, type Store } from '../../store/index.js';

/** The store at `--db` (default servelab.db), read-only; a missing file is a usage problem in `t`'s language. */
export function openStoreForReading(db: string | undefined, cwd: string, t: T): Store {
  const path = resolve(cwd, db ?? 'servelab.db');
  if (!existsSync(path))
    throw new UsageError([
      {
        path: '--db',
        message: t('cli.refs.no_store', { path }),
        hint: t('cli.refs.no_store_hint'),
      },
    ]);
  return openStore(path, { readonly: true });
}

function readJsonl<R = RequestRecord>(path: string): R[] {
  if (!existsSync(path)) return [];
  // A file cut short (a full disk, a kill) names itself and the line, not report.json.
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((l, i) => {
      if (!l.trim()) return [];
      try {
        return [JSON.parse(l) as R];
      } catch (e) {
        throw new Error(`${path}, line ${i + 1}: ${(e as Error).message}`);
      }
    });
}

/** Load every referenced run; every unknown reference is reported at once. */
export async function loadRuns(
  refs: string[],
  opts: { db?: string; cwd: string; t?: T },
): Promise<LoadedRun[]> {
  const t = opts.t ?? EN;
  if (!refs.length) throw new UsageError([{ message: t('cli.refs.none'), hint: t('cli.refs.see_lists') }]);
  const problems: Problem[] = [];
  const runs: LoadedRun[] = [];
  let store: Store | null = null;
  try {
    for (const ref of refs) {
      const path = resolve(opts.cwd, ref);
      // A path: a .json file, or anything on disk that cannot be an id; a short lower-case name
      // that could be a store id counts as a path only when it is a run's folder (has report.json).
      const isPath =
        ref.endsWith('.json') ||
        (existsSync(path) && (!ref.match(/^[a-z0-9]{1,12}$/) || existsSync(join(path, 'report.json'))));
      if (isPath) {
        const file = existsSync(path) && !path.endsWith('.json') ? join(path, 'report.json') : path;
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          problems.push({
            path: ref,
            message:
              code === 'ENOENT'
                ? t('cli.refs.no_file')
                : t('cli.refs.cannot_read', { error: (err as Error).message }),
            hint: RUN_FILE_HINT,
          });
          continue;
        }
        try {
          const parsed = parseRunFile(text);
          if (parsed.kind === 'vllm') {
            // servelab's own vllm.json: its report.json, when next to it, is the fuller view.
            const sibling = join(dirname(file), 'report.json');
            const own = 'servelab' in parsed.result && existsSync(sibling);
            runs.push(loadedRunFromVllmResult(ref, parsed.result, own ? { reportNextToIt: sibling } : {}));
            continue;
          }
          const report = parsed.report;
          const problem = runReportProblem(report);
          if (problem) throw new Error(problem);
          const run = loadedRunFromReport(
            ref,
            report,
            report.records ?? readJsonl(join(dirname(file), 'requests.jsonl')),
            report.series ? { series: report.series } : {},
          );
          const steps = readJsonl<RunStepRecord>(join(dirname(file), STEPS_FILE));
          if (steps.length) run.steps = steps;
          runs.push(run);
        } catch (err) {
          problems.push({ path: ref, message: (err as Error).message, hint: RUN_FILE_HINT });
        }
        continue;
      }
      store ??= openStoreForReading(opts.db, opts.cwd, t);
      const row = store.getRun(ref);
      if (row) {
        if (!row.summary)
          problems.push({
            path: ref,
            // A row whose writer is gone (SIGKILL, a crash) will never get one: say what is left.
            message: t(row.status === 'running' ? 'cli.refs.no_summary' : 'cli.refs.ended_no_summary', {
              id: row.id,
              status: row.status,
            }),
            hint: t(
              row.status === 'running' ? 'cli.refs.no_summary_hint' : 'cli.refs.ended_no_summary_hint',
              {
                id: row.id,
              },
            ),
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
            message: t('cli.refs.no_runs', { id: exp.id }),
            hint: t('cli.refs.no_runs_hint'),
          });
        for (const r of rows) runs.push(loadedRunFromStore(store, r));
        continue;
      }
      problems.push({
        path: ref,
        message: t('cli.refs.unknown'),
        hint: t('cli.refs.see_lists'),
      });
    }
  } finally {
    store?.close();
  }
  if (problems.length) throw new UsageError(problems);
  return runs;
}
