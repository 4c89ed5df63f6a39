/**
 * @module sim/catalogue/params
 * Parameter counts of a catalogue model, and the weight bytes one engine step reads. Pure
 * functions of the model's Hugging Face `config.json` fields, so that the cost model
 * (`sim/engine/cost`) asks the catalogue what a model is instead of re-deriving its shape.
 *
 * A dense model reads every weight every step. A mixture-of-experts (MoE) model keeps all its
 * experts in memory (total parameters) but runs each token through only `num_experts_per_tok`
 * of them (active parameters), and a step reads only the experts its tokens were routed to:
 *
 * ```
 * P_total  = L·P_attn + Σ_dense-layers 3·h·I + Σ_sparse-layers (h·E + E·3·h·I_e + P_shared)
 * P_active = L·P_attn + Σ_dense-layers 3·h·I + Σ_sparse-layers (h·E + k·3·h·I_e + P_shared)
 * touched(T) = E·(1 − (1 − k/E)^T)              expected distinct experts of one layer, T tokens
 * W_read(T)  = [P_total − Σ_sparse-layers (E − touched(T))·3·h·I_e] · bytes per weight
 * ```
 *
 * `touched(T)` assumes uniform routing: each token picks k distinct experts of E, each
 * expert with probability k/E, independently of the other tokens, so an expert is missed by
 * all T tokens with probability (1 − k/E)^T. Real routers are skewed (load-balancing losses
 * only even them out on average), which touches fewer experts, so this is the pessimistic
 * (most bytes) end for a given T. vLLM's fused-MoE kernels read only the experts that got tokens
 * (see the "max_active_experts" bound min(E, T·k) of vllm-project/vllm#33197).
 */
import type { ModelSpec } from './types.js';

/** Whether the model has routed experts. */
export function isMoe(model: ModelSpec): boolean {
  return (model.num_experts ?? 0) > 0 && (model.num_experts_per_tok ?? 0) > 0;
}

/**
 * Whether decoder layer `i` (0-based) has an MoE MLP: the rule of Hugging Face
 * `Qwen3MoeDecoderLayer` / `Qwen2MoeDecoderLayer` (not in `mlp_only_layers`, and
 * `(i + 1) % decoder_sparse_step == 0`).
 */
export function isSparseLayer(model: ModelSpec, i: number): boolean {
  if (!isMoe(model)) return false;
  const step = model.decoder_sparse_step ?? 1;
  return !(model.mlp_only_layers ?? []).includes(i) && step > 0 && (i + 1) % step === 0;
}

/** Number of decoder layers with an MoE MLP. */
export function sparseLayerCount(model: ModelSpec): number {
  if (!isMoe(model)) return 0;
  let n = 0;
  for (let i = 0; i < model.num_hidden_layers; i++) if (isSparseLayer(model, i)) n++;
  return n;
}

/** Attention weights of one layer: q and o are h·nh·d each, k and v h·nkv·d each (no biases). */
export function attentionParamsPerLayer(model: ModelSpec): number {
  const h = model.hidden_size;
  const d = model.head_dim;
  return h * model.num_attention_heads * d * 2 + h * model.num_key_value_heads * d * 2;
}

/** One routed expert's SwiGLU MLP: gate, up and down projections, 3·h·I_e. */
function expertParams(model: ModelSpec): number {
  return 3 * model.hidden_size * (model.moe_intermediate_size ?? 0);
}

/** The weights every token of a sparse layer runs besides its k experts: router (h·E) and shared expert. */
function sparseFixedParams(model: ModelSpec): number {
  const h = model.hidden_size;
  const shared = model.shared_expert_intermediate_size ?? 0;
  // Qwen2-MoE's shared expert is a SwiGLU MLP plus a 1-output gate (h·1).
  return h * (model.num_experts ?? 0) + (shared > 0 ? 3 * h * shared + h : 0);
}

/**
 * Parameters of all decoder layers, every expert included: what sits in GPU memory
 * (embeddings and LM head excluded).
 * @example layerParams(BUILTIN_MODELS['llama-3.1-8b']) // 6_979_321_856
 */
export function layerParams(model: ModelSpec): number {
  const L = model.num_hidden_layers;
  const denseMlp = 3 * model.hidden_size * model.intermediate_size;
  // Same expression as the dense roofline always used, so dense numbers stay bit-identical.
  if (!isMoe(model)) return L * (attentionParamsPerLayer(model) + denseMlp);
  const sparse = sparseLayerCount(model);
  const perSparse = sparseFixedParams(model) + (model.num_experts ?? 0) * expertParams(model);
  return L * attentionParamsPerLayer(model) + (L - sparse) * denseMlp + sparse * perSparse;
}

/**
 * Decoder-layer parameters one token runs through: the compute of a step is 2 FLOPs per active
 * parameter per token. Equal to {@link layerParams} for a dense model.
 * @example activeLayerParams(BUILTIN_MODELS['qwen3-30b-a3b']) // ≈ 2.73e9 of 29.9e9
 */
export function activeLayerParams(model: ModelSpec): number {
  if (!isMoe(model)) return layerParams(model);
  const L = model.num_hidden_layers;
  const denseMlp = 3 * model.hidden_size * model.intermediate_size;
  const sparse = sparseLayerCount(model);
  const perSparse = sparseFixedParams(model) + (model.num_experts_per_tok ?? 0) * expertParams(model);
  return L * attentionParamsPerLayer(model) + (L - sparse) * denseMlp + sparse * perSparse;
}

/** Whole-model parameter counts, as model cards quote them. */
export interface ParamCounts {
  /** Every weight: decoder layers (all experts), LM head, and the embedding table unless tied. */
  total: number;
  /** What one token runs through, plus the embedding and LM head (the model cards' "activated"). */
  active: number;
  layers: number;
  activeLayers: number;
  lmHead: number;
  /** 0 when tied to the LM head. */
  embedding: number;
}

/** Total and active parameters of a model. */
export function paramCounts(model: ModelSpec): ParamCounts {
  const layers = layerParams(model);
  const activeLayers = activeLayerParams(model);
  const lmHead = model.vocab_size * model.hidden_size;
  const embedding = model.tie_word_embeddings ? 0 : lmHead;
  return {
    total: layers + lmHead + embedding,
    active: activeLayers + lmHead + embedding,
    layers,
    activeLayers,
    lmHead,
    embedding,
  };
}

/**
 * Expected number of distinct experts that `batchTokens` tokens touch in one MoE layer when each
 * picks `expertsPerToken` of `numExperts` uniformly: E·(1 − (1 − k/E)^T).
 * @example expectedExpertsTouched(128, 8, 1) // 8
 */
export function expectedExpertsTouched(
  numExperts: number,
  expertsPerToken: number,
  batchTokens: number,
): number {
  if (batchTokens <= 0) return 0;
  if (expertsPerToken >= numExperts) return numExperts;
  return numExperts * (1 - (1 - expertsPerToken / numExperts) ** batchTokens);
}

/**
 * Bytes of decoder-layer weights that one forward step over `batchTokens` new tokens reads, at
 * `bytesPerWeight` bytes per weight: all of them for a dense model; for an MoE model the
 * attention, router, shared and dense-MLP weights plus the experts its tokens are expected to
 * touch (uniform routing). The LM head, which stays 16-bit in every format the cost model knows,
 * is the caller's to add.
 * @example layerWeightBytesReadPerStep(BUILTIN_MODELS['qwen3-30b-a3b'], 2, 1) // ≈ 5.5 GB of 59.8 GB
 */
export function layerWeightBytesReadPerStep(
  model: ModelSpec,
  bytesPerWeight: number,
  batchTokens: number,
): number {
  const all = layerParams(model);
  if (!isMoe(model)) return all * bytesPerWeight;
  const E = model.num_experts ?? 0;
  const untouched = E - expectedExpertsTouched(E, model.num_experts_per_tok ?? 0, batchTokens);
  return (all - sparseLayerCount(model) * untouched * expertParams(model)) * bytesPerWeight;
}

/**
 * Of {@link layerWeightBytesReadPerStep}, the bytes of routed experts (0 for a dense model): the
 * part the fitted step-time model scales by its MoE expert-read coefficient.
 */
export function expertWeightBytesReadPerStep(
  model: ModelSpec,
  bytesPerWeight: number,
  batchTokens: number,
): number {
  if (!isMoe(model)) return 0;
  const E = model.num_experts ?? 0;
  const touched = expectedExpertsTouched(E, model.num_experts_per_tok ?? 0, batchTokens);
  return sparseLayerCount(model) * touched * expertParams(model) * bytesPerWeight;
}
