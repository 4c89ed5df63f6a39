/**
 * @module sim/engine/scheduler
 * vLLM v1's scheduler (`vllm-project/vllm:vllm/v1/core/sched/scheduler.py`). There is no
 * prefill or decode phase: each step shares one token budget (`max_num_batched_tokens`):
 *
 * 1. running requests first, in order: each gets what it still lacks (one token when decoding,
 *    or the next prefill chunk). If the KV pool cannot hold it, the newest running request is
 *    preempted (recompute: blocks freed, progress lost, pushed to the FRONT of waiting) until
 *    it fits, or the request itself was the victim;
 * 2. then, only if nothing was preempted, waiting requests first-come-first-served while budget
 *    and `max_num_seqs` allow: prefix-cache lookup, then the (possibly chunked) prefill. A request
 *    whose blocks do not fit stops admission (head-of-line; v1 has no watermark).
 */
import type { KvCacheManager } from './kv-cache.js';
import { Deque, type EngineReq } from './request.js';

/** What one call to {@link Scheduler.schedule} decided; arrays are reused between steps. */
export interface SchedulerOutput {
  reqs: EngineReq[];
  /** New tokens per scheduled request (parallel to `reqs`). */
  numNew: number[];
  /** Requests admitted from waiting this step (new or resumed after preemption). */
  admitted: EngineReq[];
  preempted: EngineReq[];
}

export class Scheduler {
  readonly running: EngineReq[] = [];
  readonly waiting = new Deque<EngineReq>();
  /** Preemptions since start. */
  numPreemptions = 0;

  constructor(
    private readonly kv: KvCacheManager,
    private readonly maxNumSeqs: number,
    private readonly maxNumBatchedTokens: number,
  ) {}

  /** Fill `out` with this step's batch. Mutates request state (blocks, status, numComputed on hits). */
  schedule(out: SchedulerOutput, nowMs: number): void {
    out.reqs.length = 0;
    out.numNew.length = 0;
    out.admitted.length = 0;
    out.preempted.length = 0;
    const kv = this.kv;
    const running = this.running;
    let budget = this.maxNumBatchedTokens;

    for (let i = 0; i < running.length && budget > 0; i++) {
      const r = running[i];
      const n = Math.min(r.numTokens - r.numComputed, budget);
      if (n <= 0) continue;
      let self = false;
      while (!kv.allocate(r, n)) {
        const victim = running.pop()!;
        this.preempt(victim);
        out.preempted.push(victim);
        if (victim === r) {
          self = true;
          break;
        }
      }
      if (self) break;
      out.reqs.push(r);
      out.numNew.push(n);
      budget -= n;
    }

    if (out.preempted.length === 0) {
      while (this.waiting.length && budget > 0 && running.length < this.maxNumSeqs) {
        const r = this.waiting.peekFront()!;
        const hitBlocks = kv.lookup(r);
        const hit = hitBlocks * kv.blockSize;
        const n = Math.min(r.numTokens - hit, budget);
        if (!kv.allocate(r, n, hitBlocks)) break;
        this.waiting.popFront();
        // Counted on admission only, so a head-of-line request is not counted once per step.
        kv.queries += r.numTokens;
        kv.hits += hit;
        if (r.times.firstScheduledMs === null) {
          r.times.firstScheduledMs = nowMs;
          r.times.cachedTokens = hit;
        }
        r.status = 'running';
        running.push(r);
        out.reqs.push(r);
        out.numNew.push(n);
        out.admitted.push(r);
        budget -= n;
      }
    }
  }

  /** Recompute-style preemption: drop the KV, keep the tokens, back to the front of waiting. */
  private preempt(r: EngineReq): void {
    this.kv.freeReq(r);
    r.numComputed = 0;
    r.status = 'waiting';
    r.times.preemptions++;
    this.numPreemptions++;
    this.waiting.pushFront(r);
  }

  /** Remove a finished or aborted request from the running list or the waiting queue. */
  remove(r: EngineReq): void {
    if (r.status === 'running') {
      const i = this.running.indexOf(r);
      if (i >= 0) this.running.splice(i, 1);
    } else if (r.status === 'waiting') {
      this.waiting.remove(r);
    }
  }
}
