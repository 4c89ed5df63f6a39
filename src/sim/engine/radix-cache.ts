/**
 * @module sim/engine/radix-cache
 * SGLang's prefix cache: a radix tree over token ids on a token-granular KV pool
 * (`sgl-project/sglang:python/sglang/srt/mem_cache/radix_cache.py`, page size 1):
 *
 * - `match_prefix`: a request reuses the longest path of the tree that matches its tokens, to
 *   any length (not whole blocks), capped so its last token is recomputed; a node matched part
 *   way is split, so the hit ends on a node;
 * - a running request locks the node its cached prefix ends on (`inc_lock_ref`, up to the root):
 *   locked nodes cannot be evicted; the tokens it computed beyond the tree are its own;
 * - `cache_unfinished_req`: each prefill chunk's prompt tokens are inserted as they are computed,
 *   so requests arriving meanwhile share them; `cache_finished_req`: at the end (finish, abort,
 *   retraction) every computed token is inserted and the lock dropped, so the KV stays cached;
 *   tokens another request inserted first are duplicates and are freed;
 * - `evict`: when the pool is short, unlocked leaves go first, least recently used first
 *   (`last_access_time`, refreshed by every match and insert); a parent left childless and
 *   unlocked becomes a leaf in turn;
 * - `token_usage` = 1 − (free + evictable) / total, as SGLang's scheduler reports it.
 *
 * Access times are a counter, not a clock, so the simulation stays deterministic.
 */
import type { KvPool } from './kv-pool.js';
import type { EngineReq } from './request.js';

/** One radix-tree node: a run of token ids under its parent. */
export class RadixNode {
  readonly children = new Map<number, RadixNode>();
  lockRef = 0;
  lastAccess = 0;
  constructor(
    public key: number[],
    public parent: RadixNode | null,
  ) {}
}

/** What a request holds: the node its cached prefix ends on (locked) and its own tokens. */
interface Holding {
  node: RadixNode;
  /** Tokens of the request covered by the tree path to `node`. */
  treeLen: number;
  /** Tokens computed (or reserved) beyond the tree, owned by the request alone. */
  own: number;
}

export class RadixCache implements KvPool {
  readonly numBlocks: number;
  readonly blockSize = 1;
  readonly prefixCaching: boolean;
  queries = 0;
  hits = 0;
  readonly root = new RadixNode([], null);
  /** Tokens held in the tree, and those of them in unlocked nodes (evictable). */
  private treeTokens = 0;
  private evictable = 0;
  /** Tokens owned by requests outside the tree. */
  private ownTokens = 0;
  private tick = 0;
  private readonly held = new Map<EngineReq, Holding>();
  /** The last lookup, for the allocate that follows it. */
  private matched: { req: EngineReq; node: RadixNode; len: number } | null = null;

  /** @param numTokens size of the KV pool in tokens (SGLang's max_total_num_tokens). */
  constructor(numTokens: number, prefixCaching = true) {
    this.numBlocks = numTokens;
    this.prefixCaching = prefixCaching;
  }

  /** Tokens neither in the tree nor owned by a request. */
  private get freeTokens(): number {
    return this.numBlocks - this.treeTokens - this.ownTokens;
  }

  get numFree(): number {
    return this.freeTokens + this.evictable;
  }

  usage(): number {
    return this.numBlocks ? 1 - this.numFree / this.numBlocks : 0;
  }

  /** Tokens held in the tree (cached, locked or not). */
  get cachedTokens(): number {
    return this.treeTokens;
  }

  /** Longest cached prefix of `req`, in tokens (≤ num_tokens − 1), refreshing its nodes' access time. */
  lookup(req: EngineReq): number {
    this.matched = null;
    if (!this.prefixCaching) return 0;
    const { node, len } = this.match(req, req.numTokens - 1);
    this.matched = { req, node, len };
    return len;
  }

  /** Walk the tree along `req`'s first `max` tokens; split a node matched part way. */
  private match(req: EngineReq, max: number): { node: RadixNode; len: number } {
    const now = ++this.tick;
    let node = this.root;
    let i = 0;
    while (i < max) {
      const child = node.children.get(req.tokenAt(i));
      if (!child) break;
      const k = commonPrefix(child.key, req, i, max);
      if (k < child.key.length) {
        const upper = this.split(child, k);
        upper.lastAccess = now;
        node = upper;
        i += k;
        break;
      }
      child.lastAccess = now;
      node = child;
      i += k;
    }
    return { node, len: i };
  }

  /** Split `child` after its first `k` tokens; returns the new upper node (SGLang `_split_node`). */
  private split(child: RadixNode, k: number): RadixNode {
    const parent = child.parent as RadixNode;
    const upper = new RadixNode(child.key.slice(0, k), parent);
    upper.lockRef = child.lockRef;
    upper.lastAccess = child.lastAccess;
    parent.children.set(upper.key[0], upper);
    child.key = child.key.slice(k);
    child.parent = upper;
    upper.children.set(child.key[0], child);
    return upper;
  }

  allocate(req: EngineReq, numNew: number, numHit = 0): boolean {
    let h = this.held.get(req);
    let attached = false;
    if (!h) {
      const m = this.matched;
      const node = numHit > 0 && m && m.req === req && m.len === numHit ? m.node : this.root;
      const len = node === this.root ? 0 : numHit;
      h = { node, treeLen: len, own: 0 };
      this.lock(node);
      attached = true;
    }
    const computed = attached ? h.treeLen : req.numComputed;
    const need = Math.max(0, computed + numNew - (h.treeLen + h.own));
    if (need > this.freeTokens) this.evict(need - this.freeTokens);
    if (need > this.freeTokens) {
      if (attached) this.unlock(h.node);
      return false;
    }
    h.own += need;
    this.ownTokens += need;
    if (attached) {
      this.held.set(req, h);
      req.numComputed = h.treeLen;
    }
    return true;
  }

  /** SGLang's `cache_unfinished_req`: put the prompt tokens computed so far into the tree. */
  cacheFull(req: EngineReq): void {
    const h = this.held.get(req);
    if (!h || !this.prefixCaching) return;
    const upto = Math.min(req.numComputed, req.numPrompt);
    if (upto > h.treeLen) this.insert(req, h, upto);
  }

  /** SGLang's `cache_finished_req`: every computed token goes into the tree, then the lock is dropped. */
  freeReq(req: EngineReq): void {
    const h = this.held.get(req);
    if (!h) return;
    if (this.prefixCaching && req.numComputed > h.treeLen) this.insert(req, h, req.numComputed);
    this.ownTokens -= h.own;
    this.unlock(h.node);
    this.held.delete(req);
    if (this.matched?.req === req) this.matched = null;
  }

  /** Move `req`'s tokens [treeLen, upto) into the tree; tokens already there are duplicates, freed. */
  private insert(req: EngineReq, h: Holding, upto: number): void {
    const now = ++this.tick;
    let node = this.root;
    let i = 0;
    while (i < upto) {
      const t = req.tokenAt(i);
      const child = node.children.get(t);
      if (!child) {
        const key = new Array<number>(upto - i);
        for (let j = i; j < upto; j++) key[j - i] = req.tokenAt(j);
        const leaf = new RadixNode(key, node);
        leaf.lastAccess = now;
        node.children.set(t, leaf);
        this.treeTokens += key.length;
        // A new node is unlocked until the lock below moves onto it.
        this.evictable += key.length;
        node = leaf;
        i = upto;
        break;
      }
      const k = commonPrefix(child.key, req, i, upto);
      node = k < child.key.length ? this.split(child, k) : child;
      node.lastAccess = now;
      i += k;
    }
    const moved = upto - h.treeLen;
    h.own -= moved;
    this.ownTokens -= moved;
    this.lock(node);
    this.unlock(h.node);
    h.node = node;
    h.treeLen = upto;
  }

  private lock(node: RadixNode): void {
    for (let n: RadixNode | null = node; n && n !== this.root; n = n.parent) {
      if (n.lockRef === 0) this.evictable -= n.key.length;
      n.lockRef++;
    }
  }

  private unlock(node: RadixNode): void {
    for (let n: RadixNode | null = node; n && n !== this.root; n = n.parent) {
      n.lockRef--;
      if (n.lockRef === 0) this.evictable += n.key.length;
    }
  }

  /** Evict at least `numTokens` tokens from unlocked leaves, least recently used first (SGLang `evict`). */
  evict(numTokens: number): number {
    const heap = new LeafHeap();
    const stack: RadixNode[] = [this.root];
    while (stack.length) {
      const n = stack.pop() as RadixNode;
      if (n !== this.root && n.children.size === 0 && n.lockRef === 0) heap.push(n);
      for (const c of n.children.values()) stack.push(c);
    }
    let freed = 0;
    while (freed < numTokens && heap.size) {
      const leaf = heap.pop();
      const parent = leaf.parent as RadixNode;
      parent.children.delete(leaf.key[0]);
      leaf.parent = null;
      this.treeTokens -= leaf.key.length;
      this.evictable -= leaf.key.length;
      freed += leaf.key.length;
      if (parent !== this.root && parent.children.size === 0 && parent.lockRef === 0) heap.push(parent);
    }
    return freed;
  }

  /** SGLang's `/flush_cache` (`reset`): only when no request holds KV. */
  reset(): boolean {
    if (this.held.size > 0) return false;
    this.root.children.clear();
    this.treeTokens = 0;
    this.evictable = 0;
    this.matched = null;
    return true;
  }
}

/** Length of the common prefix of `key` and `req`'s tokens from `from` (below `end`). */
function commonPrefix(key: readonly number[], req: EngineReq, from: number, end: number): number {
  const n = Math.min(key.length, end - from);
  let k = 0;
  while (k < n && key[k] === req.tokenAt(from + k)) k++;
  return k;
}

/** A binary min-heap of leaves by last access (ties: insertion order is irrelevant to the result's size). */
class LeafHeap {
  private readonly a: RadixNode[] = [];
  get size(): number {
    return this.a.length;
  }
  push(n: RadixNode): void {
    const a = this.a;
    a.push(n);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p].lastAccess <= a[i].lastAccess) break;
      [a[p], a[i]] = [a[i], a[p]];
      i = p;
    }
  }
  pop(): RadixNode {
    const a = this.a;
    const top = a[0];
    const last = a.pop() as RadixNode;
    if (a.length) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l].lastAccess < a[m].lastAccess) m = l;
        if (r < a.length && a[r].lastAccess < a[m].lastAccess) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
}
