/**
 * @module report/run/write
 * Writes a run's output folder (`--out DIR`): `report.json`, `summary.csv` and, with
 * `--format vllm`, `vllm.json`. `requests.jsonl` is not written here: the record writer
 * (record/writer) appends it while the run is going.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RequestRecord } from '../../record/types.js';
import { summaryToCsv } from './csv.js';
import type { RunReport } from './report.js';
import { toVllmResult, type VllmResultOptions } from './vllm.js';

export interface WriteRunOutputsOptions {
  /** Also write `vllm.json` (`--format vllm`), from these records. */
  vllm?: boolean;
  /** The run's records (needed by `vllm.json`; default the report's embedded ones). */
  records?: readonly RequestRecord[];
  /** `vllm.json`'s percentile metrics, percentiles and per-request arrays. */
  vllmOptions?: VllmResultOptions;
}

/**
 * Write the run's output files into `dir` (created if missing).
 * @returns the paths written, in order
 * @example await writeRunOutputs(outDir, report, { vllm: format === 'vllm' });
 */
export async function writeRunOutputs(
  dir: string,
  report: RunReport,
  opts: WriteRunOutputsOptions = {},
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: [string, string][] = [
    ['report.json', `${JSON.stringify(report, null, 2)}\n`],
    ['summary.csv', summaryToCsv(report.summary)],
  ];
  if (opts.vllm) {
    const v = toVllmResult(report, opts.records ?? report.records ?? [], opts.vllmOptions);
    files.push(['vllm.json', `${JSON.stringify(v, null, 2)}\n`]);
  }
  const written: string[] = [];
  for (const [name, text] of files) {
    const path = join(dir, name);
    await writeFile(path, text, 'utf8');
    written.push(path);
  }
  return written;
}
