/**
 * @module sim/server/writer
 * The SSE and JSON writer of the generation endpoints: it formats the output processor's
 * per-token outputs (`output.ts`) as wire chunks, in the OpenAI / vLLM shape or SGLang's (and
 * llama.cpp's `timings`), and writes them to the response: the hot path of a plain token chunk
 * spliced into a pre-serialised template and framed straight onto the socket, the role chunk,
 * the final chunk with usage and `[DONE]`, the writes a `stall` fault holds back and flushes, the
 * non-streaming body (n > 1: once every choice is in) and the ends of faulted and aborted
 * requests. It is what vLLM's `vllm/entrypoints/openai/serving_chat.py` does with the engine's
 * outputs.
 *
 * With --expose-timings every streamed chunk carries `"servelab": {"step", "planned_ms",
 * "emit_ms"}`; `emit_ms` is stamped here, at the actual write (after any stall), on the server's
 * clock.
 */
import type { ServerResponse } from 'node:http';
import type { Clock } from '../../runtime/clock.js';
import type { ResolvedServerOptions } from '../settings.js';
import { type ChunkBuilder, type ChunkTemplate, chunkTemplate, fillChunk } from './chunk-template.js';
import { llamaChatChunk, llamaCompletionChunk, llamaResponse, llamaUsageChunk } from './llamacpp.js';
import { chatLogprobs, completionLogprobs } from './logprobs.js';
import type { ChoiceGroup, OutputProcessor, RequestState, TokenDelta } from './output.js';
import { sendError } from './responses.js';
import {
  type ChatChoiceOut,
  type ChunkBody,
  type ChunkHead,
  type CompletionChoiceOut,
  chatChunk,
  chatResponse,
  chatResponseOf,
  completionChunk,
  completionResponse,
  completionResponseOf,
  SSE_DONE,
  sglangChatChunk,
  sglangCompletionChunk,
  sglangResponse,
  sseData,
  usageChunk,
  usageObject,
} from './wire.js';

/**
 * A plain token chunk as its pre-serialised template plus what varies (the hot path: most
 * chunks of a stream); `emit_ms` is filled in when it is written.
 */
class TokenItem {
  constructor(
    readonly tpl: ChunkTemplate,
    readonly text: string,
    readonly step: number,
    readonly plannedMs: number,
  ) {}
}

/** A chunk object (serialized at write time), a templated token chunk, or raw SSE text such as `data: [DONE]`. */
type SseItem = Record<string, unknown> | TokenItem | string;

/** `--expose-timings`: the engine step of a chunk and the server ms it is planned to leave. */
type Stamp = { step: number; planned_ms: number };

/** What the writer keeps per choice: its response, chunk head and templates, and held writes. */
export interface ResponseState {
  res: ServerResponse;
  head: ChunkHead;
  /** Token-chunk templates, made on first use: answer text, reasoning text. */
  tplContent?: ChunkTemplate;
  tplReasoning?: ChunkTemplate;
  /** stall fault: writes are held until this server ms. */
  stallUntil?: number;
  held: SseItem[];
  endAfterHeld: boolean;
  flushScheduled?: boolean;
}

/** A choice being answered: the output processor's state and the writer's. */
export interface Choice extends RequestState, ResponseState {
  group?: ChoiceGroup<Choice>;
}

const ENGINE_ABORTED = {
  error: {
    message: 'The engine aborted the request.',
    type: 'InternalServerError',
    param: null,
    code: 500,
  },
};

export class ResponseWriter {
  constructor(
    private readonly so: ResolvedServerOptions,
    private readonly clock: Clock,
    private readonly output: OutputProcessor,
    /** `--engine sglang`: SGLang's chunk and body shapes. */
    private readonly sglang: boolean,
    /** Engine ms → server (wall) ms. */
    private readonly wallDuration: (engineMs: number) => number,
    /** `--engine llamacpp`: llama.cpp's shapes, and its `timings` on every response. */
    private readonly llamacpp = false,
  ) {}

  /** A `stall` fault strikes: hold this choice's writes for `stallMs` engine ms from now. */
  stall(live: Choice, stallMs: number): void {
    live.stallUntil = this.clock.now() + this.wallDuration(stallMs);
  }

  /**
   * A streamed token that does not end its choice. `stamp`: its step and planned release when
   * timings are exposed.
   */
  token(live: Choice, d: TokenDelta, step: number, plannedWallMs: number): void {
    const stamp = this.so.stampChunks ? { step, planned_ms: plannedWallMs } : undefined;
    const out: SseItem[] = [];
    if (d.index === 0 && live.req.kind === 'chat') out.push(this.chunk(live, { role: true }, stamp, 0));
    if (
      !live.req.continuousUsage &&
      d.toolCall === undefined &&
      d.logprob === undefined &&
      live.choiceIndex === 0
    ) {
      // The common chunk: spliced into a template instead of built and stringified.
      const tpl = this.templateOf(live, d.reasoning);
      if (out.length === 0 && live.stallUntil === undefined) {
        // Hottest path (every token but a stream's first and last): one string, one write,
        // no intermediate objects; `emit_ms` is read right before the write.
        const res = live.res;
        if (res.destroyed || res.writableEnded) return;
        writeBody(
          res,
          fillChunk(
            tpl,
            d.text,
            this.so.stampChunks ? { step, planned_ms: plannedWallMs, emit_ms: this.clock.now() } : undefined,
          ),
        );
        return;
      }
      out.push(new TokenItem(tpl, d.text, step, plannedWallMs));
      this.write(live, out, false);
      return;
    }
    out.push(this.chunk(live, this.bodyOf(live, d), stamp, live.produced));
    this.write(live, out, false);
  }

  /**
   * The token that ends a choice (its `finishReason` is set): the last chunk, or the response
   * body. `finish` ends the request's bookkeeping; it runs after what needs the engine's record
   * of the request (usage, timings) is read and before the bytes go out.
   */
  last(live: Choice, d: TokenDelta, step: number, plannedWallMs: number, finish: () => void): void {
    if (live.req.stream) this.lastChunk(live, d, step, plannedWallMs, finish);
    else this.answer(live, d, finish);
  }

  private lastChunk(
    live: Choice,
    d: TokenDelta,
    step: number,
    plannedWallMs: number,
    finish: () => void,
  ): void {
    const stamp = this.so.stampChunks ? { step, planned_ms: plannedWallMs } : undefined;
    const out: SseItem[] = [];
    if (d.index === 0 && live.req.kind === 'chat') out.push(this.chunk(live, { role: true }, stamp, 0));
    const body = this.bodyOf(live, d);
    if (this.llamacpp) {
      // n > 1: usage and [DONE] follow the last choice to finish.
      const last = !live.group || live.group.remaining === 1;
      this.llamaLast(live, body, stamp, out, last);
      finish();
      this.write(live, out, last);
      return;
    }
    if (this.so.exposeTimings) body.timings = this.output.timingsOf(live);
    out.push(this.chunk(live, body, stamp, live.produced));
    // n > 1: usage and [DONE] follow the last choice to finish.
    const groupDone = !live.group || live.group.remaining === 1;
    if (groupDone) {
      if (live.req.includeUsage) {
        const usage = usageChunk(
          live.head,
          live.req.kind === 'chat' ? 'chat.completion.chunk' : 'text_completion',
          this.output.usageOf(live),
          stamp ? { ...stamp } : undefined,
        );
        out.push(usage);
      }
      out.push(SSE_DONE);
    }
    finish();
    this.write(live, out, groupDone);
  }

  /**
   * llama.cpp's end of a stream: the last token's own chunk, a finish chunk with no text, then
   * `timings` on it, or (a chat stream that asked for usage) on a usage chunk after it; a
   * completions stream's finish chunk always carries usage.
   */
  private llamaLast(
    live: Choice,
    body: ChunkBody,
    stamp: Stamp | undefined,
    out: SseItem[],
    last: boolean,
  ): void {
    const { finishReason, stopReason, ...token } = body;
    if (token.text || token.toolCall) out.push(this.chunk(live, token, stamp, live.produced));
    const timings = this.output.llamaTimingsOf(live);
    const usage = this.output.usageOf(live);
    const fin: ChunkBody = { finishReason, stopReason, text: '' };
    const chat = live.req.kind === 'chat';
    if (!chat) fin.usage = usage;
    if (!chat || !live.req.includeUsage) fin.timings = timings;
    out.push(this.chunk(live, fin, stamp, live.produced));
    if (!last) return;
    if (chat && live.req.includeUsage) out.push(llamaUsageChunk(live.head, usage, timings));
    out.push(SSE_DONE);
  }

  /** A chunk's body of a token: its text or tool-call delta, logprobs and finish. */
  private bodyOf(live: Choice, d: TokenDelta): ChunkBody {
    const body: ChunkBody = { text: d.text };
    if (d.reasoning) body.reasoningField = this.so.reasoningField;
    if (d.toolCall) body.toolCall = d.toolCall;
    if (d.logprob) {
      body.logprobs =
        live.req.kind === 'chat' ? chatLogprobs([d.logprob]) : completionLogprobs([d.logprob], live.lpOffset);
      live.lpOffset += d.logprob.token.length;
    }
    if (d.finishReason) {
      body.finishReason = d.finishReason;
      body.stopReason = d.stopReason;
    }
    return body;
  }

  /** The non-streaming body of a finished choice (n > 1: sent when every choice is in). */
  private answer(live: Choice, d: TokenDelta, finish: () => void): void {
    const { finishReason, stopReason } = d;
    const group = live.group;
    const timings = this.llamacpp
      ? this.output.llamaTimingsOf(live)
      : this.so.exposeTimings && live.choiceIndex === 0
        ? this.output.timingsOf(live)
        : group?.timings;
    if (group && timings) group.timings = timings;
    const usage = this.output.usageOf(live);
    const content = live.content;
    const reasoning = live.reasoningLen > 0 ? live.reasoning : undefined;
    finish();
    const toolCalls = live.calls
      ?.slice(0, live.callsStarted)
      .map((c, j) => ({ id: c.id, name: c.name, arguments: live.toolArgs[j] }));
    const lp = live.req.logprobs === undefined ? undefined : live.lp;
    if (group) {
      // n > 1: the body goes out once every choice is in.
      group.results[live.choiceIndex] =
        live.req.kind === 'chat'
          ? {
              message: { content, reasoning, reasoningField: this.so.reasoningField, toolCalls },
              finishReason,
              stopReason,
              logprobs: lp && chatLogprobs(lp),
            }
          : { text: content, finishReason, stopReason, logprobs: lp && completionLogprobs(lp, 0) };
      if (group.remaining > 0) return;
      const all =
        live.req.kind === 'chat'
          ? chatResponseOf(live.head, group.results as ChatChoiceOut[], usage, group.timings)
          : completionResponseOf(live.head, group.results as CompletionChoiceOut[], usage, group.timings);
      this.sendNonStream(group.lives[0], JSON.stringify(this.wireBody(all)));
      return;
    }
    const body =
      live.req.kind === 'chat'
        ? chatResponse(
            live.head,
            { content, reasoning, reasoningField: this.so.reasoningField, toolCalls },
            finishReason,
            stopReason,
            usage,
            timings,
            lp && chatLogprobs(lp),
          )
        : completionResponse(
            live.head,
            content,
            finishReason,
            stopReason,
            usage,
            timings,
            lp && completionLogprobs(lp, 0),
          );
    this.sendNonStream(live, JSON.stringify(this.wireBody(body)));
  }

  /** `truncate`: the body ends cleanly here, without finish_reason, usage or [DONE]. */
  truncate(live: Choice): void {
    this.write(live, [], true);
  }

  /** `inband_error`: `data: {"error":…}` then `[DONE]`. */
  inbandError(live: Choice): void {
    const err = {
      error: {
        message: 'Injected fault: error in stream (inband_error).',
        type: 'InternalServerError',
        param: null,
        code: 500,
      },
    };
    this.write(live, [err, SSE_DONE], true);
  }

  /**
   * The end of a request the engine aborted (see `generation.ts`): an in-band error and no
   * `[DONE]` (non-streaming: a 500); under `abort-as-success` a last chunk with
   * `finish_reason: "abort"`, usage if asked for, then `[DONE]` (non-streaming: a 200 with that
   * finish_reason). `finish` runs once the usage is read, before the bytes go out.
   */
  aborted(live: Choice, finish: () => void): void {
    const asSuccess = this.so.abortAsSuccess;
    if (!live.req.stream) {
      const usage = this.output.usageOf(live);
      finish();
      if (!asSuccess) {
        live.status = 500;
        sendError(live.res, 500, 'The engine aborted the request.');
        return;
      }
      const body =
        live.req.kind === 'chat'
          ? chatResponse(
              live.head,
              {
                content: live.content,
                reasoning: live.reasoningLen > 0 ? live.reasoning : undefined,
                reasoningField: this.so.reasoningField,
              },
              'abort',
              null,
              usage,
            )
          : completionResponse(live.head, live.content, 'abort', null, usage);
      const json = JSON.stringify(this.sglang ? sglangResponse(body) : body);
      live.res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(json),
      });
      live.res.end(json);
      return;
    }
    const out: SseItem[] = [];
    if (asSuccess) {
      if (live.produced === 0 && live.req.kind === 'chat')
        out.push(this.chunk(live, { role: true }, undefined, 0));
      out.push(
        this.chunk(live, { text: '', finishReason: 'abort', stopReason: null }, undefined, live.produced),
      );
      if (live.req.includeUsage)
        out.push(
          usageChunk(
            live.head,
            live.req.kind === 'chat' ? 'chat.completion.chunk' : 'text_completion',
            this.output.usageOf(live),
          ),
        );
      out.push(SSE_DONE);
    } else out.push(ENGINE_ABORTED);
    finish();
    this.write(live, out, true);
  }

  /** Non-streaming response, with the faults that make sense without a stream. */
  private sendNonStream(live: Choice, json: string): void {
    const res = live.res;
    const kind = live.fault?.kind;
    if (kind === 'disconnect') {
      live.outcome = 'fault_disconnect';
      res.destroy();
      return;
    }
    if (kind === 'inband_error') {
      live.status = 500;
      sendError(res, 500, 'Injected fault: internal server error (inband_error).');
      return;
    }
    if (kind === 'truncate') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(json.slice(0, Math.floor(json.length / 2)));
      return;
    }
    const send = () => {
      if (res.destroyed || res.writableEnded) return;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
      res.end(json);
    };
    if (kind === 'stall') this.clock.setTimer(send, this.wallDuration(live.fault?.stallMs ?? 0));
    else send();
  }

  /** Write SSE text, holding it back while a `stall` fault is active. */
  private write(live: Choice, items: SseItem[], end: boolean): void {
    const res = live.res;
    if (res.destroyed || res.writableEnded) return;
    const now = this.clock.now();
    if (live.stallUntil !== undefined && now < live.stallUntil) {
      if (!live.flushScheduled) {
        live.flushScheduled = true;
        // sleepUntil, not setTimer: Node's timers can fire ~1 ms early, and a stall must last
        // at least its length
        void this.clock.sleepUntil(live.stallUntil).then(() => this.flushHeld(live));
      }
      live.held.push(...items);
      live.endAfterHeld ||= end;
      return;
    }
    if (items.length) res.write(this.serialize(items));
    if (end) res.end();
  }

  private flushHeld(live: Choice): void {
    live.stallUntil = undefined;
    live.flushScheduled = false;
    const res = live.res;
    if (res.destroyed || res.writableEnded) return;
    if (live.held.length) res.write(this.serialize(live.held));
    live.held = [];
    if (live.endAfterHeld) res.end();
  }

  /**
   * SSE text of chunks about to hit the socket. With --expose-timings, `servelab.emit_ms` is
   * stamped here, at the actual write (after any stall), on the server's clock.
   */
  private serialize(items: readonly SseItem[]): string {
    const now = this.clock.now();
    let out = '';
    for (const it of items) {
      if (typeof it === 'string') out += it;
      else if (it instanceof TokenItem)
        out += fillChunk(
          it.tpl,
          it.text,
          this.so.stampChunks ? { step: it.step, planned_ms: it.plannedMs, emit_ms: now } : undefined,
        );
      else {
        const stamp = it.servelab as Record<string, unknown> | undefined;
        if (stamp) stamp.emit_ms = now;
        out += sseData(it);
      }
    }
    return out;
  }

  /** The token-chunk template of this response (made once per response and text field). */
  private templateOf(live: Choice, reasoning: boolean): ChunkTemplate {
    const stamped = this.so.stampChunks;
    if (reasoning) {
      live.tplReasoning ??= chunkTemplate(this.builderOf(live), live.head, this.so.reasoningField, stamped);
      return live.tplReasoning;
    }
    live.tplContent ??= chunkTemplate(this.builderOf(live), live.head, undefined, stamped);
    return live.tplContent;
  }

  private chunk(
    live: Choice,
    body: ChunkBody,
    stamp: Stamp | undefined,
    completionTokens: number,
  ): Record<string, unknown> {
    if (stamp) body.servelab = { ...stamp };
    if (live.choiceIndex) body.index = live.choiceIndex;
    if (live.req.continuousUsage)
      body.usage = usageObject({ promptTokens: live.promptTokens, completionTokens });
    return this.builderOf(live)(live.head, body);
  }

  /** A non-streaming body in the engine profile's wire format. */
  private wireBody(body: Record<string, unknown>): Record<string, unknown> {
    return this.sglang ? sglangResponse(body) : this.llamacpp ? llamaResponse(body) : body;
  }

  /** The chunk shape of this response: its endpoint's, in the engine profile's wire format. */
  private builderOf(live: Choice): ChunkBuilder {
    if (this.sglang) return live.req.kind === 'chat' ? sglangChatChunk : sglangCompletionChunk;
    if (this.llamacpp) return live.req.kind === 'chat' ? llamaChatChunk : llamaCompletionChunk;
    return live.req.kind === 'chat' ? chatChunk : completionChunk;
  }
}

/**
 * `res.write(text)` of a chunked response, framed onto its socket directly when nothing is
 * queued in the response itself: the bytes node:http writes (`<hex length>\r\n<text>\r\n`),
 * without its per-write bookkeeping (~2 µs of ~13 µs of CPU per chunk, bench/write-path.ts). Any
 * other state (headers not out, not chunked, output buffered in the response, a pipelined
 * response without its socket, the in-process response) goes through `res.write`.
 */
function writeBody(res: ServerResponse, text: string): void {
  const sock = res.socket;
  if (
    sock?.writable &&
    res.chunkedEncoding &&
    res.headersSent &&
    // Only what the socket holds: the response's own output buffer is empty.
    res.writableLength === sock.writableLength
  )
    sock.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
  else res.write(text);
}
