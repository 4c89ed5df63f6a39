/**
 * @module cli/commands/merge
 * `servelab merge --expect N FILES... --out DIR`: flags → pipeline/merge → a line per file.
 */
import { resolve } from 'node:path';
import type { Problem } from '../../core/errors.js';
import { mergeShards } from '../../pipeline/merge.js';
import type { Io } from '../io.js';
import { langOf } from '../options.js';
import { optNumber, throwIfProblems } from './common.js';

export interface RawMerge {
  expect: string;
  out: string;
  exact?: boolean;
  allowMissing?: boolean;
  lang?: string;
}

export async function mergeCommand(files: string[], raw: RawMerge, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(raw.lang, io.env, problems);
  const expect = optNumber(raw.expect, '--expect', problems, { int: true, min: 1 }, t) ?? 0;
  throwIfProblems(problems);
  const { report, files: written } = await mergeShards(
    {
      expect,
      files: files.map((f) => resolve(io.cwd, f)),
      out: resolve(io.cwd, raw.out),
      exact: raw.exact === true,
      allowMissing: raw.allowMissing === true,
    },
    t,
  );
  const r = report.summary.requests;
  io.stdout.write(
    `${t('shard.merge.done', {
      n: report.merge.shards.length,
      expect,
      run_id: report.merge.run_id,
      mode: report.merge.exact ? 'exact' : 'histograms',
      files: written.join(', '),
    })}\n`,
  );
  io.stdout.write(`${t('shard.merge.counts', { ...r, lost: report.summary.outcomes.lost })}\n`);
  for (const w of report.summary.warnings) io.stderr.write(`warning: ${w}\n`);
  return 0;
}
