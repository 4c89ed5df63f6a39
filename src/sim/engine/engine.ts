/**
 * @module sim/engine/engine
 * The engine core, wiring the pieces together for one iteration:
 * entry (`add`) → request state ({@link EngineReq}) → the profile's scheduling policy
 * ({@link SchedulePolicy}: vLLM v1, vLLM v0 or SGLang) → its KV pool ({@link KvCacheManager}, or
 * SGLang's {@link RadixCache}) → executor ({@link CostModel}: how long the forward pass takes)
 * → outputs (sampled tokens, finished requests). A schedule of several forward passes (vLLM
 * v0's multi-step) is one call: its tokens come out together at the end of the last pass. It never reads a clock: drivers pass `nowMs` and deliver the step's
 * tokens at its `endMs`. {@link EngineCore.stepRaw} is the allocation-light form used by the
 * virtual-time planner; {@link createEngine} wraps it in the {@link SimEngine} contract.
 */
import type { EngineConfig } from './config.js';
import { CostModel, type StepShape } from './cost.js';
import { KvCacheManager } from './kv-cache.js';
import type { KvPool } from './kv-pool.js';
import { RadixCache } from './radix-cache.js';
import { EngineReq, IntStepList, StepList } from './request.js';
import { createScheduler, type SchedulePolicy, type SchedulerOutput } from './scheduler.js';
import type { EngineRequest, EngineStats, RequestTimes, SimEngine, StepResult } from './types.js';

const GIB = 1024 ** 3;

/** One step's outcome in reused lists (valid until the next call). */
export interface RawStep {
  step: number;
  startMs: number;
  endMs: number;
  /**
   * Requests that sampled a token at `endMs`, one entry per token (a request appears up to
   * `num_scheduler_steps` times, in token order); the token's index is in `sampledIndex`.
   */
  readonly sampled: StepList<EngineReq>;
  /** 0-based output index of each sampled token (parallel to `sampled`). */
  readonly sampledIndex: IntStepList;
  /** Requests that finished this step (subset of `sampled`). */
  readonly finished: StepList<EngineReq>;
  readonly admitted: StepList<EngineReq>;
  readonly preempted: StepList<EngineReq>;
  numBatchedTokens: number;
  /** Forward passes this step ran (vLLM v0 multi-step: up to `num_scheduler_steps`; else 1). */
  numSteps: number;
}

export class EngineCore {
  readonly cfg: EngineConfig;
  readonly kv: KvPool;
  readonly scheduler: SchedulePolicy;
  readonly cost: CostModel;
  private readonly reqs = new Map<string, EngineReq>();
  private readonly out: SchedulerOutput = {
    reqs: new StepList(),
    numNew: new IntStepList(),
    admitted: new StepList(),
    preempted: new StepList(),
    numSteps: 1,
  };
  /** Requests still decoding in the later passes of a multi-step schedule (scratch). */
  private readonly alive: EngineReq[] = [];
  private readonly raw: RawStep;
  private readonly shape: StepShape = {
    numTokens: 0,
    ctxTokens: 0,
    attnPairs: 0,
    numSampled: 0,
    numReqs: 0,
    numDecodes: 0,
    decodeCtxTokens: 0,
  };
  private stepNo = 0;
  private promptTokens = 0;
  private generationTokens = 0;
  private lastEndMs: number | null = null;
  private lastUtil = 0;

  constructor(cfg: EngineConfig) {
    this.cfg = cfg;
    const profile = cfg.profile;
    this.kv =
      profile.engine === 'sglang'
        ? new RadixCache(cfg.memory.numGpuBlocks * cfg.blockSize, cfg.enablePrefixCaching)
        : new KvCacheManager(cfg.memory.numGpuBlocks, cfg.blockSize, cfg.enablePrefixCaching);
    this.scheduler = createScheduler(profile, this.kv, {
      maxNumSeqs: cfg.maxNumSeqs,
      maxNumBatchedTokens: profile.engine === 'sglang' ? profile.chunkedPrefillSize : cfg.maxNumBatchedTokens,
    });
    this.cost = new CostModel(
      cfg.model,
      cfg.gpu,
      cfg.tp,
      cfg.dtype,
      cfg.kvCacheDtype,
      { maxNumSeqs: cfg.maxNumSeqs },
      cfg.calibration?.cost,
    );
    this.raw = {
      step: 0,
      startMs: 0,
      endMs: 0,
      sampled: new StepList(),
      sampledIndex: new IntStepList(),
      finished: new StepList(),
      admitted: this.out.admitted,
      preempted: this.out.preempted,
      numBatchedTokens: 0,
      numSteps: 1,
    };
  }

  /** Queue a request (it arrived at the engine at `req.arrivalMs`). */
  add(req: EngineRequest): EngineReq {
    if (this.reqs.has(req.id)) throw new Error(`duplicate request id ${req.id}`);
    const r = new EngineReq(req, this.cfg.maxModelLen);
    this.reqs.set(req.id, r);
    this.scheduler.waiting.pushBack(r);
    return r;
  }

  /** Drop a request now and free its blocks (client disconnected); unknown or finished ids are ignored. */
  abort(reqId: string): void {
    const r = this.reqs.get(reqId);
    if (!r || r.status === 'finished') return;
    this.scheduler.remove(r);
    this.kv.freeReq(r);
    r.status = 'finished';
  }

  /** True while any request is running or waiting. */
  hasWork(): boolean {
    return this.scheduler.running.length > 0 || this.scheduler.waiting.length > 0;
  }

  /** Schedule, cost and apply one iteration (or a multi-step group of them) starting at `nowMs`. */
  stepRaw(nowMs: number): RawStep {
    const out = this.out;
    const raw = this.raw;
    this.scheduler.schedule(out, nowMs);
    raw.sampled.clear();
    raw.sampledIndex.clear();
    raw.finished.clear();
    const shape = this.shape;
    shape.numTokens = 0;
    shape.ctxTokens = 0;
    shape.attnPairs = 0;
    shape.numSampled = 0;
    shape.numDecodes = 0;
    shape.decodeCtxTokens = 0;
    shape.numReqs = out.reqs.length;
    for (let i = 0; i < out.reqs.length; i++) {
      const r = out.reqs.at(i);
      const n = out.numNew.at(i);
      const ctx = r.numComputed;
      shape.numTokens += n;
      shape.ctxTokens += ctx;
      shape.attnPairs += n * (ctx + n / 2);
      if (n === 1) {
        shape.numDecodes++;
        shape.decodeCtxTokens += ctx;
      }
      r.numComputed = ctx + n;
      this.kv.cacheFull(r);
      // A token is sampled only in the step that brings the request up to date (end of prefill, or a decode).
      if (r.numComputed >= r.numTokens) {
        shape.numSampled++;
        raw.sampled.push(r);
      }
    }
    let dt = this.cost.stepMs(shape);
    const numBatched = shape.numTokens;
    if (shape.numReqs > 0) {
      this.stepNo++;
      if (this.stepNo === 1) dt += this.cfg.coldStartMs;
    }
    let anyFinished = this.sample(0, raw.sampled.length);
    // vLLM v0 multi-step: the later passes of the group decode one more token per live request.
    for (let s = 1; s < out.numSteps; s++) {
      const alive = this.alive;
      alive.length = 0;
      for (let i = 0; i < out.reqs.length; i++) {
        const r = out.reqs.at(i);
        if (r.status === 'running' && this.kv.allocate(r, 1)) alive.push(r);
      }
      if (!alive.length) break;
      shape.numTokens = alive.length;
      shape.ctxTokens = 0;
      shape.attnPairs = 0;
      shape.numSampled = alive.length;
      shape.numReqs = alive.length;
      const from = raw.sampled.length;
      for (const r of alive) {
        const ctx = r.numComputed;
        shape.ctxTokens += ctx;
        shape.attnPairs += ctx + 0.5;
        r.numComputed = ctx + 1;
        this.kv.cacheFull(r);
        raw.sampled.push(r);
      }
      dt += this.cost.stepMs(shape);
      anyFinished = this.sample(from, raw.sampled.length) || anyFinished;
    }
    const endMs = nowMs + dt;
    const step = this.stepNo;
    if (out.reqs.length > 0) {
      // Busy time over the window since the previous step ended (back-to-back steps: 100%).
      const idleMs = this.lastEndMs !== null && this.lastEndMs < nowMs ? nowMs - this.lastEndMs : 0;
      this.lastUtil = idleMs > 0 ? dt / (dt + idleMs) : 1;
      this.lastEndMs = endMs;
    }
    // Every token of the step is stamped with the one boxed number `lastEndMs` holds (a field
    // that starts as null keeps its numbers boxed): storing `endMs` itself boxed it anew for
    // each token. There are tokens only when requests were scheduled, so it is `endMs`.
    const stamp = this.lastEndMs;
    for (let i = 0; i < raw.sampled.length; i++) {
      const t = raw.sampled.at(i).times;
      if (t.firstTokenMs === null) t.firstTokenMs = stamp;
      t.lastTokenMs = stamp;
      t.addTokenStep(step);
    }
    if (anyFinished) {
      const running = this.scheduler.running;
      let w = 0;
      for (let i = 0; i < running.length; i++) if (running[i].status === 'running') running[w++] = running[i];
      running.length = w;
    }
    raw.step = step;
    raw.startMs = nowMs;
    raw.endMs = endMs;
    raw.numBatchedTokens = numBatched;
    raw.numSteps = out.numSteps;
    return raw;
  }

  /** Apply the tokens `raw.sampled[from, to)`: count them, finish requests at their stop length. */
  private sample(from: number, to: number): boolean {
    const raw = this.raw;
    let anyFinished = false;
    for (let i = from; i < to; i++) {
      const r = raw.sampled.at(i);
      if (!r.prefilled) {
        r.prefilled = true;
        this.promptTokens += r.numPrompt;
      }
      raw.sampledIndex.push(r.numOutput);
      r.numOutput++;
      this.generationTokens++;
      if (r.numOutput >= r.stopLen) {
        this.kv.freeReq(r);
        r.status = 'finished';
        raw.finished.push(r);
        anyFinished = true;
      }
    }
    return anyFinished;
  }

  resetPrefixCache(): boolean {
    return this.kv.reset();
  }

  stats(): EngineStats {
    const m = this.cfg.memory;
    const kvUsage = this.kv.usage();
    return {
      running: this.scheduler.running.length,
      waiting: this.scheduler.waiting.length,
      kvUsage,
      totalBlocks: this.kv.numBlocks,
      blockSize: this.kv.blockSize,
      prefixQueries: this.kv.queries,
      prefixHits: this.kv.hits,
      preemptions: this.scheduler.numPreemptions,
      promptTokens: this.promptTokens,
      generationTokens: this.generationTokens,
      steps: this.stepNo,
      gpuMemoryUsedGiB:
        m.weightsGiB +
        m.activationGiB +
        m.nonTorchGiB +
        (kvUsage * m.kvCapacityTokens * m.kvBytesPerTokenPerGpu) / GIB,
      gpuMemoryTotalGiB: m.totalGiB,
      gpuUtil: this.lastUtil,
    };
  }

  times(reqId: string): RequestTimes | undefined {
    return this.reqs.get(reqId)?.times;
  }

  /** The engine's state of a request (until {@link release}). */
  get(reqId: string): EngineReq | undefined {
    return this.reqs.get(reqId);
  }

  release(reqId: string): void {
    const r = this.reqs.get(reqId);
    if (r && r.status === 'finished') this.reqs.delete(reqId);
  }
}

/** The {@link SimEngine} contract over {@link EngineCore}: same code, object-per-event outputs. */
class SimEngineImpl implements SimEngine {
  constructor(private readonly core: EngineCore) {}

  add(req: EngineRequest, _nowMs: number): void {
    this.core.add(req);
  }

  abort(reqId: string, _nowMs: number): void {
    this.core.abort(reqId);
  }

  hasWork(): boolean {
    return this.core.hasWork();
  }

  step(nowMs: number): StepResult {
    const raw = this.core.stepRaw(nowMs);
    return {
      step: raw.step,
      startMs: raw.startMs,
      endMs: raw.endMs,
      scheduled: raw.admitted.toArray().map((r) => r.id),
      tokens: tokenEvents(raw),
      finished: raw.finished.toArray().map((r) => ({ reqId: r.id, reason: r.finishReason })),
      preempted: raw.preempted.toArray().map((r) => r.id),
      numBatchedTokens: raw.numBatchedTokens,
    };
  }

  resetPrefixCache(): boolean {
    return this.core.resetPrefixCache();
  }

  stats(): EngineStats {
    return this.core.stats();
  }

  times(reqId: string): RequestTimes | undefined {
    return this.core.times(reqId);
  }

  release(reqId: string): void {
    this.core.release(reqId);
  }
}

/**
 * The step's tokens, each request's in order and together (a multi-step group samples several
 * per request), so a consumer can tell a request's last token of the step by the next one.
 */
function tokenEvents(raw: RawStep): StepResult['tokens'] {
  const n = raw.sampled.length;
  const out: StepResult['tokens'] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = { reqId: raw.sampled.at(i).id, index: raw.sampledIndex.at(i) };
  if (raw.numSteps === 1) return out;
  // A multi-step group: by request in first-appearance order (a stable sort keeps token order).
  const order = new Map<string, number>();
  for (const t of out) if (!order.has(t.reqId)) order.set(t.reqId, order.size);
  return out.sort((x, y) => (order.get(x.reqId) as number) - (order.get(y.reqId) as number));
}

/** Build a simulated engine from a resolved configuration (see `resolveEngineConfig`). */
export function createEngine(cfg: EngineConfig): SimEngine {
  return new SimEngineImpl(new EngineCore(cfg));
}
