/**
 * @module sim/config/faults
 * The fault vocabulary of the simulator's configuration: the fault kinds a `--faults` list names
 * and its grammar (`http500,stall:2000,garble`), and the fault profiles (`--fault-profile`) with
 * the server options each switches on. Configuration only: `sim/server/faults` draws the faults
 * per request, and `sim/settings` validates the lists with {@link parseFaults}.
 */
import { type Problem, UsageError } from '../../core/errors.js';

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
