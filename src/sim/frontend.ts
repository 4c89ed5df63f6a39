/**
 * @module sim/frontend
 * What happens to a request before the engine sees it, shared by the HTTP server and `plan` so
 * both give identical numbers: tokenisation, the output length the "model" will choose, the
 * fixed front-end overhead (tokenisation + HTTP handling) added before the engine's arrival time,
 * and the API server's output queue ({@link ApiServerQueue}): the process that detokenises and
 * writes every streamed chunk, so that under many open streams chunks leave later than their
 * engine step ends.
 */
import { hashString, Rng } from '../runtime/rng.js';
import type { Tokenizer } from '../tokenizer/index.js';
import { FITTED } from './engine/fitted.js';

/**
 * Front-end work per request, ms: HTTP parsing, chat templating and tokenisation in vLLM's API
 * server before the request reaches the engine core. Measured vLLM TTFT for Llama-3.1-8B on H100
 * at concurrency 1 is 14.0 ms for short prompts (yobitelcomm.github.io/bench "concurrency sweep",
 * vLLM 0.21) while the cost model puts the prefill step at ~7 ms; we attribute 5 ms of the rest
 * to the server front-end and leave the remainder to client and network time. It is the service
 * time of the API server's input path ({@link ApiServerQueue.admitMs}), one request after
 * another, so a burst reaches the engine spread out rather than at once. That hand-set 5 ms is
 * now the prior of a fitted value (`engine/fitted`, issue 26; docs/sim.md "Fitted step-time
 * model"): request ingestion and tokenization as vLLM's API server pays them.
 */
export const FRONTEND_OVERHEAD_MS = FITTED.frontend_overhead_ms;

/**
 * API server work per engine step's output batch, ms: receive and decode the engine core's
 * outputs (ZMQ + msgpack) and wake the stream tasks. vLLM's 2024-09 performance post
 * (blog.vllm.ai/2024/09/05/perf-update.html) measured the API server at 33% of the time of a
 * Llama-3-8B H100 serving run before v0.6; the per-step and per-chunk shares below are our
 * split of that, fitted on the saturated rows of docs/fidelity.md.
 */
export const FRONTEND_STEP_MS = 0.1;
/**
 * API server work per streamed chunk, ms: incremental detokenisation, JSON and the SSE write.
 * Fitted (`engine/fitted`; the hand-set prior was 0.08 ms).
 */
export const FRONTEND_CHUNK_MS = FITTED.frontend_chunk_ms;
/** API server work per request when its first chunk goes out (output state, role chunk), ms. */
export const FRONTEND_REQUEST_MS = 0.5;

/**
 * Front-end constants to use instead of the defaults above, each named after its constant (a
 * calibration profile's fitted values, `sim/calibrate`); unset ones keep their default.
 */
export interface FrontendOverrides {
  /** {@link FRONTEND_OVERHEAD_MS}. */
  overheadMs?: number;
  /** {@link FRONTEND_STEP_MS}. */
  stepMs?: number;
  /** {@link FRONTEND_CHUNK_MS}. */
  chunkMs?: number;
  /** {@link FRONTEND_REQUEST_MS}. */
  requestMs?: number;
}

/** The front-end overhead before a request reaches the engine, ms: the override, else {@link FRONTEND_OVERHEAD_MS}. */
export function frontendOverheadMs(overrides: FrontendOverrides = {}): number {
  return overrides.overheadMs ?? FRONTEND_OVERHEAD_MS;
}

/**
 * The API server's output path as a single FIFO server per process (vLLM's `AsyncLLM` output
 * handler and the per-request SSE generators share one asyncio loop). Each engine step hands it
 * one batch: `FRONTEND_STEP_MS + chunks·FRONTEND_CHUNK_MS + first chunks·FRONTEND_REQUEST_MS`.
 * The batch starts when the step ends or when the previous batch is done, whichever is later,
 * and all its chunks leave when it is done. While the chunk rate stays below capacity the
 * delay is a fraction of a millisecond; above it the backlog grows, and with it TTFT and ITL,
 * as on a real server. The engine core never waits for it (vLLM V1 runs it in its own process).
 *
 * Requests come in through a second FIFO server, the input path ({@link admitMs}): each takes
 * {@link FRONTEND_OVERHEAD_MS} of work, one after another, before it reaches the engine. At low
 * load that is a fixed 5 ms delay; under a burst the engine receives requests at the input
 * path's rate. The two paths are separate servers: the output path's work per request is
 * already about what the measured burst throughput allows in total (docs/fidelity.md, kvcached
 * rows), and making them share one server (input work queued behind output batches) halves the
 * burst's throughput against that measurement.
 *
 * With `processes` > 1 (`--api-server-count`) the streams are spread over the processes; we
 * model them as one queue serving `processes` times faster (a fluid approximation of even
 * load balancing), which keeps the result independent of which process a stream landed on.
 * Deterministic and clock-free: the HTTP server and `plan` feed it the same steps in the same
 * order and get the same times.
 */
export class ApiServerQueue {
  private busyUntilMs = 0;
  private inputBusyUntilMs = 0;
  private readonly overheadMs: number;
  private readonly stepMs: number;
  private readonly chunkMs: number;
  private readonly requestMs: number;
  constructor(
    private readonly processes = 1,
    overrides: FrontendOverrides = {},
  ) {
    if (!(Number.isInteger(processes) && processes >= 1))
      throw new RangeError('processes must be a positive integer');
    this.stepMs = overrides.stepMs ?? FRONTEND_STEP_MS;
    this.chunkMs = overrides.chunkMs ?? FRONTEND_CHUNK_MS;
    this.requestMs = overrides.requestMs ?? FRONTEND_REQUEST_MS;
    this.overheadMs = frontendOverheadMs(overrides);
  }

  /**
   * When a request sent at `sentMs` (engine ms) reaches the engine: after its
   * {@link FRONTEND_OVERHEAD_MS} (or the calibrated profile's) of input work, which starts once the
   * requests before it are done.
   * Call in send order.
   */
  admitMs(sentMs: number): number {
    const start = Math.max(sentMs, this.inputBusyUntilMs);
    this.inputBusyUntilMs = start + this.overheadMs / this.processes;
    return this.inputBusyUntilMs;
  }

  /**
   * When the chunks of a step that ended at `stepEndMs` (engine ms) leave the server.
   * @param chunks tokens the step produced (one streamed chunk each)
   * @param firstChunks of those, requests' first tokens
   */
  emitMs(stepEndMs: number, chunks: number, firstChunks: number): number {
    if (chunks === 0) return stepEndMs;
    const work = (this.stepMs + chunks * this.chunkMs + firstChunks * this.requestMs) / this.processes;
    const start = Math.max(stepEndMs, this.busyUntilMs);
    this.busyUntilMs = start + work;
    return this.busyUntilMs;
  }
}

/** Median output length (tokens) of a request that stops on its own. */
export const EOS_MEDIAN_TOKENS = 200;
/**
 * Log-space standard deviation of output lengths. With median 200, σ = 0.9 gives a mean of
 * ~300 and a p90 of ~630 tokens: the long right tail of chat outputs (ShareGPT-like).
 */
export const EOS_SIGMA = 0.9;

/** Prompt token ids as the simulated server counts them (usage.prompt_tokens, /tokenize, cost model). */
export function promptTokenIds(tokenizer: Tokenizer, text: string): number[] {
  return tokenizer.encode(text);
}

export interface EosOptions {
  /** Median natural output length, tokens (default {@link EOS_MEDIAN_TOKENS}). */
  medianTokens?: number;
  /** Log-space σ (default {@link EOS_SIGMA}). */
  sigma?: number;
}

/** 32-bit hash of a token-id sequence (FNV-1a over the ids' 32-bit values). */
function hashIds(ids: ArrayLike<number>): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < ids.length; i++) {
    h = Math.imul(h ^ (ids[i] & 0xffff), 0x01000193);
    h = Math.imul(h ^ (ids[i] >>> 16), 0x01000193);
  }
  return h >>> 0;
}

/**
 * Number of tokens a request generates before it emits EOS. Lognormal (median
 * {@link EOS_MEDIAN_TOKENS}, σ {@link EOS_SIGMA}), drawn from a hash of (prompt ids, seed) only,
 * never from arrival order, so both arms of an A/B get the same lengths. At least 1, at most
 * `maxTokens` (a request that reaches `maxTokens` finishes with `length`). With `ignore_eos` the
 * caller uses `maxTokens` instead.
 *
 * @param seed the request's `seed` field (null/undefined = 0).
 * @param maxTokens the request's max_tokens, tokens.
 */
export function eosLength(
  promptIds: ArrayLike<number>,
  seed: number | string | null | undefined,
  maxTokens: number,
  opts: EosOptions = {},
): number {
  const seedHash = typeof seed === 'string' ? hashString(seed) : (seed ?? 0) >>> 0;
  const rng = new Rng((hashIds(promptIds) ^ Math.imul(seedHash, 0x9e3779b1)) >>> 0);
  const median = opts.medianTokens ?? EOS_MEDIAN_TOKENS;
  const sigma = opts.sigma ?? EOS_SIGMA;
  const len = Math.round(median * Math.exp(sigma * rng.normal()));
  return Math.max(1, Math.min(maxTokens, len));
}
