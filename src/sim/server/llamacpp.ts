/**
 * @module sim/server/llamacpp
 * `--engine llamacpp`: what llama.cpp's `llama-server` says on the wire, field for field as the
 * build in `../shared/llamacpp/` answers (ggml-org/llama.cpp `de3ff81`; the server's code is
 * `tools/server/server-context.cpp`, `server-task.cpp` and `server-common.cpp`, read at commit
 * 001d906a6d86e2490e394361e7cc6f478b100088) and test/sim-server/llamacpp-shape.test.ts checks:
 *
 * - chunks and bodies: `system_fingerprint`, chat chunks without `logprobs`, the role-first chunk,
 *   ids `chatcmpl-…` on both endpoints;
 * - `timings` in wall ms (`cache_n`, `prompt_n`, `prompt_ms`, `prompt_per_token_ms`,
 *   `prompt_per_second`, `predicted_n`, `predicted_ms`, `predicted_per_token_ms`,
 *   `predicted_per_second`): `prompt_ms` runs from the slot's start on the prompt to the first
 *   token, `predicted_ms` from the first token to the last; the time a request waits for a slot
 *   is in neither. On the last chunk with a choice, or on the usage chunk of a chat stream that
 *   asked for usage; completions streams always carry usage on their last chunk;
 * - `GET /props` (`default_generation_settings.n_ctx` is a slot's context, `total_slots`),
 *   `GET /slots`, `/v1/models` with `meta` (`n_ctx` a slot's, `n_ctx_train` the model's);
 * - `/metrics` under `llamacpp:` names, without labels.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { EngineConfig } from '../engine/config.js';
import { BYTES_PER_WEIGHT, modelAccounting } from '../engine/cost.js';
import type { EngineStats, RequestTimes, SlotState } from '../engine/types.js';
import type { PromptTokens } from './prompt-tokens.js';
import type { ChunkBody, ChunkHead } from './wire.js';

/** The build string llama-server reports (`build_info`, `system_fingerprint`). */
export const LLAMACPP_FINGERPRINT = 'b1-servelab-sim';

/** llama.cpp's `timings` of a finished request, wall ms (engine ms ÷ `timeScale`). */
export function llamaCppTimings(
  t: RequestTimes | undefined,
  promptTokens: number,
  predicted: number,
  timeScale: number,
): Record<string, number> {
  const wall = (ms: number) => ms / timeScale;
  const cacheN = t?.cachedTokens ?? 0;
  const promptN = promptTokens - cacheN;
  const promptMs =
    t && t.firstScheduledMs !== null && t.firstTokenMs !== null
      ? wall(t.firstTokenMs - t.firstScheduledMs)
      : 0;
  const predictedMs =
    t && t.firstTokenMs !== null && t.lastTokenMs !== null ? wall(t.lastTokenMs - t.firstTokenMs) : 0;
  const perSecond = (n: number, ms: number) => (ms > 0 ? (1000 * n) / ms : 0);
  return {
    cache_n: cacheN,
    prompt_n: promptN,
    prompt_ms: promptMs,
    prompt_per_token_ms: promptN > 0 ? promptMs / promptN : 0,
    prompt_per_second: perSecond(promptN, promptMs),
    predicted_n: predicted,
    predicted_ms: predictedMs,
    // The real server divides by the tokens after the first (5 tokens in 10.8 ms: 2.71 ms each).
    predicted_per_token_ms: predicted > 1 ? predictedMs / (predicted - 1) : 0,
    predicted_per_second: perSecond(Math.max(0, predicted - 1), predictedMs),
  };
}

function tail(head: ChunkHead, object: string, b: ChunkBody): Record<string, unknown> {
  const out: Record<string, unknown> = {
    created: head.created,
    id: head.id,
    model: head.model,
    system_fingerprint: LLAMACPP_FINGERPRINT,
    object,
  };
  if (b.usage) out.usage = b.usage;
  if (b.servelab) out.servelab = b.servelab;
  if (b.timings) out.timings = b.timings;
  return out;
}

/** A llama.cpp `chat.completion.chunk`. */
export function llamaChatChunk(head: ChunkHead, b: ChunkBody): Record<string, unknown> {
  const delta: Record<string, unknown> = {};
  if (b.role) {
    delta.role = 'assistant';
    delta.content = null;
  } else if (b.toolCall) delta.tool_calls = [b.toolCall];
  else if (b.text !== undefined && !b.finishReason) delta[b.reasoningField ?? 'content'] = b.text;
  else if (b.text && b.finishReason) delta.content = b.text;
  return {
    choices: [{ finish_reason: b.finishReason ?? null, index: b.index ?? 0, delta }],
    ...tail(head, 'chat.completion.chunk', b),
  };
}

/** A llama.cpp streamed `text_completion` chunk. */
export function llamaCompletionChunk(head: ChunkHead, b: ChunkBody): Record<string, unknown> {
  return {
    choices: [
      {
        text: b.text ?? '',
        index: b.index ?? 0,
        logprobs: b.logprobs ?? null,
        finish_reason: b.finishReason ?? null,
      },
    ],
    ...tail(head, 'text_completion', b),
  };
}

/** The usage chunk ending a chat stream that asked for usage: `choices: []`, usage and timings. */
export function llamaUsageChunk(
  head: ChunkHead,
  usage: Record<string, unknown>,
  timings: Record<string, unknown>,
) {
  return { choices: [], ...tail(head, 'chat.completion.chunk', { usage, timings }) };
}

/** A non-streaming body (vLLM's shape from `wire.ts`) in llama.cpp's shape. */
export function llamaResponse(body: Record<string, unknown>): Record<string, unknown> {
  const chat = body.object === 'chat.completion';
  const choices = (body.choices as Record<string, unknown>[]).map((c) =>
    chat
      ? {
          finish_reason: c.finish_reason,
          index: c.index,
          message: { role: 'assistant', content: (c.message as Record<string, unknown>)?.content ?? '' },
        }
      : { text: c.text, index: c.index, logprobs: c.logprobs ?? null, finish_reason: c.finish_reason },
  );
  const out: Record<string, unknown> = {
    choices,
    created: body.created,
    model: body.model,
    system_fingerprint: LLAMACPP_FINGERPRINT,
    object: body.object,
    usage: body.usage,
    id: body.id,
  };
  if (body.timings) out.timings = body.timings;
  return out;
}

/** `GET /v1/models`: the one model, with llama.cpp's `meta`. */
export function llamaModels(cfg: EngineConfig, modelId: string, created: number): Record<string, unknown> {
  const m = cfg.model;
  return {
    models: [
      {
        name: modelId,
        model: modelId,
        modified_at: '',
        size: '',
        digest: '',
        type: 'model',
        description: '',
        tags: [''],
        capabilities: ['completion'],
        parameters: '',
        details: {
          parent_model: '',
          format: 'gguf',
          family: '',
          families: [''],
          parameter_size: '',
          quantization_level: '',
        },
      },
    ],
    object: 'list',
    data: [
      {
        id: modelId,
        aliases: [modelId],
        tags: [],
        object: 'model',
        created,
        owned_by: 'llamacpp',
        meta: {
          vocab_type: 2,
          n_vocab: m.vocab_size,
          n_ctx: cfg.maxModelLen,
          n_ctx_train: m.max_position_embeddings,
          n_embd: m.hidden_size,
          n_params: Math.round(
            modelAccounting(m, cfg.dtype, cfg.kvCacheDtype).weightBytes / BYTES_PER_WEIGHT[cfg.dtype],
          ),
          size: 0,
          ftype: cfg.dtype.toUpperCase(),
        },
      },
    ],
  };
}

/**
 * `POST /tokenize` as llama-server answers it: it reads `content` only (a body without it gets
 * `{"tokens": []}`), adds no special tokens here, and with `with_pieces` pairs each id with its text.
 */
export function llamaTokenize(prompts: PromptTokens, body: unknown): Record<string, unknown> {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.content !== 'string') return { tokens: [] };
  const ids = prompts.ids(b.content);
  if (b.with_pieces !== true) return { tokens: Array.from(ids) };
  return { tokens: ids.map((id) => ({ id, piece: prompts.tokenizer.decode([id]) })) };
}

/** `GET /props`: the slots' context and count, the model, the build. */
export function llamaProps(cfg: EngineConfig, modelId: string): Record<string, unknown> {
  return {
    default_generation_settings: { params: { max_tokens: -1, n_predict: -1 }, n_ctx: cfg.maxModelLen },
    total_slots: cfg.profile.llamacpp?.parallel ?? 1,
    model_alias: modelId,
    model_ftype: cfg.dtype.toUpperCase(),
    model_path: `/models/${modelId}.gguf`,
    modalities: { vision: false, video: false, audio: false },
    endpoint_slots: true,
    endpoint_props: false,
    endpoint_metrics: true,
    build_info: LLAMACPP_FINGERPRINT,
    is_sleeping: false,
  };
}

/** `GET /slots`: each slot; one that has run a task also tells its last (or current) task. */
export function llamaSlots(slots: readonly SlotState[]): Record<string, unknown>[] {
  return slots.map((s) => {
    const out: Record<string, unknown> = {
      id: s.id,
      n_ctx: s.nCtx,
      speculative: false,
      is_processing: s.processing,
    };
    if (s.task === null) return out;
    out.id_task = s.task;
    out.n_prompt_tokens = s.promptTokens;
    out.n_prompt_tokens_processed = s.processedTokens;
    out.n_prompt_tokens_cache = s.cachedTokens;
    out.next_token = [
      { has_next_token: s.processing, has_new_line: false, n_remain: -1, n_decoded: s.decoded },
    ];
    return out;
  });
}

/** Running totals `/metrics` reports that the engine's stats do not hold (engine seconds). */
export interface LlamaCppTotals {
  promptS: number;
  predictedS: number;
  nTokensMax: number;
}

/**
 * llama.cpp's `/metrics` (`server_context::metrics`, the names of the shared build's output):
 * counters and gauges without labels, read at scrape time.
 */
export function registerLlamaCppMetrics(
  registry: Registry,
  snap: () => EngineStats,
  totals: LlamaCppTotals,
): void {
  const registers = [registry];
  const counter = (name: string, help: string, read: (s: EngineStats) => number) => {
    let seen = 0;
    new Counter({
      name,
      help,
      registers,
      collect() {
        const now = read(snap());
        if (now > seen) this.inc(now - seen);
        seen = Math.max(seen, now);
      },
    }).inc(0);
  };
  const gauge = (name: string, help: string, read: (s: EngineStats) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read(snap()));
      },
    });
  counter(
    'llamacpp:prompt_tokens_total',
    'Number of prompt tokens processed, excluding cached tokens',
    (s) => s.promptTokens - s.prefixHits,
  );
  counter(
    'llamacpp:prompt_tokens_cached_total',
    'Number of prompt tokens reused from the cache',
    (s) => s.prefixHits,
  );
  counter('llamacpp:prompt_seconds_total', 'Total time spent processing prompts', () => totals.promptS);
  counter(
    'llamacpp:tokens_predicted_total',
    'Number of generation tokens processed',
    (s) => s.generationTokens,
  );
  counter(
    'llamacpp:tokens_predicted_seconds_total',
    'Total time spent generating tokens',
    () => totals.predictedS,
  );
  counter(
    'llamacpp:n_decode_total',
    'Total number of llama_decode() calls, excluding speculative decoding and multimodal decoding',
    (s) => s.steps,
  );
  counter(
    'llamacpp:n_tokens_max',
    'Largest observed sequence length (prompt + generation)',
    () => totals.nTokensMax,
  );
  for (const [name, help] of [
    ['spec_decode_num_draft_tokens_total', 'Speculative: Total draft tokens generated'],
    ['spec_decode_num_accepted_tokens_total', 'Speculative: Total draft tokens accepted by the target model'],
    ['spec_decode_num_drafts_total', 'Speculative: Total speculative decoding verification steps'],
  ])
    counter(`llamacpp:${name}`, help, () => 0);
  gauge('llamacpp:prompt_tokens_seconds', 'Average prompt throughput in tokens/s', (s) =>
    totals.promptS > 0 ? (s.promptTokens - s.prefixHits) / totals.promptS : 0,
  );
  gauge('llamacpp:predicted_tokens_seconds', 'Average generation throughput in tokens/s', (s) =>
    totals.predictedS > 0 ? s.generationTokens / totals.predictedS : 0,
  );
  gauge('llamacpp:requests_processing', 'Number of requests processing', (s) => s.running);
  gauge('llamacpp:requests_deferred', 'Number of requests deferred', (s) => s.waiting);
  gauge('llamacpp:n_busy_slots_per_decode', 'Average number of busy slots per llama_decode() call', (s) =>
    s.steps > 0 ? s.running : 0,
  );
}
