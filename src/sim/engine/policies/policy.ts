/**
 * @module sim/engine/policies/policy
 * The interface every scheduling policy implements, and the bookkeeping they share
 * (recompute preemption, admission stats). `sim/engine/scheduler` picks the policy.
 */
import type { KvPool } from '../kv-pool.js';
import type { Deque, EngineReq, IntStepList, StepList } from '../request.js';

/** What one call to {@link SchedulePolicy.schedule} decided; the lists are reused between steps. */
export interface SchedulerOutput {
  readonly reqs: StepList<EngineReq>;
  /** New tokens per scheduled request (parallel to `reqs`). */
  readonly numNew: IntStepList;
  /** Requests admitted from waiting this step (new or resumed after preemption). */
  readonly admitted: StepList<EngineReq>;
  readonly preempted: StepList<EngineReq>;
  /**
   * Forward passes in this schedule: 1, or vLLM v0's `--num-scheduler-steps` for an all-decode
   * batch, whose every request then decodes one token per pass (its KV room for all of them is
   * allocated up front, vLLM's lookahead slots) and whose tokens reach the client together.
   */
  numSteps: number;
}

/** A scheduling policy: the running list, the waiting queue and how a step's batch is chosen. */
export interface SchedulePolicy {
  readonly running: EngineReq[];
  readonly waiting: Deque<EngineReq>;
  /** Preemptions (SGLang: retractions) since start. */
  numPreemptions: number;
  /** Fill `out` with this step's batch. Mutates request state (KV, status, numComputed on hits). */
  schedule(out: SchedulerOutput, nowMs: number): void;
  /** Remove a finished or aborted request from the running list or the waiting queue. */
  remove(r: EngineReq): void;
}

/** Limits every policy reads. */
export interface SchedulerLimits {
  maxNumSeqs: number;
  /** Token budget of one step (vLLM's max_num_batched_tokens; SGLang's chunked prefill size). */
  maxNumBatchedTokens: number;
}

/** Empty `out` for a new step. */
export function clearOutput(out: SchedulerOutput): void {
  out.reqs.clear();
  out.numNew.clear();
  out.admitted.clear();
  out.preempted.clear();
  out.numSteps = 1;
}

/**
 * Recompute-style preemption shared by the policies: drop the KV, keep the tokens, front of
 * waiting, status PREEMPTED (vLLM's `Scheduler._preempt_request`, vllm/v1/core/sched/scheduler.py).
 */
export function preemptRecompute(kv: KvPool, r: EngineReq, waiting: Deque<EngineReq>): void {
  kv.freeReq(r);
  r.numComputed = 0;
  r.numSpec = 0;
  r.status = 'preempted';
  r.times.preemptions++;
  waiting.pushFront(r);
}

/**
 * Make room for `n` new tokens of running request `r`, preempting the newest running requests
 * (recompute) while the pool is short, as vLLM's `Scheduler.schedule` does for its running queue
 * (vllm/v1/core/sched/scheduler.py) and SGLang's `update_running_batch` retracts. Every victim
 * goes to `out.preempted`.
 * @returns how many were preempted; `r` itself was one of them (and nothing was allocated) when
 * it is no longer running. A number, not an object: this runs for every request on every step.
 */
export function allocateOrPreempt(
  kv: KvPool,
  running: EngineReq[],
  waiting: Deque<EngineReq>,
  r: EngineReq,
  n: number,
  out: SchedulerOutput,
): number {
  let preempted = 0;
  while (!kv.allocate(r, n)) {
    const victim = running.pop() as EngineReq;
    preemptRecompute(kv, victim, waiting);
    preempted++;
    out.preempted.push(victim);
    if (victim === r) break;
  }
  return preempted;
}

/**
 * The running queue in order, each request what it still lacks within `budget` tokens, room made
 * by {@link allocateOrPreempt}; stops when the budget is spent or a request preempted itself.
 * vLLM V1's running pass and V0's decode/chunked pass alike (vllm/v1/core/sched/scheduler.py).
 * @returns the budget left and how many requests were preempted
 */
export function scheduleRunningQueue(
  kv: KvPool,
  running: EngineReq[],
  waiting: Deque<EngineReq>,
  out: SchedulerOutput,
  budget: number,
): { budget: number; preempted: number } {
  let preempted = 0;
  for (let i = 0; i < running.length && budget > 0; i++) {
    const r = running[i];
    // With speculative decoding a decode also carries its drafts (vLLM's num_tokens_with_spec).
    const n = Math.min(r.numTokens + r.numSpec - r.numComputed, budget);
    if (n <= 0) continue;
    preempted += allocateOrPreempt(kv, running, waiting, r, n, out);
    if (r.status !== 'running') break;
    out.reqs.push(r);
    out.numNew.push(n);
    budget -= n;
  }
  return { budget, preempted };
}

/** Bookkeeping of an admission shared by the policies (prefix stats, first-schedule time). */
export function noteAdmission(kv: KvPool, r: EngineReq, hit: number, nowMs: number): void {
  // Counted on admission only, where vLLM counts them: `Scheduler.schedule` calls
  // `KVCacheManager.record_prefix_cache_stats` once the request's slots are allocated ("Record at
  // admission so unscheduled lookups are not counted", vllm-project/vllm@003df29), not in
  // `get_computed_blocks`, so a head-of-line request looked up on every step counts once.
  // docs/learn-vllm-with-sim.md, "Prefix-cache statistics".
  kv.queries += r.numTokens;
  kv.hits += hit;
  if (r.times.firstScheduledMs === null) {
    r.times.firstScheduledMs = nowMs;
    r.times.cachedTokens = hit;
  }
  r.status = 'running';
}

/** Remove `r` from whichever list holds it. */
export function removeFrom(running: EngineReq[], waiting: Deque<EngineReq>, r: EngineReq): void {
  if (r.status === 'running') {
    const i = running.indexOf(r);
    if (i >= 0) running.splice(i, 1);
  } else if (r.status === 'waiting' || r.status === 'preempted') {
    waiting.remove(r);
  }
}
