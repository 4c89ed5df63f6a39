/**
 * @module report/source-map
 * Where each diagnosis rule's mechanism and each experiment kind's subject live in each engine's
 * source, so a learner can check an explanation against the code (the write-up's 源码发现
 * section). Rows are organised by the four objects the course names (service entry, request
 * state, scheduler, execution backend) plus the KV / prefix cache.
 *
 * Every engine row was read in the engine's public repository at the commit it names (the
 * commit of the copy that was read; see docs/source-map.md for how, and for what could not be
 * verified). The `servelab-sim` rows point into this tree, and `test/report/source-map.test.ts`
 * reads those files to check that each path and exported symbol exists. The table in
 * docs/source-map.md is generated from these rows by {@link sourceMapMarkdown}.
 */
import type { MessageKey, T } from '../i18n/index.js';

/** The engines the map covers; `servelab-sim` is this repository's simulator (`src/sim/`). */
export const SOURCE_ENGINES = ['vllm', 'sglang', 'llamacpp', 'servelab-sim'] as const;
export type SourceEngine = (typeof SOURCE_ENGINES)[number];

/** The course's four objects, plus the KV / prefix cache, in reading order. */
export const SOURCE_OBJECTS = ['entry', 'request-state', 'scheduler', 'kv-cache', 'executor'] as const;
export type SourceObject = (typeof SOURCE_OBJECTS)[number];

/** One place in one engine's source. */
export interface SourceRow {
  engine: SourceEngine;
  object: SourceObject;
  /** Diagnosis rule ids (`analysis/diagnose/rules`) whose mechanism this code is. */
  rules: readonly string[];
  /** Experiment kinds (`exp/kinds`) whose subject this code is. */
  kinds: readonly string[];
  /** Path in the engine's repository (this repository for `servelab-sim`). */
  path: string;
  /** The class, method (`Class.method`) or function to read. */
  symbol: string;
  /** The commit the row was checked at; {@link THIS_TREE} for `servelab-sim`. */
  version: string;
  /** Catalogue key of the one-sentence note: what to look at there. */
  note_key: MessageKey;
}

/** The version of `servelab-sim` rows: this tree, checked by the test on every run. */
export const THIS_TREE = 'this tree';

/** The public repository of each engine. */
export const ENGINE_REPOS: Record<Exclude<SourceEngine, 'servelab-sim'>, string> = {
  vllm: 'vllm-project/vllm',
  sglang: 'sgl-project/sglang',
  llamacpp: 'ggml-org/llama.cpp',
};

type Row = SourceRow;
const row = (
  engine: SourceEngine,
  object: SourceObject,
  path: string,
  symbol: string,
  version: string,
  rules: readonly string[],
  kinds: readonly string[],
  note_key: MessageKey,
): Row => ({ engine, object, rules, kinds, path, symbol, version, note_key });

// Commits the vLLM rows were read at (vllm-project/vllm).
const V_CHAT = '006c49d485f9ca479bf4989cbb694d0ac02f44b5';
const V_ENGINE = '00080ee13c7a451fce071ccb8d0e94d395acf5a7'; // async_llm.py and core.py
const V_REQUEST = '000a0d5f815c83fce16461cd5ea4a3a6944260b1';
const V_SCHED = '00024d314514900f361ad072af6931e403b7f589';
const V_SCHED_UTILS = '018d5dc78efa9af8a03457451b6f27d56bf3b9c2';
const V_KVM = '003df2961dd8830c317a61f9745ccd557da9fa06';
const V_WORKER = '0012cf691b7e69423244d2b1405f4b6832156e19'; // gpu_worker.py, and the runner it calls
const V_COMM = '00ff72f20cb52d1a47b4623d8f17b723a0ada076';
const V_QUANT = '0034007debee2a009e030804f2cde7953aff78c6';
const V_SO = '00b6063f3bf6d7e482bd17c0c93d291c02c3db08';
const V_LOGGERS = '005a810bc40faa25b8870fbc8559c3462581eee3';
const V_STT = '0cca7f62a7df0c576cc632a196f9fbd3ac1b06dd'; // speech_to_text/protocol.py
const V_EAGLE = 'f7eef1b6987f4780fe8636077682936fe075aa2f'; // spec_decode/eagle.py

const VLLM: Row[] = [
  row(
    'vllm',
    'entry',
    'vllm/entrypoints/openai/chat_completion/serving.py',
    'OpenAIServingChat.create_chat_completion',
    V_CHAT,
    ['high_ttft_frontend'],
    ['baseline'],
    'source.vllm.create_chat_completion',
  ),
  row(
    'vllm',
    'entry',
    'vllm/entrypoints/openai/speech_to_text/protocol.py',
    'TranscriptionStreamResponse',
    V_STT,
    [],
    ['voice'],
    'voice.source.vllm_transcription',
  ),
  row(
    'vllm',
    'entry',
    'vllm/v1/engine/async_llm.py',
    'AsyncLLM.generate',
    V_ENGINE,
    ['high_ttft_frontend'],
    ['baseline'],
    'source.vllm.generate',
  ),
  row(
    'vllm',
    'entry',
    'vllm/v1/engine/async_llm.py',
    'AsyncLLM._run_output_handler',
    V_ENGINE,
    ['stall_client', 'client_limit'],
    ['concurrency-sweep', 'rate-sweep'],
    'source.vllm.output_handler',
  ),
  row(
    'vllm',
    'entry',
    'vllm/v1/metrics/loggers.py',
    'PrometheusStatLogger.record',
    V_LOGGERS,
    ['high_ttft_queueing', 'kv_pressure', 'client_limit'],
    ['concurrency-sweep', 'rate-sweep'],
    'source.vllm.prometheus',
  ),
  row(
    'vllm',
    'request-state',
    'vllm/v1/request.py',
    'RequestStatus',
    V_REQUEST,
    ['stall_preemption', 'truncation'],
    ['baseline'],
    'source.vllm.request_status',
  ),
  row(
    'vllm',
    'scheduler',
    'vllm/v1/core/sched/scheduler.py',
    'Scheduler.schedule',
    V_SCHED,
    ['high_ttft_queueing', 'high_ttft_prefill', 'stall_prefill_interference', 'kv_pressure'],
    ['concurrency-sweep', 'rate-sweep', 'mixed-input'],
    'source.vllm.schedule',
  ),
  row(
    'vllm',
    'scheduler',
    'vllm/v1/core/sched/scheduler.py',
    'Scheduler._preempt_request',
    V_SCHED,
    ['stall_preemption', 'kv_pressure'],
    ['concurrency-sweep', 'ab'],
    'source.vllm.preempt',
  ),
  row(
    'vllm',
    'scheduler',
    'vllm/v1/core/sched/scheduler.py',
    'Scheduler.update_from_output',
    V_SCHED,
    ['truncation'],
    ['calibration'],
    'source.vllm.update_from_output',
  ),
  row(
    'vllm',
    'scheduler',
    'vllm/v1/core/sched/utils.py',
    'check_stop',
    V_SCHED_UTILS,
    ['truncation'],
    ['baseline'],
    'source.vllm.check_stop',
  ),
  row(
    'vllm',
    'scheduler',
    'vllm/v1/structured_output/__init__.py',
    'StructuredOutputManager.grammar_bitmask',
    V_SO,
    ['truncation'],
    [],
    'source.vllm.grammar_bitmask',
  ),
  row(
    'vllm',
    'kv-cache',
    'vllm/v1/core/kv_cache_manager.py',
    'KVCacheManager.get_computed_blocks',
    V_KVM,
    [],
    ['prefix-cache', 'team-assistant'],
    'source.vllm.get_computed_blocks',
  ),
  row(
    'vllm',
    'kv-cache',
    'vllm/v1/core/kv_cache_manager.py',
    'KVCacheManager.allocate_slots',
    V_KVM,
    ['kv_pressure', 'stall_preemption'],
    ['concurrency-sweep', 'ab'],
    'source.vllm.allocate_slots',
  ),
  row(
    'vllm',
    'kv-cache',
    'vllm/v1/worker/gpu_worker.py',
    'Worker.determine_available_memory',
    V_WORKER,
    ['kv_pressure'],
    ['ab'],
    'source.vllm.available_memory',
  ),
  row(
    'vllm',
    'executor',
    'vllm/v1/engine/core.py',
    'EngineCore.step',
    V_ENGINE,
    ['stall_batch_growth'],
    ['calibration', 'matrix'],
    'source.vllm.engine_step',
  ),
  row(
    'vllm',
    'executor',
    'vllm/v1/worker/gpu_worker.py',
    'Worker.compile_or_warm_up_model',
    V_WORKER,
    ['cold_start'],
    ['baseline'],
    'source.vllm.warm_up',
  ),
  row(
    'vllm',
    'executor',
    'vllm/v1/worker/gpu_model_runner.py',
    'GPUModelRunner.execute_model',
    V_WORKER,
    ['high_ttft_prefill', 'stall_batch_growth'],
    ['matrix', 'calibration'],
    'source.vllm.execute_model',
  ),
  row(
    'vllm',
    'executor',
    'vllm/distributed/communication_op.py',
    'tensor_model_parallel_all_reduce',
    V_COMM,
    ['multi_gpu_slower'],
    ['ab'],
    'source.vllm.all_reduce',
  ),
  row(
    'vllm',
    'executor',
    'vllm/model_executor/layers/quantization/__init__.py',
    'get_quantization_config',
    V_QUANT,
    ['quantised_slower'],
    ['ab', 'matrix'],
    'source.vllm.quant_config',
  ),
  row(
    'vllm',
    'executor',
    'vllm/v1/spec_decode/eagle.py',
    'EagleProposer.propose',
    V_EAGLE,
    [],
    ['ab'],
    'source.vllm.eagle_propose',
  ),
];

// Commits the SGLang rows were read at (sgl-project/sglang).
const S_HTTP = '0025436eab0556737d615b36a4dd3e1e26e82f3d';
const S_CHAT = '002897c23becbd522d88b8115a763a21765f978a';
const S_TOKENIZER = '001067fffe33427bee0ed2f007fb7551a1d76b44';
const S_BATCH = '000eaffacf048e51b64d4d72985ef8f0b7054b39';
const S_SCHED = '0003215cf1464f44b389cd0b18d0b4c56f2a3da6';
const S_POLICY = '00550cd11b35def9d584bf761a1e32729c20a21d';
const S_RADIX = '006b0e3d317f1cd4a7300e919a4eaa878b1947e7';
const S_TP = '0045f98eb3b122ae69e82722b3e0ff5392547f7a';
const S_GRAPH = '0021673cd18b64f44373950249ff07177e493b4b';
const S_COMM = '004e5fa6f2b7c26635fdbf0883bff7d440f12160';
const S_QUANT = '0116a682fcad45950388dc51d67a4f78721c00fa';
const S_METRICS = '00ae9c1590d2d0bb6c0bfff39e312c34ae3dd538';
const S_EAGLE = 'fba8eccd7ebe41bbdbf70ab3b6a2df1835f8b532'; // speculative/eagle_worker.py

const SGLANG: Row[] = [
  row(
    'sglang',
    'entry',
    'python/sglang/srt/entrypoints/http_server.py',
    'launch_server',
    S_HTTP,
    [],
    ['baseline'],
    'source.sglang.launch_server',
  ),
  row(
    'sglang',
    'entry',
    'python/sglang/srt/entrypoints/http_server.py',
    '_execute_server_warmup',
    S_HTTP,
    ['cold_start'],
    ['baseline'],
    'source.sglang.server_warmup',
  ),
  row(
    'sglang',
    'entry',
    'python/sglang/srt/entrypoints/openai/serving_chat.py',
    'OpenAIServingChat',
    S_CHAT,
    ['high_ttft_frontend'],
    ['baseline'],
    'source.sglang.serving_chat',
  ),
  row(
    'sglang',
    'entry',
    'python/sglang/srt/entrypoints/openai/serving_chat.py',
    'OpenAIServingChat._generate_stream_content',
    S_CHAT,
    ['stall_client', 'client_limit'],
    ['concurrency-sweep', 'rate-sweep', 'voice'],
    'source.sglang.stream_content',
  ),
  row(
    'sglang',
    'entry',
    'python/sglang/srt/managers/tokenizer_manager.py',
    'TokenizerManager.generate_request',
    S_TOKENIZER,
    ['high_ttft_frontend'],
    ['baseline'],
    'source.sglang.generate_request',
  ),
  row(
    'sglang',
    'request-state',
    'python/sglang/srt/managers/schedule_batch.py',
    'Req.check_finished',
    S_BATCH,
    ['truncation'],
    ['baseline'],
    'source.sglang.check_finished',
  ),
  row(
    'sglang',
    'scheduler',
    'python/sglang/srt/managers/scheduler.py',
    'Scheduler.event_loop_normal',
    S_SCHED,
    ['high_ttft_queueing', 'stall_prefill_interference', 'stall_batch_growth'],
    ['concurrency-sweep', 'rate-sweep', 'calibration'],
    'source.sglang.event_loop',
  ),
  row(
    'sglang',
    'scheduler',
    'python/sglang/srt/managers/schedule_policy.py',
    'PrefillAdder',
    S_POLICY,
    ['high_ttft_prefill', 'high_ttft_queueing', 'stall_prefill_interference'],
    ['mixed-input', 'concurrency-sweep'],
    'source.sglang.prefill_adder',
  ),
  row(
    'sglang',
    'scheduler',
    'python/sglang/srt/managers/schedule_policy.py',
    'SchedulePolicy.calc_priority',
    S_POLICY,
    [],
    ['prefix-cache'],
    'source.sglang.calc_priority',
  ),
  row(
    'sglang',
    'scheduler',
    'python/sglang/srt/managers/schedule_batch.py',
    'ScheduleBatch.retract_decode',
    S_BATCH,
    ['stall_preemption', 'kv_pressure'],
    ['concurrency-sweep', 'ab'],
    'source.sglang.retract_decode',
  ),
  row(
    'sglang',
    'scheduler',
    'python/sglang/srt/metrics/collector.py',
    'SchedulerMetricsCollector',
    S_METRICS,
    ['high_ttft_queueing', 'kv_pressure', 'client_limit'],
    ['concurrency-sweep', 'rate-sweep'],
    'source.sglang.metrics',
  ),
  row(
    'sglang',
    'kv-cache',
    'python/sglang/srt/mem_cache/radix_cache.py',
    'RadixCache.match_prefix',
    S_RADIX,
    [],
    ['prefix-cache', 'team-assistant'],
    'source.sglang.match_prefix',
  ),
  row(
    'sglang',
    'kv-cache',
    'python/sglang/srt/mem_cache/radix_cache.py',
    'RadixCache.evict',
    S_RADIX,
    ['kv_pressure'],
    ['prefix-cache', 'concurrency-sweep'],
    'source.sglang.evict',
  ),
  row(
    'sglang',
    'executor',
    'python/sglang/srt/managers/tp_worker.py',
    'TpModelWorker.forward_batch_generation',
    S_TP,
    ['high_ttft_prefill', 'stall_batch_growth'],
    ['matrix', 'calibration'],
    'source.sglang.forward_batch_generation',
  ),
  row(
    'sglang',
    'executor',
    'python/sglang/srt/model_executor/cuda_graph_runner.py',
    'CudaGraphRunner.capture',
    S_GRAPH,
    ['cold_start', 'stall_batch_growth'],
    ['baseline'],
    'source.sglang.cuda_graph_capture',
  ),
  row(
    'sglang',
    'executor',
    'python/sglang/srt/distributed/communication_op.py',
    'tensor_model_parallel_all_reduce',
    S_COMM,
    ['multi_gpu_slower'],
    ['ab'],
    'source.sglang.all_reduce',
  ),
  row(
    'sglang',
    'executor',
    'python/sglang/srt/layers/quantization/__init__.py',
    'get_quantization_config',
    S_QUANT,
    ['quantised_slower'],
    ['ab', 'matrix'],
    'source.sglang.quant_config',
  ),
  row(
    'sglang',
    'executor',
    'python/sglang/srt/speculative/eagle_worker.py',
    'EAGLEWorker.verify',
    S_EAGLE,
    [],
    ['ab'],
    'source.sglang.eagle_verify',
  ),
];

// Commits the llama.cpp rows were read at (ggml-org/llama.cpp).
const L_SERVER = '00dd0816129a5210351c78bb90e0828f8eb69f99';
const L_COMMON_SRV = '006639c3ff51a3dbde5f52ebf4c5a55ad5306caf';
const L_COMMON = '00758e06b449b7a216dce657223ab6048def0e93';
const L_CONTEXT_SRV = '001d906a6d86e2490e394361e7cc6f478b100088';
const L_KV = '3514e9f6e795d3b3cd88d6614f6c07e7ce6f916f';
const L_CONTEXT = '4c7103b96d720ea6057eec6ac11a49727f9ecd43';
const L_CUDA = '00108827d87949b538ad1821f81a6b111827fcda';
const L_TASK = '17f5f8a80d8ac9c18c23ecb2321640daeec77096'; // server-task.cpp

const LLAMACPP: Row[] = [
  row(
    'llamacpp',
    'entry',
    'tools/server/server.cpp',
    'llama_server',
    L_SERVER,
    [],
    ['baseline'],
    'source.llamacpp.server_main',
  ),
  row(
    'llamacpp',
    'entry',
    'tools/server/server-common.cpp',
    'oaicompat_chat_params_parse',
    L_COMMON_SRV,
    ['high_ttft_frontend'],
    ['baseline'],
    'source.llamacpp.chat_params',
  ),
  row(
    'llamacpp',
    'entry',
    'tools/server/server-context.cpp',
    'send_partial_response',
    L_CONTEXT_SRV,
    ['stall_client', 'client_limit'],
    ['rate-sweep'],
    'source.llamacpp.send_partial_response',
  ),
  row(
    'llamacpp',
    'request-state',
    'tools/server/server-context.cpp',
    'server_slot',
    L_CONTEXT_SRV,
    ['kv_pressure'],
    ['concurrency-sweep'],
    'source.llamacpp.server_slot',
  ),
  row(
    'llamacpp',
    'request-state',
    'tools/server/server-context.cpp',
    'process_token',
    L_CONTEXT_SRV,
    ['truncation'],
    ['baseline', 'voice'],
    'source.llamacpp.process_token',
  ),
  row(
    'llamacpp',
    'scheduler',
    'tools/server/server-context.cpp',
    'process_single_task',
    L_CONTEXT_SRV,
    ['high_ttft_queueing', 'stall_preemption', 'client_limit'],
    ['concurrency-sweep', 'rate-sweep'],
    'source.llamacpp.process_single_task',
  ),
  row(
    'llamacpp',
    'scheduler',
    'tools/server/server-context.cpp',
    'update_slots',
    L_CONTEXT_SRV,
    ['high_ttft_prefill', 'stall_prefill_interference', 'stall_batch_growth'],
    ['mixed-input', 'calibration', 'matrix'],
    'source.llamacpp.update_slots',
  ),
  row(
    'llamacpp',
    'kv-cache',
    'tools/server/server-context.cpp',
    'get_available_slot',
    L_CONTEXT_SRV,
    [],
    ['prefix-cache', 'team-assistant'],
    'source.llamacpp.get_available_slot',
  ),
  row(
    'llamacpp',
    'kv-cache',
    'tools/server/server-task.h',
    'server_prompt_cache::load',
    L_COMMON_SRV,
    [],
    ['prefix-cache', 'team-assistant'],
    'source.llamacpp.prompt_cache',
  ),
  row(
    'llamacpp',
    'kv-cache',
    'src/llama-kv-cache.cpp',
    'llama_kv_cache::find_slot',
    L_KV,
    ['kv_pressure'],
    ['concurrency-sweep'],
    'source.llamacpp.find_slot',
  ),
  row(
    'llamacpp',
    'kv-cache',
    'src/llama-kv-cache.cpp',
    'llama_kv_cache::get_n_kv',
    L_KV,
    ['stall_batch_growth'],
    [],
    'source.llamacpp.get_n_kv',
  ),
  row(
    'llamacpp',
    'executor',
    'common/common.cpp',
    'common_init_from_params',
    L_COMMON,
    ['cold_start'],
    ['baseline'],
    'source.llamacpp.warmup',
  ),
  row(
    'llamacpp',
    'executor',
    'src/llama-context.cpp',
    'llama_context::decode',
    L_CONTEXT,
    ['high_ttft_prefill', 'kv_pressure', 'stall_batch_growth'],
    ['matrix', 'calibration'],
    'source.llamacpp.decode',
  ),
  row(
    'llamacpp',
    'executor',
    'ggml/src/ggml-cuda/ggml-cuda.cu',
    'ggml_cuda_mul_mat',
    L_CUDA,
    ['quantised_slower'],
    ['ab', 'matrix'],
    'source.llamacpp.mul_mat',
  ),
  row(
    'llamacpp',
    'executor',
    'common/common.cpp',
    'common_model_params_to_llama',
    L_COMMON,
    ['multi_gpu_slower'],
    ['ab'],
    'source.llamacpp.split_params',
  ),
  row(
    'llamacpp',
    'entry',
    'tools/server/server-task.cpp',
    'result_timings::to_json',
    L_TASK,
    [],
    ['ab'],
    'source.llamacpp.timings',
  ),
];

const SIM: Row[] = [
  row(
    'servelab-sim',
    'entry',
    'src/sim/server/audio.ts',
    'SimAudio.transcribe',
    THIS_TREE,
    [],
    ['voice'],
    'voice.source.sim_audio',
  ),
  row(
    'servelab-sim',
    'scheduler',
    'src/sim/server/audio.ts',
    'AsrDevice.reserve',
    THIS_TREE,
    [],
    ['voice'],
    'voice.source.sim_asr_device',
  ),
  row(
    'servelab-sim',
    'entry',
    'src/sim/server/server.ts',
    'createSimHandler',
    THIS_TREE,
    [],
    ['baseline'],
    'source.sim.handler',
  ),
  row(
    'servelab-sim',
    'entry',
    'src/sim/frontend.ts',
    'ApiServerQueue',
    THIS_TREE,
    ['high_ttft_frontend'],
    ['baseline', 'calibration'],
    'source.sim.api_server_queue',
  ),
  row(
    'servelab-sim',
    'entry',
    'src/sim/server/requests.ts',
    'applyChatTemplate',
    THIS_TREE,
    ['high_ttft_frontend'],
    ['baseline'],
    'source.sim.chat_template',
  ),
  row(
    'servelab-sim',
    'entry',
    'src/sim/engine/realtime-driver.ts',
    'RealTimeDriver',
    THIS_TREE,
    ['stall_client', 'client_limit'],
    ['concurrency-sweep', 'rate-sweep'],
    'source.sim.driver',
  ),
  row(
    'servelab-sim',
    'entry',
    'src/sim/server/metrics.ts',
    'SimMetrics',
    THIS_TREE,
    ['high_ttft_queueing', 'kv_pressure', 'client_limit'],
    ['concurrency-sweep', 'rate-sweep'],
    'source.sim.metrics',
  ),
  row(
    'servelab-sim',
    'request-state',
    'src/sim/engine/request.ts',
    'EngineReq',
    THIS_TREE,
    ['truncation', 'stall_preemption'],
    ['baseline'],
    'source.sim.engine_req',
  ),
  row(
    'servelab-sim',
    'scheduler',
    'src/sim/engine/policies/vllm-v1.ts',
    'VllmV1Scheduler.schedule',
    THIS_TREE,
    ['high_ttft_queueing', 'high_ttft_prefill', 'stall_prefill_interference'],
    ['concurrency-sweep', 'rate-sweep', 'mixed-input'],
    'source.sim.vllm_v1_schedule',
  ),
  row(
    'servelab-sim',
    'scheduler',
    'src/sim/engine/policies/sglang.ts',
    'SglangScheduler.schedule',
    THIS_TREE,
    ['high_ttft_queueing', 'high_ttft_prefill', 'stall_prefill_interference'],
    ['mixed-input', 'prefix-cache'],
    'source.sim.sglang_schedule',
  ),
  row(
    'servelab-sim',
    'scheduler',
    'src/sim/engine/policies/policy.ts',
    'preemptRecompute',
    THIS_TREE,
    ['stall_preemption', 'kv_pressure'],
    ['concurrency-sweep', 'ab'],
    'source.sim.preempt',
  ),
  row(
    'servelab-sim',
    'kv-cache',
    'src/sim/engine/kv-cache.ts',
    'KvCacheManager',
    THIS_TREE,
    ['kv_pressure'],
    ['prefix-cache', 'concurrency-sweep', 'ab', 'team-assistant'],
    'source.sim.kv_cache_manager',
  ),
  row(
    'servelab-sim',
    'kv-cache',
    'src/sim/engine/radix-cache.ts',
    'RadixCache',
    THIS_TREE,
    ['kv_pressure'],
    ['prefix-cache'],
    'source.sim.radix_cache',
  ),
  row(
    'servelab-sim',
    'executor',
    'src/sim/engine/engine.ts',
    'EngineCore',
    THIS_TREE,
    ['cold_start', 'stall_batch_growth'],
    ['baseline', 'matrix', 'calibration'],
    'source.sim.engine_core',
  ),
  row(
    'servelab-sim',
    'executor',
    'src/sim/engine/cost.ts',
    'CostModel',
    THIS_TREE,
    ['high_ttft_prefill', 'stall_batch_growth', 'quantised_slower', 'multi_gpu_slower'],
    ['matrix', 'ab', 'calibration'],
    'source.sim.cost_model',
  ),
  row(
    'servelab-sim',
    'executor',
    'src/sim/calibrate/fit.ts',
    'calibrate',
    THIS_TREE,
    [],
    ['calibration'],
    'source.sim.calibrate',
  ),
];

/** The source map: every row, grouped by engine. */
export const SOURCE_ROWS: readonly SourceRow[] = [...VLLM, ...SGLANG, ...LLAMACPP, ...SIM];

/**
 * The source-map engine for an engine name as servelab writes it: `client/check` `EngineGuess`
 * (`vllm`, `sglang`, `llamacpp`, `servelab-sim`), the scrape's `monitor/maps` kind (`sim`) or a
 * record's `engine.name` (`llama.cpp`). vLLM V0 (`vllm-v0`) and anything unknown give null: the
 * vLLM rows are V1's files, which a V0 server does not run.
 */
export function sourceEngineOf(name: string | null | undefined): SourceEngine | null {
  const n = (name ?? '').trim().toLowerCase();
  if (n === 'vllm') return 'vllm';
  if (n === 'sglang') return 'sglang';
  if (n === 'llamacpp' || n === 'llama.cpp' || n === 'llama-cpp') return 'llamacpp';
  if (n === 'servelab-sim' || n === 'sim') return 'servelab-sim';
  return null;
}

/**
 * The rows to show in a write-up: only the measured engine's, and of those only the ones that
 * explain one of the given diagnosis rules or experiment kinds, in the course's object order
 * (service entry, request state, scheduler, KV cache, execution backend).
 * @param engine the engine name (see {@link sourceEngineOf}); unknown gives no rows
 * @param ruleIds the diagnosis's finding rules (`Finding.rule`)
 * @param kinds the experiment kinds of the runs (`ExperimentKind`)
 * @example
 * sourceNotes('vllm', ['stall_preemption'], []).map((r) => r.symbol)
 * // ['RequestStatus', 'Scheduler._preempt_request', 'KVCacheManager.allocate_slots']
 */
export function sourceNotes(
  engine: string | null | undefined,
  ruleIds: readonly string[],
  kinds: readonly string[],
): SourceRow[] {
  const e = sourceEngineOf(engine);
  if (e === null) return [];
  const rules = new Set(ruleIds);
  const ks = new Set(kinds);
  const order = (o: SourceObject) => SOURCE_OBJECTS.indexOf(o);
  return SOURCE_ROWS.filter(
    (r) => r.engine === e && (r.rules.some((x) => rules.has(x)) || r.kinds.some((x) => ks.has(x))),
  ).sort((a, b) => order(a.object) - order(b.object));
}

/**
 * A link to the row's code: the file at its commit on GitHub, or, for `servelab-sim`, the path in
 * this repository relative to `from` (a folder inside the repository, `docs` by default).
 */
export function sourceUrl(r: SourceRow, from = 'docs'): string {
  if (r.engine === 'servelab-sim') {
    const up = from === '' || from === '.' ? '' : '../'.repeat(from.split('/').filter(Boolean).length);
    return `${up}${r.path}`;
  }
  return `https://github.com/${ENGINE_REPOS[r.engine]}/blob/${r.version}/${r.path}`;
}

const code = (s: string) => `\`${s}\``;
const codes = (xs: readonly string[]) => (xs.length ? xs.map(code).join(', ') : '—');
const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

/**
 * The source map as Markdown: one table per engine, with object, file and symbol (linked at the
 * checked commit), what to look at, rules, experiment kinds and version. docs/source-map.md
 * holds this table in English.
 */
export function sourceMapMarkdown(t: T, rows: readonly SourceRow[] = SOURCE_ROWS): string {
  const L: string[] = [];
  for (const engine of SOURCE_ENGINES) {
    const mine = rows.filter((r) => r.engine === engine);
    if (!mine.length) continue;
    const repo = engine === 'servelab-sim' ? 'this repository' : code(ENGINE_REPOS[engine]);
    L.push(`### ${t(`source.engine.${engine}`)} (${repo})`, '');
    L.push('| object | code | what to look at | rules | experiments | checked at |');
    L.push('| --- | --- | --- | --- | --- | --- |');
    for (const r of [...mine].sort(
      (a, b) => SOURCE_OBJECTS.indexOf(a.object) - SOURCE_OBJECTS.indexOf(b.object),
    )) {
      const version = r.version === THIS_TREE ? THIS_TREE : code(r.version.slice(0, 10));
      L.push(
        `| ${t(`source.object.${r.object}`)} | [${code(r.path)}](${sourceUrl(r)}) ${code(r.symbol)} | ${cell(t(r.note_key))} | ${codes(r.rules)} | ${codes(r.kinds)} | ${version} |`,
      );
    }
    L.push('');
  }
  return L.join('\n');
}
