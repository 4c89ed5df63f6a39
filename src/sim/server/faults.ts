/**
 * @module sim/server/faults
 * Fault injection for the simulator (`--fault-rate P --faults http500,http429,inband_error,
 * disconnect,stall:MS,truncate,garble`): parsing the list and drawing, per request, whether a
 * fault strikes, which one, and at which output token. Draws are seeded by (server seed,
 * request sequence number), so a run with the same seed and order injects the same faults.
 */
import { type Problem, UsageError } from '../../core/errors.js';
import { Rng } from '../../runtime/rng.js';

export type FaultKind =
  | 'http500'
  | 'http429'
  | 'inband_error'
  | 'disconnect'
  | 'stall'
  | 'truncate'
  | 'garble';

export const FAULT_KINDS: readonly FaultKind[] = [
  'http500',
  'http429',
  'inband_error',
  'disconnect',
  'stall',
  'truncate',
  'garble',
];

/** The fault kinds as a list names them (`stall` takes its pause: `stall:MS`). */
export const FAULT_FORMS: readonly string[] = FAULT_KINDS.map((k) => (k === 'stall' ? 'stall:MS' : k));

/** One configured fault. `stallMs` (engine ms, so it shrinks with --time-scale) only for `stall`. */
export interface FaultSpec {
  kind: FaultKind;
  stallMs?: number;
}

/** A fault drawn for one request: what, and at which output token index it strikes. */
export interface DrawnFault extends FaultSpec {
  /** 0-based output token index at which the fault acts (mid-stream faults); 0 for HTTP faults. */
  atToken: number;
}

/**
 * Parse a fault list such as `http500,stall:2000,garble`. Throws {@link UsageError} listing
 * every bad entry at once.
 */
export function parseFaults(list: string | readonly string[]): FaultSpec[] {
  const items = (typeof list === 'string' ? list.split(',') : list).map((s) => s.trim()).filter(Boolean);
  const out: FaultSpec[] = [];
  const problems: Problem[] = [];
  for (const item of items) {
    const [name, arg] = item.split(':', 2);
    if (!(FAULT_KINDS as readonly string[]).includes(name)) {
      problems.push({
        path: '--faults',
        message: `unknown fault "${item}"`,
        hint: `use a comma-separated list of ${FAULT_FORMS.join(', ')}`,
      });
      continue;
    }
    if (name === 'stall') {
      const ms = Number(arg);
      if (arg === undefined || !Number.isFinite(ms) || ms <= 0) {
        problems.push({
          path: '--faults',
          message: `"${item}" needs a positive pause in ms`,
          hint: 'write it as stall:MS, e.g. stall:2000',
        });
        continue;
      }
      out.push({ kind: 'stall', stallMs: ms });
    } else if (arg !== undefined) {
      problems.push({
        path: '--faults',
        message: `"${item}" takes no argument`,
        hint: `write it as ${name}`,
      });
    } else {
      out.push({ kind: name as FaultKind });
    }
  }
  if (problems.length) throw new UsageError(problems);
  return out;
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
