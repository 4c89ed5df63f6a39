/**
 * @module cli/commands/runs
 * `servelab runs list|show|export` and `servelab exp list|init`: read the store, print
 * templates. Exports stream to stdout or a file and are plain enough for DuckDB or pandas.
 */
import { createWriteStream } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { type Problem, UsageError } from '../../core/errors.js';
import { makeDirs, writeErrorProblem } from '../../core/output-path.js';
import { textTable } from '../../core/text-width.js';
import { storedVerdict } from '../../dashboard/index.js';
import { EXPERIMENT_KINDS, experimentTemplate } from '../../exp/index.js';
import { LESSON_NAMES } from '../../exp/lesson-names.js';
import type { T } from '../../i18n/index.js';
import {
  EXPORT_FORMATS,
  type ExportFormat,
  exportRun,
  type LifecycleStatus,
  type RunRow,
} from '../../store/index.js';
import type { Io } from '../io.js';
import { langOf } from '../options.js';
import { checkOutputPaths, emitJson, humanStream, jsonOption, throwIfProblems } from './common.js';
import { openStoreForReading } from './resolve-refs.js';

type Json = string | boolean | undefined;

function iso(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

function num(v: unknown, digits = 1): string {
  return typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '-';
}

/** The stored verdict: valid, NOT VALID with its codes, or `-` when the run was not judged (running, ended early). */
function verdictOf(r: RunRow, t: T): string {
  const v = storedVerdict(r);
  if (v === null) return '-';
  return v.valid
    ? t('dashboard.verdict.valid')
    : t('dashboard.verdict.invalid', { codes: [...new Set(v.reasons.map((x) => x.code))].join(', ') });
}

/** A run's or an experiment's status, as the dashboard words it. */
const statusText = (s: LifecycleStatus, t: T): string => t(`dashboard.status.${s}`);

/** One run's cells, for `runs list` and `runs show`. */
function runCells(r: RunRow, t: T): string[] {
  const s = (r.summary ?? {}) as Record<string, Record<string, unknown> | number>;
  const ttft = (s.ttft_ms as Record<string, unknown> | undefined)?.p50;
  const req = (s.requests as Record<string, unknown> | undefined) ?? {};
  return [
    r.id,
    t(`cli.runs.kind.${r.kind}`),
    statusText(r.status, t),
    verdictOf(r, t),
    // The wall-clock start: a virtual-clock run's own origin is virtual time (1970).
    iso(r.wall_started_at_unix_ms),
    `${String(req.succeeded ?? '-').padStart(5)}/${String(req.measured ?? r.records)}`,
    t('cli.runs.ttft_p50', { ms: num(ttft) }),
    `${num(s.output_throughput_tok_s as number)} tok/s`,
    r.label ?? '',
  ];
}

/** Runs as lines whose columns line up in display columns (a Chinese status or verdict is two wide a character). */
function runLines(runs: readonly RunRow[], t: T): string[] {
  return textTable(
    null,
    runs.map((r) => runCells(r, t)),
    { trimEnd: true, left: true },
  );
}

export async function runsCommand(
  action: string,
  args: string[],
  raw: { db?: string; json?: Json; format?: string; out?: string; lang?: string },
  io: Io,
): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(raw.lang, io.env, problems);
  throwIfProblems(problems);
  const json = jsonOption(raw.json);
  const out = humanStream(json, io);
  checkOutputPaths(io.cwd, [[json, '--json']]);
  if (action === 'list') {
    const store = openStoreForReading(raw.db, io.cwd, t);
    try {
      const runs = store.listRuns({ order: 'desc' });
      // Without the bulky JSON columns; the verdict from the record, as the dashboard lists it.
      const rows = runs.map((run) => {
        const { config, environment, record, ...r } = run;
        return { ...r, verdict: storedVerdict(run) };
      });
      // A --json file before the console, JSON on stdout after it (as every command).
      if (json !== true) await emitJson(json, rows, io);
      out.write(runs.length ? `${runLines(runs, t).join('\n')}\n` : `${t('cli.runs.none')}\n`);
      if (json === true) await emitJson(json, rows, io);
    } finally {
      store.close();
    }
    return 0;
  }
  const id = args[0];
  if (!id)
    throw new UsageError([
      { path: `runs ${action}`, message: t('cli.runs.needs_id'), hint: t('cli.runs.needs_id_hint') },
    ]);
  const store = openStoreForReading(raw.db, io.cwd, t);
  try {
    const run = store.getRun(id);
    if (!run)
      throw new UsageError([
        {
          path: id,
          message: t('cli.runs.no_such'),
          hint: t('cli.runs.no_such_hint'),
        },
      ]);
    if (action === 'show') {
      if (json !== true) await emitJson(json, run, io);
      out.write(`${runLines([run], t)[0]}\n`);
      out.write(
        `${JSON.stringify({ config: run.config, summary: run.summary, window: run.window }, null, 2)}\n`,
      );
      if (json === true) await emitJson(json, run, io);
      return 0;
    }
    if (action === 'export') {
      const format = (raw.format ?? 'jsonl') as ExportFormat;
      if (!EXPORT_FORMATS.includes(format))
        throw new UsageError([
          {
            path: '--format',
            message: t('cli.runs.unknown_format', { format: String(raw.format) }),
            hint: t('cli.runs.unknown_format_hint', { formats: EXPORT_FORMATS.join(', ') }),
          },
        ]);
      if (raw.out) {
        const path = resolve(io.cwd, raw.out);
        checkOutputPaths(io.cwd, [[path, '--out']]);
        try {
          await makeDirs(dirname(path));
          const file = createWriteStream(path);
          // An open or write error (a full disk) is emitted on the stream: reject with it.
          const failed = new Promise<never>((_, rej) => file.once('error', rej));
          failed.catch(() => {});
          await Promise.race([exportRun(store, run.id, format, file), failed]);
          await new Promise<void>((res, rej) => file.end((err?: Error | null) => (err ? rej(err) : res())));
        } catch (err) {
          const problem = writeErrorProblem(err, path, '--out');
          throw problem ? new UsageError([problem]) : err;
        }
        io.stderr.write(`${t('cli.runs.wrote', { path })}\n`);
      } else {
        const sink = new Writable({
          write(chunk: Buffer | string, _enc, cb) {
            io.stdout.write(chunk.toString());
            cb();
          },
        });
        await exportRun(store, run.id, format, sink);
      }
      return 0;
    }
  } finally {
    store.close();
  }
  throw new UsageError([
    {
      path: `runs ${action}`,
      message: t('cli.runs.unknown_action'),
      hint: t('cli.runs.unknown_action_hint'),
    },
  ]);
}

export async function expInitCommand(
  kind: string | undefined,
  file: string | undefined,
  io: Io,
  opts: { force?: boolean; lang?: string; url?: string[] } = {},
): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(opts.lang, io.env, problems);
  throwIfProblems(problems);
  if (!kind || !([...EXPERIMENT_KINDS, ...LESSON_NAMES] as readonly string[]).includes(kind))
    throw new UsageError([
      {
        path: 'exp init',
        message: kind ? t('exp.init.unknown_kind', { kind }) : t('exp.init.needs_kind'),
        hint: t('exp.init.kinds_hint', { kinds: [...EXPERIMENT_KINDS, ...LESSON_NAMES].join(', ') }),
      },
    ]);
  const text = experimentTemplate(kind, t, opts.url ?? []);
  if (!file) {
    io.stdout.write(text);
    return 0;
  }
  const path = resolve(io.cwd, file);
  try {
    // 'wx' fails with EEXIST when the file is there, so an edited file is never replaced
    // unless asked (the check and the write are one system call, no race).
    await writeFile(path, text, { flag: opts.force ? 'w' : 'wx' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const isDir = code === 'EISDIR' || (code === 'EEXIST' && (await stat(path)).isDirectory());
    throw new UsageError([
      isDir
        ? { path: 'exp init', message: t('exp.init.is_dir', { path }), hint: t('exp.init.is_dir_hint') }
        : code === 'EEXIST'
          ? { path: 'exp init', message: t('exp.init.exists', { path }), hint: t('exp.init.exists_hint') }
          : {
              path: 'exp init',
              message: t('exp.init.cannot_write', { path, error: (err as Error).message }),
              hint: t('exp.init.cannot_write_hint'),
            },
    ]);
  }
  io.stderr.write(`${t('exp.init.wrote', { path, file })}\n`);
  return 0;
}

export async function expListCommand(
  raw: { db?: string; json?: Json; lang?: string },
  io: Io,
): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(raw.lang, io.env, problems);
  throwIfProblems(problems);
  const json = jsonOption(raw.json);
  checkOutputPaths(io.cwd, [[json, '--json']]);
  const store = openStoreForReading(raw.db, io.cwd, t);
  try {
    const exps = store.listExperiments().reverse(); // newest first, as `runs list`
    const lines = textTable(
      null,
      exps.map((e) => [
        e.id,
        e.kind,
        statusText(e.status, t),
        iso(e.created_at_unix_ms),
        t('cli.exps.runs', { n: String(store.listRuns({ experimentId: e.id }).length).padStart(3) }),
        e.name,
      ]),
      { trimEnd: true, left: true },
    );
    const rows = exps.map(({ file_text, spec, record, ...e }) => e);
    if (json !== true) await emitJson(json, rows, io);
    humanStream(json, io).write(lines.length ? `${lines.join('\n')}\n` : `${t('cli.exps.none')}\n`);
    if (json === true) await emitJson(json, rows, io);
  } finally {
    store.close();
  }
  return 0;
}
