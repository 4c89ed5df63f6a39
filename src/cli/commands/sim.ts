/**
 * @module cli/commands/sim
 * `servelab sim`: serve the simulated engine until interrupted.
 */
import { ExitCode, type Problem } from '../../core/errors.js';
import { describeEngine } from '../../sim/engine/index.js';
import { startSimServer } from '../../sim/server/index.js';
import type { Io } from '../io.js';
import { langOf } from '../options.js';
import { checkOutputPaths, emitJson, humanStream, jsonOption, throwIfProblems } from './common.js';
import { parseSimFlags, type RawSimFlags } from './sim-flags.js';

export interface RawSim extends RawSimFlags {
  json?: string | boolean;
  /** Deprecated name of `--sim-seed` (`--seed` seeds the workload in `run` and `plan`). */
  seed?: string;
  lang?: string;
}

export async function simCommand(raw: RawSim, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(raw.lang, io.env, problems);
  let flags: RawSimFlags = raw;
  if (raw.seed !== undefined) {
    if (raw.simSeed !== undefined)
      problems.push({
        path: '--seed',
        message: t('cli.sim.seed_both'),
        hint: t('cli.sim.seed_both_hint'),
      });
    else {
      io.stderr.write(`${t('cli.sim.seed_deprecated')}\n`);
      flags = { ...raw, simSeed: raw.seed };
    }
  }
  const opts = parseSimFlags(flags, problems, 'sim', io.cwd, t);
  throwIfProblems(problems);
  const json = jsonOption(raw.json);
  checkOutputPaths(io.cwd, [[json, '--json']]);
  const server = await startSimServer(opts, { log: (line) => io.stderr.write(`${line}\n`) });
  try {
    for (const line of describeEngine(server.config)) io.stderr.write(`${line}\n`);
    // With --json on stdout, stdout carries only the JSON; the ready line moves to stderr.
    // The line a user copies into `--url`: the OpenAI base URL, with /v1. The JSON keeps the
    // server root as `url` (for /metrics) and the same base URL as `base_url`.
    const baseUrl = `${server.url}/v1`;
    humanStream(json, io).write(`${t('sim.listening', { url: baseUrl })}\n`);
    await emitJson(
      json,
      { url: server.url, base_url: baseUrl, port: server.port, model: server.modelId },
      io,
    );
    // SIGTERM (what Kubernetes and systemd send) drains: requests in flight finish, new ones and
    // /health get 503, for at most --drain-timeout. SIGINT (Ctrl-C), or a second signal, stops now.
    await new Promise<void>((resolve) => {
      let draining = false;
      const off = io.onInterrupt((signal) => {
        if (signal === 'SIGTERM' && !draining) {
          draining = true;
          io.stderr.write(`${t('sim.draining')}\n`);
          void server.drain().then(({ idle }) => {
            io.stderr.write(`${t(idle ? 'sim.drained' : 'sim.drain_timeout')}\n`);
            off();
            resolve();
          });
          return;
        }
        off();
        resolve();
      });
    });
  } finally {
    // Also when the --json file cannot be written: a failed command must not leave a server up.
    await server.close();
  }
  io.stderr.write(`${t('sim.stopped')}\n`);
  // Stopped by SIGINT/SIGTERM, the only way a server ends: 130, as for every command.
  return ExitCode.interrupted;
}
