/**
 * @module sim/engine/kv-cache
 * The KV cache manager (vLLM v1 `KVCacheManager` + `BlockPool`:
 * `vllm-project/vllm:vllm/v1/core/kv_cache_manager.py` and `vllm/v1/core/block_pool.py`):
 * - memory is a pool of fixed-size blocks (`blockSize` tokens each);
 * - a request holds the blocks its computed tokens live in; a block may be shared (ref count);
 * - prefix caching: every *full* block gets a chained hash H(parent hash, its token ids), and a
 *   new request reuses the longest chain of cached blocks, capped so at least its last token
 *   is recomputed (hit ≤ ⌊(n−1)/bs⌋·bs);
 * - freed blocks go to the tail of an LRU free queue, a request's last block first (so its tail
 *   is evicted before its head) and keep their hash until popped for reuse, so a preempted or
 *   repeated request still hits;
 * - usage = 1 − free/total, where cached-but-unreferenced blocks count as free.
 */
import type { KvPool } from './kv-pool.js';
import type { EngineReq } from './request.js';

const NO_HASH = -1;
const TWO_21 = 2 ** 21;

/**
 * Chained 53-bit block hash: two 32-bit multiplicative lanes over the parent hash and the
 * block's token ids. vLLM uses sha256; we need speed and determinism, and 53 bits keep the
 * collision odds below 1e-4 even with a million cached blocks.
 */
function blockHash(parent: number, req: EngineReq, start: number, end: number): number {
  let a = ((parent % TWO_21) ^ 0x9e3779b9) | 0;
  let b = (Math.floor(parent / TWO_21) ^ 0x85ebca6b) | 0;
  const prompt = req.prompt;
  const split = Math.min(end, req.numPrompt);
  for (let i = start; i < end; i++) {
    // Prompt ids are read directly: this loop hashes every prompt token once.
    const t = i < split ? prompt[i] : req.tokenAt(i);
    a = Math.imul(a ^ t, 0x01000193);
    a ^= a >>> 15;
    b = Math.imul(b ^ t, 0x5bd1e995);
    b ^= b >>> 13;
    b = (b + a) | 0;
  }
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  b = Math.imul(b ^ (b >>> 16), 0xc2b2ae35);
  return (a >>> 0) * TWO_21 + ((b >>> 0) >>> 11);
}

/**
 * Block hash → block id, for the prefix cache: open addressing with linear probing over typed
 * arrays, so a lookup allocates nothing (a `Map` keyed by 53-bit numbers boxes every key and
 * was a third of the planner's time). Holds at most one entry per block, so a table of twice the
 * block count (rounded up to a power of two) stays at most half full; deletion shifts the rest
 * of a probe run back instead of leaving tombstones.
 */
export class BlockHashTable {
  private readonly keys: Float64Array;
  private readonly vals: Int32Array;
  private readonly mask: number;

  constructor(maxEntries: number) {
    let cap = 16;
    while (cap < 2 * maxEntries) cap *= 2;
    this.keys = new Float64Array(cap).fill(NO_HASH);
    this.vals = new Int32Array(cap);
    this.mask = cap - 1;
  }

  /** First slot to probe for `h` (a non-negative integer below 2^53). */
  private home(h: number): number {
    // `h | 0` is h mod 2^32 (ToInt32); mix in the bits above it.
    return (Math.imul((h | 0) ^ ((h / 4294967296) | 0), 0x9e3779b1) >>> 7) & this.mask;
  }

  /** Slot holding `h`, or the empty slot where it would go. */
  private slot(h: number): number {
    const keys = this.keys;
    let i = this.home(h);
    while (keys[i] !== h && keys[i] !== NO_HASH) i = (i + 1) & this.mask;
    return i;
  }

  /** The block cached under `h`, or -1. */
  get(h: number): number {
    const i = this.slot(h);
    return this.keys[i] === h ? this.vals[i] : -1;
  }

  /** Cache `b` under `h` unless `h` is there already; false (nothing changed) when it was. */
  add(h: number, b: number): boolean {
    const i = this.slot(h);
    if (this.keys[i] === h) return false;
    this.keys[i] = h;
    this.vals[i] = b;
    return true;
  }

  /** Remove `h` if it maps to block `b`. */
  deleteBlock(h: number, b: number): void {
    const keys = this.keys;
    const mask = this.mask;
    let i = this.slot(h);
    if (keys[i] !== h || this.vals[i] !== b) return;
    // Backward-shift deletion: move later entries of the run into the hole when their home
    // slot does not lie (cyclically) between the hole and their own slot.
    let j = i;
    for (;;) {
      keys[i] = NO_HASH;
      for (;;) {
        j = (j + 1) & mask;
        if (keys[j] === NO_HASH) return;
        const k = this.home(keys[j]);
        if (i <= j ? i < k && k <= j : i < k || k <= j) continue;
        break;
      }
      keys[i] = keys[j];
      this.vals[i] = this.vals[j];
      i = j;
    }
  }

  clear(): void {
    this.keys.fill(NO_HASH);
  }
}

export class KvCacheManager implements KvPool {
  readonly numBlocks: number;
  readonly blockSize: number;
  readonly prefixCaching: boolean;
  /** Prefix-cache lookups and hits, in tokens (vLLM's prefix_cache_queries/hits). */
  queries = 0;
  hits = 0;
  private readonly ref: Int32Array;
  private readonly hash: Float64Array;
  /** Doubly linked free queue over block ids; index numBlocks is the sentinel. */
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private free = 0;
  private readonly cached: BlockHashTable;
  /** Scratch: block ids of the last prefix lookup. */
  private readonly hitBlocks: number[] = [];

  constructor(numBlocks: number, blockSize: number, prefixCaching: boolean) {
    this.numBlocks = numBlocks;
    this.blockSize = blockSize;
    this.prefixCaching = prefixCaching;
    this.ref = new Int32Array(numBlocks);
    this.hash = new Float64Array(numBlocks).fill(NO_HASH);
    this.cached = new BlockHashTable(numBlocks);
    this.prev = new Int32Array(numBlocks + 1);
    this.next = new Int32Array(numBlocks + 1);
    const s = numBlocks;
    this.prev[s] = s;
    this.next[s] = s;
    for (let b = 0; b < numBlocks; b++) this.append(b);
  }

  /** Free blocks, including cached-but-unreferenced ones. */
  get numFree(): number {
    return this.free;
  }

  /** 0..1: 1 − free/total. */
  usage(): number {
    return this.numBlocks ? 1 - this.free / this.numBlocks : 0;
  }

  private append(b: number): void {
    const s = this.numBlocks;
    const last = this.prev[s];
    this.next[last] = b;
    this.prev[b] = last;
    this.next[b] = s;
    this.prev[s] = b;
    this.free++;
  }

  private unlink(b: number): void {
    const p = this.prev[b];
    const n = this.next[b];
    this.next[p] = n;
    this.prev[n] = p;
    this.free--;
  }

  /** Make sure `req.blockHashes` covers its first `n` full blocks. */
  private ensureHashes(req: EngineReq, n: number): void {
    const bs = this.blockSize;
    for (let j = req.blockHashes.length; j < n; j++) {
      const parent = j === 0 ? 0 : req.blockHashes[j - 1];
      req.blockHashes.push(blockHash(parent, req, j * bs, (j + 1) * bs));
    }
  }

  /**
   * Longest cached prefix of a request that holds no blocks, in blocks (kept for
   * {@link allocate}). Hits are capped at num_tokens − 1 tokens, as in vLLM.
   */
  lookup(req: EngineReq): number {
    this.hitBlocks.length = 0;
    if (!this.prefixCaching) return 0;
    const maxBlocks = Math.floor((req.numTokens - 1) / this.blockSize);
    this.ensureHashes(req, maxBlocks);
    for (let j = 0; j < maxBlocks; j++) {
      const b = this.cached.get(req.blockHashes[j]);
      if (b < 0) break;
      this.hitBlocks.push(b);
    }
    return this.hitBlocks.length;
  }

  /**
   * Give `req` enough blocks for `numNew` more tokens on top of its computed ones. For a request
   * that holds no blocks, the blocks found by the preceding {@link lookup} (first `numHit` of them)
   * are attached first and `req.numComputed` is set to the hit. False (and nothing changed) when the
   * pool cannot supply the blocks.
   */
  allocate(req: EngineReq, numNew: number, numHit = 0): boolean {
    const bs = this.blockSize;
    const computed = numHit ? numHit * bs : req.numComputed;
    const need = Math.ceil((computed + numNew) / bs) - req.blocks.length - numHit;
    let evictableHits = 0;
    for (let j = 0; j < numHit; j++) if (this.ref[this.hitBlocks[j]] === 0) evictableHits++;
    if (need + evictableHits > this.free) return false;
    for (let j = 0; j < numHit; j++) {
      const b = this.hitBlocks[j];
      if (this.ref[b] === 0) this.unlink(b);
      this.ref[b]++;
      req.blocks.push(b);
    }
    if (numHit) {
      req.numComputed = computed;
      req.numCachedBlocks = numHit;
    }
    const s = this.numBlocks;
    for (let k = 0; k < need; k++) {
      const b = this.next[s];
      this.unlink(b);
      const h = this.hash[b];
      if (h !== NO_HASH) {
        // Evict: the block's old content is overwritten now, so it leaves the prefix cache.
        this.cached.deleteBlock(h, b);
        this.hash[b] = NO_HASH;
      }
      this.ref[b] = 1;
      req.blocks.push(b);
    }
    return true;
  }

  /** Register the request's newly full computed blocks in the prefix cache. */
  cacheFull(req: EngineReq): void {
    if (!this.prefixCaching) return;
    const nFull = Math.floor(req.numComputed / this.blockSize);
    if (nFull <= req.numCachedBlocks) return;
    this.ensureHashes(req, nFull);
    for (let j = req.numCachedBlocks; j < nFull; j++) {
      const b = req.blocks[j];
      if (this.hash[b] !== NO_HASH) continue;
      const h = req.blockHashes[j];
      // Same content already cached in another block: keep the existing entry (vLLM does too).
      if (!this.cached.add(h, b)) continue;
      this.hash[b] = h;
    }
    req.numCachedBlocks = nFull;
  }

  /** Release all of a request's blocks (finish, abort, preemption), tail block first. */
  freeReq(req: EngineReq): void {
    const blocks = req.blocks;
    for (let j = blocks.length - 1; j >= 0; j--) {
      const b = blocks[j];
      if (--this.ref[b] === 0) this.append(b);
    }
    blocks.length = 0;
    req.numCachedBlocks = 0;
  }

  /** Drop every cached hash (vLLM's reset_prefix_cache). False while any block is in use. */
  reset(): boolean {
    if (this.free !== this.numBlocks) return false;
    this.cached.clear();
    this.hash.fill(NO_HASH);
    return true;
  }
}
