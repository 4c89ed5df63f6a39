/**
 * @module cli/commands/sim
 * `servelab sim`: serve the simulated engine until interrupted.
 */
import { ExitCode, type Problem } from '../../core/errors.js';
import { describeEngine } from '../../sim/engine/index.js';
import { startSimServer } from '../../sim/server/index.js';
import type { Io } from '../io.js';
import { emitJson, humanStream, jsonOption, optNumber, throwIfProblems } from './common.js';
import { parseSimFlags, type RawSimFlags } from './sim-flags.js';

export interface RawSim extends RawSimFlags {
  host?: string;
  port?: string;
  servedModelName?: string;
  apiKey?: string;
  maxWaiting?: string;
  reasoningField?: string;
  enablePromptTokensDetails?: boolean;
  exposeTimings?: boolean;
  faultRate?: string;
  faults?: string;
  json?: string | boolean;
  seed?: string;
}

export async function simCommand(raw: RawSim, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const engine = await parseSimFlags({ ...raw, simSeed: raw.seed ?? raw.simSeed }, problems);
  const port = optNumber(raw.port ?? '8000', '--port', problems, { int: true, min: 0 }) ?? 8000;
  const maxWaiting = optNumber(raw.maxWaiting, '--max-waiting', problems, { int: true, min: 0 }) ?? undefined;
  const faultRate = optNumber(raw.faultRate ?? '0', '--fault-rate', problems, { min: 0 }) ?? 0;
  if (faultRate > 1)
    problems.push({ path: '--fault-rate', message: 'is a probability', hint: 'e.g. --fault-rate 0.05' });
  const reasoningField = raw.reasoningField ?? 'reasoning_content';
  if (reasoningField !== 'reasoning_content' && reasoningField !== 'reasoning')
    problems.push({
      path: '--reasoning-field',
      message: `unknown field "${reasoningField}"`,
      hint: 'use reasoning_content (SGLang, older vLLM) or reasoning (vLLM ≥ 0.17)',
    });
  throwIfProblems(problems);
  const server = await startSimServer(
    {
      ...engine,
      host: raw.host ?? '127.0.0.1',
      port,
      servedModelName: raw.servedModelName,
      apiKey: raw.apiKey,
      maxWaiting,
      reasoningField: reasoningField as 'reasoning_content' | 'reasoning',
      enablePromptTokensDetails: raw.enablePromptTokensDetails !== false,
      exposeTimings: !!raw.exposeTimings,
      faultRate,
      faults: raw.faults,
    },
    { log: (line) => io.stderr.write(`${line}\n`) },
  );
  for (const line of describeEngine(server.config)) io.stderr.write(`${line}\n`);
  const json = jsonOption(raw.json);
  // With --json on stdout, stdout carries only the JSON; the ready line moves to stderr.
  humanStream(json, io).write(`listening on ${server.url}\n`);
  await emitJson(
    json,
    { url: server.url, base_url: `${server.url}/v1`, port: server.port, model: server.modelId },
    io,
  );
  await new Promise<void>((resolve) => {
    const off = io.onInterrupt(() => {
      off();
      resolve();
    });
  });
  await server.close();
  io.stderr.write('simulator stopped\n');
  // Stopped by SIGINT/SIGTERM, the only way a server ends: 130, as for every command.
  return ExitCode.interrupted;
}
