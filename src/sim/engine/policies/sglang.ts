/**
 * @module sim/engine/policies/sglang
 * SGLang's scheduler (`sgl-project/sglang:python/sglang/srt/managers/scheduler.py`,
 * `get_next_batch_to_run` / `get_new_batch_prefill` / `update_running_batch`; the queue order and
 * batch filling of `python/sglang/srt/managers/schedule_policy.py`, `SchedulePolicy` and
 * `PrefillAdder`), over its radix cache (`radix-cache.ts`):
 *
 * - prefill first: each step first tries to build a prefill batch. The request whose prompt is
 *   part way through chunked prefill (`chunked_req`) continues first, then waiting requests in
 *   policy order while `max_running_requests` (our `max_num_seqs`) and the step's prefill budget
 *   (`--chunked-prefill-size`) allow; the request that does not fit whole is chunked and ends the
 *   batch. A prefill batch runs alone: running decodes wait for it (no `--enable-mixed-chunk`);
 * - otherwise a decode batch: every running request one token; when the pool (after evicting
 *   unlocked radix leaves) cannot take it, the newest request is retracted (its KV cached in the
 *   tree, back to the front of the queue) until it fits;
 * - `--schedule-policy`: `fcfs` keeps arrival order; `lpm` sorts the queue by the length of each
 *   request's longest prefix in the radix tree, longest first (stable), and falls back to fcfs
 *   when more than 128 requests wait, where matching every one per step costs too much
 *   (`_determine_active_policy`).
 *
 * Simplified: SGLang also reserves room for the running requests' future tokens at admission
 * (`new_token_ratio`); here a full pool shows up as retractions instead.
 */
import type { KvPool } from '../kv-pool.js';
import type { ProfileConfig } from '../profiles.js';
import { Deque, type EngineReq } from '../request.js';
import {
  allocateOrPreempt,
  clearOutput,
  noteAdmission,
  removeFrom,
  type SchedulePolicy,
  type SchedulerLimits,
  type SchedulerOutput,
} from './policy.js';

/** Above this many waiting requests, lpm is computed as fcfs (SGLang's threshold). */
export const LPM_FALLBACK_QUEUE_LEN = 128;

export class SglangScheduler implements SchedulePolicy {
  readonly running: EngineReq[] = [];
  waiting = new Deque<EngineReq>();
  numPreemptions = 0;

  constructor(
    private readonly kv: KvPool,
    private readonly limits: SchedulerLimits,
    private readonly profile: Pick<ProfileConfig, 'schedulePolicy' | 'chunkedPrefillSize'>,
  ) {}

  schedule(out: SchedulerOutput, nowMs: number): void {
    clearOutput(out);
    if (!this.schedulePrefill(out, nowMs)) this.scheduleDecode(out);
  }

  /** `get_new_batch_prefill`. True when a prefill batch was formed. */
  private schedulePrefill(out: SchedulerOutput, nowMs: number): boolean {
    const kv = this.kv;
    let budget = this.profile.chunkedPrefillSize;
    // The chunked request, part way through its prompt, continues first (`add_chunked_req`).
    for (const r of this.running) {
      const rest = r.numTokens - r.numComputed;
      if (rest <= 1 || budget <= 0) continue;
      const n = Math.min(rest, budget);
      if (!kv.allocate(r, n)) break;
      out.reqs.push(r);
      out.numNew.push(n);
      budget -= n;
    }
    if (this.waiting.length && budget > 0) {
      this.orderWaiting();
      while (this.waiting.length && budget > 0 && this.running.length < this.limits.maxNumSeqs) {
        const r = this.waiting.peekFront() as EngineReq;
        const hit = kv.lookup(r) * kv.blockSize;
        const want = r.numTokens - hit;
        const n = Math.min(want, budget);
        if (!kv.allocate(r, n, hit / kv.blockSize)) break;
        this.waiting.popFront();
        noteAdmission(kv, r, hit, nowMs);
        this.running.push(r);
        out.reqs.push(r);
        out.numNew.push(n);
        out.admitted.push(r);
        budget -= n;
        // A request prefilled in part is the chunked request; the batch ends with it.
        if (n < want) break;
      }
    }
    return out.reqs.length > 0;
  }

  /** `SchedulePolicy.calc_priority`: the queue in policy order. */
  private orderWaiting(): void {
    if (this.profile.schedulePolicy !== 'lpm' || this.waiting.length > LPM_FALLBACK_QUEUE_LEN) return;
    const list: { r: EngineReq; hit: number; i: number }[] = [];
    let i = 0;
    while (this.waiting.length) {
      const r = this.waiting.popFront() as EngineReq;
      list.push({ r, hit: this.kv.lookup(r), i: i++ });
    }
    list.sort((a, b) => b.hit - a.hit || a.i - b.i);
    for (const x of list) this.waiting.pushBack(x.r);
  }

  /** `update_running_batch`: a decode batch, retracting the newest requests while the pool is short. */
  private scheduleDecode(out: SchedulerOutput): void {
    const kv = this.kv;
    const running = this.running;
    for (let i = 0; i < running.length; i++) {
      const r = running[i];
      const n = r.numTokens - r.numComputed;
      // A chunked prefill that could not continue waits for room; it is no decode.
      if (n !== 1) continue;
      this.numPreemptions += allocateOrPreempt(kv, running, this.waiting, r, n, out);
      if (r.status !== 'running') break;
      out.reqs.push(r);
      out.numNew.push(n);
    }
  }

  remove(r: EngineReq): void {
    removeFrom(this.running, this.waiting, r);
  }
}
