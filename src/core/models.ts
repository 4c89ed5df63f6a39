/**
 * @module core/models
 * Reading an OpenAI-compatible server's `GET /v1/models` answer, shared by `run` (which needs a
 * model name), `check` (models and engine) and `exp` (the record's model and limits), so that
 * all three read the same list the same way. How each reacts to a failed request differs
 * (throw, problem, probe error) and stays with it; only the wire format lives here.
 */

/** One entry of `/v1/models`, with the fields servelab reads (null when the server omits one). */
export interface ListedModel {
  id: string;
  /** vLLM `vllm`, SGLang `sglang`, llama.cpp `llamacpp`, servelab's simulator `servelab-sim`. */
  owned_by: string | null;
  /**
   * The context one request may fill (tokens): vLLM's `max_model_len`, else `context_length`,
   * else llama.cpp's `meta.n_ctx` ({@link modelEntryContext}).
   */
  max_model_len: number | null;
  /** vLLM: the weights the served name stands for. */
  root: string | null;
  /** vLLM: the base model of a LoRA adapter; null for a base model. */
  parent: string | null;
}

/** An inference engine that `owned_by` (or SGLang's `/version` `engine`) can name. */
export type ServerEngine = 'vllm' | 'sglang' | 'llama.cpp' | 'servelab-sim';

const isRec = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * The models in a parsed `/v1/models` body (`{data: [{id, owned_by, …}]}`). Entries without a
 * string `id` are skipped (a name like `undefined` must never become the model sent); anything
 * that is not such a body gives an empty list.
 */
export function parseModelList(body: unknown): ListedModel[] {
  const data = isRec(body) && Array.isArray(body.data) ? body.data : [];
  const out: ListedModel[] = [];
  for (const m of data) {
    if (!isRec(m) || typeof m.id !== 'string') continue;
    out.push({
      id: m.id,
      owned_by: strOrNull(m.owned_by),
      max_model_len: modelEntryContext(m)?.tokens ?? null,
      root: strOrNull(m.root),
      parent: strOrNull(m.parent),
    });
  }
  return out;
}

const OWNED_BY: Record<string, ServerEngine> = {
  vllm: 'vllm',
  sglang: 'sglang',
  llamacpp: 'llama.cpp',
  'llama.cpp': 'llama.cpp',
  'servelab-sim': 'servelab-sim',
};

/**
 * The engine an `owned_by` value reveals (case-insensitive), or null when it names none
 * (`openai`, an organisation, absent). Any `servelab…` owner is servelab's simulator.
 *
 * @example engineFromOwnedBy('llamacpp') // 'llama.cpp'
 */
export function engineFromOwnedBy(ownedBy: string | null | undefined): ServerEngine | null {
  const o = (ownedBy ?? '').trim().toLowerCase();
  if (Object.hasOwn(OWNED_BY, o)) return OWNED_BY[o];
  return o.startsWith('servelab') ? 'servelab-sim' : null;
}

/** The context one request may fill on a server, and the field that said so. */
export interface ServedContext {
  /** Tokens of prompt plus output one request may take (on llama.cpp: one slot's context). */
  tokens: number;
  /** Where it was read, e.g. `/v1/models meta.n_ctx`. */
  source: string;
}

const posNum = (v: unknown): number | null => (typeof v === 'number' && v > 0 ? v : null);

/**
 * The context of one `/v1/models` entry: vLLM's and SGLang's `max_model_len`, a `context_length`
 * (OpenRouter-style lists), or llama.cpp's `meta.n_ctx`, the context of one slot (`-c` over
 * `-np`: 2048 for `-c 8192 -np 4` on llama.cpp de3ff81, `tools/server/server.cpp`'s models
 * handler). `meta.n_ctx_train` is the model's training length, not what the server accepts, so it
 * is never read as the limit. Null when the entry says none of these.
 */
export function modelEntryContext(entry: unknown): ServedContext | null {
  if (!isRec(entry)) return null;
  const mml = posNum(entry.max_model_len);
  if (mml !== null) return { tokens: mml, source: '/v1/models max_model_len' };
  const cl = posNum(entry.context_length);
  if (cl !== null) return { tokens: cl, source: '/v1/models context_length' };
  const nCtx = isRec(entry.meta) ? posNum(entry.meta.n_ctx) : null;
  if (nCtx !== null) return { tokens: nCtx, source: '/v1/models meta.n_ctx' };
  return null;
}

/**
 * The per-slot context in llama.cpp's `GET /props` answer (`default_generation_settings.n_ctx`,
 * one slot's share of `-c`) and its slot count (`total_slots`, `-np`); null when the body has no
 * such context (`ggml-org/llama.cpp:tools/server/README.md`, GET `/props`).
 */
export function propsContext(body: unknown): (ServedContext & { slots: number | null }) | null {
  if (!isRec(body) || !isRec(body.default_generation_settings)) return null;
  const nCtx = posNum(body.default_generation_settings.n_ctx);
  if (nCtx === null) return null;
  return {
    tokens: nCtx,
    source: '/props default_generation_settings.n_ctx',
    slots: posNum(body.total_slots),
  };
}
