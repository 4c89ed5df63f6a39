/**
 * @module cli/commands/calibrate
 * `servelab calibrate RUNS… --out profile.yaml`: load the runs as `report` does (run ids,
 * experiment ids with --db, report.json files), name the configuration they were measured on
 * (flags, else the runs' records), fit (`sim/calibrate`), write the profile, print the fit.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LoadedRun } from '../../analysis/loaded-run.js';
import { type Problem, UsageError } from '../../core/errors.js';
import { calibrationProfileYaml, fittedForSchema } from '../../sim/calibrate/calibration-file.js';
import { type CalibrationRun, calibrate } from '../../sim/calibrate/fit.js';
import { formatCalibration } from '../../sim/calibrate/format.js';
import { isVllmResult, vllmResultRun } from '../../sim/calibrate/vllm-result.js';
import { loadCatalogueFile } from '../../sim/catalogue/index.js';
import type { Io } from '../io.js';
import { langOf } from '../options.js';
import {
  checkOutputPaths,
  emitJson,
  humanStream,
  jsonOption,
  throwIfProblems,
  writeOutputFile,
} from './common.js';
import { loadRuns } from './resolve-refs.js';

export interface RawCalibrate {
  out?: string;
  db?: string;
  json?: string | boolean;
  model?: string;
  gpu?: string;
  tp?: string;
  dtype?: string;
  kvCacheDtype?: string;
  engine?: string;
  apiServerCount?: string;
  catalogue?: string;
  lang?: string;
}

/** A file's JSON, or undefined when it is not a readable JSON file (then it is a run reference). */
function readJsonFile(path: string): unknown {
  if (!path.endsWith('.json') || !existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** A part of the runs' records that every run agrees on (a simulated target declares them). */
function fromRecords(runs: readonly LoadedRun[], field: string, part: string): unknown {
  const vals = new Set(runs.map((r) => r.record?.[field]?.value?.[part]).filter((v) => v != null));
  return vals.size === 1 ? [...vals][0] : undefined;
}

export async function calibrateCommand(refs: string[], raw: RawCalibrate, io: Io): Promise<number> {
  const langProblems: Problem[] = [];
  const t = langOf(raw.lang, io.env, langProblems);
  throwIfProblems(langProblems);
  const json = jsonOption(raw.json);
  checkOutputPaths(io.cwd, [
    [raw.out, '--out'],
    [json, '--json'],
  ]);
  // Aggregate result files (`vllm bench serve --save-result`) are read apart: they have no records.
  const aggregates: CalibrationRun[] = [];
  const aggregateProblems: Problem[] = [];
  const recordRefs = refs.filter((ref) => {
    const json = readJsonFile(resolve(io.cwd, ref));
    if (!isVllmResult(json)) return true;
    const r = vllmResultRun(json, ref, t);
    if ('records' in r) aggregates.push(r);
    else aggregateProblems.push(r);
    return false;
  });
  throwIfProblems(aggregateProblems);
  const runs = recordRefs.length ? await loadRuns(recordRefs, { db: raw.db, cwd: io.cwd, t }) : [];
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  // Flags first; else what the runs' records say (a sim target records its model, GPU and tp).
  const simulated = fromRecords(runs, 'device', 'simulated') === true;
  const target = {
    model: raw.model ?? (fromRecords(runs, 'model', 'id') as string | undefined),
    gpu: raw.gpu ?? (simulated ? (fromRecords(runs, 'device', 'gpu') as string | undefined) : undefined),
    tp: num(raw.tp) ?? (simulated ? (fromRecords(runs, 'device', 'count') as number | undefined) : undefined),
    dtype: raw.dtype ?? (simulated ? fromRecords(runs, 'precision', 'weights') : undefined),
    kv_cache_dtype: raw.kvCacheDtype ?? (simulated ? fromRecords(runs, 'precision', 'kv_cache') : undefined),
    engine: raw.engine,
    api_server_count: num(raw.apiServerCount),
  };
  const parsed = fittedForSchema.safeParse(target);
  if (!parsed.success) {
    const problems: Problem[] = parsed.error.issues.map((i) => {
      const key = String(i.path[0] ?? '');
      const flag = `--${key.replace(/_/g, '-')}`;
      return {
        path: flag,
        message:
          (target as Record<string, unknown>)[key] === undefined
            ? t('sim.calibrate.unknown_target', { key })
            : i.message.replace(/^Invalid input: /, ''),
        hint: t('sim.calibrate.name_it', {
          flag,
          example: key === 'gpu' ? 'h100' : key === 'model' ? 'qwen3-8b' : 'VALUE',
        }),
      };
    });
    throw new UsageError(problems);
  }
  const catalogue = raw.catalogue ? loadCatalogueFile(resolve(io.cwd, raw.catalogue)) : undefined;
  const input: CalibrationRun[] = [
    ...runs.map((r) => ({ id: r.id, label: r.label, records: r.records })),
    ...aggregates,
  ];
  const res = calibrate(input, { ...parsed.data, catalogue }, t);
  // Files first, the console after (see reportCommand).
  const wrote: string[] = [];
  if (raw.out) {
    const path = resolve(io.cwd, raw.out);
    await writeOutputFile(path, calibrationProfileYaml(res.profile), '--out');
    wrote.push(t('sim.calibrate.wrote', { path, file: raw.out }));
  }
  if (json !== true) await emitJson(json, res.profile, io);
  const out = humanStream(json, io);
  out.write(`${[...formatCalibration(res, t), ...(wrote.length ? ['', ...wrote] : [])].join('\n')}\n`);
  if (json === true) await emitJson(json, res.profile, io);
  return 0;
}
