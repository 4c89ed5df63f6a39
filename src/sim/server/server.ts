/**
 * @module sim/server/server
 * `servelab sim`'s HTTP entry points: an OpenAI-compatible front-end over the simulated engine,
 * shaped like vLLM's API server (routes, auth, `/v1/models`, `/tokenize`, `/version`, `/metrics`,
 * SGLang's routes under `--engine sglang`, errors, the graceful drain), listening on a socket
 * ({@link startSimServer}) or serving the in-process dispatcher ({@link createSimHandler}). The
 * generation endpoints are `generation.ts` (the loop), `output.ts` (the output processor) and
 * `writer.ts` (the SSE/JSON writer); the engine is driven in real time by {@link RealTimeDriver}.
 * node:http only: the streaming path writes SSE straight to the socket.
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
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../../core/errors.js';
import { type Clock, RealClock, VirtualClock } from '../../runtime/clock.js';
import { Rng } from '../../runtime/rng.js';
import { tokenizerFor } from '../../tokenizer/index.js';
import { type EngineConfig, resolveEngineConfig } from '../engine/config.js';
import { createEngine } from '../engine/engine.js';
import { type DriverStats, RealTimeDriver } from '../engine/realtime-driver.js';
import type { SimEngine } from '../engine/types.js';
import type { ResolvedServerOptions, SimServerOptions } from '../settings.js';
import { SimAudio } from './audio.js';
import { BadRequest, BodyTooLarge, readJson, requestIdOf } from './body.js';
import { Generations } from './generation.js';
import { registerLagMetrics } from './lag-metrics.js';
import { llamaModels, llamaProps, llamaSlots, llamaTokenize } from './llamacpp.js';
import { SimMetrics } from './metrics.js';
import { resolveServerOptions } from './options.js';
import { type SpanExport, spanExportOf } from './otlp-spans.js';
import { PromptTokens } from './prompt-tokens.js';
import { parseTokenizeRequest } from './requests.js';
import { reject, rejectTooLarge, sendError, sendJson } from './responses.js';
import { serveSteps } from './steps.js';
import { warmServePath } from './warm.js';

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
 * Start the simulated server.
 *
 * @example
 * const sim = await startSimServer({ model: 'qwen3-0.6b', gpu: 'h100', timeScale: 10 });
 * // POST `${sim.url}/v1/chat/completions` …
 * await sim.close();
 */
export async function startSimServer(opts: SimServerOptions, deps: SimServerDeps = {}): Promise<SimServer> {
  const { sim, so, config, engine } = await createSimHandler(opts, deps);
  if (!(deps.clock instanceof VirtualClock)) await warmServePath(opts, (o) => createSimHandler(o)); // sim/server/warm
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
  // vLLM loads its tokenizer before it serves; so do we (Qwen3's takes ~1 s; others are instant),
  // and on a wall clock warm it (V8 compiles it) so the first prompt does not pay for that.
  await sim.tokenizerReady(!(clock instanceof VirtualClock));
  return { sim, so, config, engine };
}

class SimHttp implements SimHandler {
  readonly modelId: string;
  private readonly driver: RealTimeDriver;
  /** `/v1/audio/transcriptions` and `/v1/audio/speech` (`sim/server/audio`). */
  private readonly audio: SimAudio;
  /** `/v1/chat/completions` and `/v1/completions` (`sim/server/generation`). */
  private readonly generations: Generations;
  private readonly metrics: SimMetrics;
  private readonly idRng: Rng;
  private prompts?: Promise<PromptTokens>;
  private readonly apiKey?: Buffer;
  /** `--engine sglang`: SGLang's routes and `owned_by`. */
  private readonly sglang: boolean;
  /** `--engine llamacpp`: llama.cpp's `/props`, `/slots`, `/health` body and `/v1/models`. */
  private readonly llamacpp: boolean;
  /** Set by {@link drain}: new requests get 503; called when the last request in flight ends. */
  private draining?: { onIdle: () => void };
  /** `--otlp-endpoint`: the request spans' exporter. */
  private readonly spans?: SpanExport;

  constructor(
    private readonly so: ResolvedServerOptions,
    private readonly config: EngineConfig,
    private readonly engine: SimEngine,
    private readonly clock: Clock,
    private readonly log: (line: string) => void,
  ) {
    this.modelId = so.servedModelName ?? config.model.name;
    this.sglang = config.profile.engine === 'sglang';
    this.llamacpp = config.profile.engine === 'llamacpp';
    this.spans = spanExportOf(so, config.profile.engine, log);
    this.metrics = new SimMetrics(
      () => engine.stats(),
      this.modelId,
      {
        name: config.gpu.deviceName,
        count: config.tp,
        version: VERSION,
        busyNow: () => this.driver.gpuBusyNow(),
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
      sendError: (res, status, message, param) => sendError(res, status, message, param ?? null),
      sendJson: (res, status, payload) => sendJson(res, status, payload),
      log: (line) => this.log(line),
    });
    this.generations = new Generations({
      so,
      config,
      engine,
      clock,
      log: (line) => this.log(line),
      metrics: this.metrics,
      modelId: this.modelId,
      driver: () => this.driver,
      prompts: () => this.getPrompts(),
      hex: () => this.hex(),
      unixSeconds: () => this.unixSeconds(),
      onIdle: () => {
        if (this.draining) queueMicrotask(() => this.draining?.onIdle());
      },
      spans: this.spans,
    });
    this.driver = new RealTimeDriver(
      engine,
      clock,
      {
        timeScale: so.timeScale,
        onLag,
        release: (step) => this.generations.releaseMs(step),
        gpuFreeAtMs: () => this.audio.gpuFreeAtMs(),
      },
      (step, planned) => this.generations.deliver(step, planned),
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

  /** Empty the prefix cache, and on a wall clock the tokenizer's memo (docs/sim.md, issue 26 item 6). */
  private resetCaches(): boolean {
    if (!this.engine.resetPrefixCache()) return false;
    if (!(this.clock instanceof VirtualClock)) void this.prompts?.then((p) => p.clear());
    return true;
  }

  async tokenizerReady(warm = false): Promise<void> {
    const prompts = await this.getPrompts();
    if (warm) prompts.warm();
  }

  abortAll(): void {
    this.driver.close();
    this.generations.abortAll();
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
      this.log(`sim draining: ${this.generations.size} requests in flight, waiting up to ${timeoutS} s`);
      if (this.generations.size === 0) return done(true);
      cancelTimer = this.clock.setTimer(() => {
        this.log(`sim drain timeout: dropping ${this.generations.size} requests in flight`);
        done(false);
      }, timeoutS * 1000);
    });
  }

  async shutdown(server: Server): Promise<void> {
    this.abortAll();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    // The spans of the last requests are still in the batch: export them before going.
    await this.spans?.shutdown().catch(() => undefined);
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    this.route(req, res).catch((err: unknown) => {
      // A bug, not bad input: answer 500 in the OpenAI shape and keep serving.
      this.log(`sim internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (!res.headersSent) sendError(res, 500, 'Internal server error.');
      else res.destroy();
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    if (path.startsWith('/v1/') && !this.authorized(req)) {
      req.resume();
      return sendError(res, 401, 'Invalid or missing API key.', null, requestIdOf(req));
    }
    const route = `${method} ${path}`;
    if (this.draining && (route === 'POST /v1/chat/completions' || route === 'POST /v1/completions')) {
      // Shutting down: in-flight requests finish, new ones go elsewhere. `connection: close` so
      // a client's pool does not keep sending here.
      req.resume();
      res.setHeader('connection', 'close');
      return reject(
        this.log,
        res,
        requestIdOf(req),
        503,
        'The server is shutting down and takes no new requests; retry on another replica.',
      );
    }
    if (
      this.llamacpp &&
      (path === '/props' || path === '/slots' || path === '/models' || route === 'GET /health')
    ) {
      req.resume();
      if (route === 'GET /health') return sendJson(res, this.draining ? 503 : 200, { status: 'ok' });
      if (route === 'GET /props') return sendJson(res, 200, llamaProps(this.config, this.modelId));
      if (route === 'GET /slots') return sendJson(res, 200, llamaSlots(this.engine.slots()));
      if (route === 'GET /models') return sendJson(res, 200, this.modelsBody());
    }
    switch (route) {
      case 'GET /health':
        // A load balancer stops routing here while the server drains.
        res.writeHead(this.draining ? 503 : 200, { 'content-length': '0' }).end();
        return;
      case 'GET /version':
        return sendJson(res, 200, {
          version: VERSION,
          engine: 'servelab-sim',
          // The server's clock, so a client can line up `emit_ms` stamps with its own clock.
          server_clock_ms: this.clock.now(),
          server_clock_origin_unix_ms: this.clock.originUnixMs,
          time_scale: this.so.timeScale,
        });
      case 'GET /v1/models':
        return sendJson(res, 200, this.modelsBody());
      case 'GET /servelab/steps':
        req.resume();
        return serveSteps(this.engine, this.clock.now(), this.so.timeScale, req.url ?? '', res);
      case 'GET /metrics': {
        const m = await this.metrics.render();
        res.writeHead(200, { 'content-type': m.contentType }).end(m.body);
        return;
      }
      case 'GET /get_server_info':
      case 'GET /server_info':
        if (!this.sglang) break;
        return sendJson(res, 200, this.serverInfo());
      case 'GET /get_model_info':
        if (!this.sglang) break;
        return sendJson(res, 200, {
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
        const ok = this.resetCaches();
        const text =
          `${ok ? 'Cache flushed.' : 'Cache not flushed.'}\nPlease check backend logs for more details. ` +
          '(When there are running or waiting requests, the operation will not be performed.)\n';
        res.writeHead(ok ? 200 : 400, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
        return;
      }
      case 'POST /reset_prefix_cache':
        if (this.sglang) break;
        req.resume();
        if (this.resetCaches()) res.writeHead(200, { 'content-length': '0' }).end();
        else
          sendError(
            res,
            409,
            'The prefix cache cannot be reset while requests hold its blocks; retry when idle.',
          );
        return;
      case 'POST /tokenize':
        return this.tokenize(req, res);
      case 'POST /v1/chat/completions':
        return this.generations.generate(req, res, 'chat');
      case 'POST /v1/completions':
        return this.generations.generate(req, res, 'completions');
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
      return sendError(res, 405, `Method ${method} is not allowed on ${path}.`);
    return sendError(res, 404, `No route ${path}.`);
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
    if (this.llamacpp) return llamaModels(this.config, this.modelId, created);
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
      const body = await readJson(req, this.so.maxBodyBytes);
      if (this.llamacpp) return sendJson(res, 200, llamaTokenize(await this.getPrompts(), body));
      parsed = parseTokenizeRequest(body);
    } catch (err) {
      if (err instanceof BodyTooLarge) return rejectTooLarge(this.log, res, undefined, err);
      if (err instanceof BadRequest) return sendError(res, 400, err.message, err.param);
      throw err;
    }
    if (parsed.model !== undefined && parsed.model !== this.modelId)
      return sendError(res, 404, `The model \`${parsed.model}\` does not exist.`, 'model');
    const prompts = await this.getPrompts();
    const ids = parsed.messages ? prompts.chatIds(parsed.messages) : prompts.ids(parsed.text);
    return sendJson(res, 200, {
      count: ids.length,
      max_model_len: this.config.maxModelLen,
      tokens: Array.from(ids),
      token_strs: null,
    });
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
