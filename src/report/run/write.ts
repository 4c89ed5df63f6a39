/**
 * @module report/run/write
 * Writes a run's output folder (`--out DIR`): `report.json`, `summary.csv` and, with
 * `--format vllm`, `vllm.json`. `requests.jsonl` is not written here: the record writer
 * (record/writer) appends it while the run is going.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { summaryToCsv } from './csv.js';
import type { RunReport } from './report.js';
import { toVllmResult } from './vllm.js';

export interface WriteRunOutputsOptions {
  /** Also write `vllm.json` (`--format vllm`). */
  vllm?: boolean;
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
  if (opts.vllm) files.push(['vllm.json', `${JSON.stringify(toVllmResult(report), null, 2)}\n`]);
  const written: string[] = [];
  for (const [name, text] of files) {
    const path = join(dir, name);
    await writeFile(path, text, 'utf8');
    written.push(path);
  }
  return written;
}
