/**
 * @module sim/server/server
 * `servelab sim`'s HTTP server: an OpenAI-compatible front-end over the simulated engine, shaped
 * like vLLM's API server (routes, wire format, errors, `/metrics`), driven in real time by
 * {@link RealTimeDriver}. node:http only: the streaming path writes SSE straight to the socket.
 *
 * Request path: auth → body → validation (400) → model (404) → tokenize → context check (400)
 * → queue limit (429) → fault draw → frontend overhead → engine → tokens written at step ends.
 *
 * Units: "engine ms" are simulated milliseconds (what `plan` computes, what `timings`, logs and
 * `/metrics` report); "server ms" are wall milliseconds on the server's clock (`emit_ms`).
 * With `--time-scale X`, one server ms is X engine ms.
 *
 * `--expose-timings` adds to every streamed chunk `"servelab": {"step", "planned_ms", "emit_ms"}`:
 * the engine step that produced it, the planned time its chunks leave (the step's end, plus the
 * API server's output queue of `sim/frontend` when it is busy) and the actual write time, both
 * in server ms. The server clock is announced in the `x-servelab-clock-ms` response header and in
 * `GET /version` (`server_clock_ms`, `server_clock_origin_unix_ms`), so a client can estimate
 * its offset (e.g. the midpoint of a /version round trip). The chunk with `finish_reason` (and a
 * non-streaming body) carries llama.cpp-style `timings` in engine ms: `queue_ms`, `prefill_ms`,
 * `decode_ms`, `ttft_ms`, `cache_n`, `prompt_n`, `prompt_ms`, `predicted_n`, `predicted_ms`,
 * `predicted_per_token_ms`, `preemptions`, and per token `token_steps` and `token_ms`.
 *
 * Faults act at a token drawn per request (see `faults.ts`): `disconnect` resets the socket,
 * `truncate` ends the body cleanly without finish_reason/usage/[DONE], `inband_error` sends
 * `data: {"error":…}` then `[DONE]`, `stall:MS` holds writes for MS engine ms, `garble` corrupts
 * the words from that token on. Without streaming they act on the whole response.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import { UsageError } from '../../core/errors.js';
import { type Clock, RealClock } from '../../runtime/clock.js';
import { hashString, Rng } from '../../runtime/rng.js';
import { approximatePieces, tokenizerFor } from '../../tokenizer/index.js';
import { questionOf, wrongAnswer } from '../../workload/questions.js';
import { type EngineConfig, resolveEngineConfig } from '../engine/config.js';
import { createEngine } from '../engine/engine.js';
import { type DriverStats, RealTimeDriver } from '../engine/realtime-driver.js';
import type { FinishEvent, SimEngine, StepResult } from '../engine/types.js';
import { ApiServerQueue, eosLength, frontendOverheadMs } from '../frontend.js';
import type { ResolvedServerOptions, SimServerOptions } from '../settings.js';
import { SimAudio } from './audio.js';
import { BadRequest, BodyTooLarge, readJson, requestIdOf } from './body.js';
import { type ChunkBuilder, type ChunkTemplate, chunkTemplate, fillChunk } from './chunk-template.js';
import { type DrawnFault, drawEngineAbort, drawFault } from './faults.js';
import { registerLagMetrics } from './lag-metrics.js';
import { chatLogprobs, completionLogprobs, type TokenLogprob, tokenLogprob } from './logprobs.js';
import { SimMetrics } from './metrics.js';
import { resolveServerOptions } from './options.js';
import { PromptTokens } from './prompt-tokens.js';
import { contentText, type ParsedRequest, parseGenerationRequest, parseTokenizeRequest } from './requests.js';
import { generateFromSchema, generateJsonObject, jsonTokens } from './structured.js';
import { garbleText, mix32, reasoningLength, sentenceText, textSeedFor, tokenText } from './text.js';
import { type PlannedToolCall, pickTools, toolCallId } from './tools.js';
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
  errorBody,
  llamaCppContextErrorBody,
  SSE_DONE,
  sglangChatChunk,
  sglangCompletionChunk,
  sglangResponse,
  sseData,
  usageChunk,
  usageObject,
} from './wire.js';

/** Collaborators of the server; all optional. */
export interface SimServerDeps {
  /** Receives one line per request (and a few lifecycle lines). Never sees an API key. */
  log?: (line: string) => void;
  /** Wall clock (default {@link RealClock}). */
  clock?: Clock;
}

/** A running simulator. */
export interface SimServer {
  /** Base URL, e.g. `http://127.0.0.1:8000` (the OpenAI API is under `/v1`). */
  url: string;
  port: number;
  engine: SimEngine;
  /** The resolved engine configuration (model, GPU, KV capacity, max_model_len). */
  config: EngineConfig;
  /** The model id served on /v1/models. */
  modelId: string;
  /** Lateness of token delivery against the steps' planned times (for benchmarks). */
  driverStats(): DriverStats;
  /** Stop listening, drop open streams and stop the driver. */
  close(): Promise<void>;
  /**
   * Graceful stop (what SIGTERM does): from now on `/health` and new requests answer 503, the
   * requests in flight run to their end; then close. Resolves `{ idle: true }` when they all
   * finished, `{ idle: false }` when `timeoutS` (default: the `drainTimeout` option) ran out first
   * and the rest were dropped.
   */
  drain(timeoutS?: number): Promise<{ idle: boolean }>;
}

/** Pending connections the listening socket queues (`listen(2)` backlog). */
export const LISTEN_BACKLOG = 4096;

const require = createRequire(import.meta.url);
/** servelab's version (from package.json; the same path resolves from src/ and dist/). */
const VERSION: string = (require('../../../package.json') as { version: string }).version;

/** Routes SGLang's server has that vLLM's has not (`sgl-project/sglang:python/sglang/srt/entrypoints/http_server.py`). */
const SGLANG_ROUTES = [
  '/get_server_info',
  '/server_info',
  '/get_model_info',
  '/health_generate',
  '/flush_cache',
];

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

/** One generation request in flight. */
interface Live {
  id: string;
  requestId: string;
  seq: number;
  req: ParsedRequest;
  res: ServerResponse;
  head: ChunkHead;
  /** Token-chunk templates, made on first use: answer text, reasoning text. */
  tplContent?: ChunkTemplate;
  tplReasoning?: ChunkTemplate;
  promptTokens: number;
  maxTokens: number;
  /** Tokens the request is expected to produce (min(eosLen, maxTokens), at least minTokens). */
  expectedTokens: number;
  reasoningLen: number;
  textSeed: number;
  fault?: DrawnFault;
  /** `abort-as-success`: the output token at which the engine aborts this request. */
  engineAbortAt?: number;
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
  /** stall fault: writes are held until this server ms. */
  stallUntil?: number;
  held: SseItem[];
  endAfterHeld: boolean;
  flushScheduled?: boolean;
  cancelPending?: () => void;
  status: number;
  outcome: string;
  /**
   * Structured output or tool calls: the response's tokens, fixed in advance (the engine is
   * told to stop after them). `tool` marks a tool-call token; `header` the one that opens a call
   * (it carries the name, its arguments fragment is empty).
   */
  script?: { text: string; tool?: number; header?: boolean }[];
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
  group?: Group;
}

/** The choices of one n > 1 response: they share a socket; the response ends with the last. */
interface Group {
  lives: Live[];
  /** Choices not finished yet. */
  remaining: number;
  /** Non-streaming: each finished choice's part of the body, by index. */
  results: (ChatChoiceOut | CompletionChoiceOut)[];
  /** --expose-timings: choice 0's timings. */
  timings?: Record<string, unknown>;
}

/** A response planned in advance: its tokens (and tool calls), from the request and its text seed. */
function scriptOf(
  req: ParsedRequest,
  textSeed: number,
  so: ResolvedServerOptions,
): { script: NonNullable<Live['script']>; calls?: PlannedToolCall[] } | undefined {
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
      const script: NonNullable<Live['script']> = [];
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
 * Start the simulated server.
 *
 * @example
 * const sim = await startSimServer({ model: 'qwen3-0.6b', gpu: 'h100', timeScale: 10 });
 * // POST `${sim.url}/v1/chat/completions` …
 * await sim.close();
 */
export async function startSimServer(opts: SimServerOptions, deps: SimServerDeps = {}): Promise<SimServer> {
  const { sim, so, config, engine } = await createSimHandler(opts, deps);
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => sim.handle(req, res));
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      sim.abortAll();
      if (err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL')
        reject(
          new UsageError([
            {
              path: err.code === 'EADDRNOTAVAIL' ? '--host' : '--port',
              message: `cannot listen on ${so.host}:${so.port} (${err.code})`,
              hint: 'choose a free port (0 picks one) and an address of this machine',
            },
          ]),
        );
      else reject(err);
    };
    server.once('error', onError);
    // Node's default backlog (511) overflowed when 1,000 clients connected at once: the SYNs
    // past it were retried by the kernel seconds later (574 requests got headers 6.6 s late).
    // The kernel caps it at net.core.somaxconn (4,096 on current Linux).
    server.listen({ port: so.port, host: so.host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  // A wildcard bind is reached through loopback.
  const hostForUrl =
    so.host === '0.0.0.0'
      ? '127.0.0.1'
      : so.host === '::'
        ? '[::1]'
        : so.host.includes(':')
          ? `[${so.host}]`
          : so.host;
  let closing: Promise<void> | undefined;
  let draining: Promise<{ idle: boolean }> | undefined;
  const close = () => {
    closing ??= sim.shutdown(server);
    return closing;
  };
  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    engine,
    config,
    modelId: sim.modelId,
    driverStats: () => sim.driverStats(),
    close,
    drain(timeoutS = so.drainTimeout) {
      draining ??= sim.drain(timeoutS).then(async (idle) => {
        await close();
        return { idle };
      });
      return draining;
    },
  };
}

/** The simulator's request handler without a listening socket (what `startSimServer` serves). */
export interface SimHandler {
  /** Handle one HTTP exchange; `req`/`res` may be node:http's or anything with their surface. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  readonly modelId: string;
  driverStats(): DriverStats;
  /** Stop the driver and drop every open response. */
  abortAll(): void;
  /**
   * Stop taking requests (503, `/health` too) and resolve when those in flight have ended (true)
   * or after `timeoutS` wall seconds (false).
   */
  drain(timeoutS: number): Promise<boolean>;
  /**
   * What `POST /tokenize {prompt}` counts, without the HTTP exchange: the tokens of `text`, or
   * null when `model` is not the one served (the 404). The text's ids are kept, so serving the
   * same prompt does not encode it again.
   */
  countPromptTokens(text: string, model?: string): Promise<number | null>;
}

/**
 * Build the simulator (options, engine, driver, tokenizer) behind a request handler, without
 * listening: the HTTP server and the in-process dispatcher (`sim/server/inprocess`) both serve it.
 */
export async function createSimHandler(
  opts: SimServerOptions,
  deps: SimServerDeps = {},
): Promise<{
  sim: SimHandler & { shutdown(server: Server): Promise<void> };
  so: ResolvedServerOptions;
  config: EngineConfig;
  engine: SimEngine;
}> {
  const { server: so, engine: engineOpts } = resolveServerOptions(opts);
  const config = resolveEngineConfig(engineOpts);
  const engine = createEngine(config);
  const clock = deps.clock ?? new RealClock();
  const log = deps.log ?? (() => {});
  const sim = new SimHttp(so, config, engine, clock, log);
  // vLLM loads its tokenizer before it serves; so do we (Qwen3's takes ~1 s; others are instant).
  await sim.tokenizerReady();
  return { sim, so, config, engine };
}

class SimHttp implements SimHandler {
  readonly modelId: string;
  private readonly driver: RealTimeDriver;
  /** `/v1/audio/transcriptions` and `/v1/audio/speech` (`sim/server/audio`). */
  private readonly audio: SimAudio;
  /** The API server's input and output paths: when a request reaches the engine, when each step's chunks leave (`sim/frontend`). */
  private readonly outputQueue: ApiServerQueue;
  private readonly metrics: SimMetrics;
  private readonly lives = new Map<string, Live>();
  private readonly idRng: Rng;
  private prompts?: Promise<PromptTokens>;
  private seq = 0;
  /** Requests between arrival and engine admission (the frontend overhead). */
  private pending = 0;
  private readonly apiKey?: Buffer;
  /** `--engine sglang`: SGLang's routes, `owned_by` and chunk shapes. */
  private readonly sglang: boolean;
  /** Set by {@link drain}: new requests get 503; called when the last request in flight ends. */
  private draining?: { onIdle: () => void };

  constructor(
    private readonly so: ResolvedServerOptions,
    private readonly config: EngineConfig,
    private readonly engine: SimEngine,
    private readonly clock: Clock,
    private readonly log: (line: string) => void,
  ) {
    this.modelId = so.servedModelName ?? config.model.name;
    this.outputQueue = new ApiServerQueue(config.apiServerCount, config.calibration?.frontend);
    this.sglang = config.profile.engine === 'sglang';
    this.metrics = new SimMetrics(
      () => engine.stats(),
      this.modelId,
      {
        name: config.gpu.deviceName,
        count: config.tp,
        version: VERSION,
      },
      config.profile.engine,
    );
    const onLag = registerLagMetrics(this.metrics.registry, this.modelId);
    this.audio = new SimAudio({
      clock,
      so,
      modelId: this.modelId,
      engineNow: () => this.driver.timelineNow(),
      toWallMs: (ms) => this.driver.toWallMs(ms),
      llmBusyUntilMs: () => this.driver.busyUntilMs(),
      sendError: (res, status, message, param) => this.sendError(res, status, message, param ?? null),
      sendJson: (res, status, payload) => this.sendJson(res, status, payload),
      log: (line) => this.log(line),
    });
    this.driver = new RealTimeDriver(
      engine,
      clock,
      {
        timeScale: so.timeScale,
        onLag,
        release: (step) => this.releaseMs(step),
        gpuFreeAtMs: () => this.audio.gpuFreeAtMs(),
      },
      (step, planned) => this.deliver(step, planned),
      (err) => this.log(`sim driver error: ${err instanceof Error ? err.message : String(err)}`),
    );
    this.idRng = new Rng(so.seed).fork('ids');
    if (so.apiKey !== undefined) this.apiKey = Buffer.from(so.apiKey);
  }

  /** The model family's tokenizer with its memo of encoded texts, loaded on first use (Qwen3's takes ~1 s). */
  private getPrompts(): Promise<PromptTokens> {
    this.prompts ??= tokenizerFor(this.config.model.name).then((t) => new PromptTokens(t));
    return this.prompts;
  }

  async countPromptTokens(text: string, model?: string): Promise<number | null> {
    if (model !== undefined && model !== this.modelId) return null;
    return (await this.getPrompts()).ids(text).length;
  }

  driverStats(): DriverStats {
    return this.driver.stats();
  }

  async tokenizerReady(): Promise<void> {
    await this.getPrompts();
  }

  abortAll(): void {
    this.driver.close();
    for (const live of this.lives.values()) {
      live.done = true;
      live.cancelPending?.();
      live.res.destroy();
    }
    this.lives.clear();
  }

  drain(timeoutS: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      let cancelTimer = () => {};
      const done = (idle: boolean) => {
        cancelTimer();
        if (this.draining) this.draining.onIdle = () => {};
        resolve(idle);
      };
      this.draining = { onIdle: () => done(true) };
      this.log(`sim draining: ${this.lives.size} requests in flight, waiting up to ${timeoutS} s`);
      if (this.lives.size === 0) return done(true);
      cancelTimer = this.clock.setTimer(() => {
        this.log(`sim drain timeout: dropping ${this.lives.size} requests in flight`);
        done(false);
      }, timeoutS * 1000);
    });
  }

  async shutdown(server: Server): Promise<void> {
    this.abortAll();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    this.route(req, res).catch((err: unknown) => {
      // A bug, not bad input: answer 500 in the OpenAI shape and keep serving.
      this.log(`sim internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (!res.headersSent) this.sendError(res, 500, 'Internal server error.');
      else res.destroy();
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    if (path.startsWith('/v1/') && !this.authorized(req)) {
      req.resume();
      return this.sendError(res, 401, 'Invalid or missing API key.', null, requestIdOf(req));
    }
    const route = `${method} ${path}`;
    if (this.draining && (route === 'POST /v1/chat/completions' || route === 'POST /v1/completions')) {
      // Shutting down: in-flight requests finish, new ones go elsewhere. `connection: close` so
      // a client's pool does not keep sending here.
      req.resume();
      res.setHeader('connection', 'close');
      return this.reject(
        res,
        requestIdOf(req),
        503,
        'The server is shutting down and takes no new requests; retry on another replica.',
      );
    }
    switch (route) {
      case 'GET /health':
        // A load balancer stops routing here while the server drains.
        res.writeHead(this.draining ? 503 : 200, { 'content-length': '0' }).end();
        return;
      case 'GET /version':
        return this.sendJson(res, 200, {
          version: VERSION,
          engine: 'servelab-sim',
          // The server's clock, so a client can line up `emit_ms` stamps with its own clock.
          server_clock_ms: this.clock.now(),
          server_clock_origin_unix_ms: this.clock.originUnixMs,
          time_scale: this.so.timeScale,
        });
      case 'GET /v1/models':
        return this.sendJson(res, 200, this.modelsBody());
      case 'GET /metrics': {
        const m = await this.metrics.render();
        res.writeHead(200, { 'content-type': m.contentType }).end(m.body);
        return;
      }
      case 'GET /get_server_info':
      case 'GET /server_info':
        if (!this.sglang) break;
        return this.sendJson(res, 200, this.serverInfo());
      case 'GET /get_model_info':
        if (!this.sglang) break;
        return this.sendJson(res, 200, {
          model_path: this.config.model.hf_id,
          tokenizer_path: this.config.model.hf_id,
          is_generation: true,
        });
      case 'GET /health_generate':
        if (!this.sglang) break;
        res.writeHead(200, { 'content-length': '0' }).end();
        return;
      case 'GET /flush_cache':
      case 'POST /flush_cache': {
        if (!this.sglang) break;
        req.resume();
        // SGLang's answer, in its words: 200 when flushed, 400 while requests hold the cache.
        const ok = this.engine.resetPrefixCache();
        const text =
          `${ok ? 'Cache flushed.' : 'Cache not flushed.'}\nPlease check backend logs for more details. ` +
          '(When there are running or waiting requests, the operation will not be performed.)\n';
        res.writeHead(ok ? 200 : 400, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
        return;
      }
      case 'POST /reset_prefix_cache':
        if (this.sglang) break;
        req.resume();
        if (this.engine.resetPrefixCache()) res.writeHead(200, { 'content-length': '0' }).end();
        else
          this.sendError(
            res,
            409,
            'The prefix cache cannot be reset while requests hold its blocks; retry when idle.',
          );
        return;
      case 'POST /tokenize':
        return this.tokenize(req, res);
      case 'POST /v1/chat/completions':
        return this.generate(req, res, 'chat');
      case 'POST /v1/completions':
        return this.generate(req, res, 'completions');
      case 'POST /v1/audio/transcriptions':
        return this.audio.transcribe(req, res);
      case 'POST /v1/audio/speech':
        return this.audio.speech(req, res);
    }
    // Not a route of this profile, or the wrong method on one.
    req.resume();
    const known = [
      '/health',
      '/version',
      '/v1/models',
      '/metrics',
      '/tokenize',
      ...(this.sglang ? SGLANG_ROUTES : ['/reset_prefix_cache']),
    ];
    if (known.includes(path) || path === '/v1/chat/completions' || path === '/v1/completions')
      return this.sendError(res, 405, `Method ${method} is not allowed on ${path}.`);
    return this.sendError(res, 404, `No route ${path}.`);
  }

  /**
   * SGLang's `/get_server_info`: its server arguments (`ServerArgs` field names) and the
   * scheduler's state, for what the simulator models.
   */
  private serverInfo(): Record<string, unknown> {
    const c = this.config;
    const p = c.profile;
    const stats = this.engine.stats();
    return {
      model_path: c.model.hf_id,
      tokenizer_path: c.model.hf_id,
      served_model_name: this.modelId,
      host: this.so.host,
      tp_size: c.tp,
      dtype: c.dtype === 'bf16' ? 'bfloat16' : c.dtype,
      kv_cache_dtype: c.kvCacheDtype,
      context_length: c.maxModelLen,
      mem_fraction_static: c.gpuMemoryUtilization,
      max_running_requests: c.maxNumSeqs,
      chunked_prefill_size: p.chunkedPrefillSize,
      max_prefill_tokens: p.chunkedPrefillSize,
      schedule_policy: p.schedulePolicy,
      page_size: 1,
      disable_radix_cache: !c.enablePrefixCaching,
      enable_metrics: true,
      max_total_num_tokens: stats.totalBlocks * stats.blockSize,
      version: VERSION,
      internal_states: [
        { num_running_reqs: stats.running, num_queue_reqs: stats.waiting, token_usage: stats.kvUsage },
      ],
    };
  }

  private authorized(req: IncomingMessage): boolean {
    if (!this.apiKey) return true;
    const h = req.headers.authorization ?? '';
    const given = Buffer.from(h.startsWith('Bearer ') ? h.slice(7) : '');
    return given.length === this.apiKey.length && timingSafeEqual(given, this.apiKey);
  }

  private modelsBody(): unknown {
    const created = this.unixSeconds();
    return {
      object: 'list',
      data: [
        {
          id: this.modelId,
          object: 'model',
          created,
          owned_by: this.sglang ? 'sglang' : 'servelab-sim',
          root: this.config.model.hf_id,
          parent: null,
          max_model_len: this.config.maxModelLen,
          permission: [
            {
              id: `modelperm-${this.hex()}`,
              object: 'model_permission',
              created,
              allow_create_engine: false,
              allow_sampling: true,
              allow_logprobs: true,
              allow_search_indices: false,
              allow_view: true,
              allow_fine_tuning: false,
              organization: '*',
              group: null,
              is_blocking: false,
            },
          ],
        },
      ],
    };
  }

  private async tokenize(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let parsed: ReturnType<typeof parseTokenizeRequest>;
    try {
      parsed = parseTokenizeRequest(await readJson(req, this.so.maxBodyBytes));
    } catch (err) {
      if (err instanceof BodyTooLarge) return this.rejectTooLarge(res, undefined, err);
      if (err instanceof BadRequest) return this.sendError(res, 400, err.message, err.param);
      throw err;
    }
    if (parsed.model !== undefined && parsed.model !== this.modelId)
      return this.sendError(res, 404, `The model \`${parsed.model}\` does not exist.`, 'model');
    const prompts = await this.getPrompts();
    const ids = parsed.messages ? prompts.chatIds(parsed.messages) : prompts.ids(parsed.text);
    return this.sendJson(res, 200, {
      count: ids.length,
      max_model_len: this.config.maxModelLen,
      tokens: Array.from(ids),
      token_strs: null,
    });
  }

  private async generate(
    req: IncomingMessage,
    res: ServerResponse,
    kind: 'chat' | 'completions',
  ): Promise<void> {
    const httpArrivalMs = this.driver.timelineNow();
    const requestId = requestIdOf(req);
    let parsed: ParsedRequest;
    try {
      parsed = parseGenerationRequest(kind, await readJson(req, this.so.maxBodyBytes));
    } catch (err) {
      if (err instanceof BodyTooLarge) return this.rejectTooLarge(res, requestId, err);
      if (err instanceof BadRequest) return this.reject(res, requestId, 400, err.message, err.param);
      throw err;
    }
    if (parsed.model !== undefined && parsed.model !== this.modelId)
      return this.reject(res, requestId, 404, `The model \`${parsed.model}\` does not exist.`, 'model');

    const prompts = await this.getPrompts();
    const promptIds =
      parsed.promptIds ??
      (parsed.messages ? prompts.chatIds(parsed.messages) : prompts.ids(parsed.promptText).slice());
    const promptLen = promptIds.length;
    const maxLen = this.config.maxModelLen;
    if (promptLen === 0) return this.reject(res, requestId, 400, 'The prompt is empty (0 tokens).', 'prompt');
    let maxTokens: number;
    if (this.so.contextError === 'llamacpp') {
      // llama.cpp refuses a prompt that fills its context and stops a generation at the
      // context's end (finish_reason length): max_tokens beyond it is clamped, not refused.
      if (promptLen >= maxLen)
        return this.rejectBody(res, requestId, 400, llamaCppContextErrorBody(promptLen, maxLen));
      maxTokens = Math.min(parsed.maxTokens ?? maxLen - promptLen, maxLen - promptLen);
    } else {
      const ctxError = contextLengthError(promptLen, parsed.maxTokens, maxLen);
      if (ctxError) return this.reject(res, requestId, 400, ctxError, null);
      maxTokens = parsed.maxTokens ?? maxLen - promptLen;
    }
    if (this.so.maxWaiting !== undefined && this.engine.stats().waiting + this.pending >= this.so.maxWaiting)
      return this.reject(
        res,
        requestId,
        429,
        `The server is overloaded: ${this.so.maxWaiting} requests are already waiting. Retry later.`,
      );

    const seq = this.seq++;
    // A greedy decode (temperature 0) does not depend on the sampling seed: neither its length nor its text.
    const greedy = parsed.temperature === 0;
    const lengthSeed0 = greedy ? this.so.seed : (parsed.seed ?? this.so.seed);
    // Text, reasoning split and faults key on the prompt text (token-id prompts: the ids joined).
    const promptKey = parsed.promptText;
    const textSeed0 = textSeedFor(promptKey, this.so.seed, parsed.seed, greedy);
    const n = parsed.n;
    /** Choice k's seeds: choice 0's are the n=1 request's; greedy choices are all the same. */
    const seedsOf = (k: number) =>
      k === 0 || greedy
        ? { textSeed: textSeed0, lengthSeed: lengthSeed0 }
        : { textSeed: mix32(textSeed0, 0x5eed + k), lengthSeed: mix32(lengthSeed0, 0x5eed + k) };
    const plans = Array.from({ length: n }, (_, k) => {
      const { textSeed, lengthSeed } = seedsOf(k);
      // Structured output and tool calls are planned whole: their length is the JSON's, cut by
      // max_tokens (finish "length", truncated JSON, as a real engine does); min_tokens and
      // ignore_eos do not stretch them. Tool calls have no reasoning phase before them; structured
      // output on a thinking model does, as vLLM's reasoning parser constrains only what follows
      // the reasoning (`StructuredOutputsConfig.enable_in_reasoning`, default false): the
      // reasoning tokens are put in front of the JSON's.
      const planned = scriptOf(parsed, textSeed, this.so);
      let plannedReasoning = 0;
      if (
        planned &&
        !planned.calls &&
        kind === 'chat' &&
        this.config.model.reasoning &&
        parsed.enableThinking
      ) {
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
    // Faults are drawn once per HTTP request and act on choice 0 (the others share its socket).
    const fault = drawFault(this.so.seed, seq, this.so.faultRate, this.so.faults, plans[0].expectedTokens);
    if (fault?.kind === 'http500')
      return this.reject(
        res,
        requestId,
        500,
        'Injected fault: internal server error (http500).',
        null,
        'http500',
      );
    if (fault?.kind === 'http429')
      return this.reject(
        res,
        requestId,
        429,
        'Injected fault: too many requests (http429).',
        null,
        'http429',
      );

    const reasoningOn = kind === 'chat' && this.config.model.reasoning && parsed.enableThinking;
    const id = `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${this.hex()}`;
    const head: ChunkHead = {
      // SGLang's ids are bare hex.
      id: this.sglang ? id.slice(id.indexOf('-') + 1) : id,
      created: this.unixSeconds(),
      model: this.modelId,
    };
    const group: Group | undefined = n > 1 ? { lives: [], remaining: n, results: [] } : undefined;
    const lives = plans.map(({ textSeed, planned, plannedReasoning, expectedTokens }, k): Live => {
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
        expectedTokens,
        reasoningLen: planned
          ? plannedReasoning
          : reasoningOn
            ? reasoningLength(promptKey, expectedTokens)
            : 0,
        textSeed,
        script: planned?.script,
        calls: planned?.calls,
        toolArgs: planned?.calls?.map(() => '') ?? [],
        callsStarted: 0,
        lp: [],
        lpOffset: 0,
        greedy,
        choiceIndex: k,
        group,
        fault: k === 0 ? fault : undefined,
        engineAbortAt:
          k === 0 && this.so.abortAsSuccess ? drawEngineAbort(this.so.seed, seq, expectedTokens) : undefined,
        httpArrivalMs,
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
      for (const l of lives) if (!l.done) this.finishLive(l, 'abort', 'client_disconnect', false);
    });
    const headers: Record<string, string> = { 'x-request-id': live.requestId };
    if (this.so.exposeTimings) headers['x-servelab-clock-ms'] = this.clock.now().toFixed(3);
    if (parsed.stream) {
      headers['content-type'] = 'text/event-stream; charset=utf-8';
      headers['cache-control'] = 'no-cache';
      res.writeHead(200, headers);
      res.flushHeaders();
    } else {
      for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    }

    // The API server's own work (HTTP, tokenization) before the engine sees it: its input path
    // takes one request after another (`sim/frontend`, shared with `plan`).
    const nowEngineMs = this.driver.engineNow();
    const admitInMs = this.outputQueue.admitMs(nowEngineMs) - nowEngineMs;
    this.pending++;
    let pendingCounted = true;
    const cancelTimer = this.clock.setTimer(() => {
      this.pending--;
      pendingCounted = false;
      for (const l of lives) {
        l.cancelPending = undefined;
        if (l.done) continue;
        l.inEngine = true;
        this.driver.add({
          id: l.id,
          promptTokens: promptIds,
          maxTokens,
          eosLen: plans[l.choiceIndex].eosLen,
          minTokens: plans[l.choiceIndex].planned ? undefined : parsed.minTokens || undefined,
        });
      }
    }, this.driver.wallDuration(admitInMs));
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
  private releaseMs(step: StepResult): number {
    let firsts = 0;
    for (const t of step.tokens) if (t.index === 0) firsts++;
    return this.outputQueue.emitMs(step.endMs, step.tokens.length, firsts);
  }

  /**
   * Write every produced token of a step, then finish requests. Called by the driver at the
   * step's planned release `plannedWallMs` (the `planned_ms` of its chunks' stamps).
   */
  private deliver(step: StepResult, plannedWallMs: number): void {
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
          this.log(
            `sim internal error on ${live.id}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
          );
          live.status = 500;
          this.finishLive(live, 'abort', 'internal_error', finished.has(t.reqId));
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
      else this.finishLive(live, f.reason, 'ok', true);
    }
  }

  private onToken(
    live: Live,
    index: number,
    step: StepResult,
    plannedWallMs: number,
    fin?: FinishEvent,
  ): void {
    // A token index seen before (re-emitted after a preemption) is not sent twice.
    if (index < live.produced) return;
    const fault = live.fault;
    const stream = live.req.stream;
    if (index === live.engineAbortAt) {
      this.endAborted(live, !!fin);
      return;
    }
    if (fault && index === fault.atToken && stream) {
      if (fault.kind === 'disconnect') {
        this.finishLive(live, 'abort', 'fault_disconnect', !!fin);
        live.res.destroy();
        return;
      }
      if (fault.kind === 'truncate') {
        // Under abort-as-success a cut stream is dressed up as a finished one.
        if (this.so.abortAsSuccess) {
          this.endAborted(live, !!fin);
          return;
        }
        this.finishLive(live, 'abort', 'fault_truncate', !!fin);
        this.write(live, [], true);
        return;
      }
      if (fault.kind === 'inband_error') {
        const err = {
          error: {
            message: 'Injected fault: error in stream (inband_error).',
            type: 'InternalServerError',
            param: null,
            code: 500,
          },
        };
        this.finishLive(live, 'abort', 'fault_inband_error', !!fin);
        this.write(live, [err, SSE_DONE], true);
        return;
      }
      if (fault.kind === 'stall')
        live.stallUntil = this.clock.now() + this.driver.wallDuration(fault.stallMs ?? 0);
    }

    live.produced = index + 1;
    live.tokenMs.push(step.endMs);
    live.tokenSteps.push(step.step);
    const scripted = live.script ? live.script[index] : undefined;
    let text = live.script
      ? (scripted?.text ?? '')
      : index < live.reasoningLen
        ? tokenText(live.textSeed, index)
        : sentenceText(live.textSeed, index, this.so.sentenceWords);
    if (fault?.kind === 'garble' && index >= fault.atToken) text = garbleText(text, live.textSeed, index);
    const isReasoning = index < live.reasoningLen;
    let finishReason: string | null = fin ? (fin.reason === 'abort' ? 'abort' : fin.reason) : null;
    let stopReason: string | null = null;
    const toolIndex = scripted?.tool;
    const call = toolIndex !== undefined ? live.calls?.[toolIndex] : undefined;
    let lpEntry: TokenLogprob | undefined;
    if (live.req.logprobs !== undefined) {
      lpEntry = tokenLogprob(
        live.textSeed,
        index,
        scripted?.header && call ? call.name : text,
        live.req.logprobs,
        live.greedy,
      );
      live.lp.push(lpEntry);
    }
    if (toolIndex !== undefined) {
      // A tool-call token: arguments, never content (no tool markup in the text).
      if (scripted?.header) live.callsStarted = toolIndex + 1;
      else live.toolArgs[toolIndex] += text;
      if (finishReason === 'stop') finishReason = 'tool_calls';
    } else if (isReasoning) live.reasoning += text;
    else {
      const before = live.content.length;
      live.content += text;
      // Stop strings are matched in the answer (not the reasoning), once min_tokens are out, and
      // only where they end in the new token. A match that began in an earlier token cuts the
      // answer there, but text already streamed stays sent (vLLM holds such text back instead).
      if (live.req.stop.length && live.produced >= live.req.minTokens) {
        const m = findStop(live.content, live.req.stop, before);
        if (m) {
          live.content = live.content.slice(0, m.at);
          text = live.content.slice(Math.min(before, m.at));
          finishReason = 'stop';
          stopReason = m.stop;
        }
      }
    }
    if (finishReason === null && live.produced >= live.maxTokens) finishReason = 'length';

    if (stream) {
      const stamp = this.so.exposeTimings ? { step: step.step, planned_ms: plannedWallMs } : undefined;
      const out: SseItem[] = [];
      if (index === 0 && live.req.kind === 'chat') out.push(this.chunk(live, { role: true }, stamp, 0));
      const last = finishReason !== null;
      if (
        !last &&
        !live.req.continuousUsage &&
        toolIndex === undefined &&
        lpEntry === undefined &&
        live.choiceIndex === 0
      ) {
        // The common chunk: spliced into a template instead of built and stringified.
        const tpl = this.templateOf(live, isReasoning);
        if (out.length === 0 && live.stallUntil === undefined) {
          // Hottest path (every token but a stream's first and last): one string, one write,
          // no intermediate objects; `emit_ms` is read right before the write.
          const res = live.res;
          if (res.destroyed || res.writableEnded) return;
          writeBody(
            res,
            fillChunk(
              tpl,
              text,
              this.so.exposeTimings
                ? { step: step.step, planned_ms: plannedWallMs, emit_ms: this.clock.now() }
                : undefined,
            ),
          );
          return;
        }
        out.push(new TokenItem(tpl, text, step.step, plannedWallMs));
        this.write(live, out, false);
        return;
      }
      const body: ChunkBody = { text };
      if (isReasoning) body.reasoningField = this.so.reasoningField;
      if (call && toolIndex !== undefined)
        body.toolCall = scripted?.header
          ? { index: toolIndex, id: call.id, name: call.name, arguments: '' }
          : { index: toolIndex, arguments: text };
      if (lpEntry) {
        body.logprobs =
          live.req.kind === 'chat' ? chatLogprobs([lpEntry]) : completionLogprobs([lpEntry], live.lpOffset);
        live.lpOffset += lpEntry.token.length;
      }
      if (finishReason) {
        body.finishReason = finishReason;
        body.stopReason = stopReason;
      }
      if (last && this.so.exposeTimings) body.timings = this.timingsOf(live);
      out.push(this.chunk(live, body, stamp, live.produced));
      // n > 1: usage and [DONE] follow the last choice to finish.
      const groupDone = !live.group || live.group.remaining === 1;
      if (last && groupDone) {
        if (live.req.includeUsage) {
          const usage = usageChunk(
            live.head,
            live.req.kind === 'chat' ? 'chat.completion.chunk' : 'text_completion',
            this.usageOf(live),
            stamp ? { ...stamp } : undefined,
          );
          out.push(usage);
        }
        out.push(SSE_DONE);
      }
      if (last) this.finishLive(live, metricReason(finishReason), 'ok', !!fin);
      this.write(live, out, last && groupDone);
      return;
    }
    if (finishReason !== null) {
      const group = live.group;
      const timings = this.so.exposeTimings && live.choiceIndex === 0 ? this.timingsOf(live) : group?.timings;
      if (group && timings) group.timings = timings;
      const usage = this.usageOf(live);
      const content = live.content;
      const reasoning = live.reasoningLen > 0 ? live.reasoning : undefined;
      this.finishLive(live, metricReason(finishReason), 'ok', !!fin);
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
        this.sendNonStream(group.lives[0], JSON.stringify(this.sglang ? sglangResponse(all) : all));
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
      this.sendNonStream(live, JSON.stringify(this.sglang ? sglangResponse(body) : body));
    }
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
    const asSuccess = this.so.abortAsSuccess;
    if (!live.req.stream) {
      const usage = this.usageOf(live);
      this.finishLive(live, 'abort', asSuccess ? 'abort_as_success' : 'engine_abort', engineFinished);
      if (!asSuccess) {
        live.status = 500;
        this.sendError(live.res, 500, 'The engine aborted the request.');
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
            this.usageOf(live),
          ),
        );
      out.push(SSE_DONE);
    } else
      out.push({
        error: {
          message: 'The engine aborted the request.',
          type: 'InternalServerError',
          param: null,
          code: 500,
        },
      });
    this.finishLive(live, 'abort', asSuccess ? 'abort_as_success' : 'engine_abort', engineFinished);
    this.write(live, out, true);
  }

  /** Non-streaming response, with the faults that make sense without a stream. */
  private sendNonStream(live: Live, json: string): void {
    const res = live.res;
    const kind = live.fault?.kind;
    if (kind === 'disconnect') {
      live.outcome = 'fault_disconnect';
      res.destroy();
      return;
    }
    if (kind === 'inband_error') {
      live.status = 500;
      this.sendError(res, 500, 'Injected fault: internal server error (inband_error).');
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
    if (kind === 'stall') this.clock.setTimer(send, this.driver.wallDuration(live.fault?.stallMs ?? 0));
    else send();
  }

  /** Write SSE text, holding it back while a `stall` fault is active. */
  private write(live: Live, items: SseItem[], end: boolean): void {
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

  private flushHeld(live: Live): void {
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
          this.so.exposeTimings ? { step: it.step, planned_ms: it.plannedMs, emit_ms: now } : undefined,
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
  private templateOf(live: Live, reasoning: boolean): ChunkTemplate {
    const stamped = this.so.exposeTimings;
    if (reasoning) {
      live.tplReasoning ??= chunkTemplate(this.builderOf(live), live.head, this.so.reasoningField, stamped);
      return live.tplReasoning;
    }
    live.tplContent ??= chunkTemplate(this.builderOf(live), live.head, undefined, stamped);
    return live.tplContent;
  }

  private chunk(
    live: Live,
    body: ChunkBody,
    stamp: { step: number; planned_ms: number } | undefined,
    completionTokens: number,
  ): Record<string, unknown> {
    if (stamp) body.servelab = { ...stamp };
    if (live.choiceIndex) body.index = live.choiceIndex;
    if (live.req.continuousUsage)
      body.usage = usageObject({ promptTokens: live.promptTokens, completionTokens });
    return this.builderOf(live)(live.head, body);
  }

  /** The chunk shape of this response: its endpoint's, in the engine profile's wire format. */
  private builderOf(live: Live): ChunkBuilder {
    if (this.sglang) return live.req.kind === 'chat' ? sglangChatChunk : sglangCompletionChunk;
    return live.req.kind === 'chat' ? chatChunk : completionChunk;
  }

  private usageOf(live: Live): Record<string, unknown> {
    const times = live.inEngine ? this.engine.times(live.id) : undefined;
    // n > 1: the prompt once, the completion tokens of every choice (OpenAI's and vLLM's usage).
    const all = live.group?.lives ?? [live];
    let produced = 0;
    let reasoning = 0;
    for (const l of all) {
      produced += l.produced;
      reasoning += Math.min(l.produced, l.reasoningLen);
    }
    return usageObject({
      promptTokens: live.promptTokens,
      completionTokens: produced,
      cachedTokens: this.so.enablePromptTokensDetails ? (times?.cachedTokens ?? 0) : undefined,
      reasoningTokens: live.reasoningLen > 0 ? reasoning : undefined,
    });
  }

  /** Server-side timings in llama.cpp's style (engine ms), plus the step of every token. */
  private timingsOf(live: Live): Record<string, unknown> {
    const t = this.engine.times(live.id);
    const first = t?.firstTokenMs ?? null;
    const last = t?.lastTokenMs ?? null;
    const sched = t?.firstScheduledMs ?? null;
    const cached = t?.cachedTokens ?? 0;
    const prefill = sched !== null && first !== null ? first - sched : null;
    const decode = first !== null && last !== null ? last - first : null;
    const predicted = live.produced;
    return {
      frontend_ms: frontendOverheadMs(this.config.calibration?.frontend),
      queue_ms: t && sched !== null ? sched - t.arrivalMs : null,
      prefill_ms: prefill,
      decode_ms: decode,
      ttft_ms: first !== null ? first - live.httpArrivalMs : null,
      cache_n: cached,
      prompt_n: live.promptTokens - cached,
      prompt_ms: prefill,
      predicted_n: predicted,
      predicted_ms: decode,
      predicted_per_token_ms: decode !== null && predicted > 1 ? decode / (predicted - 1) : null,
      preemptions: t?.preemptions ?? 0,
      token_steps: [...live.tokenSteps],
      token_ms: [...live.tokenMs],
      time_scale: this.so.timeScale,
    };
  }

  /**
   * A request is over (finished, stopped, aborted or faulted): free its engine state, record its
   * metrics and write its log line. Idempotent.
   */
  private finishLive(
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
        for (const l of live.group.lives) if (!l.done) this.finishLive(l, 'abort', outcome, false);
    }
    live.cancelPending?.();
    live.cancelPending = undefined;
    const times = live.inEngine ? this.engine.times(live.id) : undefined;
    // Requests that end before the engine says so (stop string, fault, disconnect) free KV now.
    if (live.inEngine && !engineFinished) this.driver.abort(live.id);
    const nowMs = this.driver.timelineNow();
    const first = times?.firstTokenMs ?? null;
    const lastTok = live.tokenMs.length ? live.tokenMs[live.tokenMs.length - 1] : null;
    const sched = times?.firstScheduledMs ?? null;
    const queueMs = times && sched !== null ? sched - times.arrivalMs : undefined;
    const prefillMs = sched !== null && first !== null ? first - sched : undefined;
    const decodeMs = first !== null && lastTok !== null ? lastTok - first : undefined;
    const e2eMs = (reason === 'abort' ? nowMs : (lastTok ?? nowMs)) - live.httpArrivalMs;
    const itl: number[] = [];
    for (let i = 1; i < live.tokenMs.length; i++) itl.push((live.tokenMs[i] - live.tokenMs[i - 1]) / 1000);
    if (live.inEngine)
      this.metrics.observeFinished({
        finishedReason: reason,
        ttftS: first !== null ? (first - live.httpArrivalMs) / 1000 : undefined,
        e2eS: e2eMs / 1000,
        queueS: queueMs !== undefined ? queueMs / 1000 : undefined,
        prefillS: prefillMs !== undefined ? prefillMs / 1000 : undefined,
        decodeS: decodeMs !== undefined ? decodeMs / 1000 : undefined,
        itlS: itl,
      });
    if (live.inEngine) this.engine.release(live.id);
    this.lives.delete(live.id);
    if (this.draining && this.lives.size === 0) queueMicrotask(() => this.draining?.onIdle());
    const f = (v: number | undefined) => (v === undefined ? '-' : v.toFixed(2));
    this.log(
      `sim request x_request_id=${live.requestId} id=${live.id} endpoint=${live.req.kind} stream=${live.req.stream} ` +
        `status=${live.status} finish=${reason} outcome=${live.outcome} prompt_tokens=${live.promptTokens} ` +
        `cached_tokens=${times?.cachedTokens ?? 0} completion_tokens=${live.produced} ` +
        `queue_ms=${f(queueMs)} prefill_ms=${f(prefillMs)} decode_ms=${f(decodeMs)} e2e_ms=${f(e2eMs)}` +
        (live.fault ? ` fault=${live.fault.kind}@${live.fault.atToken}` : ''),
    );
  }

  /** Answer an error before the request reaches the engine, with its log line. */
  private reject(
    res: ServerResponse,
    requestId: string | undefined,
    status: number,
    message: string,
    param: string | null = null,
    fault?: string,
  ): void {
    this.sendError(res, status, message, param, requestId);
    this.log(
      `sim request x_request_id=${requestId ?? '-'} status=${status} outcome=${fault ? `fault_${fault}` : 'rejected'} ` +
        `queue_ms=- prefill_ms=- decode_ms=- error=${JSON.stringify(message)}`,
    );
  }

  /**
   * 413 for a body over --max-body-bytes, answered without reading the rest of it: the
   * connection is closed after the answer, so the unread bytes never need to be drained.
   */
  private rejectTooLarge(res: ServerResponse, requestId: string | undefined, err: BodyTooLarge): void {
    res.setHeader('connection', 'close');
    this.reject(res, requestId, 413, err.message);
  }

  /** {@link reject} with a body in another engine's error shape (llama.cpp's context error). */
  private rejectBody(res: ServerResponse, requestId: string | undefined, status: number, body: string): void {
    this.sendError(res, status, '', null, requestId, body);
    this.log(
      `sim request x_request_id=${requestId ?? '-'} status=${status} outcome=rejected ` +
        `queue_ms=- prefill_ms=- decode_ms=- error=${JSON.stringify(body)}`,
    );
  }

  private sendError(
    res: ServerResponse,
    status: number,
    message: string,
    param: string | null = null,
    requestId?: string,
    rawBody?: string,
  ): void {
    if (res.headersSent) {
      res.end();
      return;
    }
    const body = rawBody ?? errorBody(status, message, param);
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    };
    if (requestId) headers['x-request-id'] = requestId;
    res.writeHead(status, headers).end(body);
  }

  private sendJson(res: ServerResponse, status: number, payload: unknown): void {
    const body = JSON.stringify(payload);
    res
      .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
      .end(body);
  }

  private unixSeconds(): number {
    return Math.floor((this.clock.originUnixMs + this.clock.now()) / 1000);
  }

  /** 32 hex digits from the seeded id stream (vLLM's ids are uuid4 hex). */
  private hex(): string {
    let s = '';
    for (let i = 0; i < 4; i++) s += this.idRng.nextU32().toString(16).padStart(8, '0');
    return s;
  }
}

/** The engine's finish reason behind a wire one (`tool_calls` is an engine `stop`). */
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

function metricReason(finishReason: string | null): 'stop' | 'length' | 'abort' {
  return finishReason === 'tool_calls' ? 'stop' : (finishReason as 'stop' | 'length' | 'abort');
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
