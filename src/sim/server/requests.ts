/**
 * @module sim/server/requests
 * Validation of `/v1/chat/completions`, `/v1/completions` and `/tokenize` bodies into one
 * {@link ParsedRequest}, and the chat template used to flatten messages before counting tokens.
 * Unknown fields are accepted and ignored, as vLLM does for most sampling options.
 */
import { z } from 'zod';

/** A request problem that becomes a 400 with `param` naming the field. */
export class BadRequest extends Error {
  constructor(
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'BadRequest';
  }
}

const ContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const Message = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(ContentPart)]).nullish(),
});

const common = {
  model: z.string().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z
    .looseObject({ include_usage: z.boolean().nullish(), continuous_usage_stats: z.boolean().nullish() })
    .nullish(),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  ignore_eos: z.boolean().nullish(),
  min_tokens: z.number().int().min(0).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  seed: z.number().int().nullish(),
  n: z.number().int().nullish(),
};

const ChatBody = z.looseObject({
  ...common,
  messages: z.array(Message).min(1),
  chat_template_kwargs: z.looseObject({ enable_thinking: z.boolean().nullish() }).nullish(),
});

const CompletionBody = z.looseObject({
  ...common,
  prompt: z.union([z.string(), z.array(z.string()), z.array(z.number().int().min(0))]),
});

const TokenizePrompt = z.looseObject({ model: z.string().nullish(), prompt: z.string() });
const TokenizeMessages = z.looseObject({ model: z.string().nullish(), messages: z.array(Message).min(1) });

/** A validated generation request, in the simulator's terms. */
export interface ParsedRequest {
  kind: 'chat' | 'completions';
  /** Requested model name, or undefined for the default. */
  model?: string;
  /** The text whose tokens form the prompt (chat: the flattened template). */
  promptText: string;
  /** Chat only: the messages, counted piece by piece (`sim/server/prompt-tokens`). */
  messages?: ChatMessageLike[];
  /** Prompt given directly as token ids (`/v1/completions` only). */
  promptIds?: number[];
  stream: boolean;
  includeUsage: boolean;
  continuousUsage: boolean;
  /** `max_completion_tokens` ?? `max_tokens`; undefined means "up to max_model_len". */
  maxTokens?: number;
  stop: string[];
  ignoreEos: boolean;
  minTokens: number;
  temperature?: number;
  seed?: number;
  /** Chat on a reasoning model: `chat_template_kwargs.enable_thinking` (default true). */
  enableThinking: boolean;
}

/**
 * The chat template used to flatten messages before counting tokens (ChatML, as Qwen3 uses):
 * `<|im_start|>{role}\n{content}<|im_end|>\n` per message, then `<|im_start|>assistant\n`.
 * Content given as parts keeps only the `text` parts, joined by newlines. The same template is
 * applied to every model family: it is a token-count model, not a faithful prompt renderer.
 */
export function applyChatTemplate(messages: readonly ChatMessageLike[]): string {
  return chatTemplatePieces(messages).join('');
}

/** A chat message as the template reads it (`content`: a string, parts, or nothing). */
export interface ChatMessageLike {
  role: string;
  content?: unknown;
}

/**
 * The chat template cut where a real template puts special tokens: per message
 * `<|im_start|>{role}\n`, the content, `<|im_end|>\n`; then `<|im_start|>assistant\n`.
 * Joined, they are {@link applyChatTemplate}; the simulator counts them apart
 * (`sim/server/prompt-tokens`).
 */
export function chatTemplatePieces(messages: readonly ChatMessageLike[]): string[] {
  const out: string[] = [];
  for (const m of messages) out.push(`<|im_start|>${m.role}\n`, contentText(m.content), '<|im_end|>\n');
  out.push('<|im_start|>assistant\n');
  return out;
}

function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c))
    return c
      .map((p) =>
        p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? p.text : '',
      )
      .filter(Boolean)
      .join('\n');
  return '';
}

function firstIssue(err: z.ZodError): BadRequest {
  const issue = err.issues[0];
  const param = issue.path.length ? issue.path.map(String).join('.') : null;
  return new BadRequest(param ? `Invalid value for '${param}': ${issue.message}` : issue.message, param);
}

/** Validate a generation body. Throws {@link BadRequest} with a clear message. */
export function parseGenerationRequest(kind: 'chat' | 'completions', body: unknown): ParsedRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new BadRequest('The request body must be a JSON object.');
  let b: z.infer<typeof ChatBody> | z.infer<typeof CompletionBody>;
  let promptText: string;
  let promptIds: number[] | undefined;
  let messages: ChatMessageLike[] | undefined;
  let enableThinking = true;
  if (kind === 'chat') {
    const r = ChatBody.safeParse(body);
    if (!r.success) throw firstIssue(r.error);
    b = r.data;
    messages = r.data.messages;
    promptText = applyChatTemplate(messages);
    enableThinking = r.data.chat_template_kwargs?.enable_thinking ?? true;
  } else {
    const r = CompletionBody.safeParse(body);
    if (!r.success) throw firstIssue(r.error);
    b = r.data;
    const p = r.data.prompt;
    if (typeof p === 'string') promptText = p;
    else if (p.length === 0) throw new BadRequest('The prompt must not be empty.', 'prompt');
    else if (typeof p[0] === 'number') {
      promptIds = p as number[];
      promptText = promptIds.join(',');
    } else if (p.length === 1) promptText = p[0] as string;
    else
      throw new BadRequest(
        'Batched prompts are not supported by servelab-sim; send one prompt per request.',
        'prompt',
      );
  }
  if (b.n != null && b.n !== 1)
    throw new BadRequest(
      `Only n=1 is supported by servelab-sim (got n=${b.n}); send ${b.n} requests instead.`,
      'n',
    );
  if (b.stream_options != null && !b.stream)
    throw new BadRequest('Stream options can only be defined when `stream=True`.', 'stream_options');
  const maxTokens = b.max_completion_tokens ?? b.max_tokens ?? undefined;
  const minTokens = b.min_tokens ?? 0;
  if (maxTokens !== undefined && minTokens > maxTokens)
    throw new BadRequest(
      `min_tokens must be less than or equal to max_tokens=${maxTokens}, got ${minTokens}.`,
      'min_tokens',
    );
  // vLLM defaults include_usage to true once stream_options is given.
  const includeUsage = b.stream_options != null ? (b.stream_options.include_usage ?? true) : false;
  return {
    kind,
    model: b.model ?? undefined,
    promptText,
    messages,
    promptIds,
    stream: b.stream ?? false,
    includeUsage,
    continuousUsage: includeUsage && (b.stream_options?.continuous_usage_stats ?? false),
    maxTokens,
    stop: b.stop == null ? [] : typeof b.stop === 'string' ? [b.stop] : b.stop.filter((s) => s.length > 0),
    ignoreEos: b.ignore_eos ?? false,
    minTokens,
    temperature: b.temperature ?? undefined,
    seed: b.seed ?? undefined,
    enableThinking,
  };
}

/**
 * Validate a `/tokenize` body: `{prompt}` or `{messages}`; returns the text to count (or the
 * messages, counted as a chat prompt) and the model.
 */
export function parseTokenizeRequest(body: unknown): {
  text: string;
  messages?: ChatMessageLike[];
  model?: string;
} {
  const p = TokenizePrompt.safeParse(body);
  if (p.success) return { text: p.data.prompt, model: p.data.model ?? undefined };
  const m = TokenizeMessages.safeParse(body);
  if (m.success)
    return {
      text: applyChatTemplate(m.data.messages),
      messages: m.data.messages,
      model: m.data.model ?? undefined,
    };
  throw new BadRequest("The body needs either 'prompt' (a string) or 'messages' (a non-empty list).");
}
