/**
 * @module sim/engine/slot-pool
 * llama.cpp's KV memory as its server uses it (`--engine llamacpp`): `-np` slots, each holding
 * up to `n_ctx_slot` tokens of one sequence, and what each slot last held stays there as its
 * prompt cache (`cache_prompt`, on by default). From ggml-org/llama.cpp
 * `tools/server/server-context.cpp` (commit 001d906a6d86e2490e394361e7cc6f478b100088):
 *
 * - `get_available_slot`: among the idle slots holding tokens, the one whose longest common
 *   prefix with the new prompt covers the largest share of the prompt, if that share exceeds
 *   `--slot-prompt-similarity` (0.1); else the least recently used idle slot (ties: the last
 *   one, so an idle server starts on its highest slot). Reusing a slot by similarity that would
 *   lose more than half of what it holds (`f_keep < 0.5`), or any LRU pick, first saves the
 *   slot's prompt in the RAM prompt cache and loads the best cached one instead;
 * - the request then evaluates only what follows the common prefix, and at least its last
 *   prompt token ("need to evaluate at least 1 token"): `cache_n` ≤ prompt − 1;
 * - the RAM prompt cache (`server_prompt_cache`, `--cache-ram` MiB, `tools/server/server-task.cpp`):
 *   `alloc` skips a prompt already contained in an entry and drops the entries it contains;
 *   `load` takes the entry sharing the longest prefix with the new prompt when it beats the
 *   slot's own on both kept share (`f_keep`) and covered share (`sim`), never one that would
 *   keep under a quarter of itself, and removes it from the cache; `update` drops the oldest
 *   entries while the cache is over its size, keeping at least one.
 *
 * The output tokens a slot holds are the engine's stand-in ids ({@link EngineReq.tokenAt}), so
 * a follow-up prompt that repeats a reply reuses only up to the reply (the real server reuses
 * the reply too when its text tokenizes back the same).
 */
import type { KvPool } from './kv-pool.js';
import type { LlamaCppSlots } from './profiles.js';
import type { EngineReq } from './request.js';
import type { SlotState } from './types.js';

/** One server slot. */
export interface Slot {
  readonly id: number;
  /** What the slot's KV holds: the last sequence's prompt and output tokens. */
  tokens: number[];
  /** When the slot was last released (a counter; -1: never used). */
  lastUsed: number;
  /** The request running in it, or null when idle. */
  req: EngineReq | null;
  /** Its current or last task: a number, the request, and how much of its prompt the slot held. */
  task: { id: number; req: EngineReq; cached: number } | null;
}

/** Longest common prefix of `a` and the first `nb` tokens of `b`. */
function commonPrefix(a: readonly number[], b: ArrayLike<number>, nb: number): number {
  const n = Math.min(a.length, nb);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** llama.cpp's RAM prompt cache (`server_prompt_cache`): saved prompts, oldest first. */
export class PromptRamCache {
  readonly states: number[][] = [];
  constructor(
    private readonly limitBytes: number,
    private readonly bytesPerToken: number,
  ) {}

  private bytes(): number {
    let n = 0;
    for (const s of this.states) n += s.length;
    return n * this.bytesPerToken;
  }

  /** `prompt_save` → `alloc`: keep a copy of `tokens` unless an entry already contains it. */
  save(tokens: readonly number[]): void {
    if (!tokens.length) return;
    for (const s of this.states) if (commonPrefix(s, tokens, tokens.length) === tokens.length) return;
    for (let i = this.states.length - 1; i >= 0; i--)
      if (commonPrefix(this.states[i], tokens, tokens.length) === this.states[i].length)
        this.states.splice(i, 1);
    this.states.push(tokens.slice());
  }

  /** `load`: the entry to restore for `prompt` instead of `current`, removed from the cache; null to keep `current`. */
  load(current: readonly number[], prompt: ArrayLike<number>, promptLen: number): number[] | null {
    const lcp = commonPrefix(current, prompt, promptLen);
    let keepBest = current.length > 0 ? lcp / current.length : -1;
    let simBest = lcp / promptLen;
    let best = -1;
    this.states.forEach((s, i) => {
      const l = commonPrefix(s, prompt, promptLen);
      const keep = l / s.length;
      const sim = l / promptLen;
      if (keep < 0.25) return;
      if (keepBest < keep && simBest < sim) {
        keepBest = keep;
        simBest = sim;
        best = i;
      }
    });
    return best < 0 ? null : this.states.splice(best, 1)[0];
  }

  /** `update`: drop the oldest entries while over the size limit, keeping at least one. */
  update(): void {
    while (this.states.length > 1 && this.bytes() > this.limitBytes) this.states.shift();
  }

  clear(): void {
    this.states.length = 0;
  }
}

/** The slots as a {@link KvPool}: one "block" is one token, `parallel × n_ctx_slot` in all. */
export class SlotPool implements KvPool {
  readonly numBlocks: number;
  readonly blockSize = 1;
  queries = 0;
  hits = 0;
  readonly slots: Slot[];
  readonly ram: PromptRamCache | null;
  private tick = 0;
  private tasks = 0;
  private readonly held = new Map<EngineReq, Slot>();

  /** @param kvBytesPerToken the model's KV bytes per token (what a saved prompt costs the RAM cache). */
  constructor(
    private readonly cfg: LlamaCppSlots,
    kvBytesPerToken: number,
  ) {
    this.numBlocks = cfg.parallel * cfg.nCtxSlot;
    this.slots = Array.from({ length: cfg.parallel }, (_, id) => ({
      id,
      tokens: [],
      lastUsed: -1,
      req: null,
      task: null,
    }));
    this.ram =
      cfg.cacheRamMiB > 0 ? new PromptRamCache(cfg.cacheRamMiB * 1024 * 1024, kvBytesPerToken) : null;
  }

  /** The slot `req` runs in, if any. */
  slotOf(req: EngineReq): Slot | undefined {
    return this.held.get(req);
  }

  private used(): number {
    let n = 0;
    for (const r of this.held.keys()) n += r.numComputed;
    return n;
  }

  get numFree(): number {
    return this.numBlocks - this.used();
  }

  usage(): number {
    return this.numBlocks ? this.used() / this.numBlocks : 0;
  }

  /**
   * `get_available_slot` and the prompt-cache reuse that follows: put `req` in an idle slot and
   * return how many of its prompt tokens the slot already holds (`cache_n`); -1 when every slot
   * is busy (the request is deferred).
   */
  launch(req: EngineReq): number {
    const idle = this.slots.filter((s) => s.req === null);
    if (!idle.length) return -1;
    const n = req.numPrompt;
    let chosen: Slot | null = null;
    let update = false;
    const thold = this.cfg.slotPromptSimilarity;
    if (thold !== 0) {
      let simBest = 0;
      for (const s of idle) {
        if (!s.tokens.length) continue;
        const sim = commonPrefix(s.tokens, req.prompt, n) / n;
        if (sim > simBest && sim > thold) {
          simBest = sim;
          chosen = s;
        }
      }
      if (chosen && (simBest * n) / chosen.tokens.length < 0.5) update = true;
    }
    if (!chosen) {
      let last = -1;
      for (const s of idle)
        if (!chosen || s.lastUsed <= last) {
          last = s.lastUsed;
          chosen = s;
        }
      update = true;
    }
    const slot = chosen as Slot;
    if (update && this.ram) {
      this.ram.save(slot.tokens);
      const restored = this.ram.load(slot.tokens, req.prompt, n);
      if (restored) slot.tokens = restored;
      this.ram.update();
    }
    slot.req = req;
    this.held.set(req, slot);
    const cached = Math.min(commonPrefix(slot.tokens, req.prompt, n), n - 1);
    slot.task = { id: ++this.tasks, req, cached };
    return cached;
  }

  /** Not used: llama.cpp picks a slot on launch ({@link launch}). */
  lookup(): number {
    return 0;
  }

  /** A slot's room is its context, which the request's length limit already keeps to. */
  allocate(req: EngineReq): boolean {
    return this.held.has(req);
  }

  cacheFull(): void {}

  /** The request leaves its slot; the slot keeps what it computed as its prompt cache. */
  freeReq(req: EngineReq): void {
    const slot = this.held.get(req);
    if (!slot) return;
    const tokens = new Array<number>(req.numComputed);
    for (let i = 0; i < req.numComputed; i++) tokens[i] = req.tokenAt(i);
    slot.tokens = tokens;
    slot.lastUsed = ++this.tick;
    slot.req = null;
    this.held.delete(req);
  }

  /** What `GET /slots` shows of each slot. */
  states(): SlotState[] {
    return this.slots.map((s) => {
      const t = s.task;
      return {
        id: s.id,
        nCtx: this.cfg.nCtxSlot,
        processing: s.req !== null,
        task: t ? t.id : null,
        promptTokens: t ? t.req.numPrompt : 0,
        processedTokens: t ? Math.min(t.req.numComputed, t.req.numPrompt) - t.cached : 0,
        cachedTokens: t ? t.cached : 0,
        decoded: t ? t.req.numOutput : 0,
      };
    });
  }

  reset(): boolean {
    if (this.held.size) return false;
    for (const s of this.slots) s.tokens = [];
    this.ram?.clear();
    return true;
  }
}
