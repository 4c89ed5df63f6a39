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

/**
 * Fault profiles (`--fault-profile NAME`): each reproduces a bug a real engine upgrade brought,
 * so that a gate can be shown to catch it. docs/sim.md lists them with the tracker issue of each.
 * - `reasoning-renamed`: reasoning arrives in `reasoning`, not `reasoning_content`
 *   (vllm-project/vllm#27752; clients broke: BerriAI/litellm#26501).
 * - `ignore-json-schema`: `response_format: json_schema` is accepted and ignored
 *   (vllm-project/vllm#12692).
 * - `empty-tool-args`: tool calls come back with empty arguments (vllm-project/vllm#28806).
 * - `abort-as-success`: an aborted stream ends with `finish_reason: "abort"` and `[DONE]`, as
 *   if it had completed (vllm-project/vllm#57082).
 */
export const FAULT_PROFILES = [
  'reasoning-renamed',
  'ignore-json-schema',
  'empty-tool-args',
  'abort-as-success',
] as const;
export type FaultProfile = (typeof FAULT_PROFILES)[number];

/**
 * Share of requests the engine aborts mid-stream under `abort-as-success` (seeded per request):
 * enough for a run of a few dozen requests to show the bug, few enough to look like a healthy
 * server at a glance.
 */
export const ABORT_AS_SUCCESS_RATE = 0.1;

/** What a fault profile switches on, as server options. */
export interface FaultProfileEffects {
  reasoningField?: 'reasoning';
  ignoreJsonSchema?: true;
  emptyToolArgs?: true;
  abortAsSuccess?: true;
}

export function faultProfileEffects(profile: FaultProfile | undefined): FaultProfileEffects {
  switch (profile) {
    case 'reasoning-renamed':
      // The same as `--reasoning-field reasoning`: newer vLLM's name.
      return { reasoningField: 'reasoning' };
    case 'ignore-json-schema':
      return { ignoreJsonSchema: true };
    case 'empty-tool-args':
      return { emptyToolArgs: true };
    case 'abort-as-success':
      return { abortAsSuccess: true };
    default:
      return {};
  }
}

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
