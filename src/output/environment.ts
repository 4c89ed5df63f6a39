/**
 * @module output/environment
 * The `environment` block of a run report: which servelab, which Node, which machine. Kept
 * out of `report/` (which only renders) because it reads the process and the OS; the pure
 * report builder (`report/run/report`) takes what it returns.
 */
import { arch, cpus, hostname, platform } from 'node:os';
import type { RunEnvironment } from '../report/run/report.js';

/**
 * Describe the machine the client ran on.
 * @param servelabVersion servelab's own version (from package.json, passed in by the CLI)
 */
export function describeEnvironment(servelabVersion: string): RunEnvironment {
  return {
    servelab_version: servelabVersion,
    node_version: process.version,
    platform: platform(),
    arch: arch(),
    hostname: hostname(),
    cpus: cpus().length,
  };
}
