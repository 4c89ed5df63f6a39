/**
 * @module sim/engine/kv-pool
 * What a scheduler policy needs from the KV memory, whichever engine's cache backs it: vLLM's
 * block pool with hashed prefix blocks (`kv-cache.ts`) or SGLang's token pool with a radix
 * tree (`radix-cache.ts`, where a "block" is one token: SGLang's page size 1).
 */
import type { EngineReq } from './request.js';

export interface KvPool {
  readonly numBlocks: number;
  /** Tokens per block (1 for SGLang's token pool). */
  readonly blockSize: number;
  /** Prefix lookups and hits since start, in tokens (counted by the scheduler on admission). */
  queries: number;
  hits: number;
  /** Free blocks, cached-but-unreferenced ones included. */
  readonly numFree: number;
  /** 0..1: 1 − free/total. */
  usage(): number;
  /** Longest cached prefix of a request that holds no KV, in blocks (kept for {@link allocate}). */
  lookup(req: EngineReq): number;
  /**
   * Give `req` room for `numNew` more tokens on top of its computed ones; for a request holding
   * no KV, first attach the first `numHit` blocks of the preceding lookup (setting
   * `req.numComputed` to the hit). False, with nothing changed, when the memory cannot supply it.
   */
  allocate(req: EngineReq, numNew: number, numHit?: number): boolean;
  /** After a step: register the request's newly computed tokens in the prefix cache. */
  cacheFull(req: EngineReq): void;
  /** Release all of a request's KV (finish, abort, preemption); what is cached stays reusable. */
  freeReq(req: EngineReq): void;
  /** Drop every cached prefix; false while any request holds KV. */
  reset(): boolean;
}
