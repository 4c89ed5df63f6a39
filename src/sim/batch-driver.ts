/**
 * @module sim/batch-driver
 * A fast batch driver of the engine for engine tests and benchmarks: the same engine core as the
 * HTTP server, on a virtual clock, with no HTTP and no timers. No command measures with it:
 * `servelab plan` runs the real client against the in-process server (`sim/server/inprocess`),
 * and `test/sim-engine/runner-parity.test.ts` holds this driver to that path's records. A discrete-event loop alternates two kinds of events — a request
 * reaching the engine (when the API server's input path has handled it, {@link ApiServerQueue.admitMs}) and an engine step ending —
 * and turns the engine's token stream into full {@link RequestRecord}s in virtual milliseconds
 * (t = 0 is the start of the run). Requests that reach the engine during a step join at the next
 * step, as they do in vLLM's engine loop. A step's tokens reach the client when the API server's
 * output queue ({@link ApiServerQueue}) has written them, which is also when a finished request
 * frees its client's slot.
 */
import { isTruncated } from '../record/outcome.js';
import { emptyRecord, type Phase, type RequestRecord } from '../record/types.js';
import type { Tokenizer } from '../tokenizer/index.js';
import type { RequestSpec } from '../workload/types.js';
import type { EngineConfig } from './engine/config.js';
import { EngineCore } from './engine/engine.js';
import type { EngineReq } from './engine/request.js';
import type { EngineStats } from './engine/types.js';
import { ApiServerQueue, eosLength, promptTokenIds } from './frontend.js';
import { chatPromptIds } from './server/prompt-tokens.js';

/** One request to push through the planner. */
export interface PlanRequest {
  id: string;
  planned_id: string;
  phase: Phase;
  index: number;
  spec: RequestSpec;
  /** Prompt token ids (from `promptTokenIds`). */
  promptIds: number[];
  /** max_tokens. */
  maxTokens: number;
  /** Natural output length (from `eosLength`, or `maxTokens` with ignore_eos). */
  eosLen: number;
  minTokens?: number;
}

/** How the workload would be sent to `servelab sim`, so `plan` counts and sizes it the same way. */
export interface SpecToPlanOptions {
  endpoint: 'chat' | 'completions';
  phase?: Phase;
  /** max_tokens when the spec has no output_len; null/undefined = up to max_model_len, as vLLM does. */
  defaultMaxTokens?: number | null;
  ignoreEos?: boolean;
  /** The request's `seed` field (null = none). */
  seed?: number | null;
  /** The request's temperature; 0 (greedy) makes the length independent of the request seed. */
  temperature?: number | null;
  minTokens?: number;
  /** The simulated server's `--seed` (default 0). */
  serverSeed?: number;
}

/**
 * Build the {@link PlanRequest} that `servelab sim` would see for this spec: the same chat prompt
 * count (`chatPromptIds`), token count, max_tokens default and natural length (`eosLength`, keyed on
 * the server seed for greedy requests, else the request seed), so `plan` and the server agree.
 * Throws a RangeError when the prompt plus max_tokens exceeds max_model_len (the server's 400).
 */
export function planRequestFromSpec(
  spec: RequestSpec,
  tokenizer: Tokenizer,
  cfg: EngineConfig,
  id: string,
  opts: SpecToPlanOptions,
): PlanRequest {
  const encode = (text: string) => promptTokenIds(tokenizer, text);
  const promptIds =
    opts.endpoint === 'chat'
      ? chatPromptIds(encode, spec.messages ?? [{ role: 'user', content: spec.prompt ?? '' }])
      : encode(spec.prompt ?? spec.messages?.map((m) => m.content).join('\n') ?? '');
  const maxTokens = spec.output_len ?? opts.defaultMaxTokens ?? cfg.maxModelLen - promptIds.length;
  if (promptIds.length === 0 || promptIds.length + Math.max(1, maxTokens) > cfg.maxModelLen) {
    throw new RangeError(
      `request ${id}: ${promptIds.length} prompt + ${maxTokens} output tokens do not fit max_model_len ${cfg.maxModelLen}`,
    );
  }
  const serverSeed = opts.serverSeed ?? 0;
  const lengthSeed = opts.temperature === 0 ? serverSeed : (opts.seed ?? serverSeed);
  return {
    id,
    planned_id: id,
    phase: opts.phase ?? 'measure',
    index: spec.index,
    spec,
    promptIds,
    maxTokens,
    eosLen: opts.ignoreEos ? maxTokens : eosLength(promptIds, lengthSeed, maxTokens),
    minTokens: opts.minTokens,
  };
}

/**
 * Closed loop: `concurrency` users, each sending its next request when the last one ends. Open
 * loop: absolute arrival times (ms, one per request, in request order). Staged: per stage, send
 * offsets from the stage's start (`schedule/stages`); stage 0 starts at 0 and stage s + 1 starts
 * `pauseMs` after the last request of stage s has ended. Requests are in stage order.
 */
export type PlanLoad =
  | { kind: 'closed'; concurrency: number }
  | { kind: 'open'; arrivalsMs: number[]; maxConcurrency?: number }
  | { kind: 'staged'; stageOffsetsMs: number[][]; pauseMs: number };

/** The engine's own view of one request (vLLM's QUEUED/SCHEDULED/NEW_TOKENS intervals), ms. */
export interface ServerTimes {
  id: string;
  /** When the request reached the engine (virtual ms). */
  arrival_ms: number;
  /** First scheduled − arrival. */
  queue_ms: number;
  /** First token − first scheduled. */
  prefill_ms: number;
  /** Last token − first token. */
  decode_ms: number;
  cached_tokens: number;
  preemptions: number;
  /** Step stamp of every produced token. */
  token_steps: number[];
}

export interface PlanResult {
  /** One record per request, in request order. */
  records: RequestRecord[];
  /** Server-side times, parallel to `records`. */
  server: ServerTimes[];
  /** Engine counters at the end of the run. */
  stats: EngineStats;
  /** Virtual time at which the last request ended, ms. */
  durationMs: number;
}

/** A record with the request's identity, send times and requested lengths. */
function newRecord(q: PlanRequest, plannedMs: number, sentMs: number): RequestRecord {
  const rec = emptyRecord({ id: q.id, planned_id: q.planned_id, attempt: 1, phase: q.phase, index: q.index });
  rec.planned_at_ms = plannedMs;
  rec.sent_at_ms = sentMs;
  // What the HTTP client records: the requested lengths (the counted prompt is
  // usage.prompt_tokens); the expected length is the workload's, a default max_tokens a cap.
  rec.input_len = q.spec.input_len;
  rec.output_len = q.spec.output_len;
  return rec;
}

/**
 * Run `reqs` through a fresh engine in virtual time and return records plus server-side times.
 * Deterministic: the same inputs give identical outputs. Throws a RangeError for a request whose
 * prompt does not fit `max_model_len` (validate with {@link planRequestFromSpec} first).
 */
export function simulateDetailed(cfg: EngineConfig, reqs: PlanRequest[], load: PlanLoad): PlanResult {
  const n = reqs.length;
  const engine = new EngineCore(cfg);
  const frontend = new ApiServerQueue(cfg.apiServerCount, cfg.calibration?.frontend);
  const records: RequestRecord[] = new Array(n);
  const engineReqs: (EngineReq | undefined)[] = new Array(n);
  // Staged loads are open loads whose later stages' times are set when the previous one drains.
  const arrivalsMs =
    load.kind === 'open'
      ? load.arrivalsMs
      : load.kind === 'staged'
        ? load.stageOffsetsMs.flatMap((o, s) => (s === 0 ? o : o.map(() => Number.POSITIVE_INFINITY)))
        : [];
  const open = load.kind !== 'closed';
  if (open && arrivalsMs.length !== n) {
    throw new RangeError(`open load needs one arrival per request (${arrivalsMs.length} for ${n})`);
  }
  // Staged: the first request index of each stage, and how many of the current stage have ended.
  const stageStart: number[] = [0];
  if (load.kind === 'staged')
    for (const o of load.stageOffsetsMs) stageStart.push(stageStart.at(-1)! + o.length);
  let stage = 0;
  let stageDone = 0;
  const cap =
    load.kind === 'closed'
      ? Math.max(1, Math.floor(load.concurrency))
      : load.kind === 'open' && load.maxConcurrency && load.maxConcurrency > 0
        ? Math.floor(load.maxConcurrency)
        : Number.POSITIVE_INFINITY;
  // Requests sent but not yet at the engine; send times never decrease, so a FIFO suffices.
  const pendIdx: number[] = [];
  const pendAt: number[] = [];
  let pendHead = 0;
  let nextStart = 0;
  let inflight = 0;
  let done = 0;
  let t = 0;
  let lastEmitMs = 0;

  const start = (i: number, sentMs: number, plannedMs: number) => {
    const q = reqs[i];
    records[i] = newRecord(q, plannedMs, sentMs);
    pendIdx.push(i);
    pendAt.push(frontend.admitMs(sentMs));
    inflight++;
  };

  /** Start open-loop arrivals due by `nowMs`; `deferredAtMs` is the send time for ones held back by the cap. */
  const startOpen = (nowMs: number, deferredAtMs: number | null) => {
    if (!open) return;
    const arr = arrivalsMs;
    while (nextStart < n && arr[nextStart] <= nowMs && inflight < cap) {
      const at = deferredAtMs === null ? arr[nextStart] : Math.max(arr[nextStart], deferredAtMs);
      start(nextStart, at, arr[nextStart]);
      nextStart++;
    }
  };

  if (load.kind === 'closed') {
    for (; nextStart < Math.min(cap, n); nextStart++) start(nextStart, 0, 0);
  }

  while (done < n) {
    startOpen(t, null);
    while (pendHead < pendIdx.length && pendAt[pendHead] <= t) {
      const i = pendIdx[pendHead];
      const q = reqs[i];
      const r = engine.add({
        id: q.id,
        promptTokens: q.promptIds,
        maxTokens: q.maxTokens,
        eosLen: q.eosLen,
        minTokens: q.minTokens,
        arrivalMs: pendAt[pendHead],
      });
      r.tag = i;
      engineReqs[i] = r;
      const rec = records[i];
      // Sized once from the known output length: growing 3 arrays token by token dominated GC.
      rec.chunk_times_ms = new Array(r.stopLen);
      rec.chunk_kinds = new Array<'c'>(r.stopLen).fill('c');
      // vLLM's API server sends the response headers once the request is handed to the engine.
      rec.headers_at_ms = pendAt[pendHead];
      pendHead++;
    }
    if (!engine.hasWork()) {
      let next = Number.POSITIVE_INFINITY;
      if (pendHead < pendIdx.length) next = pendAt[pendHead];
      if (open && nextStart < n && inflight < cap) next = Math.min(next, arrivalsMs[nextStart]);
      if (next === Number.POSITIVE_INFINITY) throw new Error('planner stalled with requests left');
      t = Math.max(t, next);
      continue;
    }
    const raw = engine.stepRaw(t);
    // Config validation keeps any single request within the KV pool, so an empty step is a bug.
    if (raw.numBatchedTokens === 0) throw new Error('engine made no progress with requests waiting');
    const end = raw.endMs;
    let firsts = 0;
    for (let k = 0; k < raw.sampled.length; k++) if (raw.sampled.at(k).numOutput === 1) firsts++;
    // When the API server has written this step's chunks: what the client sees.
    const emit = frontend.emitMs(end, raw.sampled.length, firsts);
    // Arrivals until then, while a slot was free, are sent at their own time.
    startOpen(emit, null);
    for (let k = 0; k < raw.sampled.length; k++) {
      const r = raw.sampled.at(k);
      const rec = records[r.tag];
      rec.chunk_times_ms[raw.sampledIndex.at(k)] = emit;
      if (rec.first_token_at_ms === null) {
        rec.first_chunk_at_ms = emit;
        rec.first_token_at_ms = emit;
        rec.first_content_at_ms = emit;
        rec.has_content = true;
      }
    }
    for (let k = 0; k < raw.finished.length; k++) {
      const r = raw.finished.at(k);
      const rec = records[r.tag];
      // Its last token came in this step (every request runs to its stop length here).
      rec.last_token_at_ms = emit;
      rec.last_content_at_ms = emit;
      rec.end_at_ms = emit;
      rec.finish_reason = r.finishReason;
      rec.outcome = isTruncated({
        finish_reason: r.finishReason,
        output_len: rec.output_len,
        completion_tokens: r.numOutput,
      })
        ? 'length'
        : 'ok';
      rec.done = true;
      rec.http_status = 200;
      rec.usage = {
        prompt_tokens: r.numPrompt,
        completion_tokens: r.numOutput,
        total_tokens: r.numPrompt + r.numOutput,
        cached_tokens: r.times.cachedTokens,
      };
      inflight--;
      done++;
      if (load.kind === 'staged' && ++stageDone === stageStart[stage + 1] - stageStart[stage]) {
        // Requests end in any order, but a stage's are all sent before the next stage's.
        stage++;
        stageDone = 0;
        const offs = load.stageOffsetsMs[stage];
        const t0 = emit + load.pauseMs;
        if (offs) for (let k = 0; k < offs.length; k++) arrivalsMs[stageStart[stage] + k] = t0 + offs[k];
      }
      if (load.kind === 'closed' && nextStart < n) {
        start(nextStart, emit, emit);
        nextStart++;
      }
    }
    startOpen(emit, emit);
    lastEmitMs = emit;
    t = end;
  }

  const server: ServerTimes[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const tm = engineReqs[i]!.times;
    const sched = tm.firstScheduledMs ?? tm.arrivalMs;
    const first = tm.firstTokenMs ?? sched;
    server[i] = {
      id: reqs[i].id,
      arrival_ms: tm.arrivalMs,
      queue_ms: sched - tm.arrivalMs,
      prefill_ms: first - sched,
      decode_ms: (tm.lastTokenMs ?? first) - first,
      cached_tokens: tm.cachedTokens,
      preemptions: tm.preemptions,
      token_steps: tm.tokenSteps,
    };
  }
  return { records, server, stats: engine.stats(), durationMs: Math.max(t, lastEmitMs) };
}

/** Run `reqs` through the engine in virtual time; one {@link RequestRecord} per request, in order. */
export function simulate(cfg: EngineConfig, reqs: PlanRequest[], load: PlanLoad): RequestRecord[] {
  return simulateDetailed(cfg, reqs, load).records;
}
