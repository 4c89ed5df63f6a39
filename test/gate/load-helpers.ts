/**
 * Helpers for the gate's load-check tests (groups 4, 8, 10): a check context, a GateTarget for
 * a simulator over loopback HTTP, and one for a purpose-built server.
 */
import { translator } from '../../src/core/i18n/index.js';
import type { CheckContext, GateTarget } from '../../src/gate/types.js';

export function ctxOf(over: Partial<CheckContext> = {}): CheckContext {
  return {
    t: translator('en'),
    timeoutMs: 10_000,
    seed: 7,
    signal: new AbortController().signal,
    probe: false,
    ...over,
  };
}

/** A target at `baseUrl` (ending in /v1). */
export function targetAt(baseUrl: string, model: string, role: GateTarget['role'] = 'new'): GateTarget {
  return { role, baseUrl, model };
}
