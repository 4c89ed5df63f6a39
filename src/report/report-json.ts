/**
 * @module report/report-json
 * Glue from what a run leaves behind (`report.json` plus its records) to a {@link LoadedRun},
 * and the JSON form of a report (`servelab report --json`). Pure: the caller reads the files.
 */

import { scrapedEngine } from '../analysis/diagnose/engine-terms.js';
import type { Diagnosis } from '../analysis/diagnose/types.js';
import type { LoadedRun } from '../analysis/loaded-run.js';
import type { RequestRecord } from '../record/types.js';
import type { ExperimentAnswer } from './answer.js';
import { type ComparisonRow, comparisonTable, type TableOptions } from './comparison-table.js';
import type { RunReport } from './run/report.js';

/**
 * Wrap a loaded `report.json` as a {@link LoadedRun}.
 * @param id store id or file path
 * @param report the parsed `report.json`
 * @param records the run's records (`requests.jsonl`), or the embedded ones when omitted
 * @param extra label, level, series, experiment record, price…
 */
export function loadedRunFromReport(
  id: string,
  report: RunReport,
  records: RequestRecord[] | undefined,
  extra: Partial<Omit<LoadedRun, 'id' | 'summary' | 'records'>> = {},
): LoadedRun {
  const engine = scrapedEngine(report.monitoring);
  return {
    id,
    label: extra.label ?? id,
    // A hand-edited or foreign report.json may have `config: null`: the rules read it as empty.
    config: report.config ?? {},
    environment: report.environment,
    summary: report.summary,
    records: records ?? report.records ?? [],
    window: report.window,
    ...(engine ? { engine } : {}),
    ...extra,
  };
}

/** `servelab report --json`: the experiment's answer, the verdict, the table rows and the diagnosis. */
export interface ReportJson {
  schema_version: 1;
  kind: 'report';
  /** What the experiment answers (its kind's `answer`); null for runs and files, or a kind without one. */
  answer: ExperimentAnswer | null;
  valid: boolean;
  reasons: Diagnosis['reasons'];
  runs: {
    id: string;
    label: string;
    kind: string | null;
    level: LoadedRun['level'] | null;
    /** Whose metric definitions the run's numbers follow. */
    definitions: 'servelab' | 'vllm';
  }[];
  table: ComparisonRow[];
  findings: Diagnosis['findings'];
  unexplained: Diagnosis['unexplained'];
  /** Checks that could not run on a run's data, with the reason. */
  skipped: Diagnosis['skipped'];
}

/** Build the JSON report (plain data, stable keys). */
export function buildReportJson(
  runs: readonly LoadedRun[],
  diagnosis: Diagnosis,
  opts: TableOptions = {},
  answer: ExperimentAnswer | null = null,
): ReportJson {
  return {
    schema_version: 1,
    kind: 'report',
    answer,
    valid: diagnosis.valid,
    reasons: diagnosis.reasons,
    runs: runs.map((r) => ({
      id: r.id,
      label: r.label,
      kind: r.kind ?? null,
      level: r.level ?? null,
      definitions: r.source?.tool ?? 'servelab',
    })),
    table: comparisonTable(runs, opts),
    findings: diagnosis.findings,
    unexplained: diagnosis.unexplained,
    skipped: diagnosis.skipped,
  };
}
