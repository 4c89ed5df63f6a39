/**
 * @module test/helpers/misbehaving
 * Loopback HTTP servers that speak (and misspeak) the OpenAI streaming protocol, for tests
 * of anything that consumes it. {@link startSseServer} plays a {@link Script}: a status, headers
 * and a list of steps (raw writes, pauses, a stall, a socket reset). {@link misbehaviours} holds
 * one named script factory per wire shape or failure. Servers listen on port 0 and record every
 * request (headers and parsed body) so tests can assert what the client sent.
 *
 * @example
 * const srv = await startSseServer(misbehaviours.truncated());
 * after(() => srv.close());
 * // point a client at srv.baseUrl (ends in /v1)
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** One step of a scripted response. */
export type Step =
  /** Write raw bytes (already SSE-framed, or any text). */
  | string
  | Buffer
  | { delay_ms: number }
  /** Write nothing more and keep the connection open until the server closes. */
  | { stall: true }
  /** Reset the TCP connection now (RST, no clean end). */
  | { reset: true };

/** A scripted response. When `steps` ends, the response ends cleanly. */
export interface Script {
  status?: number;
  headers?: Record<string, string>;
  steps: Step[];
  /** Reset the connection before sending any header. */
  resetBeforeHeaders?: boolean;
}

/** A request as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** Raw body text. */
  raw: string;
  /** Parsed JSON body, when it was JSON. */
  body: Record<string, unknown> | null;
}

export interface TestServer {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  port: number;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** A script, or a function choosing one per request (e.g. by path). */
export type ScriptSource = Script | ((req: SeenRequest) => Script);

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/** `data: <json>\n\n` */
export function sse(obj: unknown, eol = '\n'): string {
  return `data: ${typeof obj === 'string' ? obj : JSON.stringify(obj)}${eol}${eol}`;
}

export const DONE = 'data: [DONE]\n\n';

/** Fields of a chat delta chunk. */
export interface ChunkSpec {
  role?: string;
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: unknown[] | null;
  finish_reason?: string | null;
  usage?: Record<string, unknown> | null;
  timings?: Record<string, unknown>;
  /** SGLang style: every delta field present, nulls included, plus `usage: null`. */
  explicitNulls?: boolean;
}

/** A `chat.completion.chunk` object in vLLM's shape (or SGLang's with `explicitNulls`). */
export function chatChunk(c: ChunkSpec): Record<string, unknown> {
  const delta: Record<string, unknown> = {};
  if (c.explicitNulls) {
    delta.role = c.role ?? null;
    delta.content = c.content ?? null;
    delta.reasoning_content = c.reasoning_content ?? null;
    delta.tool_calls = c.tool_calls ?? null;
  } else {
    for (const k of ['role', 'content', 'reasoning_content', 'reasoning', 'tool_calls'] as const)
      if (c[k] !== undefined) delta[k] = c[k];
  }
  const out: Record<string, unknown> = {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1772423572,
    model: 'test-model',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: c.finish_reason ?? null }],
  };
  if (c.explicitNulls) {
    (out.choices as Record<string, unknown>[])[0].matched_stop = null;
    out.usage = c.usage ?? null;
  } else if (c.usage !== undefined) out.usage = c.usage;
  if (c.timings) out.timings = c.timings;
  return out;
}

/** The usage-only chunk (`choices: []`). */
export function usageChunk(usage: Record<string, unknown>): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'test-model',
    choices: [],
    usage,
  };
}

export const USAGE = { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 };

/** A well-formed vLLM stream: role chunk, `tokens` content chunks (last with finish_reason), usage chunk, [DONE]. */
function vllmStream(tokens: string[], finish = 'stop', opts: { eol?: string; usage?: boolean } = {}): Step[] {
  const eol = opts.eol ?? '\n';
  const steps: Step[] = [sse(chatChunk({ role: 'assistant', content: '' }), eol)];
  tokens.forEach((t, i) => {
    steps.push(sse(chatChunk({ content: t, finish_reason: i === tokens.length - 1 ? finish : null }), eol), {
      delay_ms: 2,
    });
  });
  if (opts.usage !== false)
    steps.push(
      sse(usageChunk({ ...USAGE, completion_tokens: tokens.length, total_tokens: 20 + tokens.length }), eol),
    );
  steps.push(`data: [DONE]${eol}${eol}`);
  return steps;
}

/** One named script factory per wire shape and per misbehaviour. */
export const misbehaviours = {
  /** Well-behaved vLLM stream: role chunk, 3 content chunks, finish stop, usage chunk, [DONE]. */
  wellBehaved: (): Script => ({ headers: SSE_HEADERS, steps: vllmStream(['Hello', ',', ' world']) }),
  /** Two tokens, then the response ends: no finish_reason, no [DONE]. */
  truncated: (): Script => ({ headers: SSE_HEADERS, steps: vllmStream(['a', 'b', 'c']).slice(0, 4) }),
  /** A `data: {"error": ...}` object after one token, then [DONE]. */
  inBandError: (): Script => ({
    headers: SSE_HEADERS,
    steps: [
      sse(chatChunk({ content: 'a' })),
      sse({ error: { message: 'CUDA out of memory', type: 'InternalServerError', code: 500 } }),
      DONE,
    ],
  }),
  /** Older vLLM/SGLang flat error object in-band. */
  flatInBandError: (): Script => ({
    headers: SSE_HEADERS,
    steps: [sse({ object: 'error', message: 'engine died', type: 'InternalServerError', code: 500 }), DONE],
  }),
  /** An SSE `event: error` after one token. */
  errorEvent: (): Script => ({
    headers: SSE_HEADERS,
    steps: [sse(chatChunk({ content: 'a' })), 'event: error\ndata: {"message":"upstream failed"}\n\n'],
  }),
  /** A data line that is not JSON, then a normal finish. */
  malformedJson: (): Script => ({
    headers: SSE_HEADERS,
    steps: [
      sse(chatChunk({ content: 'a' })),
      'data: {"choices": [{"delta": {"content": "b"\n\n',
      sse(chatChunk({ content: 'c', finish_reason: 'stop' })),
      DONE,
    ],
  }),
  /** Two content chunks, then a TCP reset. */
  resetMidStream: (): Script => ({
    headers: SSE_HEADERS,
    steps: [
      sse(chatChunk({ content: 'a' })),
      sse(chatChunk({ content: 'b' })),
      { delay_ms: 5 },
      { reset: true },
    ],
  }),
  /** Reset before any response header. */
  resetBeforeHeaders: (): Script => ({ resetBeforeHeaders: true, steps: [] }),
  /** Headers, then nothing: the first token never comes. */
  stallBeforeFirstToken: (): Script => ({ headers: SSE_HEADERS, steps: [': ok\n\n', { stall: true }] }),
  /** One token, then nothing. */
  stallAfterFirstToken: (): Script => ({
    headers: SSE_HEADERS,
    steps: [sse(chatChunk({ content: 'a' })), { stall: true }],
  }),
  /** 429 with Retry-After (seconds). */
  status429: (retryAfterS = 7): Script => ({
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': String(retryAfterS) },
    steps: [JSON.stringify({ error: { message: 'rate limited', type: 'RateLimitError', code: 429 } })],
  }),
  status500: (): Script => ({
    status: 500,
    headers: { 'content-type': 'application/json' },
    steps: [
      JSON.stringify({
        object: 'error',
        message: 'internal failure',
        type: 'InternalServerError',
        code: 500,
      }),
    ],
  }),
  /** 401 whose body echoes the presented Authorization header (servers sometimes do). */
  status401: (): ScriptSource => (req) => ({
    status: 401,
    headers: { 'content-type': 'application/json' },
    steps: [
      JSON.stringify({
        error: { message: `Incorrect API key provided: ${req.headers.authorization ?? '(none)'}`, code: 401 },
      }),
    ],
  }),
  /** Reasoning deltas only, then finish stop: no content. */
  reasoningOnly: (field: 'reasoning_content' | 'reasoning' = 'reasoning_content'): Script => ({
    headers: SSE_HEADERS,
    steps: [
      sse(chatChunk({ role: 'assistant', content: '' })),
      sse(chatChunk({ [field]: 'Let me' })),
      { delay_ms: 2 },
      sse(chatChunk({ [field]: ' think', finish_reason: 'stop' })),
      sse(usageChunk({ ...USAGE, completion_tokens: 2, completion_tokens_details: { reasoning_tokens: 2 } })),
      DONE,
    ],
  }),
  /** Reasoning then content (a thinking model that reaches its answer). */
  reasoningThenContent: (field: 'reasoning_content' | 'reasoning' = 'reasoning'): Script => ({
    headers: SSE_HEADERS,
    steps: [
      sse(chatChunk({ role: 'assistant', content: '' })),
      sse(chatChunk({ [field]: 'hmm' })),
      { delay_ms: 2 },
      sse(chatChunk({ [field]: ' ok' })),
      { delay_ms: 2 },
      sse(chatChunk({ content: 'Yes' })),
      { delay_ms: 2 },
      sse(chatChunk({ content: '.', finish_reason: 'stop' })),
      sse(
        usageChunk({
          prompt_tokens: 9,
          completion_tokens: 4,
          total_tokens: 13,
          completion_tokens_details: { reasoning_tokens: 2 },
          prompt_tokens_details: { cached_tokens: 8 },
        }),
      ),
      DONE,
    ],
  }),
  /** finish_reason and usage arrive, then the stream closes without [DONE]. */
  noDoneAfterFinish: (): Script => ({ headers: SSE_HEADERS, steps: vllmStream(['a', 'b']).slice(0, -1) }),
  /** No usage anywhere (the server ignored include_usage). */
  noUsage: (): Script => ({ headers: SSE_HEADERS, steps: vllmStream(['a', 'b'], 'stop', { usage: false }) }),
  /** CRLF line endings throughout. */
  crlf: (): Script => ({ headers: SSE_HEADERS, steps: vllmStream(['a', 'b', 'c'], 'stop', { eol: '\r\n' }) }),
  /** `:` keep-alive comments between events, and a multi-line data field. */
  keepAlives: (): Script => ({
    headers: SSE_HEADERS,
    steps: [
      ': keep-alive\n\n',
      sse(chatChunk({ content: 'a' })),
      ': ping\n',
      { delay_ms: 3 },
      ': ping\n\n',
      // multi-line data: the lines join with "\n", which JSON allows between tokens
      'data: {"choices":[{"index":0,\ndata: "delta":{"content":"b"},"finish_reason":"stop"}]}\n\n',
      sse(usageChunk(USAGE)),
      DONE,
    ],
  }),
  /** A 3-byte character and a 4-byte emoji split across writes, and an event split mid-line. */
  splitUtf8: (): Script => {
    const ev = Buffer.from(sse(chatChunk({ content: '€😀', finish_reason: 'stop' })));
    const at = ev.indexOf(Buffer.from('€')) + 1; // inside the 3-byte €
    const at2 = ev.indexOf(Buffer.from('😀')) + 2; // inside the 4-byte emoji
    return {
      headers: SSE_HEADERS,
      steps: [
        ev.subarray(0, at),
        { delay_ms: 5 },
        ev.subarray(at, at2),
        { delay_ms: 5 },
        ev.subarray(at2),
        sse(usageChunk(USAGE)),
        DONE,
      ],
    };
  },
  /** Usage in the finish chunk itself (no separate usage chunk). */
  usageInFinishChunk: (): Script => ({
    headers: SSE_HEADERS,
    steps: [
      sse(chatChunk({ content: 'a' })),
      sse(chatChunk({ content: 'b', finish_reason: 'stop', usage: { ...USAGE, completion_tokens: 2 } })),
      DONE,
    ],
  }),
  /** Role in its own first chunk (vLLM) is the default of `wellBehaved`; here the role rides on the first token. */
  roleWithFirstToken: (): Script => ({
    headers: SSE_HEADERS,
    steps: [
      sse(chatChunk({ role: 'assistant', content: 'a' })),
      sse(chatChunk({ content: 'b', finish_reason: 'stop' })),
      sse(usageChunk(USAGE)),
      DONE,
    ],
  }),
  /** Several events in one write, and several tokens' text in one chunk. */
  multiTokenChunks: (): Script => ({
    headers: SSE_HEADERS,
    steps: [
      sse(chatChunk({ role: 'assistant', content: '' })) +
        sse(chatChunk({ content: 'one two three' })) +
        sse(chatChunk({ content: ' four five', finish_reason: 'stop' })),
      sse(usageChunk({ ...USAGE, completion_tokens: 5 })),
      DONE,
    ],
  }),
  /** SGLang: explicit nulls in every delta and `usage: null` in every chunk; bare-hex id; usage on the last chunk. */
  sglangNulls: (): Script => ({
    headers: SSE_HEADERS,
    steps: [
      sse(chatChunk({ role: 'assistant', explicitNulls: true })),
      sse(chatChunk({ reasoning_content: 'r', explicitNulls: true })),
      sse(chatChunk({ content: 'a', explicitNulls: true })),
      sse(chatChunk({ content: 'b', finish_reason: 'stop', explicitNulls: true })),
      sse({ ...usageChunk({ ...USAGE, reasoning_tokens: 1 }), id: 'a1b2c3' }),
      DONE,
    ],
  }),
  /** llama.cpp: `timings` on the final chunk, usage with cached tokens. */
  llamacppTimings: (): Script => ({
    headers: SSE_HEADERS,
    steps: [
      sse(chatChunk({ content: 'a' })),
      sse(
        chatChunk({
          content: 'b',
          finish_reason: 'stop',
          usage: { ...USAGE, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 16 } },
          timings: { prompt_n: 4, prompt_ms: 12.5, predicted_n: 2, predicted_ms: 30.1, cache_n: 16 },
        }),
      ),
      DONE,
    ],
  }),
  /** Ended by the token limit. */
  finishLength: (): Script => ({ headers: SSE_HEADERS, steps: vllmStream(['a', 'b'], 'length') }),
  /** `n` one-token content chunks, the last with finish_reason `length`; usage says `n`. */
  finishLengthAfter: (n: number): Script => ({
    headers: SSE_HEADERS,
    steps: vllmStream(
      Array.from({ length: n }, () => 'x'),
      'length',
    ),
  }),
  /** Ended by the token limit with no content at all (a reasoning model's budget ran out). */
  finishLengthNoContent: (): Script => ({
    headers: SSE_HEADERS,
    steps: [sse(chatChunk({ reasoning: 'x', finish_reason: 'length' })), sse(usageChunk(USAGE)), DONE],
  }),
  /** finish_reason `abort` (SGLang/vLLM aborted the request). */
  finishAbort: (): Script => ({ headers: SSE_HEADERS, steps: vllmStream(['a'], 'abort') }),
  /** Tool-call deltas only, finish `tool_calls`. */
  toolCalls: (): Script => ({
    headers: SSE_HEADERS,
    steps: [
      sse(chatChunk({ role: 'assistant', content: null })),
      sse(
        chatChunk({
          tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }],
        }),
      ),
      sse(
        chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }], finish_reason: 'tool_calls' }),
      ),
      sse(usageChunk(USAGE)),
      DONE,
    ],
  }),
  /** finish stop without any token: no_content. */
  emptyStop: (): Script => ({
    headers: SSE_HEADERS,
    steps: [
      sse(chatChunk({ role: 'assistant', content: '' })),
      sse(chatChunk({ finish_reason: 'stop' })),
      DONE,
    ],
  }),
  /** Non-stream JSON response. */
  jsonBody: (): Script => ({
    headers: { 'content-type': 'application/json' },
    steps: [
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'hi', reasoning_content: 'think' },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      }),
    ],
  }),
} satisfies Record<string, (...a: never[]) => ScriptSource>;

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const p of req) parts.push(p as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

async function play(
  script: Script,
  req: IncomingMessage,
  res: ServerResponse,
  stalls: Set<Socket>,
): Promise<void> {
  const socket = req.socket;
  if (script.resetBeforeHeaders) {
    socket.resetAndDestroy();
    return;
  }
  res.writeHead(script.status ?? 200, script.headers ?? SSE_HEADERS);
  res.flushHeaders();
  for (const step of script.steps) {
    if (socket.destroyed) return;
    if (typeof step === 'string' || Buffer.isBuffer(step)) res.write(step);
    else if ('delay_ms' in step) await sleep(step.delay_ms);
    else if ('stall' in step) {
      stalls.add(socket);
      return;
    } else if ('reset' in step) {
      socket.resetAndDestroy();
      return;
    }
  }
  res.end();
}

/**
 * Start a loopback server on port 0 that answers every request with the script (or the
 * script chosen for that request). Stalled connections are destroyed by `close()`.
 */
export async function startSseServer(source: ScriptSource): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const stalls = new Set<Socket>();
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: Record<string, unknown> | null = null;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
    } catch {
      body = null;
    }
    const seen: SeenRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      raw,
      body,
    };
    requests.push(seen);
    const script = typeof source === 'function' ? source(seen) : source;
    try {
      await play(script, req, res, stalls);
    } catch {
      // the client went away; nothing to do
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of stalls) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Options of the well-behaved fake OpenAI server used by `check` tests. */
export interface FakeOpenAIOptions {
  /** `owned_by` in /v1/models (engine guess). */
  ownedBy?: string;
  models?: string[];
  /** Require this bearer key; any other gets 401. */
  apiKey?: string;
  /** Stream reasoning before content when the request enables thinking (or always, with 'always'). */
  reasoning?: 'never' | 'when_enabled' | 'always';
  reasoningField?: 'reasoning_content' | 'reasoning';
  /** Expose /metrics, /version, /tokenize. */
  extras?: boolean;
  /** /tokenize answers 200 `{"tokens": []}` whatever it is sent (llama.cpp given no `content`). */
  tokenizeEmpty?: boolean;
  /** Add llama.cpp `timings` to the final chunk. */
  timings?: boolean;
  /** Reject `ignore_eos` with 400, as strict OpenAI-only servers do. */
  rejectIgnoreEos?: boolean;
}

/** A well-behaved OpenAI-compatible server: /v1/models, streaming chat, optional extras. */
export function startFakeOpenAI(o: FakeOpenAIOptions = {}): Promise<TestServer> {
  const models = o.models ?? ['test-model'];
  const field = o.reasoningField ?? 'reasoning_content';
  const json = (status: number, obj: unknown, headers: Record<string, string> = {}): Script => ({
    status,
    headers: { 'content-type': 'application/json', ...headers },
    steps: [JSON.stringify(obj)],
  });
  return startSseServer((req) => {
    const path = req.path.split('?')[0];
    if (o.apiKey !== undefined && req.headers.authorization !== `Bearer ${o.apiKey}`)
      return json(401, { error: { message: 'invalid api key', type: 'AuthenticationError', code: 401 } });
    if (req.method === 'GET' && path === '/v1/models')
      return json(200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1, owned_by: o.ownedBy ?? 'vllm' })),
      });
    if (o.extras && path === '/metrics')
      return {
        status: 200,
        headers: { 'content-type': 'text/plain' },
        steps: ['vllm:num_requests_running 0\n'],
      };
    if (o.extras && path === '/version') return json(200, { version: '0.0.test' });
    if (o.extras && o.tokenizeEmpty && path === '/tokenize') return json(200, { tokens: [] });
    if (o.extras && path === '/tokenize') {
      // vLLM's answer, counting one token per word of `prompt`.
      const words = String(req.body?.prompt ?? '')
        .split(/\s+/)
        .filter(Boolean);
      return json(200, { tokens: words.map((_, i) => i + 1), count: words.length, max_model_len: 4096 });
    }
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      const b = req.body ?? {};
      if (o.rejectIgnoreEos && b.ignore_eos !== undefined)
        return json(400, {
          error: { message: 'unknown field ignore_eos', type: 'BadRequestError', code: 400 },
        });
      const kw = b.chat_template_kwargs as Record<string, unknown> | undefined;
      const think =
        o.reasoning === 'always' || (o.reasoning === 'when_enabled' && kw?.enable_thinking === true);
      const steps: Step[] = [sse(chatChunk({ role: 'assistant', content: '' }))];
      if (think) steps.push(sse(chatChunk({ [field]: 'thinking' })), { delay_ms: 1 });
      steps.push(sse(chatChunk({ content: 'Hi' })), { delay_ms: 1 });
      steps.push(
        sse(
          chatChunk({
            content: '!',
            finish_reason: 'stop',
            timings: o.timings ? { prompt_n: 3, predicted_n: 2, predicted_ms: 4 } : undefined,
          }),
        ),
      );
      const so = b.stream_options as Record<string, unknown> | undefined;
      if (so?.include_usage) steps.push(sse(usageChunk({ ...USAGE, completion_tokens: think ? 3 : 2 })));
      steps.push(DONE);
      return { headers: SSE_HEADERS, steps };
    }
    return json(404, { detail: 'Not Found' });
  });
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function refusedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
