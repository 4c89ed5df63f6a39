/**
 * @module cli/commands/check
 * `servelab check`: probe an endpoint and print what works, with a hint for every problem.
 */
import { formatCheck, runCheck } from '../../client/check.js';
import { ExitCode, type Problem } from '../../core/errors.js';
import { RealClock } from '../../runtime/clock.js';
import type { Io } from '../io.js';
import { langOf } from '../options.js';
import {
  checkOutputPaths,
  emitJson,
  humanStream,
  jsonOption,
  parseBaseUrl,
  throwIfProblems,
} from './common.js';

export interface RawCheck {
  url?: string;
  model?: string;
  apiKeyEnv?: string;
  json?: string | boolean;
  lang?: string;
}

export async function checkCommand(raw: RawCheck, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const notes: string[] = [];
  const t = langOf(raw.lang, io.env, problems);
  const baseUrl = parseBaseUrl(raw.url, problems, '--url', notes, t);
  throwIfProblems(problems);
  for (const line of notes) io.stderr.write(`${line}\n`);
  const apiKeyEnv = raw.apiKeyEnv ?? 'INFERENCE_API_KEY';
  const json = jsonOption(raw.json);
  checkOutputPaths(io.cwd, [[json, '--json']]);
  const result = await runCheck({
    baseUrl,
    model: raw.model,
    apiKey: io.env[apiKeyEnv] || undefined,
    apiKeyEnv,
    clock: new RealClock(),
    t,
  });
  if (json !== true) await emitJson(json, result, io);
  humanStream(json, io).write(formatCheck(result, t));
  if (json === true) await emitJson(json, result, io);
  if (!result.reachable) return ExitCode.nothingSucceeded;
  return result.ok ? ExitCode.ok : ExitCode.nothingSucceeded;
}
