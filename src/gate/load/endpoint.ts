/**
 * @module gate/load/endpoint
 * The measurement endpoint (`pipeline/endpoint`) behind a gate target, so the load check runs
 * through the one measurement path (`pipeline/measure` `measureOn`) on the right clock. A target
 * names a base URL and, for the simulator in this process, the dispatcher that reaches it; the
 * endpoint that made the dispatcher also knows its clock (a virtual one moves only while
 * something drives it), which a target cannot carry. Whoever starts an in-process simulator for
 * a gate (its tests; `servelab gate` between two built-in simulators) registers its endpoint
 * here; every other target is a URL on the wall clock.
 */
import type { Dispatcher } from 'undici';
import { type EngineEndpoint, urlEndpoint } from '../../pipeline/endpoint.js';
import type { GateTarget } from '../types.js';

const KNOWN = new WeakMap<Dispatcher, EngineEndpoint>();

/** Make `endpoint`'s clock the one gate targets reaching it through its dispatcher are measured on. */
export function registerEndpoint(endpoint: EngineEndpoint): void {
  if (endpoint.dispatcher) KNOWN.set(endpoint.dispatcher, endpoint);
}

/** The endpoint behind `target`: the registered one for its dispatcher, else its URL on the wall clock. */
export function endpointOf(target: GateTarget): EngineEndpoint {
  const known = target.dispatcher ? KNOWN.get(target.dispatcher) : undefined;
  if (known) return known;
  return { ...urlEndpoint(target.baseUrl), dispatcher: target.dispatcher ?? null };
}

/** A gate target for an endpoint (an in-process simulator, registered). */
export function targetOf(endpoint: EngineEndpoint, role: GateTarget['role'], model: string): GateTarget {
  registerEndpoint(endpoint);
  return {
    role,
    baseUrl: endpoint.baseUrl,
    model,
    ...(endpoint.dispatcher ? { dispatcher: endpoint.dispatcher } : {}),
  };
}
