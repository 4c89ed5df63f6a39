/**
 * @module sim/engine/step-log
 * The step timeline (`--record-steps`): one {@link EngineStepRecord} per engine step, what the
 * scheduler put in it and what it cost. Off by default: the engine then holds no recorder and
 * pays one null check per scheduled request (`plan`'s speed holds; `npm run bench -- sim-virtual`).
 *
 * What a step holds follows vLLM's `SchedulerOutput` (vllm/v1/core/sched/output.py): the
 * requests scheduled with their new tokens (`num_scheduled_tokens`), split here into prefill
 * chunks (a request still catching up on its prompt, or recomputing after a preemption) and
 * decodes (one token on top of a request that is up to date), the preemptions of the step, and
 * the KV pool's occupancy after it (vLLM's `kv_cache_usage` gauge, in blocks). With speculative
 * decoding a verify is a decode of its drafts plus one token, and `spec` counts the step's
 * verified draft tokens and the accepted ones (vLLM's `SpecDecodingStats.observe_draft`, counted
 * where the drafts are verified); null when the engine does not speculate.
 *
 * The log keeps the most recent {@link StepLog.capacity} steps; a reader pages through it with a
 * cursor (`since`, the next step number to read), so `GET /servelab/steps` never returns the whole
 * run at once. The times are engine ms on the driver's timeline.
 */

import type { EngineStepRecord, StepPrefillChunk } from '../../record/engine-step.js';
import type { EngineReq } from './request.js';
import type { StepPage } from './types.js';

/** How many steps a log keeps by default (about 100 MB at a few hundred bytes a step). */
export const STEP_LOG_CAPACITY = 200_000;

/** The name a request is recorded under: the client's request id when it sent one. */
function nameOf(r: EngineReq): string {
  return r.label ?? r.id;
}

/** The recorder the engine core calls while it builds a step, and the bounded log it fills. */
export class StepLog {
  private readonly ring: (EngineStepRecord | undefined)[] = [];
  /** Step number of the next record (records are numbered as the engine numbers its steps). */
  private head = 1;
  private count = 0;
  private decode: string[] = [];
  private prefill: StepPrefillChunk[] = [];
  private tokens = 0;
  private kvUsed = 0;
  private kvTotal = 0;
  private proposed = 0;
  private accepted = 0;

  /** `speculating`: the engine runs `--speculative-config`, so every step has a `spec` (else null). */
  constructor(
    readonly capacity: number = STEP_LOG_CAPACITY,
    private readonly speculating = false,
  ) {}

  /** One scheduled request of the step being built: `n` new tokens on top of `ctx` computed ones. */
  scheduled(r: EngineReq, n: number, ctx: number): void {
    this.tokens += n;
    // A decode computes the one token sampled last step; anything else catches up on tokens.
    if (n === 1 && ctx === r.numTokens - 1 && r.numOutput > 0) this.decode.push(nameOf(r));
    else
      this.prefill.push({
        id: nameOf(r),
        tokens: n,
        blocks: r.blocks.length,
        done: ctx + n,
        of: r.numTokens,
      });
  }

  /** A speculative verify of `r`: its `drafts` draft tokens and one more, `accepted` of the drafts kept. */
  verified(r: EngineReq, drafts: number, accepted: number): void {
    this.tokens += drafts + 1;
    this.decode.push(nameOf(r));
    this.proposed += drafts;
    this.accepted += accepted;
  }

  /** The KV blocks in use while the step runs (its allocations made, nothing freed yet), of `total`. */
  kvInUse(used: number, total: number): void {
    this.kvUsed = used;
    this.kvTotal = total;
  }

  /** The step is costed: keep it. `preempted` are the requests it preempted. */
  close(
    step: number,
    startMs: number,
    durMs: number,
    preempted: { length: number; at(i: number): EngineReq },
  ): void {
    const names: string[] = [];
    for (let i = 0; i < preempted.length; i++) names.push(nameOf(preempted.at(i)));
    const rec: EngineStepRecord = {
      step,
      start_ms: startMs,
      dur_ms: durMs,
      decode: this.decode,
      prefill: this.prefill,
      tokens: this.tokens,
      kv_blocks_used: this.kvUsed,
      kv_blocks_total: this.kvTotal,
      preempted: names,
      spec: this.speculating ? { proposed: this.proposed, accepted: this.accepted } : null,
    };
    this.discard();
    if (this.count === 0) this.head = step;
    const slot = (step - 1) % this.capacity;
    this.ring[slot] = rec;
    if (this.count < this.capacity) this.count++;
    else this.head++;
  }

  /** The step being built scheduled nothing (an idle call): forget what was noted. */
  discard(): void {
    this.decode = [];
    this.prefill = [];
    this.tokens = 0;
    this.proposed = 0;
    this.accepted = 0;
  }

  /** The oldest step held (the next step to be recorded when empty). */
  get first(): number {
    return this.head;
  }

  /** The step number after the newest held. */
  get end(): number {
    return this.head + this.count;
  }

  /** Up to `limit` steps from step `since` on (from the oldest held when it was dropped). */
  page(since: number, limit: number): StepPage {
    const from = Math.max(since, this.head);
    const to = Math.min(this.end, from + Math.max(0, limit));
    const steps: EngineStepRecord[] = [];
    for (let s = from; s < to; s++) {
      const rec = this.ring[(s - 1) % this.capacity];
      if (rec) steps.push(rec);
    }
    return {
      steps,
      next: Math.max(to, since),
      first: this.head,
      dropped: Math.max(0, this.head - Math.max(1, since)),
      end: this.end,
    };
  }
}
