/**
 * @module sim/server/requests
 * Validation of `/v1/chat/completions`, `/v1/completions` and `/tokenize` bodies into one
 * {@link ParsedRequest}, and the chat template used to flatten messages before counting tokens.
 * Unknown fields are accepted and ignored, as vLLM does for most sampling options.
 */
import { z } from 'zod';
import { BadRequest } from './body.js';
import { MAX_LOGPROBS } from './logprobs.js';
import { checkSchema, type JsonSchema } from './structured.js';
import type { ToolChoice, ToolSpec } from './tools.js';

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
  // Checked by hand below (its schema's errors name `response_format…` params).
  response_format: z.unknown().optional(),
  // vLLM's own constraint keys: `guided_json` (before 0.11) and `structured_outputs.json`
  // (0.10.2 on), read as a json_schema response_format.
  guided_json: z.unknown().optional(),
  structured_outputs: z.unknown().optional(),
};

const ToolDecl = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
  }),
});

const ChatBody = z.looseObject({
  ...common,
  messages: z.array(Message).min(1),
  chat_template_kwargs: z.looseObject({ enable_thinking: z.boolean().nullish() }).nullish(),
  tools: z.array(ToolDecl).nullish(),
  tool_choice: z
    .union([
      z.enum(['none', 'auto', 'required']),
      z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) }),
    ])
    .nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(MAX_LOGPROBS).nullish(),
});

const CompletionBody = z.looseObject({
  ...common,
  prompt: z.union([z.string(), z.array(z.string()), z.array(z.number().int().min(0))]),
  logprobs: z.number().int().min(0).max(MAX_LOGPROBS).nullish(),
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
  /** `response_format` other than `text`: JSON conforming to `schema`, or any JSON object. */
  responseFormat?: { type: 'json_schema'; schema: JsonSchema | true } | { type: 'json_object' };
  /** Chat only: the declared function tools (empty when none). */
  tools: ToolSpec[];
  /** `tool_choice`; default `auto` with tools, `none` without. */
  toolChoice: ToolChoice;
  /** `parallel_tool_calls` (default true). */
  parallelToolCalls: boolean;
  /**
   * Alternatives per token when logprobs are asked for (chat `logprobs: true` with
   * `top_logprobs`, default 0; completions `logprobs: k`); undefined: no logprobs.
   */
  logprobs?: number;
  /** Choices to generate (`n`, default 1), each its own engine sequence. */
  n: number;
}

/** Largest `n` accepted (a bound on one request's fan-out, not vLLM's). */
export const MAX_N = 128;

/** `response_format`, checked: `text` (or absent) is undefined; a bad one is a 400. */
function parseResponseFormat(rf: unknown): ParsedRequest['responseFormat'] {
  if (rf == null) return undefined;
  const param = 'response_format';
  if (typeof rf !== 'object' || Array.isArray(rf))
    throw new BadRequest(`Invalid value for '${param}': expected an object.`, param);
  const o = rf as Record<string, unknown>;
  switch (o.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      const js = o.json_schema;
      if (js === null || typeof js !== 'object' || Array.isArray(js))
        throw new BadRequest(
          "response_format of type 'json_schema' needs a 'json_schema' object with a 'schema'.",
          `${param}.json_schema`,
        );
      const schema = (js as Record<string, unknown>).schema;
      if (schema === undefined)
        throw new BadRequest(
          "response_format.json_schema needs a 'schema' (a JSON Schema object).",
          `${param}.json_schema.schema`,
        );
      checkSchema(schema, `${param}.json_schema.schema`);
      return { type: 'json_schema', schema: schema as JsonSchema | true };
    }
    default:
      throw new BadRequest(
        `Invalid value for '${param}.type': ${JSON.stringify(o.type)} (expected 'text', 'json_object' or 'json_schema').`,
        `${param}.type`,
      );
  }
}

/**
 * vLLM's constraint keys as a json_schema format: `guided_json` (a schema, or its JSON text) and
 * `structured_outputs: {json}` (vllm/sampling_params.py `StructuredOutputsParams`).
 */
function vllmConstraint(guided: unknown, structured: unknown): ParsedRequest['responseFormat'] {
  let schema: unknown = guided;
  let param = 'guided_json';
  if (schema == null && structured != null && typeof structured === 'object') {
    schema = (structured as Record<string, unknown>).json;
    param = 'structured_outputs.json';
  }
  if (schema == null) return undefined;
  if (typeof schema === 'string') {
    try {
      schema = JSON.parse(schema);
    } catch {
      throw new BadRequest(`Invalid value for '${param}': not a JSON schema.`, param);
    }
  }
  checkSchema(schema, param);
  return { type: 'json_schema', schema: schema as JsonSchema | true };
}

/** Tools and tool_choice of a chat body, checked (parameters schemas included). */
function parseTools(
  b: z.infer<typeof ChatBody>,
): Pick<ParsedRequest, 'tools' | 'toolChoice' | 'parallelToolCalls'> {
  const tools: ToolSpec[] = (b.tools ?? []).map((t, i) => {
    const params = t.function.parameters ?? undefined;
    if (params !== undefined) checkSchema(params, `tools.${i}.function.parameters`);
    return { name: t.function.name, parameters: params };
  });
  const tc = b.tool_choice;
  let toolChoice: ToolChoice = tools.length ? 'auto' : 'none';
  if (tc != null) {
    if (typeof tc === 'string') toolChoice = tc;
    else toolChoice = { name: tc.function.name };
    if (toolChoice !== 'none' && tools.length === 0)
      throw new BadRequest('When using `tool_choice`, `tools` must be set.', 'tool_choice');
    if (typeof toolChoice === 'object') {
      const name = toolChoice.name;
      if (!tools.some((t) => t.name === name))
        throw new BadRequest(
          `The tool named in tool_choice ('${name}') is not among the tools.`,
          'tool_choice',
        );
    }
  }
  return { tools, toolChoice, parallelToolCalls: b.parallel_tool_calls ?? true };
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

/** A message's text as the template reads it: a string, or its `text` parts joined by newlines. */
export function contentText(c: unknown): string {
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
  let tools: Pick<ParsedRequest, 'tools' | 'toolChoice' | 'parallelToolCalls'> = {
    tools: [],
    toolChoice: 'none',
    parallelToolCalls: true,
  };
  let logprobs: number | undefined;
  if (kind === 'chat') {
    const r = ChatBody.safeParse(body);
    if (!r.success) throw firstIssue(r.error);
    b = r.data;
    messages = r.data.messages;
    promptText = applyChatTemplate(messages);
    enableThinking = r.data.chat_template_kwargs?.enable_thinking ?? true;
    tools = parseTools(r.data);
    if (r.data.top_logprobs != null && !r.data.logprobs)
      throw new BadRequest('top_logprobs needs logprobs set to true.', 'top_logprobs');
    if (r.data.logprobs) logprobs = r.data.top_logprobs ?? 0;
  } else {
    const r = CompletionBody.safeParse(body);
    if (!r.success) throw firstIssue(r.error);
    b = r.data;
    logprobs = r.data.logprobs ?? undefined;
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
  const n = b.n ?? 1;
  if (n < 1 || n > MAX_N) throw new BadRequest(`n must be from 1 to ${MAX_N} (got n=${n}).`, 'n');
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
    responseFormat:
      parseResponseFormat(b.response_format) ?? vllmConstraint(b.guided_json, b.structured_outputs),
    ...tools,
    logprobs,
    n,
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
