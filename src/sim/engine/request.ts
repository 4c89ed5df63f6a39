/**
 * @module sim/engine/request
 * Per-request engine state (vLLM's `Request`): how many tokens are known (prompt + generated)
 * and how many are already in the KV cache (`numComputed`). The scheduler only ever pushes
 * `numComputed` towards `numTokens`; when they meet, the step samples one new token.
 */
import { hashString } from '../../runtime/rng.js';
import type { EngineRequest, RequestTimes } from './types.js';

/**
 * vLLM's `RequestStatus` (vllm/v1/request.py), the states the simulator has: WAITING (never
 * scheduled), RUNNING, PREEMPTED (its KV was freed and it waits again, at the front of the
 * queue, to be recomputed) and one FINISHED for all of vLLM's FINISHED_* reasons
 * (`finishReason` says which).
 */
export type ReqStatus = 'waiting' | 'running' | 'preempted' | 'finished';

export class EngineReq {
  readonly id: string;
  /** The client's name for it (`EngineRequest.label`), for the step timeline. */
  readonly label: string | undefined;
  readonly prompt: ArrayLike<number>;
  readonly numPrompt: number;
  /** Output tokens at which the request stops. */
  readonly stopLen: number;
  readonly finishReason: 'stop' | 'length';
  numOutput = 0;
  /** Tokens whose KV is in the cache. */
  numComputed = 0;
  /**
   * Draft tokens proposed for the next step (vLLM's `spec_token_ids`; `sim/engine/speculative`):
   * the scheduler gives the request 1 + numSpec tokens. 0 without speculative decoding.
   */
  numSpec = 0;
  status: ReqStatus = 'waiting';
  /** KV block ids, in token order. */
  readonly blocks: number[] = [];
  /** Chained hashes of this request's full blocks computed so far (kept across preemption). */
  readonly blockHashes: number[] = [];
  /** Leading entries of `blocks` already registered in the prefix cache. */
  numCachedBlocks = 0;
  /** True once the request has been counted in the prompt-token counter. */
  prefilled = false;
  /** Free for the driver (e.g. the planner's record index), so it needs no id lookup per token. */
  tag = -1;
  readonly times: ReqTimes;
  /** Salt for synthetic output token ids (identity of generated tokens for block hashing). */
  private readonly outSalt: number;

  constructor(r: EngineRequest, maxModelLen: number) {
    this.id = r.id;
    this.label = r.label;
    this.prompt = r.promptTokens;
    this.numPrompt = r.promptTokens.length;
    if (this.numPrompt < 1) throw new RangeError(`request ${r.id}: empty prompt`);
    if (this.numPrompt >= maxModelLen)
      throw new RangeError(
        `request ${r.id}: ${this.numPrompt} prompt tokens exceed max_model_len ${maxModelLen}`,
      );
    const natural = Math.max(1, r.eosLen, r.minTokens ?? 0);
    const cap = Math.min(r.maxTokens, maxModelLen - this.numPrompt);
    this.stopLen = Math.max(1, Math.min(natural, cap));
    this.finishReason = natural >= cap ? 'length' : 'stop';
    this.outSalt = hashString(r.id);
    this.times = new ReqTimes(r.arrivalMs, this.stopLen);
  }

  /** Prompt plus generated tokens. */
  get numTokens(): number {
    return this.numPrompt + this.numOutput;
  }

  /** Token id at position `i` (generated tokens get stable synthetic ids). */
  tokenAt(i: number): number {
    return i < this.numPrompt
      ? this.prompt[i]
      : (Math.imul(i - this.numPrompt + 1, 0x9e3779b1) ^ this.outSalt) >>> 0;
  }
}

/**
 * {@link RequestTimes} with the token steps in an `Int32Array` sized from the stop length: a
 * plain array grown by `push` allocated about three times its final size in 8-byte slots, for
 * every token of every request, and most of that was garbage the scavenger had to copy first.
 */
export class ReqTimes implements RequestTimes {
  firstScheduledMs: number | null = null;
  firstTokenMs: number | null = null;
  lastTokenMs: number | null = null;
  cachedTokens = 0;
  preemptions = 0;
  private steps: Int32Array;
  private numSteps = 0;

  constructor(
    public arrivalMs: number,
    maxTokens: number,
  ) {
    this.steps = new Int32Array(Math.min(maxTokens, 1024));
  }

  /** Stamp the next token with the step that produced it. */
  addTokenStep(step: number): void {
    if (this.numSteps === this.steps.length) {
      const grown = new Int32Array(Math.max(16, this.steps.length * 2));
      grown.set(this.steps);
      this.steps = grown;
    }
    this.steps[this.numSteps++] = step;
  }

  get tokenSteps(): number[] {
    const n = this.numSteps;
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = this.steps[i];
    return out;
  }
}

/**
 * A list refilled every step. Emptying a plain array with `length = 0` makes V8 drop its backing
 * store, so every step regrew the batch arrays from nothing (most of the planner's garbage);
 * this keeps the storage and counts the live entries. Entries past `length` are stale.
 */
export class StepList<T> {
  private readonly items: T[] = [];
  private n = 0;

  get length(): number {
    return this.n;
  }

  push(x: T): void {
    this.items[this.n++] = x;
  }

  /** Entry `i` (0 ≤ i < length). */
  at(i: number): T {
    return this.items[i];
  }

  clear(): void {
    this.n = 0;
  }

  /** A copy of the live entries. */
  toArray(): T[] {
    return this.items.slice(0, this.n);
  }
}

/** {@link StepList} for small non-negative integers (token counts, output indices), in an `Int32Array`. */
export class IntStepList {
  private items = new Int32Array(64);
  private n = 0;

  get length(): number {
    return this.n;
  }

  push(x: number): void {
    if (this.n === this.items.length) {
      const grown = new Int32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.n++] = x;
  }

  at(i: number): number {
    return this.items[i];
  }

  clear(): void {
    this.n = 0;
  }
}

/** A growable ring buffer: vLLM's waiting queue needs push-front for preempted requests. */
export class Deque<T> {
  private buf: (T | undefined)[] = new Array(16);
  private head = 0;
  length = 0;

  pushBack(x: T): void {
    if (this.length === this.buf.length) this.grow();
    this.buf[(this.head + this.length) % this.buf.length] = x;
    this.length++;
  }

  pushFront(x: T): void {
    if (this.length === this.buf.length) this.grow();
    this.head = (this.head - 1 + this.buf.length) % this.buf.length;
    this.buf[this.head] = x;
    this.length++;
  }

  peekFront(): T | undefined {
    return this.length ? this.buf[this.head] : undefined;
  }

  popFront(): T | undefined {
    if (!this.length) return undefined;
    const x = this.buf[this.head];
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) % this.buf.length;
    this.length--;
    return x;
  }

  /** Remove one item (O(n)); true if it was there. */
  remove(x: T): boolean {
    const n = this.buf.length;
    for (let i = 0; i < this.length; i++) {
      if (this.buf[(this.head + i) % n] !== x) continue;
      for (let j = i; j < this.length - 1; j++)
        this.buf[(this.head + j) % n] = this.buf[(this.head + j + 1) % n];
      this.buf[(this.head + this.length - 1) % n] = undefined;
      this.length--;
      return true;
    }
    return false;
  }

  private grow(): void {
    const old = this.buf;
    const next: (T | undefined)[] = new Array(old.length * 2);
    for (let i = 0; i < this.length; i++) next[i] = old[(this.head + i) % old.length];
    this.buf = next;
    this.head = 0;
  }
}
