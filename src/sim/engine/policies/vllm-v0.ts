/**
 * @module sim/engine/policies/vllm-v0
 * vLLM v0's scheduler (`vllm-project/vllm:vllm/core/scheduler.py`, v0.10 and before), with its
 * block manager's admission watermark (`vllm/core/block_manager.py`, `can_allocate`: 1% of the
 * blocks kept free) and multi-step scheduling (`--num-scheduler-steps`,
 * `vllm/engine/output_processor/multi_step.py`):
 *
 * - without chunked prefill (`_schedule_default`, v0's default): waiting requests are admitted
 *   first-come-first-served while their *whole* prompt fits the remaining token budget and
 *   `max_num_seqs`; a step that admitted any is a prefill-only step, and every running decode
 *   waits for it ("Don't schedule decodes if prefills are scheduled"). Only a step with no
 *   prefill decodes the running requests, preempting the newest (recompute) when the KV cache
 *   cannot take one more token each;
 * - with `--enable-chunked-prefill` (`_schedule_chunked_prefill`): running requests first
 *   (decodes and unfinished prefill chunks), then new prefills chunked into what is left of the
 *   budget, as v1 does;
 * - multi-step: a batch of decodes only runs `num_scheduler_steps` forward passes per schedule,
 *   with room for all of their tokens allocated up front (lookahead slots); the tokens reach the
 *   client together at the end, N at a time. A step with any prefill runs once.
 */
import type { KvPool } from '../kv-pool.js';
import type { ProfileConfig } from '../profiles.js';
import { Deque, type EngineReq } from '../request.js';
import {
  clearOutput,
  noteAdmission,
  removeFrom,
  type SchedulePolicy,
  type SchedulerLimits,
  type SchedulerOutput,
  scheduleRunningQueue,
} from './policy.js';

/** v0's `CacheConfig` default watermark: blocks kept free at admission, as a fraction. */
const WATERMARK = 0.01;

export class VllmV0Scheduler implements SchedulePolicy {
  readonly running: EngineReq[] = [];
  readonly waiting = new Deque<EngineReq>();
  numPreemptions = 0;
  private readonly watermarkBlocks: number;

  constructor(
    private readonly kv: KvPool,
    private readonly limits: SchedulerLimits,
    private readonly profile: Pick<ProfileConfig, 'enableChunkedPrefill' | 'numSchedulerSteps'>,
  ) {
    this.watermarkBlocks = Math.floor(WATERMARK * kv.numBlocks);
  }

  schedule(out: SchedulerOutput, nowMs: number): void {
    clearOutput(out);
    if (this.profile.enableChunkedPrefill) this.scheduleChunked(out, nowMs);
    else if (!this.schedulePrefills(out, nowMs, this.limits.maxNumBatchedTokens, false))
      this.scheduleDecodes(out);
    // Multi-step applies to a batch of decodes only.
    const n = this.profile.numSchedulerSteps;
    if (n > 1 && out.reqs.length > 0 && out.admitted.length === 0 && allDecodes(out)) {
      for (let i = 0; i < out.reqs.length; i++) {
        const r = out.reqs.at(i);
        // Lookahead slots: room for the group's other tokens now (a request that cannot get it
        // runs the group anyway; its extra tokens are allocated step by step by the engine).
        this.kv.allocate(r, Math.min(n, r.stopLen - r.numOutput));
      }
      out.numSteps = n;
    }
  }

  /**
   * `_schedule_prefills`: FCFS admission while budget, `max_num_seqs` and the watermark allow.
   * Without chunking the whole prompt (minus the prefix-cache hit) must fit. True if any admitted.
   */
  private schedulePrefills(out: SchedulerOutput, nowMs: number, budget: number, chunking: boolean): boolean {
    const kv = this.kv;
    let admitted = false;
    while (this.waiting.length && budget > 0 && this.running.length < this.limits.maxNumSeqs) {
      const r = this.waiting.peekFront() as EngineReq;
      const hitBlocks = kv.lookup(r);
      const hit = hitBlocks * kv.blockSize;
      const want = r.numTokens - hit;
      if (!chunking && want > budget) break;
      const n = Math.min(want, budget);
      const blocksNeeded = Math.ceil(r.numTokens / kv.blockSize) - hitBlocks;
      // With nothing running the watermark would only keep a pool-sized prompt out for ever
      // (v0 ignores such a request instead; here it runs).
      if (this.running.length > 0 && kv.numFree - blocksNeeded < this.watermarkBlocks) break;
      if (!kv.allocate(r, n, hitBlocks)) break;
      this.waiting.popFront();
      noteAdmission(kv, r, hit, nowMs);
      this.running.push(r);
      out.reqs.push(r);
      out.numNew.push(n);
      out.admitted.push(r);
      budget -= n;
      admitted = true;
    }
    return admitted;
  }

  /** `_schedule_running` for decodes: one token each, preempting the newest when the cache is full. */
  private scheduleDecodes(out: SchedulerOutput): void {
    this.scheduleRunning(out, this.limits.maxNumBatchedTokens);
  }

  /** Running requests in order, each what it lacks within `budget`; returns the budget left. */
  private scheduleRunning(out: SchedulerOutput, budget: number): number {
    const done = scheduleRunningQueue(this.kv, this.running, this.waiting, out, budget);
    this.numPreemptions += done.preempted;
    return done.budget;
  }

  /** `_schedule_chunked_prefill`: running first, then new prefills in what is left of the budget. */
  private scheduleChunked(out: SchedulerOutput, nowMs: number): void {
    const left = this.scheduleRunning(out, this.limits.maxNumBatchedTokens);
    if (out.preempted.length === 0) this.schedulePrefills(out, nowMs, left, true);
  }

  remove(r: EngineReq): void {
    removeFrom(this.running, this.waiting, r);
  }
}

/** Whether every scheduled request gets one new token (a batch of decodes). */
function allDecodes(out: SchedulerOutput): boolean {
  for (let i = 0; i < out.numNew.length; i++) if (out.numNew.at(i) !== 1) return false;
  return true;
}
