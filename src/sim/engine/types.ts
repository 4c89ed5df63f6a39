/**
 * @module sim/engine/types
 * Contract between the simulated engine core (scheduler, KV cache, cost model; pure and
 * clock-free) and its two drivers: the real-time HTTP server (`sim/server`) and the
 * virtual-time planner (`sim/batch-driver`). The engine never reads a clock: drivers pass `nowMs`.
 */
import type { EngineStepRecord } from '../../record/engine-step.js';

/** A request as the engine sees it: token ids (for prefix hashing) and how long it will generate. */
export interface EngineRequest {
  id: string;
  /** Prompt token ids. Identical prefixes must produce identical ids (prefix caching hashes them). */
  promptTokens: Uint32Array | number[];
  /** Upper bound on output tokens (max_tokens). */
  maxTokens: number;
  /**
   * Number of tokens the request will produce before it stops on its own (EOS). The front-end
   * derives it from a hash of (prompt, seed), never from arrival order. With ignore_eos it is
   * `maxTokens`. If `eosLen >= maxTokens` the request finishes with `length`.
   */
  eosLen: number;
  /** At least this many tokens before EOS may stop it (min_tokens). */
  minTokens?: number;
  /** Arrival time at the engine (ms on the driver's clock). */
  arrivalMs: number;
  /** The client's name for the request (its `X-Request-Id`), for the step timeline; default `id`. */
  label?: string;
}

export interface TokenEvent {
  reqId: string;
  /** 0-based index of this output token. */
  index: number;
}

export interface FinishEvent {
  reqId: string;
  reason: 'stop' | 'length' | 'abort';
}

/** What one engine iteration did. Tokens are emitted at `endMs`. */
export interface StepResult {
  /** Monotonic step counter (1-based), the "step stamp" exposed with --expose-timings. */
  step: number;
  startMs: number;
  endMs: number;
  /** Requests that got scheduled for the first time (or again after preemption) in this step. */
  scheduled: string[];
  /** New tokens sampled in this step (at most one per request). */
  tokens: TokenEvent[];
  finished: FinishEvent[];
  preempted: string[];
  /** Total new tokens (prefill chunks + decodes) processed in the step. */
  numBatchedTokens: number;
}

/** Per-request lifecycle timestamps kept by the engine (vLLM's QUEUED/SCHEDULED/NEW_TOKENS events). */
export interface RequestTimes {
  arrivalMs: number;
  firstScheduledMs: number | null;
  firstTokenMs: number | null;
  lastTokenMs: number | null;
  cachedTokens: number;
  preemptions: number;
  /** Step stamp of every produced token (a fresh copy on each read). */
  readonly tokenSteps: number[];
}

/** Counters and gauges, vLLM-named in spirit (exposed on /metrics by the server). */
export interface EngineStats {
  running: number;
  waiting: number;
  /** 0..1, 1 − free_blocks/total_blocks (cached-but-unreferenced blocks count as free). */
  kvUsage: number;
  totalBlocks: number;
  blockSize: number;
  prefixQueries: number;
  prefixHits: number;
  preemptions: number;
  promptTokens: number;
  generationTokens: number;
  steps: number;
  /**
   * Speculative decoding's counters since start (vLLM's `SpecDecodingStats`), present only with
   * `--speculative-config`: drafts verified, draft tokens, accepted tokens, and the drafts whose
   * position i was accepted.
   */
  spec?: { drafts: number; draftTokens: number; acceptedTokens: number; acceptedPerPos: readonly number[] };
  /** Simulated device memory in use, GiB (weights + activation reserve + used KV). */
  gpuMemoryUsedGiB: number;
  gpuMemoryTotalGiB: number;
}

/** One llama.cpp server slot (`--engine llamacpp`), for `GET /slots`. */
export interface SlotState {
  id: number;
  /** Tokens the slot holds at most. */
  nCtx: number;
  processing: boolean;
  /** The numeric id of its current or last task; null when it never ran one. */
  task: number | null;
  promptTokens: number;
  processedTokens: number;
  cachedTokens: number;
  decoded: number;
}

/* The step timeline (`--record-steps`, `step-log.ts`). */

/** A page of the log: the steps from the cursor on, and where the next page starts. */
export interface StepPage {
  steps: EngineStepRecord[];
  /** The cursor for the next page (`since`). */
  next: number;
  /** The oldest step still held; steps before it were dropped (the log is bounded). */
  first: number;
  /** Steps before `since` that were asked for but had been dropped. */
  dropped: number;
  /** The step number after the newest held: a cursor that reads only what comes later. */
  end: number;
}

/** What ngram assumed for prompts without text (`SpecDecoder.assumeSyntheticPrompts`). */
export interface NgramPrior {
  /** Conditional acceptance of each drafted position. */
  acceptance_per_position: number;
  /** The mean accepted tokens per step (the bonus token included) it reproduces. */
  mean_accepted_tokens: number;
  /** The published measurement it comes from (a citation). */
  source: string;
}

/** The engine's public surface. Implemented by `sim/engine/engine.ts`. */
export interface SimEngine {
  add(req: EngineRequest, nowMs: number): void;
  /** Client disconnected: free its blocks at once. */
  abort(reqId: string, nowMs: number): void;
  /** True when any request is running or waiting. */
  hasWork(): boolean;
  /** Plan and cost one iteration starting at `nowMs`. The caller delivers its tokens at `endMs`. */
  step(nowMs: number): StepResult;
  /** vLLM's POST /reset_prefix_cache: drops cached free blocks. False if blocks are in use. */
  resetPrefixCache(): boolean;
  stats(): EngineStats;
  times(reqId: string): RequestTimes | undefined;
  /** Forget a finished request's bookkeeping after the driver has read it. */
  release(reqId: string): void;
  /** `--engine llamacpp`: the server's slots; empty for the other profiles. */
  slots(): SlotState[];
  /** `--record-steps`: up to `limit` recorded steps from step `since` on; null when not recording. */
  stepPage(since: number, limit: number): StepPage | null;
  /**
   * The prompts to come carry no text (a client's synthetic words): ngram speculation without a
   * set acceptance drafts at its published prior (`sim/engine/speculative`). Returns the
   * acceptance per position assumed and its source, or null when nothing is assumed.
   */
  assumeSyntheticPrompts(): NgramPrior | null;
}
