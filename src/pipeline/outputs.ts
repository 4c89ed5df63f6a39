/**
 * @module pipeline/outputs
 * The files a measurement leaves under `--out`: `requests.jsonl` as the records arrive, then
 * `report.json`, `summary.csv` and `vllm.json` (`--format vllm`), or, for a shard
 * (`--shard i/N`), its shard report and records file for the merge to read.
 */
import { join } from 'node:path';
import {
  type WriteRunOutputsOptions,
  writeJsonFile,
  writeRunOutputs,
  writeTextFile,
} from '../output/write.js';
import type { RunStepRecord } from '../record/engine-step.js';
import type { RequestRecord } from '../record/types.js';
import { openRecordWriter, type RecordWriter } from '../record/writer.js';
import { RECORDS_FILE, type RunReport } from '../report/run/report.js';
import type { ShardReport } from '../report/run/shard.js';
import type { CommonSettings } from './settings.js';

/** Files under `out` (report.json, requests.jsonl, summary.csv, vllm.json). */
export interface MeasureOutput {
  out: string | null;
  formatVllm: boolean;
  embedRecords: boolean;
  vllm?: CommonSettings['output']['vllm'];
}

/** A shard's file names under `out` (`pipeline/shard` `shardFiles`). */
export interface ShardFileNames {
  report: string;
  records: string;
}

/** `vllm.json`'s writing options from a run's output settings (`--format vllm` and its flags). */
export function vllmWriteOptions(
  output: MeasureOutput | CommonSettings['output'] | undefined,
): Omit<WriteRunOutputsOptions, 'records'> {
  const v = output?.vllm;
  return {
    vllm: output?.formatVllm ?? false,
    vllmOptions: {
      percentileMetrics: v?.percentileMetrics ?? undefined,
      metricPercentiles: v?.metricPercentiles ?? undefined,
      detailed: v?.detailed ?? false,
    },
    vllmFile: v?.file ? { path: v.file, append: v.append } : null,
  };
}

/** The writer of `requests.jsonl` (a shard's records file), or null without `out`. */
export function openRecordsFile(
  outDir: string | null,
  shardNames: ShardFileNames | null,
): RecordWriter | null {
  return outDir ? openRecordWriter(join(outDir, shardNames?.records ?? RECORDS_FILE)) : null;
}

/**
 * Write what the run ends with: a shard's report (a shard), else report.json, summary.csv and
 * vllm.json (also without `out` when vllm.json has a file of its own). Returns the paths written.
 */
export async function writeMeasurementFiles(
  outDir: string | null,
  output: MeasureOutput | undefined,
  report: RunReport,
  records: readonly RequestRecord[],
  shard: { report: ShardReport; names: ShardFileNames } | null,
): Promise<string[]> {
  if (shard) return outDir ? [await writeJsonFile(join(outDir, shard.names.report), shard.report)] : [];
  const writeOptions: WriteRunOutputsOptions = vllmWriteOptions(output);
  return outDir || (writeOptions.vllm && writeOptions.vllmFile)
    ? await writeRunOutputs(outDir, report, { ...writeOptions, records })
    : [];
}

/** The simulator's step timeline of a run (`--record-steps`), one step a line. */
export const STEPS_FILE = 'steps.jsonl';

/** Write `steps.jsonl` under `out`; returns the paths written (none without `out` or steps). */
export async function writeStepsFile(
  outDir: string | null,
  steps: readonly RunStepRecord[] | null,
): Promise<string[]> {
  if (!outDir || !steps?.length) return [];
  return [await writeTextFile(join(outDir, STEPS_FILE), steps.map((s) => `${JSON.stringify(s)}\n`).join(''))];
}
