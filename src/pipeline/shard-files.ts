/**
 * @module pipeline/shard-files
 * Reading the shard reports `run --shard i/N` wrote, for `merge`: each file must parse, be a
 * shard report of this schema and histogram layout, and agree with the others (shard count,
 * run, configuration, schedule, seed); no index may be given twice, and a missing one is
 * refused unless `--allow-missing`. Every problem at once, each with a hint. With `--exact`,
 * a shard's records are read from the requests file beside its report.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { decodeHistogram, HISTOGRAM_LAYOUT, type Histogram, hasLayout } from '../analysis/histogram.js';
import { SUMMARY_METRICS, type SummaryMetric } from '../analysis/summary.js';
import { type Problem, UsageError } from '../core/errors.js';
import type { T } from '../i18n/index.js';
import type { RequestRecord } from '../record/types.js';
import type { ShardReport } from '../report/run/shard.js';

/** A shard report read and checked, with its histograms decoded. */
export interface LoadedShard {
  file: string;
  report: ShardReport;
  histograms: Record<SummaryMetric, Histogram>;
}

/** Read and check the shard files: every problem at once, each with a hint. */
export async function loadShards(
  opts: { expect: number; files: readonly string[]; allowMissing?: boolean },
  t: T,
): Promise<LoadedShard[]> {
  const problems: Problem[] = [];
  if (!(Number.isInteger(opts.expect) && opts.expect >= 1))
    problems.push({
      path: '--expect',
      message: t('shard.merge.expect', { got: String(opts.expect) }),
      hint: t('shard.merge.expectHint'),
    });
  if (opts.files.length === 0)
    problems.push({ message: t('shard.merge.noFiles'), hint: t('shard.merge.noFilesHint') });
  const shards: LoadedShard[] = [];
  for (const file of opts.files) {
    let value: unknown;
    try {
      value = JSON.parse(await readFile(file, 'utf8'));
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      problems.push({ message: t('shard.merge.read', { file, why }), hint: t('shard.merge.notShardHint') });
      continue;
    }
    const why = shardReportProblem(value);
    if (why) {
      problems.push({
        message: t('shard.merge.notShard', { file, why }),
        hint: t('shard.merge.notShardHint'),
      });
      continue;
    }
    const report = value as ShardReport;
    if (JSON.stringify(report.histograms.layout) !== JSON.stringify(HISTOGRAM_LAYOUT)) {
      problems.push({
        message: t('shard.merge.layout', { file, got: JSON.stringify(report.histograms.layout) }),
        hint: t('shard.merge.layoutHint'),
      });
      continue;
    }
    const histograms = {} as Record<SummaryMetric, Histogram>;
    let bad = false;
    for (const k of SUMMARY_METRICS) {
      try {
        histograms[k] = decodeHistogram(report.histograms.metrics[k]);
        if (!hasLayout(histograms[k])) bad = true;
      } catch {
        bad = true;
      }
    }
    if (bad) {
      problems.push({
        message: t('shard.merge.layout', { file, got: 'undecodable' }),
        hint: t('shard.merge.layoutHint'),
      });
      continue;
    }
    shards.push({ file, report, histograms });
  }
  const byIndex = new Map<number, LoadedShard[]>();
  for (const s of shards) {
    const sh = s.report.shard;
    if (sh.count !== opts.expect)
      problems.push({
        message: t('shard.merge.count', {
          file: s.file,
          index: sh.index,
          count: sh.count,
          expect: opts.expect,
        }),
        hint: t('shard.merge.countHint'),
      });
    byIndex.set(sh.index, [...(byIndex.get(sh.index) ?? []), s]);
  }
  for (const [index, list] of [...byIndex].sort(([a], [b]) => a - b))
    if (list.length > 1)
      problems.push({
        message: t('shard.merge.duplicate', { index, files: list.map((s) => s.file).join(', ') }),
        hint: t('shard.merge.duplicateHint'),
      });
  const first = shards[0];
  if (first)
    for (const s of shards.slice(1))
      for (const field of ['run_id', 'config_hash', 'schedule_hash', 'seed', 'planned_total'] as const) {
        const want = first.report.shard[field];
        const got = s.report.shard[field];
        if (got !== want)
          problems.push({
            message: t('shard.merge.mismatch', {
              file: s.file,
              field,
              got: String(got),
              first: first.file,
              want: String(want),
            }),
            hint: t('shard.merge.mismatchHint'),
          });
      }
  const missing = missingShards(shards, opts.expect);
  if (missing.length && !opts.allowMissing && Number.isInteger(opts.expect) && shards.length)
    problems.push({
      message: t('shard.merge.missing', { missing: missing.join(', '), expect: opts.expect }),
      hint: t('shard.merge.missingHint'),
    });
  if (problems.length) throw new UsageError(problems);
  return [...shards].sort((a, b) => a.report.shard.index - b.report.shard.index);
}

/** The shard indices below `expect` that no file gave. */
export function missingShards(shards: readonly LoadedShard[], expect: number): number[] {
  const have = new Set(shards.map((s) => s.report.shard.index));
  const out: number[] = [];
  for (let i = 0; i < expect; i++) if (!have.has(i)) out.push(i);
  return out;
}

/** Why a parsed value is not a shard report this servelab reads, or null. */
export function shardReportProblem(v: unknown): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const r = v as Partial<ShardReport>;
  if (r.kind !== 'shard') return `kind ${JSON.stringify(r.kind)}, not "shard"`;
  if (r.schema_version !== 1)
    return `schema_version ${JSON.stringify(r.schema_version)}; this servelab reads 1`;
  if (!r.shard || typeof r.shard.index !== 'number' || typeof r.shard.count !== 'number')
    return 'no shard block';
  if (!r.histograms?.metrics || !r.totals || !r.summary?.requests) return 'no histograms, totals or summary';
  return null;
}

/** A shard's records (`--exact`), from the requests file next to its report. */
export async function readShardRecords(s: LoadedShard, t: T): Promise<RequestRecord[]> {
  const path = join(dirname(s.file), s.report.records_file);
  try {
    const text = await readFile(path, 'utf8');
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as RequestRecord);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new UsageError([
      { message: t('shard.merge.records', { file: s.file, why }), hint: t('shard.merge.recordsHint') },
    ]);
  }
}
