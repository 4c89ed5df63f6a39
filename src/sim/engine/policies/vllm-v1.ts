/**
 * @module sim/engine/policies/vllm-v1
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
import type { KvPool } from '../kv-pool.js';
import { Deque, type EngineReq } from '../request.js';
import {
  clearOutput,
  noteAdmission,
  removeFrom,
  type SchedulePolicy,
  type SchedulerOutput,
  scheduleRunningQueue,
} from './policy.js';

export class VllmV1Scheduler implements SchedulePolicy {
  readonly running: EngineReq[] = [];
  readonly waiting = new Deque<EngineReq>();
  numPreemptions = 0;

  constructor(
    private readonly kv: KvPool,
    private readonly maxNumSeqs: number,
    private readonly maxNumBatchedTokens: number,
  ) {}

  schedule(out: SchedulerOutput, nowMs: number): void {
    clearOutput(out);
    const kv = this.kv;
    const running = this.running;
    const done = scheduleRunningQueue(kv, running, this.waiting, out, this.maxNumBatchedTokens);
    this.numPreemptions += done.preempted;
    let budget = done.budget;

    if (out.preempted.length === 0) {
      while (this.waiting.length && budget > 0 && running.length < this.maxNumSeqs) {
        const r = this.waiting.peekFront()!;
        const hitBlocks = kv.lookup(r);
        const hit = hitBlocks * kv.blockSize;
        const n = Math.min(r.numTokens - hit, budget);
        if (!kv.allocate(r, n, hitBlocks)) break;
        this.waiting.popFront();
        noteAdmission(kv, r, hit, nowMs);
        running.push(r);
        out.reqs.push(r);
        out.numNew.push(n);
        out.admitted.push(r);
        budget -= n;
      }
    }
  }

  remove(r: EngineReq): void {
    removeFrom(this.running, this.waiting, r);
  }
}
