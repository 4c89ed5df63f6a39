/**
 * @module sim/server/generation
 * The generation endpoints' loop (`POST /v1/chat/completions`, `POST /v1/completions`), as
 * vLLM's `vllm/v1/engine/async_llm.py` runs it: a request is admitted (validation 400, model
 * 404, tokenize, context check 400, queue limit 429, fault draw, the API server's input path),
 * planned and handed to the engine; at each step's release every produced token goes through
 * the output processor (`output.ts`) and its output through the writer (`writer.ts`); a request
 * that ends (finished, stopped, aborted, faulted, disconnected) frees its engine state, is
 * observed in `/metrics` and gets its log line.
 *
 * Faults act at a token drawn per request (see `faults.ts`): `disconnect` resets the socket,
 * `truncate` ends the body cleanly without finish_reason/usage/[DONE], `inband_error` sends
 * `data: {"error":…}` then `[DONE]`, `stall:MS` holds writes for MS engine ms, `garble` corrupts
 * the words from that token on. Without streaming they act on the whole response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type Clock, unixNowMs } from '../../runtime/clock.js';
import type { EngineConfig } from '../engine/config.js';
import type { RealTimeDriver } from '../engine/realtime-driver.js';
import type { EngineRequest, FinishEvent, SimEngine, StepResult } from '../engine/types.js';
import { ApiServerQueue, frontendOverheadMs } from '../frontend.js';
import type { ResolvedServerOptions } from '../settings.js';
import { BadRequest, BodyTooLarge, readJson, requestIdOf, traceparentOf } from './body.js';
import { drawEngineAbort, drawFault } from './faults.js';
import type { SimMetrics } from './metrics.js';
import type { SpanExport } from './otlp-spans.js';
import {
  type ChoiceGroup,
  finishedStats,
  metricReason,
  OutputProcessor,
  planChoices,
  reasoningLenOf,
  type TokenDelta,
} from './output.js';
import type { PromptTokens } from './prompt-tokens.js';
import { type ParsedRequest, parseGenerationRequest } from './requests.js';
import { reject, rejectBody, rejectTooLarge } from './responses.js';
import { llamaCppContextErrorBody } from './wire.js';
import { type Choice, ResponseWriter } from './writer.js';

/** One choice of a generation request in flight. */
interface Live extends Choice {
  group?: ChoiceGroup<Live>;
  /** Cancels the engine admission while the request is still in the API server's input path. */
  cancelPending?: () => void;
}

/** What the generation loop needs of the server around it. */
export interface GenerationHost {
  so: ResolvedServerOptions;
  config: EngineConfig;
  engine: SimEngine;
  clock: Clock;
  log: (line: string) => void;
  metrics: SimMetrics;
  modelId: string;
  /** The driver that steps the engine (made after the loop: read when a request arrives). */
  driver: () => RealTimeDriver;
  /** The tokenizer, with its memo of encoded texts. */
  prompts: () => Promise<PromptTokens>;
  /** 32 hex digits from the seeded id stream. */
  hex: () => string;
  unixSeconds: () => number;
  /** Called each time the last request in flight has ended. */
  onIdle: () => void;
  /** `--otlp-endpoint`: where each finished request's span goes. */
  spans?: SpanExport;
}

export class Generations {
  private readonly lives = new Map<string, Live>();
  /** The API server's input and output paths: when a request reaches the engine, when each step's chunks leave (`sim/frontend`). */
  private readonly outputQueue: ApiServerQueue;
  private readonly output: OutputProcessor;
  private readonly writer: ResponseWriter;
  private seq = 0;
  /** Requests between arrival and engine admission (the frontend overhead). */
  private pending = 0;
  /** `--engine sglang`: SGLang's ids and chunk shapes. */
  private readonly sglang: boolean;
  /** `--engine llamacpp`: llama.cpp's shapes, timings and context errors. */
  private readonly llamacpp: boolean;

  constructor(private readonly host: GenerationHost) {
    const { so, config, engine, clock } = host;
    this.sglang = config.profile.engine === 'sglang';
    this.llamacpp = config.profile.engine === 'llamacpp';
    this.outputQueue = new ApiServerQueue(config.apiServerCount, config.calibration?.frontend);
    this.output = new OutputProcessor(
      so,
      (id) => engine.times(id),
      frontendOverheadMs(config.calibration?.frontend),
    );
    this.writer = new ResponseWriter(
      so,
      clock,
      this.output,
      this.sglang,
      (ms) => host.driver().wallDuration(ms),
      this.llamacpp,
    );
  }

  /** Requests in flight. */
  get size(): number {
    return this.lives.size;
  }

  /** Drop every open response. */
  abortAll(): void {
    for (const live of this.lives.values()) {
      live.done = true;
      live.cancelPending?.();
      live.res.destroy();
    }
    this.lives.clear();
  }

  /** Serve one generation request of `kind`. */
  async generate(req: IncomingMessage, res: ServerResponse, kind: 'chat' | 'completions'): Promise<void> {
    const { so, config, engine, log } = this.host;
    const driver = this.host.driver();
    const httpArrivalMs = driver.timelineNow();
    const requestId = requestIdOf(req);
    const traceparent = traceparentOf(req);
    let parsed: ParsedRequest;
    try {
      parsed = parseGenerationRequest(kind, await readJson(req, so.maxBodyBytes));
    } catch (err) {
      if (err instanceof BodyTooLarge) return rejectTooLarge(log, res, requestId, err);
      if (err instanceof BadRequest) return reject(log, res, requestId, 400, err.message, err.param);
      throw err;
    }
    // llama-server serves its one model whatever name a request carries.
    if (parsed.model !== undefined && parsed.model !== this.host.modelId && !this.llamacpp)
      return reject(log, res, requestId, 404, `The model \`${parsed.model}\` does not exist.`, 'model');

    const prompts = await this.host.prompts();
    const promptIds =
      parsed.promptIds ??
      (parsed.messages ? prompts.chatIds(parsed.messages) : prompts.ids(parsed.promptText).slice());
    const promptLen = promptIds.length;
    const maxLen = config.maxModelLen;
    if (promptLen === 0) return reject(log, res, requestId, 400, 'The prompt is empty (0 tokens).', 'prompt');
    let maxTokens: number;
    if (so.contextError === 'llamacpp' || this.llamacpp) {
      // llama.cpp refuses a prompt that fills its context and stops a generation at the
      // context's end (finish_reason length): max_tokens beyond it is clamped, not refused.
      if (promptLen >= maxLen)
        return rejectBody(log, res, requestId, 400, llamaCppContextErrorBody(promptLen, maxLen));
      maxTokens = Math.min(parsed.maxTokens ?? maxLen - promptLen, maxLen - promptLen);
    } else {
      const ctxError = contextLengthError(promptLen, parsed.maxTokens, maxLen);
      if (ctxError) return reject(log, res, requestId, 400, ctxError, null);
      maxTokens = parsed.maxTokens ?? maxLen - promptLen;
    }
    if (so.maxWaiting !== undefined && engine.stats().waiting + this.pending >= so.maxWaiting)
      return reject(
        log,
        res,
        requestId,
        429,
        `The server is overloaded: ${so.maxWaiting} requests are already waiting. Retry later.`,
      );

    const seq = this.seq++;
    const reasoningOn = kind === 'chat' && config.model.reasoning && parsed.enableThinking;
    const plans = planChoices(parsed, promptIds, maxTokens, reasoningOn, so);
    // Faults are drawn once per HTTP request and act on choice 0 (the others share its socket).
    const fault = drawFault(so.seed, seq, so.faultRate, so.faults, plans[0].expectedTokens);
    if (fault?.kind === 'http500')
      return reject(
        log,
        res,
        requestId,
        500,
        'Injected fault: internal server error (http500).',
        null,
        'http500',
      );
    if (fault?.kind === 'http429')
      return reject(
        log,
        res,
        requestId,
        429,
        'Injected fault: too many requests (http429).',
        null,
        'http429',
      );

    const id = `${kind === 'chat' || this.llamacpp ? 'chatcmpl' : 'cmpl'}-${this.host.hex()}`;
    const head = {
      // SGLang's ids are bare hex.
      id: this.sglang ? id.slice(id.indexOf('-') + 1) : id,
      created: this.host.unixSeconds(),
      model: this.host.modelId,
    };
    const n = parsed.n;
    const group: ChoiceGroup<Live> | undefined = n > 1 ? { lives: [], remaining: n, results: [] } : undefined;
    const lives = plans.map((plan, k): Live => {
      // n > 1: one engine request per choice, as vLLM v1's parallel sampling fans a request out
      // into n child requests with the same prompt (the prefix cache shares its blocks).
      const engineId = k === 0 ? id : `${id}-${k}`;
      return {
        id: engineId,
        requestId: requestId ?? id,
        seq,
        req: parsed,
        res,
        head,
        promptTokens: promptLen,
        maxTokens,
        expectedTokens: plan.expectedTokens,
        reasoningLen: reasoningLenOf(plan, reasoningOn, parsed.promptText),
        textSeed: plan.textSeed,
        script: plan.planned?.script,
        calls: plan.planned?.calls,
        toolArgs: plan.planned?.calls?.map(() => '') ?? [],
        callsStarted: 0,
        lp: [],
        lpOffset: 0,
        // A greedy decode (temperature 0) does not depend on the sampling seed.
        greedy: parsed.temperature === 0,
        choiceIndex: k,
        group,
        fault: k === 0 ? fault : undefined,
        engineAbortAt:
          k === 0 && so.abortAsSuccess ? drawEngineAbort(so.seed, seq, plan.expectedTokens) : undefined,
        httpArrivalMs,
        traceparent,
        tokenMs: [],
        tokenSteps: [],
        content: '',
        reasoning: '',
        produced: 0,
        inEngine: false,
        done: false,
        held: [],
        endAfterHeld: false,
        status: 200,
        outcome: 'ok',
      };
    });
    if (group) group.lives = lives;
    const live = lives[0];
    for (const l of lives) this.lives.set(l.id, l);
    res.on('close', () => {
      for (const l of lives) if (!l.done) this.finish(l, 'abort', 'client_disconnect', false);
    });
    const headers: Record<string, string> = { 'x-request-id': live.requestId };
    if (so.exposeTimings) headers['x-servelab-clock-ms'] = this.host.clock.now().toFixed(3);
    if (parsed.stream) {
      headers['content-type'] = 'text/event-stream; charset=utf-8';
      headers['cache-control'] = 'no-cache';
      res.writeHead(200, headers);
      res.flushHeaders();
    } else {
      for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    }
    this.admit(lives, promptIds, maxTokens, plans, parsed);
  }

  /**
   * The API server's own work (HTTP, tokenization) before the engine sees the request: its
   * input path takes one request after another (`sim/frontend`, shared with `plan`).
   */
  private admit(
    lives: Live[],
    promptIds: EngineRequest['promptTokens'],
    maxTokens: number,
    plans: ReturnType<typeof planChoices>,
    parsed: ParsedRequest,
  ): void {
    const driver = this.host.driver();
    const nowEngineMs = driver.engineNow();
    // The input path's work starts at the HTTP arrival, not after the simulator parsed and
    // tokenised the body: that wall time is the simulator's own CPU (a memo hit makes it ~0, a
    // new text pays it), so the modelled front end absorbs it and the engine sees the request
    // when the model says (`RealTimeDriver.add`'s `dueMs`). In virtual time the two are equal.
    const dueMs = this.outputQueue.admitMs(Math.min(lives[0].httpArrivalMs, nowEngineMs));
    const admitInMs = Math.max(0, dueMs - nowEngineMs);
    this.pending++;
    let pendingCounted = true;
    const cancelTimer = this.host.clock.setTimer(() => {
      this.pending--;
      pendingCounted = false;
      for (const l of lives) {
        l.cancelPending = undefined;
        if (l.done) continue;
        l.inEngine = true;
        driver.add(
          {
            id: l.id,
            // The step timeline names requests as the client did (its X-Request-Id).
            label: l.choiceIndex === 0 ? l.requestId : `${l.requestId}-${l.choiceIndex}`,
            promptTokens: promptIds,
            maxTokens,
            eosLen: plans[l.choiceIndex].eosLen,
            minTokens: plans[l.choiceIndex].planned ? undefined : parsed.minTokens || undefined,
          },
          dueMs,
        );
      }
    }, driver.wallDuration(admitInMs));
    const cancel = () => {
      if (!pendingCounted) return;
      pendingCounted = false;
      cancelTimer();
      this.pending--;
    };
    for (const l of lives) l.cancelPending = cancel;
  }

  /**
   * When a step's chunks leave, engine ms: the API server's output queue (`sim/frontend`, shared
   * with `plan`). Called by the driver once per step, in step order; it delivers them then.
   */
  releaseMs(step: StepResult): number {
    let firsts = 0;
    for (const t of step.tokens) if (t.index === 0) firsts++;
    return this.outputQueue.emitMs(step.endMs, step.tokens.length, firsts);
  }

  /**
   * Write every produced token of a step, then finish requests. Called by the driver at the
   * step's planned release `plannedWallMs` (the `planned_ms` of its chunks' stamps).
   */
  deliver(step: StepResult, plannedWallMs: number): void {
    const finished = new Map<string, FinishEvent>();
    for (const f of step.finished) finished.set(f.reqId, f);
    const tokens = step.tokens;
    // One write per socket per step, right after the `emit_ms` stamps it carries: a request with
    // several writes in this step (a multi-step burst; its first token, with the role chunk; its
    // last, with usage, [DONE] and the end) has them corked together and sent in one writev after
    // its last token. The usual single token chunk is one direct write (writeBody), uncorked.
    let corked: Socket | null = null;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      // A multi-step group brings a request's tokens together: the finish goes with its last.
      const more = tokens[i + 1]?.reqId === t.reqId;
      const live = this.lives.get(t.reqId);
      if (live && !live.done) {
        if (corked === null && live.res.socket && (more || t.index === 0 || finished.has(t.reqId))) {
          corked = live.res.socket;
          corked.cork();
        }
        try {
          this.onToken(live, t.index, step, plannedWallMs, more ? undefined : finished.get(t.reqId));
        } catch (err) {
          // A bug must not stop the driver for everyone: drop this request, keep stepping.
          this.host.log(
            `sim internal error on ${live.id}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
          );
          live.status = 500;
          this.finish(live, 'abort', 'internal_error', finished.has(t.reqId));
          live.res.destroy();
        }
      }
      if (!more) {
        finished.delete(t.reqId);
        corked?.uncork();
        corked = null;
      }
    }
    // Finished without a token in this step (aborted inside the engine).
    for (const f of finished.values()) {
      const live = this.lives.get(f.reqId);
      if (!live || live.done) continue;
      if (f.reason === 'abort') this.endAborted(live, true);
      else this.finish(live, f.reason, 'ok', true);
    }
  }

  /** One token of a request: the output processor's output, written (or held) by the writer. */
  private onToken(
    live: Live,
    index: number,
    step: StepResult,
    plannedWallMs: number,
    fin?: FinishEvent,
  ): void {
    const out = this.output.next(live, index, step, fin);
    if (out === undefined) return;
    const engineFinished = !!fin;
    switch (out.kind) {
      case 'engine_abort':
        this.endAborted(live, engineFinished);
        return;
      case 'fault':
        this.finish(live, 'abort', `fault_${out.fault}`, engineFinished);
        if (out.fault === 'disconnect') live.res.destroy();
        else if (out.fault === 'truncate') this.writer.truncate(live);
        else this.writer.inbandError(live);
        return;
    }
    if (out.stallMs !== undefined) this.writer.stall(live, out.stallMs);
    this.emit(live, out, step.step, plannedWallMs, engineFinished);
  }

  /** A produced token to the writer: a chunk, or (when it ends the choice) the last chunk or the body. */
  private emit(
    live: Live,
    d: TokenDelta,
    step: number,
    plannedWallMs: number,
    engineFinished: boolean,
  ): void {
    if (d.finishReason === null) {
      // Without streaming, nothing goes out before the end.
      if (live.req.stream) this.writer.token(live, d, step, plannedWallMs);
      return;
    }
    const reason = metricReason(d.finishReason);
    this.writer.last(live, d, step, plannedWallMs, () => this.finish(live, reason, 'ok', engineFinished));
  }

  /**
   * A request the engine aborted (freed in the engine, counted as an abort in /metrics). A fixed
   * server tells the client: an in-band error and no `[DONE]` (non-streaming: a 500), as
   * vllm-project/vllm#57089 proposes. Under the `abort-as-success` fault profile it ends as vLLM
   * does (vllm-project/vllm#57082): a last chunk with `finish_reason: "abort"`, usage if asked
   * for, then `[DONE]` (non-streaming: a 200 with that finish_reason), so a client that only
   * checks the status and `[DONE]` counts it a success.
   */
  private endAborted(live: Live, engineFinished: boolean): void {
    const outcome = this.host.so.abortAsSuccess ? 'abort_as_success' : 'engine_abort';
    this.writer.aborted(live, () => this.finish(live, 'abort', outcome, engineFinished));
  }

  /**
   * A request is over (finished, stopped, aborted or faulted): free its engine state, record its
   * metrics and write its log line. Idempotent.
   */
  private finish(
    live: Live,
    reason: 'stop' | 'length' | 'abort',
    outcome: string,
    engineFinished: boolean,
  ): void {
    if (live.done) return;
    live.done = true;
    if (outcome !== 'ok') live.outcome = outcome;
    if (live.group) {
      live.group.remaining--;
      // One choice failing (a fault, a disconnect, an error) ends the whole response.
      if (outcome !== 'ok')
        for (const l of live.group.lives) if (!l.done) this.finish(l, 'abort', outcome, false);
    }
    live.cancelPending?.();
    live.cancelPending = undefined;
    const engine = this.host.engine;
    const driver = this.host.driver();
    const times = live.inEngine ? engine.times(live.id) : undefined;
    // Requests that end before the engine says so (stop string, fault, disconnect) free KV now.
    if (live.inEngine && !engineFinished) driver.abort(live.id);
    const st = finishedStats(live, times, reason, driver.timelineNow());
    const s = (ms: number | undefined) => (ms !== undefined ? ms / 1000 : undefined);
    if (live.inEngine)
      this.host.metrics.observeFinished({
        finishedReason: reason,
        ttftS: s(st.ttftMs),
        e2eS: st.e2eMs / 1000,
        queueS: s(st.queueMs),
        prefillS: s(st.prefillMs),
        decodeS: s(st.decodeMs),
        itlS: st.itlS,
        seqTokens: live.promptTokens + live.produced,
      });
    if (live.inEngine)
      this.host.spans?.emit({
        traceparent: live.traceparent,
        requestId: live.requestId,
        endUnixMs: unixNowMs(),
        e2eMs: st.e2eMs,
        ttftMs: st.ttftMs,
        queueMs: st.queueMs,
        prefillMs: st.prefillMs,
        decodeMs: st.decodeMs,
        promptTokens: live.promptTokens,
        completionTokens: live.produced,
        finishReason: reason,
        maxTokens: live.req.maxTokens,
        temperature: live.req.temperature,
        n: live.req.n,
      });
    if (live.inEngine) engine.release(live.id);
    this.lives.delete(live.id);
    if (this.lives.size === 0) this.host.onIdle();
    const f = (v: number | undefined) => (v === undefined ? '-' : v.toFixed(2));
    this.host.log(
      `sim request x_request_id=${live.requestId} id=${live.id} endpoint=${live.req.kind} stream=${live.req.stream} ` +
        `status=${live.status} finish=${reason} outcome=${live.outcome} prompt_tokens=${live.promptTokens} ` +
        `cached_tokens=${times?.cachedTokens ?? 0} completion_tokens=${live.produced} ` +
        `queue_ms=${f(st.queueMs)} prefill_ms=${f(st.prefillMs)} decode_ms=${f(st.decodeMs)} e2e_ms=${f(st.e2eMs)}` +
        (live.fault ? ` fault=${live.fault.kind}@${live.fault.atToken}` : ''),
    );
  }
}

/**
 * vLLM's context-length errors (vllm/entrypoints/openai/serving_engine.py `_validate_input`,
 * as a current vLLM answers them): a prompt of `maxLen` tokens or more leaves no room for one
 * output token; a `max_tokens` that does not fit beside the prompt is refused, not clipped.
 * Without `max_tokens` the completion gets what is left of the context.
 */
export function contextLengthError(
  promptLen: number,
  maxTokens: number | undefined,
  maxLen: number,
): string | undefined {
  if (promptLen >= maxLen)
    return (
      `This model's maximum context length is ${maxLen} tokens. However, your request has ` +
      `${promptLen} input tokens. Please reduce the length of the input messages.`
    );
  if (maxTokens !== undefined && promptLen + maxTokens > maxLen)
    return (
      `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum ` +
      `context length is ${maxLen} tokens and your request has ${promptLen} input tokens ` +
      `(${maxTokens} > ${maxLen} - ${promptLen}).`
    );
  return undefined;
}
