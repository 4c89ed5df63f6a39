/**
 * @module sim/server/output
 * The simulator's output processor: the state of each generation request in flight and what
 * each engine token becomes, as plain data (no sockets, no wire format). It plans a response
 * before the engine sees it (its length, reasoning split and text seed; the tokens of structured
 * output, tool calls and the gate's fixed questions), and for every token the engine produces it
 * applies the request's faults and garbling, matches stop strings, draws logprobs, collects
 * tool-call arguments and decides the finish reason; at the end it accounts the usage, the
 * llama.cpp-style timings and the latencies `/metrics` observes.
 *
 * The split follows vLLM's: `vllm/v1/engine/output_processor.py` with
 * `vllm/v1/engine/detokenizer.py` own per-request state and stop strings and return per-request
 * outputs; `vllm/entrypoints/openai/serving_chat.py` formats them (here `writer.ts`); the loop
 * that feeds engine steps through both (`vllm/v1/engine/async_llm.py`) is `generation.ts`.
 */

import { hashString } from '../../runtime/rng.js';
import { approximatePieces } from '../../tokenizer/index.js';
import { questionOf, wrongAnswer } from '../../workload/questions.js';
import type { FinishEvent, RequestTimes, StepResult } from '../engine/types.js';
import { eosLength } from '../frontend.js';
import type { ResolvedServerOptions } from '../settings.js';
import type { DrawnFault } from './faults.js';
import { llamaCppTimings } from './llamacpp.js';
import { type TokenLogprob, tokenLogprob } from './logprobs.js';
import { contentText, type ParsedRequest } from './requests.js';
import { generateFromSchema, generateJsonObject, jsonTokens } from './structured.js';
import { garbleText, mix32, reasoningLength, sentenceText, textSeedFor, tokenText } from './text.js';
import { type PlannedToolCall, pickTools, toolCallId } from './tools.js';
import { type ChatChoiceOut, type ChunkBody, type CompletionChoiceOut, usageObject } from './wire.js';

/** A response's tokens fixed in advance; `tool` marks a tool-call token, `header` the one that opens a call. */
export type Script = { text: string; tool?: number; header?: boolean }[];

/** The state of one choice of a generation request in flight. */
export interface RequestState {
  /** The engine request's id (choice k > 0 of an n > 1 request: `<id>-<k>`). */
  id: string;
  requestId: string;
  /** The HTTP request's arrival number (seeds its faults). */
  seq: number;
  req: ParsedRequest;
  promptTokens: number;
  maxTokens: number;
  /** Tokens the request is expected to produce (min(eosLen, maxTokens), at least minTokens). */
  expectedTokens: number;
  reasoningLen: number;
  textSeed: number;
  fault?: DrawnFault;
  /** `abort-as-success`: the output token at which the engine aborts this request. */
  engineAbortAt?: number;
  /** The request's W3C `traceparent` header, when it sent one (`--otlp-endpoint` spans are its children). */
  traceparent?: string;
  /** Engine ms when the HTTP request arrived (TTFT and E2E are measured from here, as vLLM does). */
  httpArrivalMs: number;
  /** Engine ms of each output token (its step's end) and the step stamps. */
  tokenMs: number[];
  tokenSteps: number[];
  content: string;
  reasoning: string;
  produced: number;
  inEngine: boolean;
  done: boolean;
  status: number;
  outcome: string;
  /**
   * Structured output or tool calls: the response's tokens, fixed in advance (the engine is
   * told to stop after them).
   */
  script?: Script;
  /** The tool calls the script makes, and the arguments streamed so far per call. */
  calls?: PlannedToolCall[];
  toolArgs: string[];
  /** Calls whose first token has been produced. */
  callsStarted: number;
  /** Logprob entries of the tokens produced (when asked for), and the completions text offset. */
  lp: TokenLogprob[];
  lpOffset: number;
  greedy: boolean;
  /** This choice's `index` (0 unless n > 1). */
  choiceIndex: number;
  /** n > 1: the choices sharing this HTTP response. */
  group?: ChoiceGroup;
}

/** The choices of one n > 1 response: they share a socket; the response ends with the last. */
export interface ChoiceGroup<S extends RequestState = RequestState> {
  lives: S[];
  /** Choices not finished yet. */
  remaining: number;
  /** Non-streaming: each finished choice's part of the body, by index. */
  results: (ChatChoiceOut | CompletionChoiceOut)[];
  /** --expose-timings: choice 0's timings. */
  timings?: Record<string, unknown>;
}

/** How one choice of a request is planned before it reaches the engine. */
export interface ChoicePlan {
  textSeed: number;
  planned?: { script: Script; calls?: PlannedToolCall[] };
  plannedReasoning: number;
  /** The length the engine is told (it stops there: EOS). */
  eosLen: number;
  expectedTokens: number;
}

/** What one engine token of a request becomes. */
export type TokenOutput =
  /** The engine aborts the request here (`abort-as-success`, or a truncation dressed up as it). */
  | { kind: 'engine_abort' }
  /** A mid-stream fault ends the stream at this token. */
  | { kind: 'fault'; fault: 'disconnect' | 'truncate' | 'inband_error' }
  | TokenDelta;

/** A produced token: its text and where it goes, and the finish it brings. */
export interface TokenDelta {
  kind: 'token';
  index: number;
  text: string;
  /** The text belongs to the reasoning field, not the answer. */
  reasoning: boolean;
  /** A tool-call token: its delta (the first of a call carries id and name, empty arguments). */
  toolCall?: NonNullable<ChunkBody['toolCall']>;
  logprob?: TokenLogprob;
  /** `stop`, `length`, `tool_calls`, `abort` when this token ends the choice; else null. */
  finishReason: string | null;
  /** The matched stop string, or null. */
  stopReason: string | null;
  /** A `stall` fault strikes here: hold this choice's writes for this many engine ms. */
  stallMs?: number;
}

const ENGINE_ABORT: TokenOutput = { kind: 'engine_abort' };

/** A response planned in advance: its tokens (and tool calls), from the request and its text seed. */
function scriptOf(
  req: ParsedRequest,
  textSeed: number,
  so: ResolvedServerOptions,
): { script: Script; calls?: PlannedToolCall[] } | undefined {
  if (req.kind === 'chat' && req.tools.length) {
    const last = req.messages?.at(-1);
    const picked = pickTools({
      tools: req.tools,
      toolChoice: req.toolChoice,
      parallelToolCalls: req.parallelToolCalls,
      lastRole: last?.role ?? '',
      lastText: contentText(last?.content),
    });
    if (picked.length) {
      const script: Script = [];
      const calls = picked.map((t, j) => {
        // No parameters (or no type): a zero-argument tool, `{}`.
        const p = t.parameters ?? {};
        const schema = p.type === undefined && !p.$ref && !p.anyOf && !p.oneOf ? { type: 'object', ...p } : p;
        const args = JSON.stringify(generateFromSchema(schema, mix32(textSeed, 1000 + j)));
        script.push({ text: '', tool: j, header: true });
        for (const piece of approximatePieces(args))
          script.push({ text: so.emptyToolArgs ? '' : piece, tool: j });
        return { id: toolCallId(textSeed, j), name: t.name, arguments: so.emptyToolArgs ? '' : args };
      });
      return { script, calls };
    }
  }
  // One of the gate's fixed questions (`--answer-accuracy`): its known answer, or a wrong one,
  // drawn per question from the server seed, so a run is reproducible and accuracy is P overall.
  if (so.answerAccuracy !== undefined) {
    const question = questionOf(
      req.kind === 'chat' ? contentText(req.messages?.at(-1)?.content) : req.promptText,
    );
    if (question) {
      const draw = mix32(so.seed, hashString(`answer\u0000${question.id}`));
      const right = draw / 4294967296 < so.answerAccuracy;
      const text = right ? question.answer : wrongAnswer(question, draw);
      return { script: approximatePieces(text).map((piece) => ({ text: piece })) };
    }
  }
  const rf = req.responseFormat;
  if (rf && !so.ignoreJsonSchema) {
    const value =
      rf.type === 'json_schema' ? generateFromSchema(rf.schema, textSeed) : generateJsonObject(textSeed);
    return { script: jsonTokens(value).map((text) => ({ text })) };
  }
  return undefined;
}

/**
 * Plan the `n` choices of a request: each one's text seed, its script (structured output, tool
 * calls, a fixed question's answer) with the reasoning in front of it, and its length.
 * `reasoningOn`: a thinking model's chat request with thinking enabled.
 */
export function planChoices(
  parsed: ParsedRequest,
  promptIds: ArrayLike<number>,
  maxTokens: number,
  reasoningOn: boolean,
  so: ResolvedServerOptions,
): ChoicePlan[] {
  // A greedy decode (temperature 0) does not depend on the sampling seed: neither its length nor its text.
  const greedy = parsed.temperature === 0;
  const lengthSeed0 = greedy ? so.seed : (parsed.seed ?? so.seed);
  // Text, reasoning split and faults key on the prompt text (token-id prompts: the ids joined).
  const promptKey = parsed.promptText;
  const textSeed0 = textSeedFor(promptKey, so.seed, parsed.seed, greedy);
  /** Choice k's seeds: choice 0's are the n=1 request's; greedy choices are all the same. */
  const seedsOf = (k: number) =>
    k === 0 || greedy
      ? { textSeed: textSeed0, lengthSeed: lengthSeed0 }
      : { textSeed: mix32(textSeed0, 0x5eed + k), lengthSeed: mix32(lengthSeed0, 0x5eed + k) };
  return Array.from({ length: parsed.n }, (_, k) => {
    const { textSeed, lengthSeed } = seedsOf(k);
    // Structured output and tool calls are planned whole: their length is the JSON's, cut by
    // max_tokens (finish "length", truncated JSON, as a real engine does); min_tokens and
    // ignore_eos do not stretch them. Tool calls have no reasoning phase before them; structured
    // output on a thinking model does, as vLLM's reasoning parser constrains only what follows
    // the reasoning (`StructuredOutputsConfig.enable_in_reasoning`, default false): the
    // reasoning tokens are put in front of the JSON's.
    const planned = scriptOf(parsed, textSeed, so);
    let plannedReasoning = 0;
    if (planned && !planned.calls && reasoningOn) {
      plannedReasoning = reasoningLength(promptKey, planned.script.length);
      const thinking = Array.from({ length: plannedReasoning }, (_, i) => ({
        text: tokenText(textSeed, i),
      }));
      planned.script = [...thinking, ...planned.script];
    }
    const eosLen = planned
      ? Math.min(maxTokens, planned.script.length)
      : parsed.ignoreEos
        ? maxTokens
        : eosLength(promptIds, lengthSeed, maxTokens);
    const expectedTokens = planned ? eosLen : Math.min(maxTokens, Math.max(eosLen, parsed.minTokens));
    return { textSeed, planned, plannedReasoning, eosLen, expectedTokens };
  });
}

/** The reasoning tokens of a choice: a script's planned ones, else a share of its expected length. */
export function reasoningLenOf(plan: ChoicePlan, reasoningOn: boolean, promptKey: string): number {
  if (plan.planned) return plan.plannedReasoning;
  return reasoningOn ? reasoningLength(promptKey, plan.expectedTokens) : 0;
}

/** The latencies of a finished request, engine ms, as `/metrics` observes them and the log line shows them. */
export interface FinishedStats {
  ttftMs?: number;
  queueMs?: number;
  prefillMs?: number;
  decodeMs?: number;
  e2eMs: number;
  /** The gaps between its tokens, seconds. */
  itlS: number[];
}

/**
 * Turns engine tokens into per-request outputs and accounts a request's usage and timings. It
 * reads the engine's per-request timestamps through `times`; it never writes to a socket.
 */
export class OutputProcessor {
  constructor(
    private readonly so: ResolvedServerOptions,
    private readonly times: (reqId: string) => RequestTimes | undefined,
    /** The API server's per-request overhead, engine ms (`sim/frontend`), reported in timings. */
    private readonly frontendMs: number,
  ) {}

  /**
   * What token `index` of a step means for request `s`, updating its state; undefined for a
   * token index seen before (re-emitted after a preemption), which is not sent twice. `fin`:
   * the engine finishes the request with this token.
   */
  next(s: RequestState, index: number, step: StepResult, fin?: FinishEvent): TokenOutput | undefined {
    if (index < s.produced) return undefined;
    if (index === s.engineAbortAt) return ENGINE_ABORT;
    const fault = s.fault;
    let stallMs: number | undefined;
    if (fault && index === fault.atToken && s.req.stream) {
      if (fault.kind === 'disconnect' || fault.kind === 'inband_error')
        return { kind: 'fault', fault: fault.kind };
      // Under abort-as-success a cut stream is dressed up as a finished one.
      if (fault.kind === 'truncate')
        return this.so.abortAsSuccess ? ENGINE_ABORT : { kind: 'fault', fault: 'truncate' };
      if (fault.kind === 'stall') stallMs = fault.stallMs ?? 0;
    }

    s.produced = index + 1;
    s.tokenMs.push(step.endMs);
    s.tokenSteps.push(step.step);
    const scripted = s.script ? s.script[index] : undefined;
    let text = s.script
      ? (scripted?.text ?? '')
      : index < s.reasoningLen
        ? tokenText(s.textSeed, index)
        : sentenceText(s.textSeed, index, this.so.sentenceWords);
    if (fault?.kind === 'garble' && index >= fault.atToken) text = garbleText(text, s.textSeed, index);
    const d: TokenDelta = {
      kind: 'token',
      index,
      text,
      reasoning: index < s.reasoningLen,
      // Every field present from the start: one object shape per token on the hot path.
      toolCall: undefined,
      logprob: undefined,
      finishReason: fin ? fin.reason : null,
      stopReason: null,
      stallMs,
    };
    const call = scripted?.tool !== undefined ? s.calls?.[scripted.tool] : undefined;
    if (s.req.logprobs !== undefined) {
      d.logprob = tokenLogprob(
        s.textSeed,
        index,
        scripted?.header && call ? call.name : text,
        s.req.logprobs,
        s.greedy,
      );
      s.lp.push(d.logprob);
    }
    if (scripted?.tool !== undefined) toolToken(s, d, scripted.tool, scripted.header === true);
    else if (d.reasoning) s.reasoning += text;
    else answerToken(s, d);
    if (d.finishReason === null && s.produced >= s.maxTokens) d.finishReason = 'length';
    return d;
  }

  /** The response's `usage`; n > 1: the prompt once, the completion tokens of every choice (OpenAI's and vLLM's usage). */
  usageOf(s: RequestState): Record<string, unknown> {
    const times = s.inEngine ? this.times(s.id) : undefined;
    const all = s.group?.lives ?? [s];
    let produced = 0;
    let reasoning = 0;
    for (const l of all) {
      produced += l.produced;
      reasoning += Math.min(l.produced, l.reasoningLen);
    }
    return usageObject({
      promptTokens: s.promptTokens,
      completionTokens: produced,
      cachedTokens: this.so.enablePromptTokensDetails ? (times?.cachedTokens ?? 0) : undefined,
      reasoningTokens: s.reasoningLen > 0 ? reasoning : undefined,
    });
  }

  /** `--engine llamacpp`: llama.cpp's own `timings` of the request, in wall ms. */
  llamaTimingsOf(s: RequestState): Record<string, unknown> {
    return llamaCppTimings(this.times(s.id), s.promptTokens, s.produced, this.so.timeScale);
  }

  /** Server-side timings in llama.cpp's style (engine ms), plus the step of every token. */
  timingsOf(s: RequestState): Record<string, unknown> {
    const t = this.times(s.id);
    const first = t?.firstTokenMs ?? null;
    const last = t?.lastTokenMs ?? null;
    const sched = t?.firstScheduledMs ?? null;
    const cached = t?.cachedTokens ?? 0;
    const prefill = sched !== null && first !== null ? first - sched : null;
    const decode = first !== null && last !== null ? last - first : null;
    const predicted = s.produced;
    return {
      frontend_ms: this.frontendMs,
      queue_ms: t && sched !== null ? sched - t.arrivalMs : null,
      prefill_ms: prefill,
      decode_ms: decode,
      ttft_ms: first !== null ? first - s.httpArrivalMs : null,
      cache_n: cached,
      prompt_n: s.promptTokens - cached,
      prompt_ms: prefill,
      predicted_n: predicted,
      predicted_ms: decode,
      predicted_per_token_ms: decode !== null && predicted > 1 ? decode / (predicted - 1) : null,
      preemptions: t?.preemptions ?? 0,
      token_steps: [...s.tokenSteps],
      token_ms: [...s.tokenMs],
      time_scale: this.so.timeScale,
    };
  }
}

/**
 * The latencies of a request that ends now (`nowMs`, engine ms), from the engine's timestamps
 * `times` and its tokens' times: an abort ends now, a finish at its last token.
 */
export function finishedStats(
  s: RequestState,
  times: RequestTimes | undefined,
  reason: 'stop' | 'length' | 'abort',
  nowMs: number,
): FinishedStats {
  const first = times?.firstTokenMs ?? null;
  const lastTok = s.tokenMs.length ? s.tokenMs[s.tokenMs.length - 1] : null;
  const sched = times?.firstScheduledMs ?? null;
  const itlS: number[] = [];
  for (let i = 1; i < s.tokenMs.length; i++) itlS.push((s.tokenMs[i] - s.tokenMs[i - 1]) / 1000);
  return {
    ttftMs: first !== null ? first - s.httpArrivalMs : undefined,
    queueMs: times && sched !== null ? sched - times.arrivalMs : undefined,
    prefillMs: sched !== null && first !== null ? first - sched : undefined,
    decodeMs: first !== null && lastTok !== null ? lastTok - first : undefined,
    e2eMs: (reason === 'abort' ? nowMs : (lastTok ?? nowMs)) - s.httpArrivalMs,
    itlS,
  };
}

/** A tool-call token: arguments, never content (no tool markup in the text). */
function toolToken(s: RequestState, d: TokenDelta, toolIndex: number, header: boolean): void {
  if (header) s.callsStarted = toolIndex + 1;
  else s.toolArgs[toolIndex] += d.text;
  if (d.finishReason === 'stop') d.finishReason = 'tool_calls';
  const call = s.calls?.[toolIndex];
  if (call)
    d.toolCall = header
      ? { index: toolIndex, id: call.id, name: call.name, arguments: '' }
      : { index: toolIndex, arguments: d.text };
}

/**
 * A token of the answer. Stop strings are matched in the answer (not the reasoning), once
 * min_tokens are out, and only where they end in the new token. A match that began in an earlier
 * token cuts the answer there, but text already streamed stays sent (vLLM holds such text back
 * instead).
 */
function answerToken(s: RequestState, d: TokenDelta): void {
  const before = s.content.length;
  s.content += d.text;
  if (!s.req.stop.length || s.produced < s.req.minTokens) return;
  const m = findStop(s.content, s.req.stop, before);
  if (!m) return;
  s.content = s.content.slice(0, m.at);
  d.text = s.content.slice(Math.min(before, m.at));
  d.finishReason = 'stop';
  d.stopReason = m.stop;
}

/** The engine's finish reason behind a wire one (`tool_calls` is an engine `stop`). */
export function metricReason(finishReason: string | null): 'stop' | 'length' | 'abort' {
  return finishReason === 'tool_calls' ? 'stop' : (finishReason as 'stop' | 'length' | 'abort');
}

/** Earliest stop string in `text` that ends after `newFrom` (i.e. inside the newest token). */
function findStop(
  text: string,
  stops: readonly string[],
  newFrom: number,
): { at: number; stop: string } | undefined {
  let best: { at: number; stop: string } | undefined;
  for (const s of stops) {
    const at = text.indexOf(s, Math.max(0, newFrom - s.length + 1));
    if (at >= 0 && (!best || at < best.at)) best = { at, stop: s };
  }
  return best;
}
