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
    // nvidia-smi reports 81559 MiB on H100 SXM5 80GB.
    memoryGiB: 81559 / MIB_PER_GIB,
    // H100 SXM datasheet: 3.35 TB/s HBM3, 989 BF16 / 1979 FP8 dense TFLOPS (BLIS hardware_config.json).
    bandwidthTBps: 3.35,
    bf16Tflops: 989,
    fp8Tflops: 1979,
    fp8Units: true,
    // NVLink 4: 900 GB/s total bidirectional per GPU = 450 GB/s per direction (H100 datasheet).
    interconnect: { kind: 'nvlink', bandwidthGBps: 450, latencyUs: NVLINK_ALLREDUCE_LATENCY_US },
  },
  h200: {
    name: 'h200',
    deviceName: 'NVIDIA H200',
    // nvidia-smi reports 143771 MiB on H200 SXM 141GB.
    memoryGiB: 143771 / MIB_PER_GIB,
    // H200 datasheet: 4.8 TB/s HBM3e; same GH100 die as H100 so 989 / 1979 TFLOPS.
    bandwidthTBps: 4.8,
    bf16Tflops: 989,
    fp8Tflops: 1979,
    fp8Units: true,
    interconnect: { kind: 'nvlink', bandwidthGBps: 450, latencyUs: NVLINK_ALLREDUCE_LATENCY_US },
  },
  'a100-80gb': {
    name: 'a100-80gb',
    deviceName: 'NVIDIA A100-SXM4-80GB',
    // nvidia-smi reports 81920 MiB on A100 SXM4 80GB.
    memoryGiB: 81920 / MIB_PER_GIB,
    // A100 datasheet / BLIS: 2.039 TB/s HBM2e, 312 BF16 TFLOPS, no FP8 units (FP8 runs weight-only via Marlin).
    bandwidthTBps: 2.039,
    bf16Tflops: 312,
    fp8Tflops: null,
    fp8Units: false,
    // NVLink 3: 600 GB/s bidirectional = 300 GB/s per direction (A100 datasheet).
    interconnect: { kind: 'nvlink', bandwidthGBps: 300, latencyUs: NVLINK_ALLREDUCE_LATENCY_US },
  },
  'a100-40gb': {
    name: 'a100-40gb',
    deviceName: 'NVIDIA A100-SXM4-40GB',
    // nvidia-smi reports 40960 MiB on A100 SXM4 40GB.
    memoryGiB: 40960 / MIB_PER_GIB,
    // A100 40GB datasheet: 1.555 TB/s HBM2, 312 BF16 TFLOPS.
    bandwidthTBps: 1.555,
    bf16Tflops: 312,
    fp8Tflops: null,
    fp8Units: false,
    interconnect: { kind: 'nvlink', bandwidthGBps: 300, latencyUs: NVLINK_ALLREDUCE_LATENCY_US },
  },
  l40s: {
    name: 'l40s',
    deviceName: 'NVIDIA L40S',
    // nvidia-smi reports 46068 MiB on L40S 48GB.
    memoryGiB: 46068 / MIB_PER_GIB,
    // L40S datasheet / BLIS: 864 GB/s GDDR6, 362 BF16 / 733 FP8 dense TFLOPS.
    bandwidthTBps: 0.864,
    bf16Tflops: 362,
    fp8Tflops: 733,
    fp8Units: true,
    interconnect: PCIE4,
  },
  l4: {
    name: 'l4',
    deviceName: 'NVIDIA L4',
    // nvidia-smi reports 23034 MiB on L4 24GB.
    memoryGiB: 23034 / MIB_PER_GIB,
    // L4 datasheet: 300 GB/s; 242 BF16 / 485 FP8 TFLOPS *with sparsity*, so 121 / 242 dense.
    bandwidthTBps: 0.3,
    bf16Tflops: 121,
    fp8Tflops: 242,
    fp8Units: true,
    interconnect: PCIE4,
  },
  rtx4090: {
    name: 'rtx4090',
    deviceName: 'NVIDIA GeForce RTX 4090',
    // nvidia-smi reports 24564 MiB on RTX 4090 24GB.
    memoryGiB: 24564 / MIB_PER_GIB,
    // Ada whitepaper: 1008 GB/s GDDR6X; 165 BF16 TFLOPS with FP32 accumulate, 330 FP8.
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
    // rocm-smi reports 205822885888 B VRAM = 196288 MiB on MI300X 192GB.
    memoryGiB: 196288 / MIB_PER_GIB,
    // AMD MI300X datasheet: 5.3 TB/s HBM3, 1307 BF16 / 2615 FP8 dense TFLOPS.
    bandwidthTBps: 5.3,
    bf16Tflops: 1307,
    fp8Tflops: 2615,
    fp8Units: true,
    // AMD datasheet: 896 GB/s aggregate Infinity Fabric (7 links); half of it per direction.
    interconnect: { kind: 'xgmi', bandwidthGBps: 448, latencyUs: NVLINK_ALLREDUCE_LATENCY_US },
  },
};

/**
 * Models from their Hugging Face config.json (as collected in
 * inference-sim/inference-sim:model_configs/*; Qwen3-32B from Qwen/Qwen3-32B config.json).
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
};
