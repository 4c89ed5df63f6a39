/**
 * @module sim/engine/engine
 * The engine core, wiring vLLM v1's pieces together for one iteration:
 * entry (`add`) → request state ({@link EngineReq}) → {@link Scheduler} → {@link KvCacheManager}
 * → executor ({@link CostModel}: how long the forward pass takes) → outputs (sampled tokens,
 * finished requests). It never reads a clock: drivers pass `nowMs` and deliver the step's
 * tokens at its `endMs`. {@link EngineCore.stepRaw} is the allocation-light form used by the
 * virtual-time planner; {@link createEngine} wraps it in the {@link SimEngine} contract.
 */
import type { EngineConfig } from './config.js';
import { CostModel, type StepShape } from './cost.js';
import { KvCacheManager } from './kv-cache.js';
import { EngineReq } from './request.js';
import { Scheduler, type SchedulerOutput } from './scheduler.js';
import type { EngineRequest, EngineStats, RequestTimes, SimEngine, StepResult } from './types.js';

const GIB = 1024 ** 3;

/** One step's outcome in reused arrays (valid until the next call). */
export interface RawStep {
  step: number;
  startMs: number;
  endMs: number;
  /** Requests that sampled a token at `endMs`; their new token's index is `numOutput − 1`. */
  sampled: EngineReq[];
  /** Requests that finished this step (subset of `sampled`). */
  finished: EngineReq[];
  admitted: EngineReq[];
  preempted: EngineReq[];
  numBatchedTokens: number;
}

export class EngineCore {
  readonly cfg: EngineConfig;
  readonly kv: KvCacheManager;
  readonly scheduler: Scheduler;
  readonly cost: CostModel;
  private readonly reqs = new Map<string, EngineReq>();
  private readonly out: SchedulerOutput = { reqs: [], numNew: [], admitted: [], preempted: [] };
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
    this.kv = new KvCacheManager(cfg.memory.numGpuBlocks, cfg.blockSize, cfg.enablePrefixCaching);
    this.scheduler = new Scheduler(this.kv, cfg.maxNumSeqs, cfg.maxNumBatchedTokens);
    this.cost = new CostModel(cfg.model, cfg.gpu, cfg.tp, cfg.dtype, cfg.kvCacheDtype, {
      maxNumSeqs: cfg.maxNumSeqs,
    });
    this.raw = {
      step: 0,
      startMs: 0,
      endMs: 0,
      sampled: [],
      finished: [],
      admitted: [],
      preempted: [],
      numBatchedTokens: 0,
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

  /** Schedule, cost and apply one iteration starting at `nowMs`. */
  stepRaw(nowMs: number): RawStep {
    const out = this.out;
    const raw = this.raw;
    this.scheduler.schedule(out, nowMs);
    raw.sampled.length = 0;
    raw.finished.length = 0;
    const shape = this.shape;
    shape.numTokens = 0;
    shape.ctxTokens = 0;
    shape.attnPairs = 0;
    shape.numSampled = 0;
    shape.numDecodes = 0;
    shape.decodeCtxTokens = 0;
    shape.numReqs = out.reqs.length;
    for (let i = 0; i < out.reqs.length; i++) {
      const r = out.reqs[i];
      const n = out.numNew[i];
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
    if (shape.numReqs > 0) {
      this.stepNo++;
      if (this.stepNo === 1) dt += this.cfg.coldStartMs;
    }
    const endMs = nowMs + dt;
    const step = this.stepNo;
    let anyFinished = false;
    for (let i = 0; i < raw.sampled.length; i++) {
      const r = raw.sampled[i];
      if (!r.prefilled) {
        r.prefilled = true;
        this.promptTokens += r.numPrompt;
      }
      r.numOutput++;
      this.generationTokens++;
      const t = r.times;
      if (t.firstTokenMs === null) t.firstTokenMs = endMs;
      t.lastTokenMs = endMs;
      t.tokenSteps.push(step);
      if (r.numOutput >= r.stopLen) {
        this.kv.freeReq(r);
        r.status = 'finished';
        raw.finished.push(r);
        anyFinished = true;
      }
    }
    if (anyFinished) {
      const running = this.scheduler.running;
      let w = 0;
      for (let i = 0; i < running.length; i++) if (running[i].status === 'running') running[w++] = running[i];
      running.length = w;
    }
    if (shape.numReqs > 0) {
      // Busy time over the window since the previous step ended (back-to-back steps: 100%).
      const idleMs = this.lastEndMs !== null && this.lastEndMs < nowMs ? nowMs - this.lastEndMs : 0;
      this.lastUtil = idleMs > 0 ? dt / (dt + idleMs) : 1;
      this.lastEndMs = endMs;
    }
    raw.step = step;
    raw.startMs = nowMs;
    raw.endMs = endMs;
    raw.admitted = out.admitted;
    raw.preempted = out.preempted;
    raw.numBatchedTokens = shape.numTokens;
    return raw;
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
      scheduled: raw.admitted.map((r) => r.id),
      tokens: raw.sampled.map((r) => ({ reqId: r.id, index: r.numOutput - 1 })),
      finished: raw.finished.map((r) => ({ reqId: r.id, reason: r.finishReason })),
      preempted: raw.preempted.map((r) => r.id),
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

/** Build a simulated vLLM engine from a resolved configuration (see `resolveEngineConfig`). */
export function createEngine(cfg: EngineConfig): SimEngine {
  return new SimEngineImpl(new EngineCore(cfg));
}
