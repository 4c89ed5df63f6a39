/**
 * @module output/write
 * Writes a run's output folder (`--out DIR`): `report.json`, `summary.csv` and, with
 * `--format vllm`, `vllm.json`. What goes in each file is built by the pure builders of
 * `report/run` (report, csv, vllm); this module only puts it on disk. `requests.jsonl` is not
 * written here: the record writer (record/writer) appends it while the run is going.
 */
import { appendFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { makeDirs } from '../core/output-path.js';
import { redactText } from '../core/redact.js';
import type { RequestRecord } from '../record/types.js';
import { summaryToCsv } from '../report/run/csv.js';
import type { RunReport } from '../report/run/report.js';
import { toVllmResult, type VllmResultOptions } from '../report/run/vllm.js';

export interface WriteRunOutputsOptions {
  /** Also write `vllm.json` (`--format vllm`), from these records. */
  vllm?: boolean;
  /** The run's records (needed by `vllm.json`; default the report's embedded ones). */
  records?: readonly RequestRecord[];
  /** `vllm.json`'s percentile metrics, percentiles and per-request arrays. */
  vllmOptions?: VllmResultOptions;
  /**
   * Where `vllm.json` goes instead of `dir/vllm.json` (vLLM's `--result-filename`, SGLang's
   * `--output-file`); with `append`, one JSON line is added to it, as SGLang's bench_serving does.
   */
  vllmFile?: { path: string; append: boolean } | null;
}

/**
 * Write the run's output files into `dir` (created if missing).
 * @returns the paths written, in order
 * @example await writeRunOutputs(outDir, report, { vllm: format === 'vllm' });
 */
export async function writeRunOutputs(
  dir: string | null,
  report: RunReport,
  opts: WriteRunOutputsOptions = {},
): Promise<string[]> {
  const files: [string, string][] = dir
    ? [
        [join(dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`],
        [join(dir, 'summary.csv'), summaryToCsv(report.summary)],
      ]
    : [];
  let append: [string, string] | null = null;
  if (opts.vllm) {
    const v = toVllmResult(report, opts.records ?? report.records ?? [], opts.vllmOptions);
    if (opts.vllmFile?.append) append = [opts.vllmFile.path, `${JSON.stringify(v)}\n`];
    else if (opts.vllmFile || dir)
      files.push([
        opts.vllmFile?.path ?? join(dir as string, 'vllm.json'),
        `${JSON.stringify(v, null, 2)}\n`,
      ]);
  }
  const written: string[] = [];
  for (const [path, text] of files) written.push(await writeTextFile(path, text));
  if (append) {
    await makeDirs(dirname(append[0]));
    await appendFile(append[0], redactText(append[1]), 'utf8');
    written.push(append[0]);
  }
  return written;
}

/** Write one JSON file (pretty, with a final newline), creating its folder; returns the path. */
export async function writeJsonFile(path: string, value: unknown): Promise<string> {
  return writeTextFile(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * The one way servelab writes an output file: its folder created, the text passed through the
 * redaction (core/redact `redactText`), written to a temporary name beside it and renamed over
 * `path`, so a full disk or a kill leaves the old file or none, never half a report. On a failure
 * the temporary file is removed and the error rethrown (the caller turns it into a problem).
 * @returns `path`
 */
export async function writeTextFile(path: string, text: string): Promise<string> {
  await makeDirs(dirname(path));
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    await writeFile(tmp, redactText(text), 'utf8');
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => {});
    // The error names the file the user asked for, not the temporary one.
    if (err && typeof err === 'object') Object.assign(err, { path });
    throw err;
  }
  return path;
}
