/**
 * @module cli/commands/exp
 * `servelab exp run FILE` and `servelab exp rerun ID`: validate the file (every problem at
 * once), run the experiment (starting simulator targets itself), record it in the store and
 * print what the kind computed.
 */
import { resolve } from 'node:path';
import { ExitCode, type Problem, UsageError } from '../../core/errors.js';
import { parseExperiment, readExperimentFile } from '../../exp/index.js';
import { type ExperimentResult, formatExperimentResult, runExperiment } from '../../exp/run-experiment.js';
import { type ExperimentFile, withSeedWritten } from '../../exp/schema.js';
import type { T } from '../../i18n/index.js';
import { openStore, type Store } from '../../store/index.js';
import type { Io } from '../io.js';
import { langOf } from '../options.js';
import { VERSION } from '../version.js';
import { checkOutputPaths, emitJson, humanStream, jsonOption, throwIfProblems } from './common.js';
import { openStoreForReading } from './resolve-refs.js';

type Json = string | boolean | undefined;

/** Notes on a file that still reads as meant (an alias for a setting's key), on stderr. */
const warnTo = (io: Io, t: T) => (message: string) => io.stderr.write(`${t('exp.warning', { message })}\n`);

/** The command's translator (an unknown --lang is a usage error). */
function langFor(lang: string | undefined, io: Io): T {
  const problems: Problem[] = [];
  const t = langOf(lang, io.env, problems);
  throwIfProblems(problems);
  return t;
}

async function execute(
  exp: ExperimentFile,
  file: { path: string; text: string },
  store: Store | null,
  json: Json,
  io: Io,
  t: T,
): Promise<number> {
  const jsonOut = jsonOption(json);
  const out = humanStream(jsonOut, io);
  const ctrl = new AbortController();
  const off = io.onInterrupt(() => ctrl.abort(new Error('interrupted')));
  let result: ExperimentResult;
  try {
    result = await runExperiment(exp, {
      env: io.env,
      log: (line) => io.stderr.write(`${line}\n`),
      store: store ?? undefined,
      signal: ctrl.signal,
      version: VERSION,
      // A seed drawn when the file was read is stored in its text, so a rerun repeats it.
      file: { ...file, text: withSeedWritten(file.text, exp.seed) },
      t,
    });
  } catch (err) {
    if (ctrl.signal.aborted) {
      io.stderr.write(`${t('exp.interrupted')}\n`);
      return ExitCode.interrupted;
    }
    throw err;
  } finally {
    off();
    store?.close();
  }
  // The JSON file before the console (the runs' files and the store are written by now); JSON
  // on stdout after it, as every command.
  if (jsonOut !== true) await emitJson(jsonOut, result, io);
  out.write(formatExperimentResult(result, t));
  if (result.experiment_id) out.write(`\n${t('exp.report_hint', { id: result.experiment_id })}\n`);
  if (jsonOut === true) await emitJson(jsonOut, result, io);
  const succeeded = result.runs.some((r) => {
    const s = r.summary as { requests?: { succeeded?: number } } | null | undefined;
    return (s?.requests?.succeeded ?? 0) > 0;
  });
  if (!succeeded) return ExitCode.nothingSucceeded;
  return result.thresholds_passed ? ExitCode.ok : ExitCode.thresholdFailed;
}

export async function expRunCommand(
  file: string,
  raw: { db?: string | boolean; json?: Json; lang?: string },
  io: Io,
): Promise<number> {
  const t = langFor(raw.lang, io);
  const read = readExperimentFile(resolve(io.cwd, file), warnTo(io, t), t);
  checkOutputPaths(io.cwd, [[jsonOption(raw.json), '--json']]);
  const store =
    raw.db === false ? null : openStore(resolve(io.cwd, typeof raw.db === 'string' ? raw.db : 'servelab.db'));
  return execute(read.spec, { path: read.path, text: read.text }, store, raw.json, io, t);
}

export async function expRerunCommand(
  id: string,
  raw: { db?: string; json?: Json; lang?: string },
  io: Io,
): Promise<number> {
  const t = langFor(raw.lang, io);
  checkOutputPaths(io.cwd, [[jsonOption(raw.json), '--json']]);
  const reader = openStoreForReading(raw.db, io.cwd, t);
  let text: string | null;
  let path: string;
  try {
    const row = reader.getExperiment(id);
    if (!row) throw new UsageError([{ path: id, message: t('exp.no_such'), hint: t('exp.no_such.hint') }]);
    text = row.file_text;
    path = row.file_path ?? `${row.id}.yaml`;
  } finally {
    reader.close();
  }
  if (!text)
    throw new UsageError([
      {
        path: id,
        message: t('exp.no_text'),
        hint: t('exp.no_text.hint'),
      },
    ]);
  const spec = parseExperiment(text, path, warnTo(io, t), t);
  const store = openStore(resolve(io.cwd, raw.db ?? 'servelab.db'));
  return execute(spec, { path, text }, store, raw.json, io, t);
}
