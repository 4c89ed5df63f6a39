/**
 * @module cli/commands/common
 * Pieces every command shares: `--json [FILE]` output, threshold lines, exit-code rules.
 */
import { resolve } from 'node:path';
import type { Summary } from '../../analysis/summary.js';
import type { ThresholdResult } from '../../analysis/thresholds.js';
import { ExitCode, type Problem, UsageError, worstExitCode } from '../../core/errors.js';
import { outputPathProblem, writeErrorProblem } from '../../core/output-path.js';
import { withV1, withV1Note } from '../../core/url.js';
import { type T, translator } from '../../i18n/index.js';
import { writeTextFile } from '../../output/write.js';
import { skipNotes, type TraceInfo } from '../../workload/index.js';
import type { Io } from '../io.js';

/** The `--json [FILE]` flag as commander hands it over → `true` (stdout), a file, or null (off). */
export function jsonOption(v: string | boolean | undefined): string | true | null {
  return v === true ? true : typeof v === 'string' ? v : null;
}

/** Write `value` as JSON to stdout (`true`) or to a file (string; its folder is created). */
export async function emitJson(
  json: string | true | null | undefined,
  value: unknown,
  io: Io,
): Promise<void> {
  if (json === null || json === undefined) return;
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (json === true) io.stdout.write(text);
  else await writeOutputFile(resolve(io.cwd, json), text, '--json');
}

/**
 * Write a file the user named with `flag`, creating its folder; a file-system failure is a
 * UsageError naming the flag and the path (a full disk or a permission is not a bug).
 */
export async function writeOutputFile(path: string, text: string, flag: string): Promise<void> {
  try {
    await writeTextFile(path, text);
  } catch (err) {
    const problem = writeErrorProblem(err, path, flag);
    throw problem ? new UsageError([problem]) : err;
  }
}

/**
 * Check output paths before any work (`[path, flag, 'file' | 'dir']`; null paths are skipped,
 * relative ones start from `cwd`), so a path that cannot be written fails at once and not after
 * a measurement. Throws a UsageError with every problem.
 */
export function checkOutputPaths(
  cwd: string,
  paths: readonly (readonly [string | null | undefined | boolean, string, ('file' | 'dir')?])[],
): void {
  const problems: Problem[] = [];
  for (const [path, flag, kind] of paths)
    if (typeof path === 'string') {
      const p = outputPathProblem(resolve(cwd, path), flag, kind ?? 'file');
      if (p) problems.push(p);
    }
  throwIfProblems(problems);
}

/** Where human-readable output goes: stderr when stdout carries JSON. */
export function humanStream(json: string | true | null | undefined, io: Io) {
  return json === true ? io.stderr : io.stdout;
}

/** The threshold results under the summary, in `t`'s language. */
export function formatThresholds(results: readonly ThresholdResult[], t: T = translator('en')): string {
  if (!results.length) return '';
  const n = (v: number) => Number(v.toFixed(4));
  const lines = results.map((r) => {
    const mark = t(r.pass ? 'run.thresholds.pass' : 'run.thresholds.fail');
    const actual = r.actual === null ? t('run.thresholds.no_data') : String(n(r.actual));
    const limit =
      r.limit === null
        ? ''
        : ` ${
            r.baseline !== null
              ? t('run.thresholds.limit_baseline', { limit: n(r.limit), baseline: n(r.baseline) })
              : t('run.thresholds.limit', { limit: n(r.limit) })
          }`;
    return `  ${mark}  ${r.threshold}: ${actual}${limit}${r.reason ? ` — ${r.reason}` : ''}`;
  });
  return `${t('run.thresholds')}\n${lines.join('\n')}\n`;
}

/**
 * Exit code of a finished measurement: 130 > 1 > 4 > 3 > 2 > 0. A run that failed (fail fast: its
 * first requests all failed the same unfixable way; or its server stopped answering mid-run,
 * validity `server_gone`) exits 3, as one where nothing succeeded.
 */
export function measurementExitCode(
  summary: Summary,
  thresholds: readonly ThresholdResult[],
  interrupted: boolean,
  failed = false,
): number {
  const codes: number[] = [];
  if (interrupted) codes.push(ExitCode.interrupted);
  if ((summary.requests.measured > 0 && summary.requests.succeeded === 0) || failed)
    codes.push(ExitCode.nothingSucceeded);
  if (thresholds.some((t) => !t.pass)) codes.push(ExitCode.thresholdFailed);
  return worstExitCode(codes);
}

/** Parse `K:V` header flags. */
export function parseHeaders(
  raw: string[] | undefined,
  problems: Problem[],
  t: T = translator('en'),
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of raw ?? []) {
    const i = h.indexOf(':');
    if (i <= 0) {
      problems.push({
        path: '--header',
        message: t('cli.header.bad', { raw: h.replace(/:.*/, ':…') }),
        hint: t('cli.header.hint'),
      });
      continue;
    }
    out[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return out;
}

/** Parse `--extra-body JSON` into an object. */
export function parseExtraBody(
  raw: string | undefined,
  problems: Problem[],
  t: T = translator('en'),
): Record<string, unknown> | null {
  if (raw === undefined) return null;
  try {
    const v = JSON.parse(raw) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {}
  problems.push({
    path: '--extra-body',
    message: t('cli.extra_body.bad'),
    hint: t('cli.extra_body.hint'),
  });
  return null;
}

/** Parse a base URL flag. */
/**
 * Validate `--url` into the base URL to use: a bare origin gets `/v1` (see {@link withV1}), and
 * then the line saying so is pushed onto `notes` for the command to print on stderr.
 */
export function parseBaseUrl(
  raw: string | undefined,
  problems: Problem[],
  flag = '--url',
  notes: string[] = [],
  t: T = translator('en'),
): string {
  if (!raw) {
    problems.push({
      path: flag,
      message: t('cli.url.required'),
      hint: t('cli.url.required_hint'),
    });
    return '';
  }
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
  } catch {
    problems.push({
      path: flag,
      message: t('cli.url.not_http', { raw }),
      hint: t('cli.url.not_http_hint'),
    });
    return '';
  }
  const base = withV1(raw);
  const note = withV1Note(base, t);
  if (note) notes.push(note);
  return base.url;
}

/** Parse an optional non-negative number flag. */
export function optNumber(
  raw: string | undefined,
  flag: string,
  problems: Problem[],
  opts: { int?: boolean; min?: number } = {},
  t: T = translator('en'),
): number | null {
  if (raw === undefined) return null;
  const v = Number(raw);
  if (!Number.isFinite(v) || (opts.int && !Number.isInteger(v)) || (opts.min !== undefined && v < opts.min)) {
    const what = t(opts.int ? 'cli.num.a_whole_number' : 'cli.num.a_number');
    problems.push({
      path: flag,
      message:
        opts.min !== undefined
          ? t('cli.num.expected_at_least', { what, min: opts.min, raw })
          : t('cli.num.expected', { what, raw }),
      hint: t('cli.num.example', { flag, value: opts.int ? 2 : 30 }),
    });
    return null;
  }
  return v;
}

export function throwIfProblems(problems: Problem[]): void {
  if (problems.length) throw new UsageError(problems);
}

/**
 * What a trace replay read, for the console (empty when the run replays no trace): its format
 * and how it was known, the requests replayed, every skipped row by reason, and the Mooncake
 * blocks built.
 */
export function formatTraceLines(trace: TraceInfo | undefined, t: T): string {
  if (!trace) return '';
  const lines = [
    t('trace.run.line', {
      format: trace.format,
      how: t(trace.detected ? 'trace.how.detected' : 'trace.how.given'),
      kept: trace.requests_kept,
      n: trace.requests_in_file,
    }),
    ...skipNotes(trace.skipped, t),
  ];
  if (trace.block_size !== null && trace.blocks !== null)
    lines.push(t('trace.run.blocks', { blocks: trace.blocks, size: trace.block_size }));
  return `${lines.join('\n')}\n`;
}
