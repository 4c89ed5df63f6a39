/**
 * @module cli/commands/dashboard
 * `servelab dashboard`: serve the live local dashboard over the store until interrupted.
 */
import { resolve } from 'node:path';
import type { Problem } from '../../core/errors.js';
import { ExitCode } from '../../core/errors.js';
import { serveDashboard } from '../../dashboard/index.js';
import type { Io } from '../io.js';
import { langOf } from '../options.js';
import { optNumber, throwIfProblems } from './common.js';

export async function dashboardCommand(
  raw: { db?: string; port?: string; host?: string; lang?: string },
  io: Io,
): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(raw.lang, io.env, problems);
  const port = optNumber(raw.port ?? '8600', '--port', problems, { int: true, min: 0 }, t) ?? 8600;
  throwIfProblems(problems);
  // The experiment page leads with the kind's answer; the kinds live in exp/, beside the dashboard.
  const { experimentAnswer } = await import('../../exp/run-experiment.js');
  await serveDashboard(
    {
      dbPath: resolve(io.cwd, raw.db ?? 'servelab.db'),
      port,
      host: raw.host ?? '127.0.0.1',
      t,
      answerOf: experimentAnswer,
      log: (l) => io.stdout.write(`${l}\n`),
    },
    io.onInterrupt,
  );
  // Ended by SIGINT/SIGTERM, the only way a server stops: 130, as for every command.
  return ExitCode.interrupted;
}
