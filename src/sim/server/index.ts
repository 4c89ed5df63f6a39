/**
 * @module sim/server
 * Public surface of the simulated inference server (`servelab sim`): start it, and the option
 * and fault types the CLI maps its flags onto.
 */

export { FAULT_KINDS, type FaultKind, type FaultSpec, parseFaults } from '../config/faults.js';
export type { DriverStats } from '../engine/realtime-driver.js';
export type { ResolvedServerOptions, SimServerOptions } from '../settings.js';
export { resolveServerOptions } from './options.js';
export { type SimServer, type SimServerDeps, startSimServer } from './server.js';
