/**
 * @module sim/server/options
 * Options of `servelab sim` beyond the engine's own flags, and their validation into a
 * resolved form (every problem reported at once).
 */
import { UsageError } from '../../core/errors.js';
import type { EngineOptions } from '../engine/config.js';
import { checkSimOptions, type SimLayerOptions, simOptionNames, toSimServerOptions } from '../settings.js';
import { type FaultProfile, type FaultSpec, faultProfileEffects, parseFaults } from './faults.js';

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
   * Accept `response_format: json_schema` and ignore it (the structured-output code reads it);
   * also set by `faultProfile: 'ignore-json-schema'`. Not a setting of its own: a fault profile.
   */
  ignoreJsonSchema?: boolean;
  /**
   * Send tool calls with empty arguments (the tool-call code reads it); also set by
   * `faultProfile: 'empty-tool-args'`. Not a setting of its own: a fault profile.
   */
  emptyToolArgs?: boolean;
}

/** Options of {@link SimServerOptions} that are not settings (the hooks fault profiles set). */
const HOOK_OPTIONS = ['ignoreJsonSchema', 'emptyToolArgs'] as const;

/** Server options after validation, with defaults applied. */
export interface ResolvedServerOptions {
  host: string;
  port: number;
  servedModelName?: string;
  maxWaiting?: number;
  apiKey?: string;
  reasoningField: 'reasoning_content' | 'reasoning';
  /** Whose context-length errors: vLLM's (default) or llama.cpp's. */
  contextError: 'vllm' | 'llamacpp';
  enablePromptTokensDetails: boolean;
  exposeTimings: boolean;
  faultRate: number;
  faults: FaultSpec[];
  faultProfile?: FaultProfile;
  /** See {@link SimServerOptions.ignoreJsonSchema}. */
  ignoreJsonSchema: boolean;
  /** See {@link SimServerOptions.emptyToolArgs}. */
  emptyToolArgs: boolean;
  /** `abort-as-success`: a seeded share of streams is aborted by the engine and ends with finish_reason "abort" + [DONE]. */
  abortAsSuccess: boolean;
  /** Answer the gate's fixed questions right with this probability (`--answer-accuracy`); unset: pseudo-text. */
  answerAccuracy?: number;
  /** Largest request body, bytes (413 above). */
  maxBodyBytes: number;
  /** How long a drain waits for requests in flight, wall seconds. */
  drainTimeout: number;
  timeScale: number;
  seed: number;
  /** Pseudo-text sentences of this many words on average (0: none). */
  sentenceWords: number;
  /** The audio endpoints' costs (`sim/server/audio`). */
  asrFixedMs: number;
  asrRtf: number;
  asrGpu: 'colocated' | 'separate';
  ttsFirstByteMs: number;
  ttsRtf: number;
  ttsChunkMs: number;
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
  return { server, engine: engine as unknown as EngineOptions };
}
