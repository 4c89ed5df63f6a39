/**
 * @module sim/engine/scheduler
 * The scheduler seam: one {@link SchedulePolicy} interface, one module per engine beside the real
 * engine's scheduler it follows (`policies/`), and {@link createScheduler} picking one by
 * `--engine`. A policy decides each step's batch (which requests, how many new tokens each,
 * admissions and preemptions) over a {@link KvPool}; the engine core (`engine.ts`) runs it,
 * costs it and samples tokens, the same for every policy.
 */
import type { KvPool } from './kv-pool.js';
import { LlamaCppScheduler } from './policies/llamacpp.js';
import type { SchedulePolicy, SchedulerLimits } from './policies/policy.js';
import { SglangScheduler } from './policies/sglang.js';
import { VllmV0Scheduler } from './policies/vllm-v0.js';
import { VllmV1Scheduler } from './policies/vllm-v1.js';
import type { ProfileConfig } from './profiles.js';
import type { SlotPool } from './slot-pool.js';

export type { SchedulePolicy, SchedulerLimits, SchedulerOutput } from './policies/policy.js';

/** The policy of a profile. */
export function createScheduler(profile: ProfileConfig, kv: KvPool, limits: SchedulerLimits): SchedulePolicy {
  switch (profile.engine) {
    case 'vllm-v1':
      return new VllmV1Scheduler(kv, limits.maxNumSeqs, limits.maxNumBatchedTokens);
    case 'vllm-v0':
      return new VllmV0Scheduler(kv, limits, profile);
    case 'sglang':
      return new SglangScheduler(kv, limits, profile);
    case 'llamacpp': {
      const l = profile.llamacpp;
      if (!l) throw new Error('llamacpp profile without its slot settings');
      return new LlamaCppScheduler(kv as SlotPool, l.batchSize, l.contBatching);
    }
  }
}
