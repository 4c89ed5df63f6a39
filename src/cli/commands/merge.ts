/**
 * @module cli/commands/merge
 * `servelab merge --expect N FILES... --out DIR`: flags → pipeline/merge → a line per file.
 */
import { resolve } from 'node:path';
import { asStorageError, type Problem, UsageError } from '../../core/errors.js';
import { writeErrorProblem } from '../../core/output-path.js';
import { mergeShards } from '../../pipeline/merge.js';
import type { Io } from '../io.js';
import { langOf } from '../options.js';
import { checkOutputPaths, emitJson, humanStream, jsonOption, optNumber, throwIfProblems } from './common.js';

export interface RawMerge {
  expect: string;
  out: string;
  exact?: boolean;
  allowMissing?: boolean;
  lang?: string;
  json?: string | boolean;
}

export async function mergeCommand(files: string[], raw: RawMerge, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(raw.lang, io.env, problems);
  const expect = optNumber(raw.expect, '--expect', problems, { int: true, min: 1 }, t) ?? 0;
  throwIfProblems(problems);
  const json = jsonOption(raw.json);
  const out = resolve(io.cwd, raw.out);
  // An --out that cannot be written fails before the shards are read, not with a stack after.
  checkOutputPaths(io.cwd, [
    [raw.out, '--out', 'dir'],
    [json, '--json'],
  ]);
  const merged = await mergeShards(
    {
      expect,
      files: files.map((f) => resolve(io.cwd, f)),
      out,
      exact: raw.exact === true,
      allowMissing: raw.allowMissing === true,
    },
    t,
  ).catch((err: unknown) => {
    // A full disk or read-only mount is a storage error (exit 4); any other file-system failure
    // (a file on the way, a folder that vanished) names --out; anything else is a bug.
    const storage = asStorageError(err, out);
    if (storage) throw storage;
    const problem = writeErrorProblem(err, out, '--out');
    throw problem ? new UsageError([problem]) : err;
  });
  const { report, files: written } = merged;
  if (json !== true) await emitJson(json, report, io);
  const human = humanStream(json, io);
  const r = report.summary.requests;
  human.write(
    `${t('shard.merge.done', {
      n: report.merge.shards.length,
      expect,
      run_id: report.merge.run_id,
      mode: report.merge.exact ? 'exact' : 'histograms',
      files: written.join(', '),
    })}\n`,
  );
  human.write(`${t('shard.merge.counts', { ...r, lost: report.summary.outcomes.lost })}\n`);
  for (const w of report.summary.warnings) io.stderr.write(`warning: ${w}\n`);
  if (json === true) await emitJson(json, report, io);
  return 0;
}
