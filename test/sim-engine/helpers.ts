/**
 * @module test/sim-engine/helpers
 * Builders for planner requests and small statistics used by the engine tests.
 */
import type { RequestRecord } from '../../src/record/types.js';
import { Rng } from '../../src/runtime/rng.js';
import type { PlanRequest } from '../../src/sim/plan.js';

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

export function ttftMs(r: RequestRecord): number {
  return r.first_token_at_ms! - r.planned_at_ms!;
}

/** (last − first token) / (n − 1), ms. */
export function tpotMs(r: RequestRecord): number {
  return (r.last_token_at_ms! - r.first_token_at_ms!) / (r.chunk_times_ms.length - 1);
}

export function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
