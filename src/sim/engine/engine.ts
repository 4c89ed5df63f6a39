/**
 * @module sim/engine/engine
 * The engine core, wiring the pieces together for one iteration:
 * entry (`add`) → request state ({@link EngineReq}) → the profile's scheduling policy
 * ({@link SchedulePolicy}: vLLM v1, vLLM v0 or SGLang) → its KV pool ({@link KvCacheManager}, or
 * SGLang's {@link RadixCache}) → executor ({@link CostModel}: how long the forward pass takes)
 * → outputs (sampled tokens, finished requests). {@link EngineCore.stepRaw} follows vLLM's
 * `EngineCore.step`: schedule, `updateAfterSchedule`, `executeModel`, `updateFromOutput`,
 * `makeOutputs` (docs/learn-vllm-with-sim.md maps every method to vLLM's). A schedule of several
 * forward passes (vLLM v0's multi-step) is one call: its tokens come out together at the end of
 * the last pass. It never reads a clock: drivers pass `nowMs` and deliver the step's
 * tokens at its `endMs`. {@link EngineCore.stepRaw} is the allocation-light form used by the
 * virtual-time planner; {@link createEngine} wraps it in the {@link SimEngine} contract.
 */
import type { EngineConfig } from './config.js';
import { CostModel, emptyStepShape, modelAccounting, type StepShape } from './cost.js';
import { KvCacheManager } from './kv-cache.js';
import type { KvPool } from './kv-pool.js';
import { RadixCache } from './radix-cache.js';
import { EngineReq, IntStepList, StepList } from './request.js';
import { createScheduler, type SchedulePolicy, type SchedulerOutput } from './scheduler.js';
import { SlotPool } from './slot-pool.js';
import { SpecDecoder } from './speculative.js';
import { StepLog } from './step-log.js';
import type {
  EngineRequest,
  EngineStats,
  NgramPrior,
  RequestTimes,
  SimEngine,
  SlotState,
  StepPage,
  StepResult,
} from './types.js';

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
  /** `--speculative-config`: the drafter and the rejection sampler's outcome, or null. */
  readonly spec: SpecDecoder | null;
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
  private readonly shape: StepShape = emptyStepShape();
  private stepNo = 0;
  private promptTokens = 0;
  private generationTokens = 0;
  private lastEndMs: number | null = null;
  /** `--record-steps`: the step timeline (`step-log.ts`); null, and never touched, when off. */
  readonly steps: StepLog | null;

  /**
   * Async scheduling (vLLM V1's default since v0.13: `vllm-project/vllm` PR #27614, "use async
   * scheduling by default"; the scheduler runs one step ahead of the GPU, as NanoFlow does, PR
   * #19970): requests that reached the engine while the step before the current one was being
   * scheduled wait here, and join the step after. `incoming` is in arrival order.
   */
  private readonly asyncScheduling: boolean;
  private readonly incoming: EngineReq[] = [];
  private incomingHead = 0;
  /** Start and end of the last step that ran requests (NaN before the first). */
  private pipeStartMs = Number.NaN;
  private pipeEndMs = Number.NaN;

  constructor(cfg: EngineConfig) {
    this.cfg = cfg;
    this.steps = cfg.recordSteps ? new StepLog(undefined, cfg.speculative != null) : null;
    this.asyncScheduling = cfg.profile.engine === 'vllm-v1' && !cfg.profile.llamacpp;
    const profile = cfg.profile;
    this.kv = profile.llamacpp
      ? new SlotPool(
          profile.llamacpp,
          modelAccounting(cfg.model, cfg.dtype, cfg.kvCacheDtype).kvBytesPerToken,
        )
      : profile.engine === 'sglang'
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
    this.spec = cfg.speculative
      ? new SpecDecoder(cfg.speculative, {
          gpu: cfg.gpu,
          tp: cfg.tp,
          dtype: cfg.dtype,
          kvCacheDtype: cfg.kvCacheDtype,
          maxNumSeqs: cfg.maxNumSeqs,
        })
      : null;
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
    if (this.asyncScheduling) this.incoming.push(r);
    else this.scheduler.waiting.pushBack(r);
    return r;
  }

  /**
   * Async scheduling: move the requests the step starting at `nowMs` can see into the waiting
   * queue. When the GPU ran a step right before (it ended at `nowMs`), this step was scheduled
   * when that one started, so only requests that had arrived by then join; when the engine was
   * idle (or nothing else could run), its loop schedules as soon as a request arrives.
   */
  private admitIncoming(nowMs: number): void {
    const inc = this.incoming;
    if (this.incomingHead >= inc.length) return;
    const pipelined = nowMs - this.pipeEndMs < 1e-6;
    const idle = this.scheduler.running.length === 0 && this.scheduler.waiting.length === 0;
    const cutoff =
      pipelined && !(idle && inc[this.incomingHead].times.arrivalMs > this.pipeStartMs)
        ? this.pipeStartMs
        : nowMs;
    while (this.incomingHead < inc.length && inc[this.incomingHead].times.arrivalMs <= cutoff) {
      const r = inc[this.incomingHead++];
      if (r.status !== 'finished') this.scheduler.waiting.pushBack(r);
    }
    if (this.incomingHead === inc.length) {
      inc.length = 0;
      this.incomingHead = 0;
    }
  }

  /** Drop a request now and free its blocks (client disconnected); unknown or finished ids are ignored. */
  abort(reqId: string): void {
    const r = this.reqs.get(reqId);
    if (!r || r.status === 'finished') return;
    // One still in `incoming` is skipped when its turn comes (status finished).
    this.scheduler.remove(r);
    this.kv.freeReq(r);
    r.status = 'finished';
  }

  /** True while any request is running or waiting. */
  hasWork(): boolean {
    return (
      this.scheduler.running.length > 0 ||
      this.scheduler.waiting.length > 0 ||
      this.incomingHead < this.incoming.length
    );
  }

  /**
   * One iteration (or a multi-step group of them) starting at `nowMs`, in the order of vLLM's
   * `EngineCore.step` (vllm/v1/engine/core.py): `Scheduler.schedule` (the policy), the forward
   * pass (`model_executor.execute_model`: here the cost model says how long it takes), then
   * `Scheduler.update_from_output` (the sampled tokens are appended, finished requests freed).
   */
  stepRaw(nowMs: number): RawStep {
    const out = this.out;
    if (this.asyncScheduling) this.admitIncoming(nowMs);
    this.scheduler.schedule(out, nowMs);
    this.updateAfterSchedule(out);
    // The KV in use while the step runs: its allocations made, no finished request freed yet.
    if (this.steps) this.steps.kvInUse(Math.round(this.kv.usage() * this.kv.numBlocks), this.kv.numBlocks);
    const numBatched = this.shape.numTokens;
    let dt = this.executeModel();
    if (out.reqs.length > 0) {
      this.stepNo++;
      if (this.stepNo === 1) dt += this.cfg.coldStartMs;
    }
    this.updateFromOutput(0, this.raw.sampled.length);
    // Speculative decoding: the drafter proposes the next step's tokens within this step.
    if (this.spec) {
      this.spec.propose(this.raw.sampled);
      dt += this.spec.proposeMs(this.raw.sampled);
    }
    // vLLM v0 multi-step: the later passes of the group decode one more token per live request.
    for (let s = 1; s < out.numSteps; s++) {
      const from = this.raw.sampled.length;
      if (!this.scheduleNextPass(out)) break;
      dt += this.executeModel();
      this.updateFromOutput(from, this.raw.sampled.length);
    }
    return this.makeOutputs(nowMs, dt, numBatched);
  }

  /**
   * vLLM's `Scheduler._update_after_schedule`: each scheduled request's computed tokens advance
   * by what it was scheduled, and its newly full blocks enter the prefix cache (vLLM caches them
   * in `KVCacheManager.allocate_slots`). Sums the step's shape for the cost model and lists the
   * requests that will sample a token: a request samples only in the step that brings it up to
   * date (the end of its prefill, or a decode).
   */
  private updateAfterSchedule(out: SchedulerOutput): void {
    const raw = this.raw;
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
      if (this.spec !== null && ctx + n > r.numTokens) {
        const known = r.numTokens;
        const drafts = ctx + n - known;
        // Verify: one pass over the k + 1 positions, logits at each; the accepted prefix and one
        // token are emitted, the rejected drafts roll back (sim/engine/speculative).
        const m = this.spec.verify(r, drafts);
        if (this.steps) this.steps.verified(r, drafts, m);
        shape.numSampled += drafts + 1;
        r.numComputed = known;
        this.kv.cacheFull(r);
        r.numComputed = known + m;
        r.numSpec = 0;
        for (let j = 0; j <= m; j++) raw.sampled.push(r);
        continue;
      }
      r.numComputed = ctx + n;
      this.kv.cacheFull(r);
      if (this.steps) this.steps.scheduled(r, n, ctx);
      if (r.numComputed >= r.numTokens) {
        shape.numSampled++;
        raw.sampled.push(r);
      }
    }
  }

  /** The forward pass over the current shape (vLLM's `execute_model`): its duration, ms. */
  private executeModel(): number {
    return this.cost.stepMs(this.shape);
  }

  /**
   * A later pass of a vLLM v0 multi-step group: every request of the group still running decodes
   * one more token (room for it allocated now if the lookahead did not cover it). False when none
   * is left.
   */
  private scheduleNextPass(out: SchedulerOutput): boolean {
    const alive = this.alive;
    alive.length = 0;
    for (let i = 0; i < out.reqs.length; i++) {
      const r = out.reqs.at(i);
      if (r.status === 'running' && this.kv.allocate(r, 1)) alive.push(r);
    }
    if (!alive.length) return false;
    const shape = this.shape;
    shape.numTokens = alive.length;
    shape.ctxTokens = 0;
    shape.attnPairs = 0;
    shape.numSampled = alive.length;
    shape.numReqs = alive.length;
    for (const r of alive) {
      const ctx = r.numComputed;
      shape.ctxTokens += ctx;
      shape.attnPairs += ctx + 0.5;
      r.numComputed = ctx + 1;
      this.kv.cacheFull(r);
      this.raw.sampled.push(r);
    }
    return true;
  }

  /**
   * vLLM's `Scheduler.update_from_output` for the tokens `raw.sampled[from, to)`: each request
   * gets its token, one that reaches its stop length finishes (its blocks are freed, vLLM's
   * `_free_request`) and leaves the running list.
   */
  private updateFromOutput(from: number, to: number): void {
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
    if (anyFinished) {
      const running = this.scheduler.running;
      let w = 0;
      for (let i = 0; i < running.length; i++) if (running[i].status === 'running') running[w++] = running[i];
      running.length = w;
    }
  }

  /**
   * The step's outputs (vLLM's `EngineCoreOutputs`): every sampled token is stamped with the
   * step's end.
   */
  private makeOutputs(nowMs: number, dt: number, numBatched: number): RawStep {
    const raw = this.raw;
    const endMs = nowMs + dt;
    const step = this.stepNo;
    if (this.out.reqs.length > 0) {
      this.lastEndMs = endMs;
      this.pipeStartMs = nowMs;
      this.pipeEndMs = endMs;
      if (this.steps) this.steps.close(step, nowMs, dt, this.out.preempted);
    } else if (this.steps) this.steps.discard();
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
    raw.step = step;
    raw.startMs = nowMs;
    raw.endMs = endMs;
    raw.numBatchedTokens = numBatched;
    raw.numSteps = this.out.numSteps;
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
      // With async scheduling, requests not yet handed to the scheduler wait too (vLLM counts
      // every request the engine core received and has not scheduled).
      waiting: this.scheduler.waiting.length + this.incoming.length - this.incomingHead,
      kvUsage,
      totalBlocks: this.kv.numBlocks,
      blockSize: this.kv.blockSize,
      prefixQueries: this.kv.queries,
      prefixHits: this.kv.hits,
      preemptions: this.scheduler.numPreemptions,
      promptTokens: this.promptTokens,
      generationTokens: this.generationTokens,
      steps: this.stepNo,
      ...(this.spec ? { spec: this.spec.counters } : {}),
      gpuMemoryUsedGiB:
        m.weightsGiB +
        m.activationGiB +
        m.nonTorchGiB +
        (kvUsage * m.kvCapacityTokens * m.kvBytesPerTokenPerGpu) / GIB,
      gpuMemoryTotalGiB: m.totalGiB,
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

  slots(): SlotState[] {
    const kv = this.core.kv;
    return kv instanceof SlotPool ? kv.states() : [];
  }

  stepPage(since: number, limit: number): StepPage | null {
    return this.core.steps?.page(since, limit) ?? null;
  }

  assumeSyntheticPrompts(): NgramPrior | null {
    return this.core.spec?.assumeSyntheticPrompts() ?? null;
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
