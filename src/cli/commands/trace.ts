/**
 * @module cli/commands/trace
 * `servelab trace stats FILE`: read a trace in any format servelab replays (docs/traces.md) and
 * print its rate over time, length distributions, burstiness and prefix sharing, so a user can
 * see whether it fits the planned test; `--html` adds the charts, `--json` the numbers. The
 * math is `analysis/trace-stats`, the rendering `report/trace-stats-page`; this only wires them.
 */
import { basename, resolve } from 'node:path';
import { traceStats } from '../../analysis/trace-stats.js';
import { type Problem, UsageError } from '../../core/errors.js';
import {
  MOONCAKE_BLOCK_SIZE,
  parseTrace,
  readSource,
  readTextFile,
  skipNotes,
} from '../../workload/index.js';
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

export interface RawTraceStats {
  traceFormat?: string;
  traceBlockSize?: string;
  html?: string;
  json?: string | boolean;
  lang?: string;
}

export async function traceStatsCommand(file: string, raw: RawTraceStats, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(raw.lang, io.env, problems);
  const blockSize = raw.traceBlockSize === undefined ? undefined : Number(raw.traceBlockSize);
  if (blockSize !== undefined && !(Number.isInteger(blockSize) && blockSize >= 1))
    problems.push({
      path: '--trace-block-size',
      message: t('trace.block_size.bad', { got: raw.traceBlockSize }),
      hint: t('trace.block_size.hint'),
    });
  throwIfProblems(problems);
  const json = jsonOption(raw.json);
  const html = raw.html ? resolve(io.cwd, raw.html) : null;
  checkOutputPaths(io.cwd, [
    [html, '--html'],
    [json, '--json'],
  ]);
  const path = resolve(io.cwd, file);
  const text = await readSource(path, readTextFile, problems);
  throwIfProblems(problems);
  const parsed = parseTrace(text as string, file, { format: raw.traceFormat, blockSize, t });
  if (parsed.problems.length || !parsed.format) throw new UsageError(parsed.problems);
  if (blockSize !== undefined && parsed.format !== 'mooncake')
    throw new UsageError([
      {
        path: '--trace-block-size',
        message: t('trace.block_size.only_mooncake', { format: parsed.format }),
        hint: t('trace.block_size.hint'),
      },
    ]);
  const stats = traceStats(
    parsed.entries,
    parsed.format === 'mooncake' ? (blockSize ?? MOONCAKE_BLOCK_SIZE) : null,
  );
  const meta = {
    file: basename(file),
    format: parsed.format,
    detected: parsed.detected,
    skipped: skipNotes(parsed.skipped, t),
  };
  const rep = await import('../../report/trace-stats-page.js');
  if (html) await writeOutputFile(html, rep.renderTraceStatsHtml(stats, meta, parsed.entries, t), '--html');
  const result = {
    file,
    format: parsed.format,
    detected: parsed.detected,
    skipped: parsed.skipped,
    ...stats,
  };
  if (json !== true) await emitJson(json, result, io);
  const out = humanStream(json, io);
  out.write(`${rep.traceStatsLines(stats, meta, t).join('\n')}\n`);
  if (html) out.write(`${t('trace.stats.wrote', { file: html })}\n`);
  if (json === true) await emitJson(true, result, io);
  return 0;
}
