/**
 * @module sim/catalogue/builtin
 * The built-in GPUs and models. Every constant carries its source. Memory is what
 * `nvidia-smi --query-gpu=memory.total` (or `rocm-smi --showmeminfo vram`) reports, converted
 * to GiB, because that is the figure vLLM multiplies by `gpu_memory_utilization`.
 * TFLOPS are dense (no 2:4 sparsity) tensor-core figures.
 */
import type { GpuSpec, Interconnect, ModelSpec } from './types.js';

const MIB_PER_GIB = 1024;

/**
 * All-reduce latency per call over NVLink / Infinity Fabric, µs. Vidur's execution-time
 * predictor adds 0.02 ms to every all-reduce
 * (`microsoft/vidur:vidur/execution_time_predictor/sklearn_execution_time_predictor.py`).
 */
export const NVLINK_ALLREDUCE_LATENCY_US = 20;
/**
 * All-reduce latency per call over PCIe, µs. Assumption: without NVLink, NCCL stages small
 * messages through host memory or PCIe P2P and each call costs a few times the NVLink figure
 * (nccl-tests on PCIe boxes show tens of µs for small sizes). Override it in a catalogue file.
 */
export const PCIE_ALLREDUCE_LATENCY_US = 50;

/** PCIe Gen4 x16: 64 GB/s bidirectional = 32 GB/s per direction (PCI-SIG; L40S/L4 datasheets). */
const PCIE4: Interconnect = { kind: 'pcie', bandwidthGBps: 32, latencyUs: PCIE_ALLREDUCE_LATENCY_US };

export const BUILTIN_GPUS: Record<string, GpuSpec> = {
  h100: {
    name: 'h100',
    deviceName: 'NVIDIA H100 80GB HBM3',
    // H100 SXM5 80GB. nvidia-smi reports 81559 MiB.
    memoryGiB: 81559 / MIB_PER_GIB,
    // NVIDIA H100 Tensor Core GPU datasheet, "Technical Specifications", H100 SXM column:
    // 3.35 TB/s HBM3; BF16 1,979 and FP8 3,958 TFLOPS *with sparsity*, so 989 / 1979 dense.
    bandwidthTBps: 3.35,
    bf16Tflops: 989,
    fp8Tflops: 1979,
    fp8Units: true,
    // Same table: NVLink 900 GB/s (both directions together) = 450 GB/s per direction.
    interconnect: { kind: 'nvlink', bandwidthGBps: 450, latencyUs: NVLINK_ALLREDUCE_LATENCY_US },
  },
  h200: {
    name: 'h200',
    deviceName: 'NVIDIA H200',
    // H200 SXM 141GB. nvidia-smi reports 143771 MiB.
    memoryGiB: 143771 / MIB_PER_GIB,
    // NVIDIA H200 Tensor Core GPU datasheet, "Technical Specifications", H200 SXM column:
    // 4.8 TB/s HBM3e; BF16 1,979 and FP8 3,958 TFLOPS with sparsity (the GH100 die of the H100),
    // so 989 / 1979 dense; NVLink 900 GB/s = 450 per direction.
    bandwidthTBps: 4.8,
    bf16Tflops: 989,
    fp8Tflops: 1979,
    fp8Units: true,
    interconnect: { kind: 'nvlink', bandwidthGBps: 450, latencyUs: NVLINK_ALLREDUCE_LATENCY_US },
  },
  b200: {
    name: 'b200',
    deviceName: 'NVIDIA B200',
    // B200 SXM (HGX B200, 1000 W). nvidia-smi reports 183359 MiB (≈ 179 GiB of the 180 GB
    // HBM3e that the HGX B200 datasheet gives per GPU: 1,440 GB for 8).
    memoryGiB: 183359 / MIB_PER_GIB,
    // NVIDIA HGX B200 datasheet (nvidia.com/en-us/data-center/hgx, "HGX B200" column, 8-GPU
    // totals with sparsity): FP8 72 PFLOPS, BF16 36 PFLOPS, 64 TB/s HBM3e, so per GPU and dense:
    // FP8 4500, BF16 2250 TFLOPS, 8 TB/s. (The GB200 parts run at 1200 W and are faster.)
    bandwidthTBps: 8,
    bf16Tflops: 2250,
    fp8Tflops: 4500,
    fp8Units: true,
    // Same datasheet: NVLink 5, 1.8 TB/s per GPU (both directions) = 900 GB/s per direction.
    interconnect: { kind: 'nvlink', bandwidthGBps: 900, latencyUs: NVLINK_ALLREDUCE_LATENCY_US },
  },
  'a100-80gb': {
    name: 'a100-80gb',
    deviceName: 'NVIDIA A100-SXM4-80GB',
    // A100 SXM4 80GB. nvidia-smi reports 81920 MiB.
    memoryGiB: 81920 / MIB_PER_GIB,
    // NVIDIA A100 Tensor Core GPU datasheet, "Specifications", A100 80GB SXM column: 2,039 GB/s
    // HBM2e; BF16 312 TFLOPS dense (624 with sparsity); no FP8 units (FP8 runs weight-only via Marlin).
    bandwidthTBps: 2.039,
    bf16Tflops: 312,
    fp8Tflops: null,
    fp8Units: false,
    // Same table: NVLink 600 GB/s (both directions) = 300 GB/s per direction.
    interconnect: { kind: 'nvlink', bandwidthGBps: 300, latencyUs: NVLINK_ALLREDUCE_LATENCY_US },
  },
  'a100-40gb': {
    name: 'a100-40gb',
    deviceName: 'NVIDIA A100-SXM4-40GB',
    // A100 SXM4 40GB. nvidia-smi reports 40960 MiB.
    memoryGiB: 40960 / MIB_PER_GIB,
    // A100 datasheet, A100 40GB SXM column: 1,555 GB/s HBM2, BF16 312 TFLOPS dense, NVLink 600 GB/s.
    bandwidthTBps: 1.555,
    bf16Tflops: 312,
    fp8Tflops: null,
    fp8Units: false,
    interconnect: { kind: 'nvlink', bandwidthGBps: 300, latencyUs: NVLINK_ALLREDUCE_LATENCY_US },
  },
  l40s: {
    name: 'l40s',
    deviceName: 'NVIDIA L40S',
    // L40S 48GB (PCIe card). nvidia-smi reports 46068 MiB.
    memoryGiB: 46068 / MIB_PER_GIB,
    // NVIDIA L40S datasheet, "Technical Specifications": 864 GB/s GDDR6; BF16 362.05 | 733 and
    // FP8 733 | 1,466 TFLOPS (dense | with sparsity); PCIe Gen4 x16, no NVLink.
    bandwidthTBps: 0.864,
    bf16Tflops: 362,
    fp8Tflops: 733,
    fp8Units: true,
    interconnect: PCIE4,
  },
  l4: {
    name: 'l4',
    deviceName: 'NVIDIA L4',
    // L4 24GB (PCIe card). nvidia-smi reports 23034 MiB.
    memoryGiB: 23034 / MIB_PER_GIB,
    // NVIDIA L4 datasheet, "Specifications": 300 GB/s GDDR6; BF16 242 and FP8 485 TFLOPS *with
    // sparsity*, so 121 / 242.5 dense; PCIe Gen4 x16.
    bandwidthTBps: 0.3,
    bf16Tflops: 121,
    fp8Tflops: 242.5,
    fp8Units: true,
    interconnect: PCIE4,
  },
  rtx4090: {
    name: 'rtx4090',
    deviceName: 'NVIDIA GeForce RTX 4090',
    // GeForce RTX 4090 24GB (PCIe card). nvidia-smi reports 24564 MiB.
    memoryGiB: 24564 / MIB_PER_GIB,
    // NVIDIA Ada GPU Architecture whitepaper, Table 2 (RTX 4090 column): 1008 GB/s GDDR6X;
    // "Peak BF16 Tensor TFLOPS with FP32 Accumulate" 165.2 and "Peak FP8 Tensor TFLOPS with FP32
    // Accumulate" 330.3 dense (GeForce halves the FP32-accumulate rate; LLM kernels accumulate in FP32).
    bandwidthTBps: 1.008,
    bf16Tflops: 165,
    fp8Tflops: 330,
    fp8Units: true,
    // No NVLink and peer-to-peer disabled on GeForce: all-reduce crosses PCIe Gen4 through the host.
    interconnect: PCIE4,
  },
  mi300x: {
    name: 'mi300x',
    deviceName: 'AMD Instinct MI300X',
    // MI300X OAM 192GB. rocm-smi reports 205822885888 B VRAM = 196288 MiB.
    memoryGiB: 196288 / MIB_PER_GIB,
    // AMD Instinct MI300X data sheet, "Specifications": 5.3 TB/s HBM3; BF16 1307.4 and FP8 2614.9
    // TFLOPS dense (2614.9 / 5229.8 with sparsity).
    bandwidthTBps: 5.3,
    bf16Tflops: 1307,
    fp8Tflops: 2615,
    fp8Units: true,
    // Same data sheet: 7 Infinity Fabric links, 896 GB/s aggregate peer bandwidth; half per direction.
    interconnect: { kind: 'xgmi', bandwidthGBps: 448, latencyUs: NVLINK_ALLREDUCE_LATENCY_US },
  },
};

/**
 * Models from their Hugging Face config.json (as collected in
 * inference-sim/inference-sim:model_configs/*; Qwen3-32B from Qwen/Qwen3-32B config.json; each
 * entry added later names its file). `reasoning` is ours: whether the model thinks before it
 * answers.
 */
export const BUILTIN_MODELS: Record<string, ModelSpec> = {
  'qwen3-0.6b': {
    name: 'qwen3-0.6b',
    hf_id: 'Qwen/Qwen3-0.6B',
    num_hidden_layers: 28,
    hidden_size: 1024,
    num_attention_heads: 16,
    num_key_value_heads: 8,
    head_dim: 128,
    intermediate_size: 3072,
    vocab_size: 151936,
    tie_word_embeddings: true,
    max_position_embeddings: 40960,
    reasoning: true,
  },
  'qwen3-8b': {
    name: 'qwen3-8b',
    hf_id: 'Qwen/Qwen3-8B',
    num_hidden_layers: 36,
    hidden_size: 4096,
    num_attention_heads: 32,
    num_key_value_heads: 8,
    head_dim: 128,
    intermediate_size: 12288,
    vocab_size: 151936,
    tie_word_embeddings: false,
    max_position_embeddings: 40960,
    reasoning: true,
  },
  'qwen3-32b': {
    name: 'qwen3-32b',
    hf_id: 'Qwen/Qwen3-32B',
    num_hidden_layers: 64,
    hidden_size: 5120,
    num_attention_heads: 64,
    num_key_value_heads: 8,
    head_dim: 128,
    intermediate_size: 25600,
    vocab_size: 151936,
    tie_word_embeddings: false,
    max_position_embeddings: 40960,
    reasoning: true,
  },
  'llama-3.1-8b': {
    name: 'llama-3.1-8b',
    hf_id: 'meta-llama/Llama-3.1-8B-Instruct',
    num_hidden_layers: 32,
    hidden_size: 4096,
    num_attention_heads: 32,
    num_key_value_heads: 8,
    head_dim: 128,
    intermediate_size: 14336,
    vocab_size: 128256,
    tie_word_embeddings: false,
    max_position_embeddings: 131072,
    reasoning: false,
  },
  'llama-3.1-70b': {
    name: 'llama-3.1-70b',
    hf_id: 'meta-llama/Llama-3.1-70B-Instruct',
    num_hidden_layers: 80,
    hidden_size: 8192,
    num_attention_heads: 64,
    num_key_value_heads: 8,
    head_dim: 128,
    intermediate_size: 28672,
    vocab_size: 128256,
    tie_word_embeddings: false,
    max_position_embeddings: 131072,
    reasoning: false,
  },
  'qwen3-14b': {
    // huggingface.co/Qwen/Qwen3-14B/blob/main/config.json (Qwen3ForCausalLM, model_type qwen3)
    name: 'qwen3-14b',
    hf_id: 'Qwen/Qwen3-14B',
    model_type: 'qwen3',
    num_hidden_layers: 40,
    hidden_size: 5120,
    num_attention_heads: 40,
    num_key_value_heads: 8,
    head_dim: 128,
    intermediate_size: 17408,
    vocab_size: 151936,
    tie_word_embeddings: false,
    max_position_embeddings: 40960,
    reasoning: true,
  },
  'qwen3-30b-a3b': {
    // huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json (Qwen3MoeForCausalLM, model_type
    // qwen3_moe): 128 routed experts of 768, top-8, no shared expert, every layer sparse
    // (decoder_sparse_step 1, mlp_only_layers []). intermediate_size 6144 would size a dense MLP
    // layer, of which this model has none. 30.5B total, 3.3B activated (model card).
    name: 'qwen3-30b-a3b',
    hf_id: 'Qwen/Qwen3-30B-A3B',
    model_type: 'qwen3_moe',
    num_hidden_layers: 48,
    hidden_size: 2048,
    num_attention_heads: 32,
    num_key_value_heads: 4,
    head_dim: 128,
    intermediate_size: 6144,
    vocab_size: 151936,
    tie_word_embeddings: false,
    max_position_embeddings: 40960,
    reasoning: true,
    num_experts: 128,
    num_experts_per_tok: 8,
    moe_intermediate_size: 768,
    shared_expert_intermediate_size: 0,
    decoder_sparse_step: 1,
    mlp_only_layers: [],
  },
  'deepseek-r1-distill-llama-8b': {
    // huggingface.co/deepseek-ai/DeepSeek-R1-Distill-Llama-8B/blob/main/config.json
    // (LlamaForCausalLM, model_type llama; the Llama-3.1-8B shapes, no head_dim field: 4096/32).
    name: 'deepseek-r1-distill-llama-8b',
    hf_id: 'deepseek-ai/DeepSeek-R1-Distill-Llama-8B',
    model_type: 'llama',
    num_hidden_layers: 32,
    hidden_size: 4096,
    num_attention_heads: 32,
    num_key_value_heads: 8,
    head_dim: 128,
    intermediate_size: 14336,
    vocab_size: 128256,
    tie_word_embeddings: false,
    max_position_embeddings: 131072,
    // R1 distills answer after a <think> block.
    reasoning: true,
  },
  'llama-3.3-70b': {
    // huggingface.co/meta-llama/Llama-3.3-70B-Instruct/blob/main/config.json (LlamaForCausalLM,
    // model_type llama; the Llama-3.1-70B shapes).
    name: 'llama-3.3-70b',
    hf_id: 'meta-llama/Llama-3.3-70B-Instruct',
    model_type: 'llama',
    num_hidden_layers: 80,
    hidden_size: 8192,
    num_attention_heads: 64,
    num_key_value_heads: 8,
    head_dim: 128,
    intermediate_size: 28672,
    vocab_size: 128256,
    tie_word_embeddings: false,
    max_position_embeddings: 131072,
    reasoning: false,
  },
  // The models of the fit data (`../shared/fit-data/`, issue 26), from their public config.json.
  'llama-2-7b': {
    // huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json (LlamaForCausalLM, model_type
    // llama): multi-head attention (num_key_value_heads 32 = heads), 4k context, 32k vocabulary.
    name: 'llama-2-7b',
    hf_id: 'meta-llama/Llama-2-7b-hf',
    model_type: 'llama',
    torch_dtype: 'float16',
    num_hidden_layers: 32,
    hidden_size: 4096,
    num_attention_heads: 32,
    num_key_value_heads: 32,
    head_dim: 128,
    intermediate_size: 11008,
    vocab_size: 32000,
    tie_word_embeddings: false,
    max_position_embeddings: 4096,
    reasoning: false,
  },
  'qwen2.5-7b': {
    // huggingface.co/Qwen/Qwen2.5-7B-Instruct/blob/main/config.json (Qwen2ForCausalLM, model_type
    // qwen2; no head_dim field: 3584 / 28 = 128).
    name: 'qwen2.5-7b',
    hf_id: 'Qwen/Qwen2.5-7B-Instruct',
    model_type: 'qwen2',
    torch_dtype: 'bfloat16',
    num_hidden_layers: 28,
    hidden_size: 3584,
    num_attention_heads: 28,
    num_key_value_heads: 4,
    head_dim: 128,
    intermediate_size: 18944,
    vocab_size: 152064,
    tie_word_embeddings: false,
    max_position_embeddings: 32768,
    reasoning: false,
  },
  'mistral-nemo-12b': {
    // huggingface.co/mistralai/Mistral-Nemo-Instruct-2407/blob/main/config.json
    // (MistralForCausalLM, model_type mistral): head_dim 128 is given (32 × 128 = 4096 < 5120).
    name: 'mistral-nemo-12b',
    hf_id: 'mistralai/Mistral-Nemo-Instruct-2407',
    model_type: 'mistral',
    torch_dtype: 'bfloat16',
    num_hidden_layers: 40,
    hidden_size: 5120,
    num_attention_heads: 32,
    num_key_value_heads: 8,
    head_dim: 128,
    intermediate_size: 14336,
    vocab_size: 131072,
    tie_word_embeddings: false,
    max_position_embeddings: 1024000,
    reasoning: false,
  },
  'yi-34b': {
    // huggingface.co/01-ai/Yi-34B/blob/main/config.json, as collected in
    // inference-sim/inference-sim:model_configs/yi-34b/config.json @ 64e43c88 (LlamaForCausalLM;
    // 7168 / 56 = 128 per head).
    name: 'yi-34b',
    hf_id: '01-ai/Yi-34B',
    model_type: 'llama',
    torch_dtype: 'bfloat16',
    num_hidden_layers: 60,
    hidden_size: 7168,
    num_attention_heads: 56,
    num_key_value_heads: 8,
    head_dim: 128,
    intermediate_size: 20480,
    vocab_size: 64000,
    tie_word_embeddings: false,
    max_position_embeddings: 4096,
    reasoning: false,
  },
  'llama-4-scout-17b-16e': {
    // huggingface.co/RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic/blob/main/config.json
    // (the FP8 checkpoint of meta-llama/Llama-4-Scout-17B-16E-Instruct; Llama4ForConditionalGeneration,
    // text_config model_type llama4_text). Text model only: 48 layers, every one MoE
    // (interleave_moe_layer_step 1), 16 routed experts of 8192 (intermediate_size), top-1, plus
    // one shared expert of the same size (vLLM `llama4.py`, `Llama4MoE.shared_expert`);
    // intermediate_size_mlp 16384 sizes a dense layer, of which Scout has none. Simulate with
    // `--dtype fp8`. 109B total, 17B activated (model card).
    name: 'llama-4-scout-17b-16e',
    hf_id: 'RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic',
    model_type: 'llama4_text',
    torch_dtype: 'bfloat16',
    num_hidden_layers: 48,
    hidden_size: 5120,
    num_attention_heads: 40,
    num_key_value_heads: 8,
    head_dim: 128,
    intermediate_size: 16384,
    vocab_size: 202048,
    tie_word_embeddings: false,
    max_position_embeddings: 10485760,
    reasoning: false,
    num_experts: 16,
    num_experts_per_tok: 1,
    moe_intermediate_size: 8192,
    shared_expert_intermediate_size: 8192,
    decoder_sparse_step: 1,
    mlp_only_layers: [],
  },
};
