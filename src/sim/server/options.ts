/**
 * @module sim/server/options
 * Options of `servelab sim` beyond the engine's own flags, and their validation into a
 * resolved form (every problem reported at once).
 */
import { UsageError } from '../../core/errors.js';
import type { EngineOptions } from '../engine/config.js';
import { checkSimOptions, type SimLayerOptions, simOptionNames, toSimServerOptions } from '../settings.js';
import { type FaultSpec, parseFaults } from './faults.js';

/**
 * Options of the simulated server, in camelCase: the engine's (model, gpu, tp, maxNumSeqs, …)
 * and the server's (host, port, maxWaiting, faults, timeScale, seed, …), each a setting of
 * `sim/settings`, which declares its type, range, default and meaning once (docs/sim.md lists
 * them). One default differs: `port` is 0 here (a free port, so in-process servers never
 * collide), 8000 for `servelab sim`.
 */
export interface SimServerOptions extends EngineOptions, Omit<SimLayerOptions<'server'>, 'faults'> {
  /** Faults to draw from: a list, or comma-separated (`http500,stall:2000,garble`). */
  faults?: string | readonly string[];
  /**
   * Misbehaviour hook (for fault profiles): accept `response_format` (still checked, so a bad
   * schema is still a 400) but answer unconstrained text, as an engine without guided decoding
   * would.
   */
  ignoreJsonSchema?: boolean;
  /**
   * Misbehaviour hook (for fault profiles): tool calls are made, but every `arguments` fragment
   * is an empty string (streamed and non-streamed), so the arguments do not parse.
   */
  emptyToolArgs?: boolean;
}

/** The server-only options that are not `sim/settings` settings (hooks set in code). */
const HOOK_OPTIONS = ['ignoreJsonSchema', 'emptyToolArgs'] as const;

/** Server options after validation, with defaults applied. */
export interface ResolvedServerOptions {
  host: string;
  port: number;
  servedModelName?: string;
  maxWaiting?: number;
  apiKey?: string;
  reasoningField: 'reasoning_content' | 'reasoning';
  enablePromptTokensDetails: boolean;
  exposeTimings: boolean;
  faultRate: number;
  faults: FaultSpec[];
  timeScale: number;
  seed: number;
  ignoreJsonSchema: boolean;
  emptyToolArgs: boolean;
}

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
  return {
    server: {
      ...toSimServerOptions(v),
      faults: parseFaults(v.faults ?? []),
      ignoreJsonSchema: opts.ignoreJsonSchema === true,
      emptyToolArgs: opts.emptyToolArgs === true,
    } as ResolvedServerOptions,
    engine: engine as unknown as EngineOptions,
  };
}
