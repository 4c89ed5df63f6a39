/**
 * @module test/helpers/llamacpp
 * A loopback server that behaves like llama.cpp's `llama-server` on the wire, for tests of
 * anything that must work against it (`check`, `run`'s token-exact prompts). What it copies,
 * from `ggml-org/llama.cpp:tools/server/README.md` and `tools/server/server-task.cpp`:
 * - the routes with and without `/v1` (`/models`, `/chat/completions`, `/completions`), next to
 *   `/tokenize`, `/health` and `/props` at the root; `/metrics` answers 501 (no `--metrics`);
 * - one model is served whatever name a request carries (the name is echoed, never checked);
 *   `/v1/models` lists it with `owned_by: "llamacpp"` and a `meta` object;
 * - POST `/tokenize` reads `content` only (a body with just `prompt` gets `{"tokens": []}`, as
 *   the real one answers) and returns `{tokens: [ids]}`, or `[{id, piece}]` with `with_pieces`;
 * - streams: a role-first chunk (`{"role":"assistant","content":null}`), one chunk per token, a
 *   finish chunk with an empty delta, then, when `stream_options.include_usage`, a usage chunk
 *   with `choices: []`; `timings` rides on the last chunk (chat) or the finish chunk
 *   (completions), and no chunk has usage otherwise;
 * - usage `prompt_tokens` is the whole prompt, cached tokens included; the cached part is in
 *   `prompt_tokens_details.cached_tokens`, and `timings.prompt_n` counts only what was evaluated
 *   (`cache_n` the rest), as with `cache_prompt` on by default: one slot keeps the last prompt.
 *
 * The tokenizer is a deterministic stand-in, {@link llamaTokenize}: letters in pieces of at most
 * three (a leading space joins the first), each digit and each punctuation mark alone,
 * whitespace runs alone, and the chat template's markers one token each. It deliberately
 * disagrees with servelab's approximation (which keeps words of up to six letters whole), so a
 * prompt sized by the approximation misses the count this server reports. Like a Qwen GGUF, it
 * adds no BOS token. Chat requests are rendered through a ChatML template, which adds
 * {@link CHATML_OVERHEAD} tokens to one user message, as a real chat template does.
 *
 * @example
 * const srv = await startLlamaCppLike();
 * after(() => srv.close());
 * // point a client at srv.root (no /v1): servelab adds it
 */
import { type Script, type SeenRequest, type Step, sse, startSseServer } from './misbehaving.js';

/** The name `/v1/models` lists by default (a GGUF file's stem, as llama-server reports it). */
export const GGUF_MODEL = 'gguf-model';

const SPECIALS = ['<|im_start|>', '<|im_end|>'] as const;
const SPECIAL_IDS: Record<string, number> = { '<|im_start|>': 151644, '<|im_end|>': 151645 };
const PIECE_RE = / ?[A-Za-z]{1,3}|\d|[^\sA-Za-z\d]|\s+/g;

/** The stand-in tokenizer's pieces of `text` (template markers are one piece each). */
export function llamaPieces(text: string): string[] {
  const out: string[] = [];
  const marker = new RegExp(SPECIALS.map((s) => s.replace(/[|]/g, '\\|')).join('|'), 'g');
  let at = 0;
  for (const m of text.matchAll(marker)) {
    out.push(...(text.slice(at, m.index).match(PIECE_RE) ?? []), m[0]);
    at = m.index + m[0].length;
  }
  out.push(...(text.slice(at).match(PIECE_RE) ?? []));
  return out;
}

/** Token ids of `text`: a stable hash of each piece (markers keep their Qwen ids). */
export function llamaTokenize(text: string): number[] {
  return llamaPieces(text).map((p) => {
    if (SPECIAL_IDS[p] !== undefined) return SPECIAL_IDS[p];
    let h = 2166136261;
    for (let i = 0; i < p.length; i++) h = Math.imul(h ^ p.charCodeAt(i), 16777619) >>> 0;
    return h % 150_000;
  });
}

/** ChatML, as Qwen's GGUF templates render a conversation, ending with the generation prompt. */
export function renderChatML(messages: { role: string; content: string }[]): string {
  return `${messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('')}<|im_start|>assistant\n`;
}

/** Tokens the template adds around one user message whose text starts and ends with a word. */
export const CHATML_OVERHEAD = llamaTokenize(renderChatML([{ role: 'user', content: 'x' }])).length - 1;

/** One generation request as the server counted it. */
export interface LlamaCppPrompt {
  path: string;
  /** The request's `model` (ignored by the server). */
  model: unknown;
  /** Tokens of the user's text alone: every message's content, or the completion prompt. */
  content_tokens: number;
  /** Tokens of the whole prompt (after the chat template): usage `prompt_tokens`. */
  prompt_tokens: number;
  /** Tokens reused from the slot's previous prompt. */
  cached_tokens: number;
}

export interface LlamaCppLikeServer {
  /** `http://127.0.0.1:PORT`, with no `/v1`: llama-server serves both. */
  root: string;
  port: number;
  requests: SeenRequest[];
  /** Every chat or completion request, in arrival order. */
  prompts: LlamaCppPrompt[];
  close(): Promise<void>;
}

export interface LlamaCppLikeOptions {
  /** The one model served (default {@link GGUF_MODEL}). */
  model?: string;
  /** Pause between generated tokens (ms, default 1). */
  tokenDelayMs?: number;
  /** Serve `/tokenize` (default true; false: 404, as behind a proxy that passes only /v1). */
  tokenize?: boolean;
}

const FINGERPRINT = 'b6500-deadbeef';
/** What the model says when it may stop: 7 tokens, then EOS. */
const REPLY = [' Hi', ' the', 're', ',', ' how', ' are', '?'];
/** What it says when told to ignore EOS (each piece one token): repeated to max_tokens. */
const ON_AND_ON = [' the', ' cat', ' sat', ' on', ' a', ' mat', '.'];

function json(status: number, body: unknown): Script {
  return { status, headers: { 'content-type': 'application/json' }, steps: [JSON.stringify(body)] };
}

function llamaError(code: number, message: string, type: string): Script {
  return json(code, { error: { code, message, type } });
}

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Start the llama.cpp-like server on 127.0.0.1, port 0. */
export async function startLlamaCppLike(o: LlamaCppLikeOptions = {}): Promise<LlamaCppLikeServer> {
  const model = o.model ?? GGUF_MODEL;
  const delay = o.tokenDelayMs ?? 1;
  const prompts: LlamaCppPrompt[] = [];
  // The one slot's cache: the last prompt's tokens (cache_prompt is on by default).
  let slot: number[] = [];
  let seq = 0;

  const listing = () => ({
    models: [{ name: model, model, modified_at: '', size: '', digest: '', type: 'model' }],
    object: 'list',
    data: [
      {
        id: model,
        object: 'model',
        created: 1772423572,
        owned_by: 'llamacpp',
        meta: { vocab_type: 2, n_vocab: 151936, n_ctx_train: 32768, n_embd: 896, n_params: 494032768 },
      },
    ],
  });

  const generate = (req: SeenRequest, chat: boolean): Script => {
    const b = req.body ?? {};
    if (b.stream !== true) return llamaError(400, 'this test server streams only', 'invalid_request_error');
    let content: string;
    let prompt: string;
    if (chat) {
      const messages = (Array.isArray(b.messages) ? b.messages : []) as { role: string; content: string }[];
      if (!messages.length || messages.some((m) => typeof m?.content !== 'string'))
        return llamaError(400, "'messages' is required", 'invalid_request_error');
      content = messages.map((m) => m.content).join('');
      prompt = renderChatML(messages);
    } else {
      if (typeof b.prompt !== 'string')
        return llamaError(400, '"prompt" must be a string', 'invalid_request_error');
      content = b.prompt;
      prompt = b.prompt;
    }
    const tokens = llamaTokenize(prompt);
    // llama.cpp re-evaluates at least the last prompt token, so a full hit still evaluates one.
    const cached = Math.min(commonPrefix(slot, tokens), Math.max(0, tokens.length - 1));
    slot = tokens;
    prompts.push({
      path: req.path,
      model: b.model,
      content_tokens: llamaTokenize(content).length,
      prompt_tokens: tokens.length,
      cached_tokens: cached,
    });

    const maxTokens = Number(b.max_tokens ?? b.n_predict ?? -1);
    const limit = Number.isInteger(maxTokens) && maxTokens > 0 ? maxTokens : Number.POSITIVE_INFINITY;
    const out: string[] = [];
    const words = b.ignore_eos === true ? ON_AND_ON : REPLY;
    while (out.length < limit && (b.ignore_eos === true || out.length < REPLY.length))
      out.push(words[out.length % words.length]);
    const finish = out.length >= limit ? 'length' : 'stop';

    const id = `${chat ? 'chatcmpl' : 'cmpl'}-${++seq}`;
    const object = chat ? 'chat.completion.chunk' : 'text_completion';
    const head = {
      created: 1772423572,
      id,
      model: b.model ?? model,
      system_fingerprint: FINGERPRINT,
      object,
    };
    const choice = (delta: Record<string, unknown> | string, finishReason: string | null) =>
      chat
        ? { finish_reason: finishReason, index: 0, delta }
        : { text: delta, index: 0, logprobs: null, finish_reason: finishReason };
    const promptMs = 0.05 * (tokens.length - cached);
    const timings = {
      cache_n: cached,
      prompt_n: tokens.length - cached,
      prompt_ms: promptMs,
      prompt_per_token_ms: promptMs / Math.max(1, tokens.length - cached),
      prompt_per_second: 20_000,
      predicted_n: out.length,
      predicted_ms: delay * out.length,
      predicted_per_token_ms: delay,
      predicted_per_second: delay > 0 ? 1000 / delay : 0,
    };
    const usage = {
      completion_tokens: out.length,
      prompt_tokens: tokens.length,
      total_tokens: out.length + tokens.length,
      prompt_tokens_details: { cached_tokens: cached },
    };
    const steps: Step[] = [];
    out.forEach((piece, i) => {
      if (i > 0) steps.push({ delay_ms: delay });
      const first =
        chat && i === 0
          ? sse({ choices: [choice({ role: 'assistant', content: null }, null)], ...head })
          : '';
      steps.push(first + sse({ choices: [choice(chat ? { content: piece } : piece, null)], ...head }));
    });
    const finishChunk: Record<string, unknown> = { choices: [choice(chat ? {} : '', finish)], ...head };
    const usageChunk: Record<string, unknown> | null = (b.stream_options as { include_usage?: unknown })
      ?.include_usage
      ? { choices: [], ...head, usage }
      : null;
    if (!chat || !usageChunk) finishChunk.timings = timings;
    else usageChunk.timings = timings;
    steps.push(sse(finishChunk));
    if (usageChunk) steps.push(sse(usageChunk));
    steps.push('data: [DONE]\n\n');
    return { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }, steps };
  };

  const srv = await startSseServer((req) => {
    const path = req.path.split('?')[0];
    const b = req.body ?? {};
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) return json(200, listing());
    if (req.method === 'GET' && path === '/health') return json(200, { status: 'ok' });
    if (req.method === 'GET' && path === '/props')
      return json(200, { total_slots: 1, model_path: `/models/${model}.gguf`, build_info: FINGERPRINT });
    if (path === '/metrics')
      return llamaError(
        501,
        'This server does not support metrics endpoint. Start it with `--metrics`',
        'not_supported_error',
      );
    if (req.method === 'POST' && path === '/tokenize' && o.tokenize !== false) {
      // The real server reads `content` only and answers an empty list without it.
      if (typeof b.content !== 'string') return json(200, { tokens: [] });
      const ids = llamaTokenize(b.content);
      if (b.with_pieces !== true) return json(200, { tokens: ids });
      const pieces = llamaPieces(b.content);
      return json(200, { tokens: ids.map((id, i) => ({ id, piece: pieces[i] })) });
    }
    if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions'))
      return generate(req, true);
    if (req.method === 'POST' && (path === '/v1/completions' || path === '/completions'))
      return generate(req, false);
    return llamaError(404, 'File Not Found', 'not_found_error');
  });
  return {
    root: srv.baseUrl.replace(/\/v1$/, ''),
    port: srv.port,
    requests: srv.requests,
    prompts,
    close: () => srv.close(),
  };
}
