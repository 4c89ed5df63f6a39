/**
 * @module sim/server/options
 * Options of `servelab sim` beyond the engine's own flags, with vLLM's names where vLLM has
 * them, and their validation into a resolved form (every problem reported at once).
 */
import { type Problem, UsageError } from '../../core/errors.js';
import type { EngineOptions } from '../engine/config.js';
import { type FaultSpec, parseFaults } from './faults.js';

/** Options of the simulated server. Engine flags (model, gpu, tp, maxNumSeqs, …) pass through. */
export interface SimServerOptions extends EngineOptions {
  /** Interface to listen on, default 127.0.0.1. */
  host?: string;
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Model id served on /v1/models and accepted in requests (`--served-model-name`); default the short name. */
  servedModelName?: string;
  /** Reject with 429 a request that would make the waiting queue longer than this (`--max-waiting`). */
  maxWaiting?: number;
  /** Require `Authorization: Bearer <apiKey>` on /v1/* (`--api-key`). Never logged or echoed. */
  apiKey?: string;
  /** Name of the reasoning delta field: `reasoning_content` (default) or `reasoning` (newer vLLM). */
  reasoningField?: 'reasoning_content' | 'reasoning';
  /** Include `usage.prompt_tokens_details.cached_tokens` (default true; `--no-enable-prompt-tokens-details`). */
  enablePromptTokensDetails?: boolean;
  /** Stamp every chunk with the server's emit time and step, and add `timings` to the final chunk. */
  exposeTimings?: boolean;
  /** Probability (0..1) that a request gets one of `faults`. */
  faultRate?: number;
  /** Faults to draw from: `http500,http429,inband_error,disconnect,stall:MS,truncate,garble`. */
  faults?: string | readonly string[];
  /**
   * Run X times faster than real time (default 1): every engine duration, the frontend overhead
   * and `stall:MS` are divided by X on the wall clock. Engine-side times (metrics, `timings`,
   * logs) stay in simulated ms, so they do not change with X.
   */
  timeScale?: number;
  /** Seed of output lengths, text, ids and faults (default 0). */
  seed?: number;
}

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
}

const SERVER_KEYS = [
  'host',
  'port',
  'servedModelName',
  'maxWaiting',
  'apiKey',
  'reasoningField',
  'enablePromptTokensDetails',
  'exposeTimings',
  'faultRate',
  'faults',
  'timeScale',
  'seed',
] as const;

/** Split options into the server's (validated) and the engine's (validated by the engine). */
export function resolveServerOptions(opts: SimServerOptions): {
  server: ResolvedServerOptions;
  engine: EngineOptions;
} {
  const problems: Problem[] = [];
  const port = opts.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    problems.push({
      path: '--port',
      message: `must be an integer from 0 to 65535, got ${port}`,
      hint: 'e.g. 8000',
    });
  if (opts.maxWaiting !== undefined && !(Number.isInteger(opts.maxWaiting) && opts.maxWaiting >= 0))
    problems.push({
      path: '--max-waiting',
      message: `must be a non-negative integer, got ${opts.maxWaiting}`,
      hint: 'e.g. 64',
    });
  const reasoningField = opts.reasoningField ?? 'reasoning_content';
  if (reasoningField !== 'reasoning_content' && reasoningField !== 'reasoning')
    problems.push({
      path: '--reasoning-field',
      message: `unknown field "${reasoningField}"`,
      hint: 'one of: reasoning_content, reasoning',
    });
  const faultRate = opts.faultRate ?? 0;
  if (typeof faultRate !== 'number' || !(faultRate >= 0 && faultRate <= 1))
    problems.push({
      path: '--fault-rate',
      message: `must be in [0, 1], got ${faultRate}`,
      hint: 'e.g. 0.05',
    });
  let faults: FaultSpec[] = [];
  try {
    faults = opts.faults === undefined ? [] : parseFaults(opts.faults);
  } catch (err) {
    if (err instanceof UsageError) problems.push(...err.problems);
    else throw err;
  }
  if (faultRate > 0 && faults.length === 0)
    problems.push({
      path: '--fault-rate',
      message: 'a fault rate needs a list of faults',
      hint: 'add e.g. --faults http500,disconnect,garble',
    });
  const timeScale = opts.timeScale ?? 1;
  if (typeof timeScale !== 'number' || !Number.isFinite(timeScale) || timeScale <= 0)
    problems.push({
      path: '--time-scale',
      message: `must be a number > 0, got ${timeScale}`,
      hint: 'e.g. 10',
    });
  const seed = opts.seed ?? 0;
  if (!Number.isInteger(seed))
    problems.push({ path: '--seed', message: `must be an integer, got ${seed}`, hint: 'e.g. 1' });
  if (opts.servedModelName !== undefined && opts.servedModelName.trim() === '')
    problems.push({ path: '--served-model-name', message: 'must not be empty', hint: 'e.g. my-model' });
  if (problems.length) throw new UsageError(problems);

  const engine: Record<string, unknown> = { ...opts };
  for (const k of SERVER_KEYS) delete engine[k];
  return {
    server: {
      host: opts.host ?? '127.0.0.1',
      port,
      servedModelName: opts.servedModelName,
      maxWaiting: opts.maxWaiting,
      apiKey: opts.apiKey,
      reasoningField,
      enablePromptTokensDetails: opts.enablePromptTokensDetails ?? true,
      exposeTimings: opts.exposeTimings ?? false,
      faultRate,
      faults,
      timeScale,
      seed,
    },
    engine: engine as unknown as EngineOptions,
  };
}
