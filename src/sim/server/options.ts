/**
 * @module sim/server/options
 * The options of `servelab sim` (declared in `sim/settings`) split into the server's and the
 * engine's, and the server's validated into their resolved form (every problem reported at once).
 */
import { UsageError } from '../../core/errors.js';
import { faultProfileEffects, parseFaults } from '../config/faults.js';
import {
  checkSimOptions,
  type EngineOptions,
  type ResolvedServerOptions,
  type SimServerOptions,
  simOptionNames,
  toSimServerOptions,
} from '../settings.js';

/** Options of {@link SimServerOptions} that are not settings (the hooks fault profiles and in-process callers set). */
const HOOK_OPTIONS = ['ignoreJsonSchema', 'emptyToolArgs', 'unstampedChunks'] as const;

/** Split options into the server's (validated) and the engine's (validated by the engine). */
export function resolveServerOptions(opts: SimServerOptions): {
  server: ResolvedServerOptions;
  engine: EngineOptions;
} {
  const settings: Record<string, unknown> = { ...opts, port: opts.port ?? 0 };
  for (const k of HOOK_OPTIONS) delete settings[k];
  const { values: v, problems } = checkSimOptions(settings as unknown as SimServerOptions, 'server');
  if (problems.length) throw new UsageError(problems);
  const engine: Record<string, unknown> = { ...opts };
  for (const k of simOptionNames('server')) delete engine[k];
  for (const k of HOOK_OPTIONS) delete engine[k];
  const server = {
    ...toSimServerOptions(v),
    faults: parseFaults(v.faults ?? []),
  } as unknown as ResolvedServerOptions;
  // A fault profile switches on the options it names (reasoning-renamed = --reasoning-field reasoning).
  const fx = faultProfileEffects(server.faultProfile);
  if (fx.reasoningField) server.reasoningField = fx.reasoningField;
  server.ignoreJsonSchema = opts.ignoreJsonSchema === true || fx.ignoreJsonSchema === true;
  server.emptyToolArgs = opts.emptyToolArgs === true || fx.emptyToolArgs === true;
  server.abortAsSuccess = fx.abortAsSuccess === true;
  server.stampChunks = server.exposeTimings && opts.unstampedChunks !== true;
  return { server, engine: engine as unknown as EngineOptions };
}
