/**
 * @module test/sim-engine/helpers
 * Builders for planner requests, and the per-request metrics the engine tests read, taken
 * from `src/analysis/` (the engine is judged by the same definitions as a real server).
 */
import { requestMetrics } from '../../src/analysis/request.js';
import { mean as meanOrNull } from '../../src/analysis/stats.js';
import type { RequestRecord } from '../../src/record/types.js';
import { Rng } from '../../src/runtime/rng.js';
import type { PlanRequest } from '../../src/sim/batch-driver.js';

export interface MakeOpts {
  /** Seed for prompt token ids; requests get distinct prompts unless `samePrompt`. */
  seed?: number;
  samePrompt?: boolean;
  /** Natural output length; default = outputLen (ignore_eos). */
  eosLen?: number;
  prefix?: number[];
  idPrefix?: string;
}

/** `n` requests of `inputLen` prompt tokens and `outputLen` max_tokens. */
export function makeRequests(
  n: number,
  inputLen: number,
  outputLen: number,
  opts: MakeOpts = {},
): PlanRequest[] {
  const rng = new Rng(opts.seed ?? 1);
  const shared = Array.from({ length: inputLen }, () => rng.int(0, 150_000));
  const out: PlanRequest[] = [];
  for (let i = 0; i < n; i++) {
    const body = opts.samePrompt ? shared : Array.from({ length: inputLen }, () => rng.int(0, 150_000));
    const promptIds = opts.prefix
      ? [...opts.prefix, ...body].slice(0, Math.max(inputLen, opts.prefix.length + 1))
      : body;
    const id = `${opts.idPrefix ?? 'r'}${i}`;
    out.push({
      id,
      planned_id: id,
      phase: 'measure',
      index: i,
      spec: { index: i, input_len: inputLen, output_len: outputLen },
      promptIds,
      maxTokens: outputLen,
      eosLen: opts.eosLen ?? outputLen,
    });
  }
  return out;
}

/** A metric the test needs to exist: fails the test when analysis/ cannot compute it. */
function defined(v: number | null | undefined, what: string): number {
  if (v == null) throw new Error(`${what} is not computable`);
  return v;
}

/** `ttft_ms` of a planner record (ms); planned = sent in the closed loops these tests run. */
export function ttftMs(r: RequestRecord): number {
  return defined(requestMetrics(r).ttft_ms, `ttft_ms of ${r.id}`);
}

/** `tpot_ms` of a planner record (ms/token). */
export function tpotMs(r: RequestRecord): number {
  return defined(requestMetrics(r).tpot_ms, `tpot_ms of ${r.id}`);
}

/** Mean of a non-empty list. */
export function mean(xs: number[]): number {
  return defined(meanOrNull(xs), 'the mean of an empty list');
}
