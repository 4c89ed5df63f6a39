/**
 * @module workload/tokenize-remote
 * The client for a server's `/tokenize` (next to `/v1`, at the server root), one request shape
 * for the engines that have one:
 * - vLLM: `{model, prompt, add_special_tokens}` → `{count, tokens, max_model_len}`
 *   (`TokenizeCompletionRequest`, `TokenizeResponse` in
 *   `vllm-project/vllm:vllm/entrypoints/openai/protocol.py`);
 * - SGLang: the same fields and answer
 *   (`sgl-project/sglang:python/sglang/srt/entrypoints/openai/serving_tokenize.py`);
 * - llama.cpp: `{content, add_special}` → `{tokens: [...]}`, the model name ignored
 *   (`ggml-org/llama.cpp:tools/server/README.md`, POST `/tokenize`).
 * So the body carries both `prompt` and `content` (each engine ignores the field it does not
 * know) and the count is `count`, else the length of `tokens`.
 */
import { type Dispatcher, request } from 'undici';
import { targetHeaders } from '../core/headers.js';
import { serverRoot } from '../core/url.js';

/**
 * A token counter over `baseUrl`'s server `/tokenize`: the count of a text without special
 * tokens, or null when the server cannot tokenize (no endpoint, an error status, a body without
 * a count, a network error or a 3 s stall). Never throws.
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
      const res = await request(url, {
        method: 'POST',
        headers: { ...targetHeaders(apiKey, headers), 'content-type': 'application/json' },
        body: JSON.stringify({
          model,
          prompt: text,
          content: text,
          add_special_tokens: false,
          add_special: false,
        }),
        // a real /tokenize answers in milliseconds; a server that stalls on unknown paths
        // should not hold the run up for long before the approximation takes over
        headersTimeout: 3_000,
        bodyTimeout: 3_000,
        dispatcher,
      });
      const body = await res.body.text();
      if (res.statusCode !== 200) return null;
      const parsed = JSON.parse(body) as { count?: unknown; tokens?: unknown[] };
      if (typeof parsed.count === 'number') return parsed.count;
      return Array.isArray(parsed.tokens) ? parsed.tokens.length : null;
    } catch {
      return null;
    }
  };
}

/** What a `/tokenize` said of a known text and of its triple, and whether that is counting. */
export interface TokenizeTrial {
  /** The two counts agree with counting: positive, and the triple gives more. */
  counts: boolean;
  /** Tokens of the probe text, and of the text three times (null: no answer). */
  probe: number | null;
  longer: number | null;
}

/**
 * Try a token counter on a known text and its triple. Trust it only if it counts: a stub that
 * answers a constant (llama.cpp's `{"tokens": []}` to a body without `content`, say) would
 * otherwise make every prompt search grow without end. `run` and `check` both judge by this.
 */
export async function tryTokenize(count: (text: string) => Promise<number | null>): Promise<TokenizeTrial> {
  const text = 'servelab tokenize probe';
  const probe = await count(text).catch(() => null);
  const longer = await count(`${text} ${text} ${text}`).catch(() => null);
  const counts = probe !== null && longer !== null && Number.isFinite(probe) && probe > 0 && longer > probe;
  return { counts, probe, longer };
}
