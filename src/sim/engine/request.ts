/**
 * @module sim/engine/request
 * Per-request engine state (vLLM's `Request`): how many tokens are known (prompt + generated)
 * and how many are already in the KV cache (`numComputed`). The scheduler only ever pushes
 * `numComputed` towards `numTokens`; when they meet, the step samples one new token.
 */
import { hashString } from '../../runtime/rng.js';
import type { EngineRequest, RequestTimes } from './types.js';

export type ReqStatus = 'waiting' | 'running' | 'finished';

export class EngineReq {
  readonly id: string;
  readonly prompt: ArrayLike<number>;
  readonly numPrompt: number;
  /** Output tokens at which the request stops. */
  readonly stopLen: number;
  readonly finishReason: 'stop' | 'length';
  numOutput = 0;
  /** Tokens whose KV is in the cache. */
  numComputed = 0;
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
  readonly times: RequestTimes;
  /** Salt for synthetic output token ids (identity of generated tokens for block hashing). */
  private readonly outSalt: number;

  constructor(r: EngineRequest, maxModelLen: number) {
    this.id = r.id;
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
    this.times = {
      arrivalMs: r.arrivalMs,
      firstScheduledMs: null,
      firstTokenMs: null,
      lastTokenMs: null,
      cachedTokens: 0,
      preemptions: 0,
      tokenSteps: [],
    };
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
