/**
 * @module sim/catalogue/types
 * Shapes of the simulator's hardware and model catalogue. Models use Hugging Face `config.json`
 * field names (snake_case) so an entry can be pasted from a model card; GPUs use servelab's own
 * camelCase fields with units in their names.
 */

/** How the GPUs of one tensor-parallel group talk to each other. */
export interface Interconnect {
  kind: 'nvlink' | 'pcie' | 'xgmi';
  /** Per-direction bandwidth one GPU can push to its peers, GB/s (1e9 bytes/s). */
  bandwidthGBps: number;
  /** Fixed cost of one small all-reduce call, µs (launch + synchronisation). */
  latencyUs: number;
}

/** One accelerator, as the cost model sees it. */
export interface GpuSpec {
  /** Lower-case catalogue name, e.g. `h100`. */
  name: string;
  /** Device name as the driver reports it (vLLM picks its defaults by it, e.g. "a100"). */
  deviceName: string;
  /** Total device memory, GiB, as `nvidia-smi` / `rocm-smi` report it. */
  memoryGiB: number;
  /** Peak memory bandwidth, TB/s (1e12 bytes/s). */
  bandwidthTBps: number;
  /** Dense BF16 tensor throughput, TFLOPS (no sparsity). */
  bf16Tflops: number;
  /** Dense FP8 tensor throughput, TFLOPS; null when the GPU has no FP8 units. */
  fp8Tflops: number | null;
  /** True when the GPU can multiply in FP8 (Hopper, Ada, CDNA3); false means FP8 is weight-only. */
  fp8Units: boolean;
  interconnect: Interconnect;
}

/**
 * A decoder-only transformer, in Hugging Face `config.json` terms: dense, or with
 * mixture-of-experts MLPs (Qwen3-MoE style: `num_experts` routed experts of
 * `moe_intermediate_size`, `num_experts_per_tok` chosen per token, on the layers that
 * `decoder_sparse_step` and `mlp_only_layers` make sparse).
 */
export interface ModelSpec {
  /** Lower-case catalogue name, e.g. `llama-3.1-8b`. */
  name: string;
  /** Hugging Face repository id, for display. */
  hf_id: string;
  num_hidden_layers: number;
  hidden_size: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  /** Per-head dimension (HF `head_dim`; defaults to hidden_size / num_attention_heads). */
  head_dim: number;
  intermediate_size: number;
  vocab_size: number;
  tie_word_embeddings: boolean;
  max_position_embeddings: number;
  /** True for models that think before answering (Qwen3): the server emits a reasoning phase. */
  reasoning: boolean;
  /** HF `model_type` (`llama`, `qwen3_moe`, …), where known. */
  model_type?: string;
  /** HF `torch_dtype` of the checkpoint (`bfloat16`), for display; the simulated precision is `--dtype`. */
  torch_dtype?: string;
  /** Routed experts per MoE layer (HF `num_experts`); absent or 0 for a dense model. */
  num_experts?: number;
  /** Routed experts each token uses per MoE layer (HF `num_experts_per_tok`, top-k). */
  num_experts_per_tok?: number;
  /** Intermediate size of one routed expert's SwiGLU MLP (HF `moe_intermediate_size`). */
  moe_intermediate_size?: number;
  /**
   * Intermediate size of the shared expert every token also runs (HF Qwen2-MoE
   * `shared_expert_intermediate_size`); 0 or absent when there is none (Qwen3-MoE).
   */
  shared_expert_intermediate_size?: number;
  /** Every how many layers one is sparse (HF `decoder_sparse_step`; 1 = all). */
  decoder_sparse_step?: number;
  /** Layer indices (0-based) that keep a dense MLP of `intermediate_size` (HF `mlp_only_layers`). */
  mlp_only_layers?: number[];
}

export interface Catalogue {
  gpus: Record<string, GpuSpec>;
  models: Record<string, ModelSpec>;
}
