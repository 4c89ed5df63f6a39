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
  /** vLLM: the context length (tokens). */
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
      max_model_len: typeof m.max_model_len === 'number' ? m.max_model_len : null,
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
