/**
 * @module client/engine-api
 * An engine's plain (non-streaming) HTTP API, one function per request, so that every part of
 * servelab asks a server the same way: the models list (`GET {base}/models`, and `run`'s
 * {@link listModels} over it), `/version`, `/metrics` as a capability, `/tokenize`, a
 * non-streaming completion, and the prefix-cache reset. The streaming load itself goes through
 * `client/http`; `client/engine-probe` tells engines apart from these answers (and asks
 * llama.cpp's `/props` and SGLang's `/get_server_info`); the scrape of `/metrics` is `monitor/`'s.
 *
 * Every request is built by {@link apiRequest}: the target's headers (`core/headers`: the API key
 * as `authorization: Bearer KEY`, never logged, a `--header Authorization` winning), the caller's
 * timeouts and abort signal, and an undici `dispatcher` (the in-process simulator). The plain
 * getters throw undici's own error when nothing answered; how a caller reacts (a `TargetError`
 * with a hint, a problem of `check`, a probe error, a null) stays with the caller.
 */
import { type Dispatcher, request } from 'undici';
import { TargetError } from '../core/errors.js';
import { targetHeaders } from '../core/headers.js';
import { type ListedModel, parseModelList } from '../core/models.js';
import { scrubSecrets } from '../core/redact.js';
import { hostOf, redactUrl, serverRoot } from '../core/url.js';
import type { Clock } from '../runtime/clock.js';
import { errorMessageOf } from './stream.js';

/** How one request to a target is sent. */
export interface EngineApiOptions {
  /** Sent as `authorization: Bearer KEY` (never logged). */
  apiKey?: string;
  /** Extra request headers, as for the load (a user's `Authorization` beats the key). */
  headers?: Readonly<Record<string, string>>;
  /** Reach the server through this undici dispatcher (the in-process simulator, a private agent). */
  dispatcher?: Dispatcher;
  /** undici's `headersTimeout` and `bodyTimeout`, ms (0: none); absent: the dispatcher's own. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What a server answered: the status, the response headers and the whole body as text. */
export interface ApiAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One plain request. A body (sent as it is, so a caller may send malformed JSON on purpose) is
 * labelled `content-type: application/json`. Throws undici's error when nothing answered, or
 * when the body failed after the status came ({@link answeredBeforeFailing} tells which).
 */
export async function apiRequest(
  url: string,
  method: 'GET' | 'POST',
  o: EngineApiOptions = {},
  body?: string,
): Promise<ApiAnswer> {
  const headers = targetHeaders(o.apiKey, o.headers);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(url, {
    method,
    headers,
    body,
    signal: o.signal,
    dispatcher: o.dispatcher,
    ...(o.timeoutMs === undefined ? {} : { headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs }),
  });
  let text: string;
  try {
    text = await res.body.text();
  } catch (err) {
    // the server did answer (a status and headers) before its body failed
    if (err && typeof err === 'object') (err as { answered?: boolean }).answered = true;
    throw err;
  }
  return { status: res.statusCode, headers: res.headers, text };
}

/** Whether an error of {@link apiRequest} came after the server answered (its body failed). */
export function answeredBeforeFailing(err: unknown): boolean {
  return !!err && typeof err === 'object' && (err as { answered?: unknown }).answered === true;
}

/** The models list's URL: `/models` under the base URL (`/v1/models` for the usual …/v1 base). */
export function modelsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/models`;
}

/** `GET {base}/models`, answered as it is. */
export function getModels(baseUrl: string, o: EngineApiOptions = {}): Promise<ApiAnswer> {
  return apiRequest(modelsUrl(baseUrl), 'GET', o);
}

/** `GET /version` at the server root (vLLM `{version}`, SGLang `{version, engine}`…). */
export function getVersion(baseUrl: string, o: EngineApiOptions = {}): Promise<ApiAnswer> {
  return apiRequest(`${serverRoot(baseUrl)}/version`, 'GET', o);
}

/** `GET /metrics` at the server root, asked as a capability (the scrape lives in `monitor/`). */
export function getMetrics(baseUrl: string, o: EngineApiOptions = {}): Promise<ApiAnswer> {
  return apiRequest(`${serverRoot(baseUrl)}/metrics`, 'GET', o);
}

/**
 * The ids `GET {base}/models` lists, for `run` given no `--model`; throws a {@link TargetError}
 * with a hint when the server is unreachable, refuses the key, fails or answers something else
 * than JSON. Messages name the URL without credentials and quote the server's own words.
 */
export async function listModels(
  baseUrl: string,
  apiKey: string | undefined,
  headers: Record<string, string>,
  apiKeyEnv = 'INFERENCE_API_KEY',
  dispatcher?: Dispatcher,
): Promise<string[]> {
  return (await listedModels(baseUrl, apiKey, headers, apiKeyEnv, dispatcher)).map((m) => m.id);
}

/** {@link listModels} with what the server says of each model (vLLM's `max_model_len`, …). */
export async function listedModels(
  baseUrl: string,
  apiKey: string | undefined,
  headers: Record<string, string>,
  apiKeyEnv = 'INFERENCE_API_KEY',
  dispatcher?: Dispatcher,
): Promise<ListedModel[]> {
  const url = modelsUrl(baseUrl);
  let status: number;
  let text: string;
  try {
    ({ status, text } = await getModels(baseUrl, { apiKey, headers, timeoutMs: 10_000, dispatcher }));
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    throw new TargetError(
      scrubSecrets(`cannot reach ${redactUrl(url)}: ${code || (err as Error).message}`, [apiKey]),
      code === 'ECONNREFUSED'
        ? `connection refused: is the server running on ${hostOf(baseUrl)}?`
        : 'check --url (it should end in /v1)',
    );
  }
  // The server's own words, as the run's top errors quote them ("HTTP 401: Invalid or missing API key").
  const said = (): string => {
    let msg = text.trim();
    try {
      msg = errorMessageOf(JSON.parse(text));
    } catch {
      // plain-text error body
    }
    return scrubSecrets(msg.slice(0, 300), [apiKey]).replace(/[.\s]+$/, '') || '(empty body)';
  };
  if (status === 401 || status === 403)
    throw new TargetError(
      `HTTP ${status} from ${redactUrl(url)}: ${said()} (the API key was not accepted; no request was sent)`,
      `set ${apiKeyEnv} (or name another variable with --api-key-env)`,
    );
  if (status >= 400)
    throw new TargetError(
      `HTTP ${status} from ${redactUrl(url)}: ${said()}`,
      'give --model explicitly, or check --url (it should end in /v1)',
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new TargetError(`${redactUrl(url)} did not return JSON`, 'check --url (it should end in /v1)');
  }
  return parseModelList(body);
}

/**
 * One non-streaming generation request: `body` POSTed to `{base}/chat/completions` or
 * `{base}/completions` as it is (the caller sets `stream: false`).
 */
export function postCompletion(
  baseUrl: string,
  endpoint: 'chat' | 'completions',
  body: Record<string, unknown>,
  o: EngineApiOptions = {},
): Promise<ApiAnswer> {
  const url = `${baseUrl.replace(/\/+$/, '')}/${endpoint === 'chat' ? 'chat/completions' : 'completions'}`;
  return apiRequest(url, 'POST', o, JSON.stringify(body));
}

/**
 * A token counter over `baseUrl`'s server `/tokenize` (next to `/v1`, at the server root): the
 * count of a text without special tokens, or null when the server cannot tokenize (no endpoint,
 * an error status, a body without a count, a network error or a 3 s stall). Never throws.
 * One request shape serves the engines that have one:
 * - vLLM: `{model, prompt, add_special_tokens}` → `{count, tokens, max_model_len}`
 *   (`TokenizeCompletionRequest`, `TokenizeResponse` in
 *   `vllm-project/vllm:vllm/entrypoints/openai/protocol.py`);
 * - SGLang: the same fields and answer
 *   (`sgl-project/sglang:python/sglang/srt/entrypoints/openai/serving_tokenize.py`);
 * - llama.cpp: `{content, add_special}` → `{tokens: [...]}`, the model name ignored
 *   (`ggml-org/llama.cpp:tools/server/README.md`, POST `/tokenize`).
 * So the body carries both `prompt` and `content` (each engine ignores the field it does not
 * know) and the count is `count`, else the length of `tokens`. The workload receives this
 * function from its caller (`workload/build` `tokenizeRemote`) and judges it with `tryTokenize`.
 *
 * @param baseUrl the OpenAI base URL (ending in /v1); `/tokenize` is requested at its server root.
 * @param apiKey sent as `authorization: Bearer KEY` (never logged).
 * @param headers extra request headers, as for the load itself.
 * @param dispatcher reach the server through this undici dispatcher (the in-process simulator).
 * @example const count = tokenizeRemote('http://127.0.0.1:8000/v1', 'Qwen/Qwen3-8B', key, {});
 * await count('Hello there') // e.g. 2, or null
 */
export function tokenizeRemote(
  baseUrl: string,
  model: string,
  apiKey: string | undefined,
  headers: Record<string, string>,
  dispatcher?: Dispatcher,
): (text: string) => Promise<number | null> {
  const url = `${serverRoot(baseUrl)}/tokenize`;
  return async (text: string): Promise<number | null> => {
    try {
      const body = JSON.stringify({
        model,
        prompt: text,
        content: text,
        add_special_tokens: false,
        add_special: false,
      });
      // a real /tokenize answers in milliseconds; a server that stalls on unknown paths
      // should not hold the run up for long before the approximation takes over
      const res = await apiRequest(url, 'POST', { apiKey, headers, timeoutMs: 3_000, dispatcher }, body);
      if (res.status !== 200) return null;
      const parsed = JSON.parse(res.text) as { count?: unknown; tokens?: unknown[] };
      if (typeof parsed.count === 'number') return parsed.count;
      return Array.isArray(parsed.tokens) ? parsed.tokens.length : null;
    } catch {
      return null;
    }
  };
}

/** Which prefix-cache reset to try: `auto` tries vLLM's then SGLang's; `none` touches nothing. */
export type CacheResetHow = 'auto' | 'vllm' | 'sglang' | 'none';

/** What a prefix-cache reset did. */
export type CacheResetOutcome = 'reset' | 'unsupported' | 'skipped';

export interface CacheResetOptions {
  apiKey?: string;
  headers?: Readonly<Record<string, string>>;
  dispatcher?: Dispatcher;
  /** The clock of the back-off between refused attempts (the run's virtual clock, or a real one). */
  clock: Clock;
  /** Drives each request and wait to completion (a virtual clock's `settle`); default: await it. */
  settle?: <T>(p: Promise<T>) => Promise<T>;
  /** Interrupts the back-off waits. */
  signal?: AbortSignal;
}

/**
 * Empty the target's prefix cache: vLLM's `POST /reset_prefix_cache`, then SGLang's
 * `POST /flush_cache` (as `how` allows); the in-process simulator answers the first, as
 * `servelab sim` does. A 2xx is `reset`; a busy engine's 409 is retried up to 5 times with a
 * growing pause (requests of the previous run may still be releasing blocks); any other answer or
 * none moves on to the next endpoint. Returns `unsupported` when none reset, `skipped` for `none`.
 */
export async function resetPrefixCache(
  baseUrl: string,
  how: CacheResetHow,
  o: CacheResetOptions,
): Promise<CacheResetOutcome> {
  if (how === 'none') return 'skipped';
  const paths =
    how === 'vllm'
      ? ['/reset_prefix_cache']
      : how === 'sglang'
        ? ['/flush_cache']
        : ['/reset_prefix_cache', '/flush_cache'];
  const root = serverRoot(baseUrl);
  const settle = o.settle ?? (<T>(p: Promise<T>) => p);
  const clock = o.clock;
  const attempt = async (p: string): Promise<number | null> => {
    try {
      const res = await apiRequest(`${root}${p}`, 'POST', {
        apiKey: o.apiKey,
        headers: o.headers,
        timeoutMs: 10_000,
        dispatcher: o.dispatcher,
      });
      return res.status;
    } catch {
      return null;
    }
  };
  for (const p of paths) {
    for (let i = 0; i < 5; i++) {
      const status = await settle(attempt(p));
      if (status !== null && status < 300) return 'reset';
      if (status !== 409) break;
      await settle(clock.sleepUntil(clock.now() + 50 * (i + 1), o.signal));
    }
  }
  return 'unsupported';
}
