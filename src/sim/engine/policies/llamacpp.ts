/**
 * @module sim/engine/policies/llamacpp
 * llama.cpp's server loop (ggml-org/llama.cpp `tools/server/server-context.cpp`, commit
 * 001d906a6d86e2490e394361e7cc6f478b100088, `process_single_task` and `update_slots`):
 *
 * 1. a new task takes an idle slot ({@link SlotPool.launch}: by prompt similarity, else least
 *    recently used); with every slot busy it is deferred, first come first served
 *    (`llamacpp:requests_deferred`), until a slot is released;
 * 2. each `update_slots` builds one batch of at most `-b` tokens: first one token of every
 *    generating slot, then, in slot order, the prompt tokens of the slots still processing their
 *    prompt, as many as the batch has room for (a long prompt spans several batches);
 *    without continuous batching (`--no-cont-batching`) prompts are processed only when no slot
 *    is generating;
 * 3. a slot never preempts another: its context is its own (`-c / -np`), and a generation that
 *    reaches it ends (`finish_reason: length`), as with context shift off (the default).
 */
import { Deque, type EngineReq } from '../request.js';
import type { SlotPool } from '../slot-pool.js';
import {
  clearOutput,
  noteAdmission,
  removeFrom,
  type SchedulePolicy,
  type SchedulerOutput,
} from './policy.js';

export class LlamaCppScheduler implements SchedulePolicy {
  readonly running: EngineReq[] = [];
  readonly waiting = new Deque<EngineReq>();
  numPreemptions = 0;
  private readonly order: EngineReq[] = [];

  constructor(
    private readonly pool: SlotPool,
    private readonly batchSize: number,
    private readonly contBatching: boolean,
  ) {}

  schedule(out: SchedulerOutput, nowMs: number): void {
    clearOutput(out);
    const pool = this.pool;
    while (this.waiting.length) {
      const r = this.waiting.peekFront()!;
      const hit = pool.launch(r);
      if (hit < 0) break;
      this.waiting.popFront();
      r.numComputed = hit;
      noteAdmission(pool, r, hit, nowMs);
      this.running.push(r);
      out.admitted.push(r);
    }
    // Slot order, as update_slots walks the slots.
    const order = this.order;
    order.length = 0;
    for (const r of this.running) order.push(r);
    order.sort((a, b) => (pool.slotOf(a)?.id ?? 0) - (pool.slotOf(b)?.id ?? 0));
    let budget = this.batchSize;
    for (const r of order) {
      if (budget <= 0) break;
      if (r.numComputed < r.numPrompt) continue;
      out.reqs.push(r);
      out.numNew.push(1);
      budget--;
    }
    if (!this.contBatching && out.reqs.length > 0) return;
    for (const r of order) {
      if (budget <= 0) break;
      if (r.numComputed >= r.numPrompt) continue;
      const n = Math.min(r.numPrompt - r.numComputed, budget);
      out.reqs.push(r);
      out.numNew.push(n);
      budget -= n;
    }
  }

  remove(r: EngineReq): void {
    removeFrom(this.running, this.waiting, r);
  }
}
