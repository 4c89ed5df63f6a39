/**
 * @module sim/server
 * Public surface of the simulated inference server (`servelab sim`): start it, and the option
 * and fault types the CLI maps its flags onto.
 */

export { type DriverStats, RealTimeDriver } from '../engine/realtime-driver.js';
export { FAULT_KINDS, type FaultKind, type FaultSpec, parseFaults } from './faults.js';
export type { ResolvedServerOptions, SimServerOptions } from './options.js';
export { resolveServerOptions } from './options.js';
export { type SimServer, type SimServerDeps, startSimServer } from './server.js';
