/**
 * @module sim/server/wire
 * The simulator's wire format, shaped as vLLM sends it
 * (`vllm-project/vllm:vllm/entrypoints/openai/protocol.py`): OpenAI error
 * bodies, chat and text-completion chunks, the usage object and SSE framing. Pure builders, no I/O.
 */

/** HTTP status → the error `type` vLLM (and the openai npm client) use. */
export function errorType(status: number): string {
  switch (status) {
    case 400:
      return 'BadRequestError';
    case 401:
      return 'AuthenticationError';
    case 403:
      return 'PermissionDeniedError';
    case 404:
      return 'NotFoundError';
    case 413:
      return 'BadRequestError';
    case 422:
      return 'UnprocessableEntityError';
    case 429:
      return 'RateLimitError';
    default:
      return status >= 500 ? 'InternalServerError' : 'BadRequestError';
  }
}

/** The body of an error: `{"error":{"message","type","param","code"}}` with `code` = HTTP status (vLLM). */
export function errorBody(status: number, message: string, param: string | null = null): string {
  return JSON.stringify({ error: { message, type: errorType(status), param, code: status } });
}

/**
 * llama.cpp's server answer to a prompt that does not fit its context (ggml-org/llama.cpp
 * `tools/server`, error type `exceed_context_size_error`): HTTP 400 with the prompt's and the
 * context's sizes as fields of the error object.
 */
export function llamaCppContextErrorBody(promptLen: number, nCtx: number): string {
  return JSON.stringify({
    error: {
      code: 400,
      message: `request (${promptLen} tokens) exceeds the available context size (${nCtx} tokens), try increasing it`,
      type: 'exceed_context_size_error',
      n_prompt_tokens: promptLen,
      n_ctx: nCtx,
    },
  });
}

/** Usage as vLLM reports it; optional details appear only when requested. */
export interface UsageInput {
  promptTokens: number;
  completionTokens: number;
  /** Prefix-cache hit in tokens; omitted when prompt-token details are disabled. */
  cachedTokens?: number;
  /** Reasoning tokens (included in completionTokens); omitted when no reasoning phase ran. */
  reasoningTokens?: number;
}

export function usageObject(u: UsageInput): Record<string, unknown> {
  const out: Record<string, unknown> = {
    prompt_tokens: u.promptTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    completion_tokens: u.completionTokens,
  };
  if (u.cachedTokens !== undefined) out.prompt_tokens_details = { cached_tokens: u.cachedTokens };
  if (u.reasoningTokens !== undefined)
    out.completion_tokens_details = { reasoning_tokens: u.reasoningTokens };
  return out;
}

/** One SSE event carrying a JSON payload. */
export function sseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** The stream terminator. */
export const SSE_DONE = 'data: [DONE]\n\n';

/** Fields shared by every chunk of one response. */
export interface ChunkHead {
  id: string;
  created: number;
  model: string;
}

/** What one output chunk says; `text` goes to `content` (or the reasoning field) or to `text`. */
export interface ChunkBody {
  /** Chat only: send `role: "assistant"` with `content: ""` (the first chunk). */
  role?: boolean;
  text?: string;
  /** Chat only: put `text` in this reasoning field (`reasoning_content` or `reasoning`) instead of `content`. */
  reasoningField?: string;
  finishReason?: string | null;
  /** vLLM's `stop_reason`: the matched stop string, or null. Sent with a finish reason. */
  stopReason?: string | null;
  usage?: Record<string, unknown>;
  /** --expose-timings: `servelab` stamps and, on the final chunk, llama.cpp-style `timings`. */
  servelab?: Record<string, unknown>;
  timings?: Record<string, unknown>;
  /** The choice's `index` (n > 1); default 0. */
  index?: number;
  /**
   * Chat only: a tool-call delta instead of text. The first of a call carries `id`, `type` and
   * `function.name` with empty `arguments`; later ones only `index` and an `arguments` fragment
   * (as vLLM and OpenAI stream them).
   */
  toolCall?: { index: number; id?: string; name?: string; arguments: string };
  /** The choice's `logprobs` (chat `{content: […]}` or the completions object); default null. */
  logprobs?: unknown;
}

/** A tool call of a non-streaming chat message. */
export interface ToolCallOut {
  id: string;
  name: string;
  arguments: string;
}

/** The `delta.tool_calls` entry of a streamed tool-call chunk. */
function toolCallDelta(t: NonNullable<ChunkBody['toolCall']>): Record<string, unknown> {
  if (t.id !== undefined)
    return { index: t.index, id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } };
  return { index: t.index, function: { arguments: t.arguments } };
}

/** A `chat.completion.chunk` object. */
export function chatChunk(head: ChunkHead, b: ChunkBody): Record<string, unknown> {
  const delta: Record<string, unknown> = {};
  if (b.role) {
    delta.role = 'assistant';
    delta.content = '';
  } else if (b.toolCall) {
    delta.tool_calls = [toolCallDelta(b.toolCall)];
  } else if (b.text !== undefined) {
    delta[b.reasoningField ?? 'content'] = b.text;
  }
  const choice: Record<string, unknown> = {
    index: b.index ?? 0,
    delta,
    logprobs: b.logprobs ?? null,
    finish_reason: b.finishReason ?? null,
  };
  if (b.finishReason) choice.stop_reason = b.stopReason ?? null;
  return withExtras(
    {
      id: head.id,
      object: 'chat.completion.chunk',
      created: head.created,
      model: head.model,
      choices: [choice],
    },
    b,
  );
}

/** A streamed `text_completion` object (`/v1/completions`). */
export function completionChunk(head: ChunkHead, b: ChunkBody): Record<string, unknown> {
  const choice: Record<string, unknown> = {
    index: b.index ?? 0,
    text: b.text ?? '',
    logprobs: b.logprobs ?? null,
    finish_reason: b.finishReason ?? null,
  };
  if (b.finishReason) choice.stop_reason = b.stopReason ?? null;
  return withExtras(
    { id: head.id, object: 'text_completion', created: head.created, model: head.model, choices: [choice] },
    b,
  );
}

/** The final usage chunk of a stream: `choices: []` (sent when `include_usage`). */
export function usageChunk(
  head: ChunkHead,
  object: 'chat.completion.chunk' | 'text_completion',
  usage: Record<string, unknown>,
  servelab?: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: head.id,
    object,
    created: head.created,
    model: head.model,
    choices: [],
    usage,
  };
  if (servelab) out.servelab = servelab;
  return out;
}

function withExtras(chunk: Record<string, unknown>, b: ChunkBody): Record<string, unknown> {
  if (b.usage) chunk.usage = b.usage;
  if (b.servelab) chunk.servelab = b.servelab;
  if (b.timings) chunk.timings = b.timings;
  return chunk;
}

/** The message of a non-streaming chat choice. */
export interface ChatMessageOut {
  content: string;
  reasoning?: string;
  reasoningField: string;
  /** Tool calls made; with them, an empty `content` is sent as null (as vLLM does). */
  toolCalls?: readonly ToolCallOut[];
}

/** One choice of a non-streaming chat response (n > 1 sends several). */
export interface ChatChoiceOut {
  message: ChatMessageOut;
  finishReason: string | null;
  stopReason: string | null;
  logprobs?: unknown;
}

/** A non-streaming chat response. */
export function chatResponse(
  head: ChunkHead,
  message: ChatMessageOut,
  finishReason: string | null,
  stopReason: string | null,
  usage: Record<string, unknown>,
  timings?: Record<string, unknown>,
  logprobs?: unknown,
): Record<string, unknown> {
  return chatResponseOf(head, [{ message, finishReason, stopReason, logprobs }], usage, timings);
}

/** A non-streaming chat response with one or more choices (index 0…n−1 in order). */
export function chatResponseOf(
  head: ChunkHead,
  choices: readonly ChatChoiceOut[],
  usage: Record<string, unknown>,
  timings?: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: head.id,
    object: 'chat.completion',
    created: head.created,
    model: head.model,
    choices: choices.map((c, index) => {
      const m = c.message;
      const calls = m.toolCalls ?? [];
      const msg: Record<string, unknown> = {
        role: 'assistant',
        content: calls.length && m.content === '' ? null : m.content,
      };
      if (m.reasoning !== undefined) msg[m.reasoningField] = m.reasoning;
      msg.tool_calls = calls.map((t) => ({
        id: t.id,
        type: 'function',
        function: { name: t.name, arguments: t.arguments },
      }));
      return {
        index,
        message: msg,
        logprobs: c.logprobs ?? null,
        finish_reason: c.finishReason,
        stop_reason: c.stopReason,
      };
    }),
    usage,
  };
  if (timings) out.timings = timings;
  return out;
}

/** One choice of a non-streaming completions response. */
export interface CompletionChoiceOut {
  text: string;
  finishReason: string | null;
  stopReason: string | null;
  logprobs?: unknown;
}

/** A non-streaming `/v1/completions` response. */
export function completionResponse(
  head: ChunkHead,
  text: string,
  finishReason: string | null,
  stopReason: string | null,
  usage: Record<string, unknown>,
  timings?: Record<string, unknown>,
  logprobs?: unknown,
): Record<string, unknown> {
  return completionResponseOf(head, [{ text, finishReason, stopReason, logprobs }], usage, timings);
}

/** A non-streaming `/v1/completions` response with one or more choices. */
export function completionResponseOf(
  head: ChunkHead,
  choices: readonly CompletionChoiceOut[],
  usage: Record<string, unknown>,
  timings?: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: head.id,
    object: 'text_completion',
    created: head.created,
    model: head.model,
    choices: choices.map((c, index) => ({
      index,
      text: c.text,
      logprobs: c.logprobs ?? null,
      finish_reason: c.finishReason,
      stop_reason: c.stopReason,
    })),
    usage,
  };
  if (timings) out.timings = timings;
  return out;
}

// ---- SGLang's shapes (`--engine sglang`) ---------------------------------------------------
// `sgl-project/sglang:python/sglang/srt/entrypoints/openai/protocol.py` and `serving_chat.py`:
// every field is sent, null when unset (`delta.role/content/reasoning_content/tool_calls`,
// `usage`), the choice carries `matched_stop` (the stop string or token that ended it) instead of
// vLLM's `stop_reason`, and ids are bare hex.

/** An SGLang `chat.completion.chunk`. */
export function sglangChatChunk(head: ChunkHead, b: ChunkBody): Record<string, unknown> {
  const delta: Record<string, unknown> = {
    role: b.role ? 'assistant' : null,
    content: b.role ? '' : null,
    reasoning_content: null,
    tool_calls: null,
  };
  if (!b.role && b.toolCall) delta.tool_calls = [toolCallDelta(b.toolCall)];
  else if (!b.role && b.text !== undefined) delta[b.reasoningField ?? 'content'] = b.text;
  const choice = {
    index: b.index ?? 0,
    delta,
    logprobs: b.logprobs ?? null,
    finish_reason: b.finishReason ?? null,
    matched_stop: b.finishReason ? (b.stopReason ?? null) : null,
  };
  const out: Record<string, unknown> = {
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices: [choice],
    usage: b.usage ?? null,
  };
  if (b.servelab) out.servelab = b.servelab;
  if (b.timings) out.timings = b.timings;
  return out;
}

/** An SGLang streamed `text_completion` chunk. */
export function sglangCompletionChunk(head: ChunkHead, b: ChunkBody): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: head.id,
    object: 'text_completion',
    created: head.created,
    model: head.model,
    choices: [
      {
        index: b.index ?? 0,
        text: b.text ?? '',
        logprobs: b.logprobs ?? null,
        finish_reason: b.finishReason ?? null,
        matched_stop: b.finishReason ? (b.stopReason ?? null) : null,
      },
    ],
    usage: b.usage ?? null,
  };
  if (b.servelab) out.servelab = b.servelab;
  if (b.timings) out.timings = b.timings;
  return out;
}

/** SGLang's non-streaming bodies: vLLM's with `matched_stop` for `stop_reason` and null tool calls. */
export function sglangResponse(body: Record<string, unknown>): Record<string, unknown> {
  const choices = body.choices as Record<string, unknown>[];
  for (const c of choices) {
    c.matched_stop = c.stop_reason ?? null;
    delete c.stop_reason;
    const m = c.message as Record<string, unknown> | undefined;
    if (m) {
      m.reasoning_content ??= null;
      if (!Array.isArray(m.tool_calls) || m.tool_calls.length === 0) m.tool_calls = null;
    }
  }
  return body;
}
