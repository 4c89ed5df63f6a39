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

/** A dense decoder-only transformer, in Hugging Face `config.json` terms. */
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
}

export interface Catalogue {
  gpus: Record<string, GpuSpec>;
  models: Record<string, ModelSpec>;
}
