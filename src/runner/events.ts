/**
 * @module runner/events
 * Typed events the runner emits. Observers (progress line, servelab's Prometheus exporter,
 * the store writer, the live dashboard) implement the hooks they care about. Hooks are called
 * synchronously on the hot path, so they must be cheap and must never throw or block.
 */
import type { RequestRecord, RunEndReason } from '../record/types.js';

export interface RunStartInfo {
  /** Unix ms at the run clock's origin. */
  started_at_unix_ms: number;
  /** Number of planned requests, when known up front (null for --duration runs). */
  planned: number | null;
}

export type { RunEndReason } from '../record/types.js';

export interface RunObserver {
  onRunStart?(info: RunStartInfo): void;
  /** A request was handed to the target (`sent_at_ms` set). `lateness_ms` = sent − planned (open loop). */
  onSent?(rec: RequestRecord, lateness_ms: number | null): void;
  /** A token-carrying chunk arrived for `rec` (its latest chunk is the last element of `chunk_times_ms`). */
  onChunk?(rec: RequestRecord): void;
  /** The final record of one attempt (written exactly once). */
  onRecord?(rec: RequestRecord): void;
  /** The run ended; `reason` says why. */
  onRunEnd?(reason: RunEndReason): void;
}
