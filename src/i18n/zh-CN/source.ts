import type { source as en } from '../en/source.js';

/** "source" 部分的文字：源码地图的标签，以及每一行"该看这个函数的什么"的简短说明。代码名保持原样。 */
export const source: Record<keyof typeof en, string> = {
  'source.object.entry': '服务入口',
  'source.object.request-state': '请求状态',
  'source.object.scheduler': '调度器',
  'source.object.kv-cache': 'KV / 前缀缓存',
  'source.object.executor': '执行后端',
  'source.engine.vllm': 'vLLM V1',
  'source.engine.sglang': 'SGLang',
  'source.engine.llamacpp': 'llama.cpp',
  'source.engine.servelab-sim': 'servelab 模拟器',

  // ---- vLLM V1 ----
  'source.vllm.create_chat_completion':
    '请求进入引擎之前，先在这里套用 chat template 并分词（render_chat_request）：这是每个请求都要付的固定开销，与负载无关。',
  'source.vllm.generate':
    'API 服务端处理一个请求的入口：处理输入，把请求登记到 OutputProcessor，再发给在独立进程里运行的 EngineCore。',
  'source.vllm.output_handler':
    '从 EngineCore 取出每一步的输出，分块推给各条流；如果 token 按时从这里发出，客户端看到的间隔就出在客户端一侧。',
  'source.vllm.prometheus':
    '根据每一步的统计设置 servelab 抓取的指标（vllm:num_requests_waiting、vllm:num_requests_running、vllm:kv_cache_usage_perc）以及 vllm:num_preemptions 计数器。',
  'source.vllm.request_status':
    '请求经历的状态：WAITING、RUNNING、PREEMPTED；FINISHED_LENGTH_CAPPED 就是 API 返回的 finish_reason length。',
  'source.vllm.schedule':
    '每一步只有一份 token 预算（max_num_batched_tokens）：先满足正在运行的请求，再在运行数少于 max_num_seqs 时接纳等待中的请求；长提示只能分到剩下的预算，按块 prefill。',
  'source.vllm.preempt':
    'allocate_slots 分不到空间时，一个正在运行的请求被释放、已计算的 token 清零，并放回等待队列队首：它的流会停住，直到重新计算完。',
  'source.vllm.update_from_output':
    '把这一步采样出的 token 写回各个请求，检查停止条件，并释放已经结束的请求。',
  'source.vllm.check_stop':
    '达到 max_tokens 或 max_model_len 时以 FINISHED_LENGTH_CAPPED 结束请求：这就是截断规则统计的 finish_reason length。',
  'source.vllm.grammar_bitmask':
    '每一步生成语法掩码，让结构化输出不越出 schema；它不会结束请求，所以 max_tokens 仍可能把答案截断。',
  'source.vllm.engine_step':
    '引擎的一次迭代：schedule、execute_model、update_from_output。不使用投机解码时，每个运行中的请求每步最多得到一个新 token，所以一步的耗时就是每条流的 token 间隔。',
  'source.vllm.get_computed_blocks':
    '前缀缓存查找：提示中已缓存的最长一段完整块（永远不会是整个提示，最后一个 token 总要重算）。',
  'source.vllm.allocate_slots': '为一步分配所需的 KV 块，池满时返回 None；正是这个 None 让调度器去抢占。',
  'source.vllm.available_memory':
    '决定 KV cache 的大小：总显存 × gpu_memory_utilization，减去一次 profiling 运行的峰值；调高比例或使用 fp8 KV 能得到更多块。',
  'source.vllm.warm_up':
    'vLLM 开始服务之前做的事：按批大小预热并捕获 CUDA graph（capture_model，enforce_eager 时跳过）；第一个请求慢，付的是这里没覆盖到的开销。',
  'source.vllm.execute_model':
    '对一步调度的所有 token 做一次前向计算，prefill 块和 decode 放在一起；耗时随这些 token 数以及注意力读取的 KV 增长。',
  'source.vllm.all_reduce':
    '张量并行时，各层的部分结果在这里跨 GPU 求和；在慢速互联上，这部分开销会超过拆分计算省下的时间。',
  'source.vllm.eagle_propose':
    'EAGLE/MTP 草稿器：草稿头先对本步产出的 token 跑一遍，再每个请求每次一个 token 跑 k − 1 遍；它给出的 k 个草稿由下一步验证，被拒绝的在那里回滚（Scheduler.update_from_output）。',
  'source.vllm.quant_config':
    '把 --quantization 映射到对应的配置类；顺着该方法的 apply() 找到量化层在你的批大小下实际运行的 GEMM kernel。',

  // ---- SGLang ----
  'source.sglang.launch_server':
    '进程布局：HTTP 服务和 TokenizerManager 在主进程，Scheduler 和 DetokenizerManager 各在自己的进程，之间用 ZMQ 通信。',
  'source.sglang.server_warmup':
    '在报告就绪之前，SGLang 会先发一个 /generate 预热请求（除非使用 --skip-server-warmup）。',
  'source.sglang.serving_chat':
    '处理 /v1/chat/completions：对消息套用 chat template，并为 TokenizerManager 构造请求。',
  'source.sglang.stream_content':
    '把每个流式增量写成一个 SSE 块；如果块按时从这里发出，客户端看到的间隔就出在客户端一侧。',
  'source.sglang.generate_request':
    '在主进程里分词（_tokenize_one_request），把请求发给调度器并等待它的输出。',
  'source.sglang.check_finished':
    '达到 max_new_tokens 时以 FINISH_LENGTH 结束请求（finish_reason length）；语法结束、遇到 EOS 或停止串时也会结束。',
  'source.sglang.event_loop':
    '调度器的主循环：接收请求，选出下一个批（get_next_batch_to_run），运行并处理结果，每次迭代一个批。',
  'source.sglang.prefill_adder':
    '按两份预算把等待中的请求放进 prefill 批：rem_chunk_tokens（--chunked-prefill-size），以及为运行中的 decode 按 new_token_ratio 预留剩余 token 之后还剩的 KV。',
  'source.sglang.calc_priority':
    '给等待队列排序：lpm 让 radix 缓存命中最长的请求排在前面；等待超过 128 个请求时退回先来先服务。',
  'source.sglang.retract_decode':
    'decode 显存不够时（check_decode_mem），释放正在 decode 的请求直到其余的放得下，并重新估计 new_token_ratio；被撤回的请求回到队列，之后重算。',
  'source.sglang.match_prefix':
    '前缀缓存查找：在 radix 树中找最长的已缓存前缀，在匹配边界处拆分节点，并刷新访问时间。',
  'source.sglang.evict':
    '池需要空间时，按淘汰策略的顺序释放未加锁的叶子；运行中请求持有的前缀被加锁，不会被淘汰。',
  'source.sglang.forward_batch_generation':
    '对一个批做一次前向计算并采样；max_running_requests 的默认值也在这个 worker 里由 KV 池大小算出。',
  'source.sglang.cuda_graph_capture':
    '启动时按各个批大小捕获 CUDA graph；运行时 decode 批会被补齐到下一个已捕获的大小。',
  'source.sglang.all_reduce':
    '张量并行时，各层的部分结果在这里跨 GPU 求和；在慢速互联上，这部分开销会超过拆分计算省下的时间。',
  'source.sglang.quant_config':
    '把 --quantization 映射到对应的配置类（部分方法来自 vLLM）；顺着该方法的线性层找到它运行的 kernel。',
  'source.sglang.eagle_verify':
    'EAGLE 的验证：目标模型在一次前向（TARGET_VERIFY）中处理每个请求的草稿树，保留被接受的 token，释放被拒绝 token 的 KV 槽位；接受率指标统计的正是 accept_length_per_req。',
  'source.sglang.metrics':
    '定义 servelab 抓取的指标：sglang:num_queue_reqs、sglang:num_running_reqs、sglang:token_usage、sglang:cache_hit_rate 以及撤回计数。',

  // ---- llama.cpp ----
  'source.llamacpp.server_main':
    '在 HTTP 服务上注册路由（/v1/chat/completions、/metrics 等），并启动持有各个 slot 的 server context。',
  'source.llamacpp.chat_params':
    '把 OpenAI 聊天请求转成 llama.cpp 参数，并在 HTTP 线程里渲染 chat template（common_chat_templates_apply），然后才把任务排队。',
  'source.llamacpp.warmup':
    '加载模型；除非使用 --no-warmup，会先解码一个很小的批再清空，这样第一个请求不用付这笔开销。',
  'source.llamacpp.server_slot':
    'slot 是 llama.cpp 的请求状态：它自己的 KV 序列（每个 slot 的 n_ctx）、缓存的提示 token，以及从 IDLE 到 GENERATING 的状态；slot 的数量由 --parallel 决定。',
  'source.llamacpp.process_single_task':
    '新任务拿到一个空闲 slot，否则被推迟到有 slot 空出来：超过 --parallel 的请求在这里等待（llamacpp:requests_deferred）。llama.cpp 从不抢占正在运行的 slot。',
  'source.llamacpp.update_slots':
    '一次迭代：每个正在生成的 slot 加入它采样出的 token，待处理的提示 token 最多加到 n_batch（连续批处理时），再按 n_batch 分段解码。',
  'source.llamacpp.prompt_cache':
    '内存提示缓存（--cache-ram，单位 MiB，设为 0 即关闭）：槽位被复用时把它的 KV 状态存起来，之后遇到有公共前缀的提示再读回，所以即使只有几个槽位，许多不同的提示也能命中缓存（见 `timings` 的 cache_n）。',
  'source.llamacpp.get_available_slot':
    '提示复用：选缓存 token 与提示公共前缀最长的空闲 slot（--slot-prompt-similarity），否则选最久未用的那个。',
  'source.llamacpp.process_token':
    '在生成上限处停止 slot（n_predict，STOP_TYPE_LIMIT：finish_reason length），遇到 EOS 或停止词、或 slot 的上下文已满时也会停止。',
  'source.llamacpp.send_partial_response':
    '把每个流式 token 交给 HTTP 线程排队发送；如果 token 按时从这里发出，客户端看到的间隔就出在客户端一侧。',
  'source.llamacpp.find_slot':
    '为一个 micro-batch 寻找空闲的 KV cell；找不到时这个批放不进去，llama_context::decode 返回 1。',
  'source.llamacpp.decode':
    '把一个批拆成每个 n_ubatch 个 token 的 micro-batch，逐个放入 KV cache 并计算计算图；长提示会拆成多个 micro-batch。',
  'source.llamacpp.get_n_kv':
    '注意力要读取的 KV cell 数：已用 cell 向上取整（粒度至少 256），所以缓存越满，一步 decode 越慢。',
  'source.llamacpp.mul_mat':
    '按权重类型和批大小选择矩阵 kernel：token 很少时用向量 kernel（MMVQ），批较大时用 MMQ 或 cuBLAS。',
  'source.llamacpp.timings':
    '写出每个响应的 timings；使用草稿模型（-md）时其中有 draft_n 和 draft_n_accepted，即起草与被接受的 token 数，servelab 把它们求和得到接受率。',
  'source.llamacpp.split_params':
    '--split-mode 和 --tensor-split 在这里传给模型加载器：决定各层（或各行）如何分布到多块 GPU 上。',

  // ---- servelab 模拟器 ----
  'source.sim.handler':
    '在 OpenAI 兼容路由背后组装模拟器（选项、引擎、实时驱动、分词器）；请求在这里被解析、排入引擎并流式返回。',
  'source.sim.api_server_queue':
    'API 服务自身的工作，建模为引擎前（输入）和每一步之后（输出块）的队列；其常数可以校准。',
  'source.sim.chat_template': '模拟器的 chat template：聊天请求在分词之前给提示加上的内容。',
  'source.sim.engine_req':
    '模拟器里的 vLLM Request：numComputed 与 numTokens 的对比、停止长度，以及 max_tokens 截断答案时的 finishReason length。',
  'source.sim.vllm_v1_schedule':
    '对应 vLLM V1 的 Scheduler.schedule：在同一份 token 预算下先满足运行中的请求，再接纳等待中的请求直到 max_num_seqs，长提示分块 prefill。',
  'source.sim.sglang_schedule':
    '对应 SGLang 的策略：能组成 prefill 批时单独运行它（按 chunked_prefill_size 分块），否则运行 decode 批；lpm 排序，必要时退回先来先服务。',
  'source.sim.preempt': '对应 vLLM 的重算式抢占：释放请求的块，已计算 token 清零，放到队首等待。',
  'source.sim.kv_cache_manager': '对应 vLLM 的块管理器：按链式块哈希查前缀、池满时分配失败，以及使用率指标。',
  'source.sim.radix_cache': '对应 SGLang 的 radix 树：按 token 查前缀，池需要空间时淘汰未加锁的叶子。',
  'source.sim.engine_core': '步进循环：调度、计算这次前向的耗时、采样；cold_start_ms 会加在第一步上。',
  'source.sim.cost_model':
    '一步的耗时：GEMM（含反量化开销）、按读取的 KV 计算的注意力、每步固定开销、CUDA graph 补齐以及张量并行的 all-reduce。',
  'source.sim.driver':
    '按真实时间发出每一步的 token；发出晚了的步会记为模拟器落后，从而能把这种间隔和客户端的间隔区分开。',
  'source.sim.metrics': '根据引擎统计，在 /metrics 上提供 vLLM 或 SGLang 命名的指标。',
  'source.sim.calibrate': '用实测运行拟合成本模型的常数（Levenberg–Marquardt），让模拟器贴近真实引擎。',
};
