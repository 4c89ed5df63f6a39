/**
 * @module sim/server/faults
 * Fault injection for the simulator (`--fault-rate P --faults http500,http429,inband_error,
 * disconnect,stall:MS,truncate,garble`): drawing, per request, whether a fault strikes, which
 * one, and at which output token (the list's grammar and the fault profiles are configuration:
 * `sim/config/faults`). Draws are seeded by (server seed, request sequence number), so a run
 * with the same seed and order injects the same faults.
 */
import { Rng } from '../../runtime/rng.js';
import type { FaultSpec } from '../config/faults.js';

/** A fault drawn for one request: what, and at which output token index it strikes. */
export interface DrawnFault extends FaultSpec {
  /** 0-based output token index at which the fault acts (mid-stream faults); 0 for HTTP faults. */
  atToken: number;
}

/**
 * Decide the fault of request number `seq` (0-based arrival order): with probability
 * `faultRate` one of `faults`, uniformly; the mid-stream position is uniform over the tokens the
 * request is expected to produce. `garble` strikes within the first half so that short answers
 * are visibly corrupted too.
 */
export function drawFault(
  seed: number,
  seq: number,
  faultRate: number,
  faults: readonly FaultSpec[],
  expectedTokens: number,
): DrawnFault | undefined {
  if (faultRate <= 0 || faults.length === 0) return undefined;
  const rng = new Rng(seed).fork(`fault:${seq}`);
  if (rng.next() >= faultRate) return undefined;
  const spec = faults[rng.int(0, faults.length - 1)];
  const n = Math.max(1, expectedTokens);
  const atToken = spec.kind === 'garble' ? rng.int(0, Math.floor((n - 1) / 2)) : rng.int(0, n - 1);
  return { ...spec, atToken };
}

/**
 * Share of requests the engine aborts mid-stream under `abort-as-success` (seeded per request):
 * enough for a run of a few dozen requests to show the bug, few enough to look like a healthy
 * server at a glance.
 */
export const ABORT_AS_SUCCESS_RATE = 0.1;

/**
 * Under `abort-as-success`: the output token index at which the engine aborts request `seq`, or
 * undefined when it runs to its end. Seeded like the faults, on its own stream.
 */
export function drawEngineAbort(seed: number, seq: number, expectedTokens: number): number | undefined {
  const rng = new Rng(seed).fork(`abort-as-success:${seq}`);
  if (rng.next() >= ABORT_AS_SUCCESS_RATE) return undefined;
  // At least one token first, so the stream has begun when it is cut.
  const n = Math.max(2, expectedTokens);
  return rng.int(1, n - 1);
}
