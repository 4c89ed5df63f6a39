/**
 * @module record/engine-step
 * One engine step of the simulator's step timeline (`--record-steps`), as `GET /servelab/steps`
 * serves it and as a run keeps it (the store's `engine_steps`, `steps.jsonl` under `--out`).
 * What a step holds follows vLLM's `SchedulerOutput` (vllm/v1/core/sched/output.py at
 * https://github.com/vllm-project/vllm, `num_scheduled_tokens` per request): prefill chunks
 * and decodes, the preemptions of the step and the KV pool's occupancy after it.
 */

/** One prefill chunk of a step: whose, how many prompt tokens, the KV blocks it holds after. */
export interface StepPrefillChunk {
  /** The request's id as the client sent it (`X-Request-Id`), else the engine's. */
  id: string;
  tokens: number;
  /** KV blocks (SGLang: tokens) the request holds once the chunk is computed. */
  blocks: number;
  /** Tokens of the request's prompt computed by the end of this chunk. */
  done: number;
  /** The request's prompt tokens (prompt plus output, when recomputed after a preemption). */
  of: number;
}

/** One engine step, as served on `GET /servelab/steps` and stored with the run (steps.jsonl). */
export interface EngineStepRecord {
  /** The engine's step number (1-based; the `step` stamp of `--expose-timings`). */
  step: number;
  /** Start, engine ms on the driver's timeline. */
  start_ms: number;
  /** The step's duration as the cost model gave it, engine ms (a multi-step group: all its passes). */
  dur_ms: number;
  /** Requests that decoded in the step: one token, or a speculative verify (its drafts and one token). */
  decode: string[];
  prefill: StepPrefillChunk[];
  /** Tokens the step computed (prefill chunks plus decodes). */
  tokens: number;
  /** KV blocks in use while the step ran (its allocations made, before finished requests freed theirs). */
  kv_blocks_used: number;
  kv_blocks_total: number;
  /** Requests preempted (their KV freed, to be recomputed) to make room in this step. */
  preempted: string[];
  /** Speculative decoding: the draft tokens the step verified (proposed) and kept (accepted); null when not speculating. */
  spec: { proposed: number; accepted: number } | null;
}

/**
 * A step as a run keeps it: the engine's record and when it started on the run's clock (ms since
 * the run's origin, like a request record's times), so it lines up with the requests' tokens.
 */
export interface RunStepRecord extends EngineStepRecord {
  t_ms: number;
}
