import type { template as en } from '../en/template.js';

/** "template" 部分的文字：servelab exp init 模板共享部分中的注释。YAML 的键和值保持原样。 */
export const template: Record<keyof typeof en, string> = {
  'tpl.head.title': 'servelab 实验：{kind}',
  'tpl.head.run': '运行：  servelab exp run {name}.yaml      （docs/experiments.md 说明了每个字段）',
  'tpl.head.description': '自由文本，随实验一起保存',
  'tpl.head.lesson': '本文件对应的课程实验（由 exp init lesson-… 写入；答案随之给出该课的结论）',
  'tpl.sim.clock':
    'virtual：进程内，虚拟时间（同 servelab plan）；real：HTTP 服务器，真实时间（需要空闲的 CPU 核）',
  'tpl.url.intro': '改用一个正在运行的服务器，而不是模拟器：',
  'tpl.url.url': '以 /v1 结尾的基础 URL',
  'tpl.url.api_key_env': '保存密钥的环境变量名（绝不要写密钥本身）',
  'tpl.url.headers': '额外的请求头',
  'tpl.url.model': '服务端的模型 id（默认：顶层的 model）',
  'tpl.url.local': '服务器在本机：用 nvidia-smi 探测 GPU（默认：回环地址时为真）',
  'tpl.url.metrics_url': 'Prometheus 端点（默认：<服务器>/metrics）',
  'tpl.url.generation': '按目标覆盖生成设置（A/B 对比的开关）',
  'tpl.url.extra_body': '合并进每个请求体',
  'tpl.url.declared': 'servelab 无法探测的事实，记录为“声明的”',
  'tpl.url.declared_more': '还可以写 {fields}',
  'tpl.model': '请求中发送的模型 id；模拟器目标默认使用其模拟的模型。',
  'tpl.seed':
    '提示词、长度和到达时间的种子：相同的种子产生相同的请求。不写时，每次\n`exp run` 都会重新抽取一个（会打印出来，并随实验保存）：写上它即可重复一次运行。',
  'tpl.generation': '生成设置，所有目标相同（记录在实验记录中）。',
  'tpl.generation.thinking': '推理阶段开/关（不设置：引擎的默认值）',
  'tpl.generation.temperature': '默认 0：贪心解码，与 `vllm bench serve` 相同',
  'tpl.generation.max_tokens': '默认：工作负载的 output_len',
  'tpl.generation.ignore_eos': 'true：恰好生成 max_tokens 个（默认：只在要求时发送）',
  'tpl.generation.seed': '发送给服务器的逐请求采样种子',
  'tpl.workload': '每个请求的内容。长度以 token 计：512、uniform:A-B 或 normal:MEAN,STD。',
  'tpl.workload.dataset': '或 format: prompts（JSONL）',
  'tpl.workload.shared_prefix': '提示词共享 G 个前缀之一，每个前缀 N 个 token',
  'tpl.workload.seed': '工作负载种子（默认：顶层的 seed）',
  'tpl.workload.reuse_prompts': 'true：每一档使用相同的提示词（有前缀缓存时，后面的档位是热的）',
  'tpl.load': '请求如何到达。闭环：固定数量的请求在途；开环：固定速率。',
  'tpl.load.mode': 'closed | open（默认：由 concurrency/rates 决定）',
  'tpl.load.arrival': '开环：constant | poisson | gamma',
  'tpl.load.burstiness': 'gamma 形状参数（1 = 泊松，<1 更突发）',
  'tpl.load.max_concurrency': '开环：在途请求数的上限',
  'tpl.load.duration_s': '代替请求数',
  'tpl.load.timeout_s': '每个请求',
  'tpl.load.timeout_ttft_s': '直到第一个 token',
  'tpl.cache':
    '测量前的前缀缓存：cold（通过 /reset_prefix_cache 或 /flush_cache 重置），\nwarm（先把工作负载跑一遍）或 as-is（保持原状）。',
  'tpl.cache.routing': '请求如何到达各副本（记录为声明的）',
  'tpl.repeats': '每次测量重复的次数（默认 1）',
  'tpl.warmup': '每一档的预热请求数，会记录但不计入测量',
  'tpl.slo': '服务等级目标（SLO）：goodput 统计同时满足全部目标的请求。',
  'tpl.thresholds': '对汇总结果的检查（任意数值路径）；不通过时以退出码 2 结束。',
  // each kind's own comments (src/exp/kinds/*.ts, its template)
  'tpl.baseline.about':
    '每次只向每个目标发送一个请求：检查正确性（finish_reason：因 EOS 结束还是因长度上限结束，\n推理/内容的拆分），并把冷启动的第一个请求与之后的热请求分开。所有目标\n使用相同的生成设置；不接受按目标覆盖。',
  'tpl.prefix_cache.about':
    '一份较长的共享文档，问题放在最后，分四个阶段：cold（重置缓存之后）、\n完全重复、同一文档换一个新问题，以及 scattered（轮换文档，使相邻请求\n没有共同前缀）。按阶段报告缓存命中的 token、TTFT 和预填充估计。',
  'tpl.concurrency_sweep.about':
    '闭环，并发逐档升高，长度分布保持不变。报告每一档的吞吐量和\np50/p95/p99，以及拐点：吞吐量不再上升或尾延迟急剧变大之前的最后一档。\n在这个小型模拟配置上，max_num_seqs 8 让拐点出现在 8 附近。',
  'tpl.rate_sweep.about':
    '开环，按一组速率（请求/秒）逐档测量，停止规则与并发扫描相同。\n不写 load.rates 时，速率由测得的容量推出\n（sweep.capacity_fractions）。',
  'tpl.mixed_input.about':
    '长请求和短请求按受控的到达顺序发送。报告已在解码的请求的停顿：\n长预填充与它们重叠时的块间隔，对比没有重叠时的间隔。较小的 token 预算\n（max_num_batched_tokens）会让长预填充被分块。',
  'tpl.ab.about':
    '两个目标之间只有一个开关不同，工作负载和种子相同。报告每个指标的差值及其\nbootstrap 95% 置信区间；只有经过 Holm 校正且超过 min_effect_pct 才算显著。\n在固定样本上的质量检查会标出输出已损坏的“更快”配置。',
  'tpl.matrix.about': '负载矩阵：输入/输出长度的单元格 × 并发档位，每个单元格使用\n相同的工作负载种子。',
  'tpl.calibration.about':
    '`servelab calibrate EXP_ID --out profile.yaml` 用来拟合模拟器的几次运行：并发 1 下的\n一次解码运行和一次提示词长度扫描，以及一直到饱和的并发扫描。把目标指向你的引擎\n（url 目标）即可为它校准；按原样运行时，它在虚拟时钟上测量模拟器（几秒钟）。',
  'tpl.team_assistant.about':
    '课程的问题：一个文档助手原本服务一位用户；如果 32 位同事同时提问会怎样？\n每位同事是一个 3–6 轮的会话，在拿到回答和提出下一个问题之间思考 10–60 秒，\n问题针对 3 份共享文档之一。用户数逐档扫描（load.users），并在最后一个满足\nSLO 的档位和第一个不满足的档位之间二分查找。单张模拟 L4 上的 Llama-3.1-8B\n让答案落在 32 位同事附近。报告满足 SLO 的最大团队规模、等待发生在哪里\n（排队、预填充还是解码干扰），以及前缀缓存命中率。模拟器以虚拟时间运行，\n整个团队几秒钟就能跑完；url 目标则以真实时间运行。',
  'tpl.voice.about':
    '语音用户的首个音频关键路径（端点检测 → ASR → LLM → 文本分块 →\nTTS → 播放），每次只改变一个开关：TTS 分块策略、端点检测窗口、\nASR 与 LLM 共用 GPU 还是独占 GPU，或者用户数。报告每个条件下\ntime_to_first_audio_ms 的分解，与 LLM 自身的 TTFT 并列，以瀑布图呈现。',
  'tpl.baseline.requests': '每个目标顺序发送的请求数；第一个是冷请求',
  'tpl.prefix.document_tokens': '共享文档的长度',
  'tpl.prefix.documents': 'scattered 阶段轮换的文档数',
  'tpl.prefix.document_file': '用这个文件的文本作为文档，而不是生成的文本',
  'tpl.sweep.stop': '任一规则触发即停止扫描：',
  'tpl.sweep.stop_error_rate': '  错误率高于这个比例',
  'tpl.sweep.stop_ttft': '  p99 TTFT 高于第一档的 K 倍',
  'tpl.sweep.stop_e2e': '  p99 E2E 高于第一档的 K 倍',
  'tpl.sweep.find_max': '搜索满足 slo 的最大并发（同 servelab plan）',
  'tpl.sweep.capacity_fractions': '没有 load.rates 时使用',
  'tpl.mixed.spacing': '到达之间的间隔',
  'tpl.ab.switch': '不同之处（会被记录）',
  'tpl.ab.alpha': '族错误率（Holm）',
  'tpl.ab.min_effect': '更小的差值永远不算显著',
  'tpl.ab.samples': '发给两边的固定提示词',
  'tpl.ab.expected': '与 A 侧的输出完全一致，或 {file: answers.jsonl}',
  'tpl.ab.regex': '每个输出都必须匹配',
  'tpl.ab.json_schema': '每个输出都必须是符合该 schema 的 JSON（或一个 .json 路径）',
  'tpl.matrix.cells': '至少三个',
  'tpl.matrix.concurrency': '至少两档',
  'tpl.calibration.decode': '并发 1：TPOT 与上下文长度的关系',
  'tpl.calibration.prefill': '并发 1：TTFT 与提示词长度的关系',
  'tpl.calibration.input_lens': '≥ 3 个长度，跨度 ≥ 4 倍，最长的 ≥ 1024',
  'tpl.calibration.per_length': '每个长度',
  'tpl.calibration.saturation': '闭环，一直到输出速率不再增长',
  'tpl.calibration.levels': '模型或 GPU 更大时，提高最高的几档',
  'tpl.calibration.max_concurrency': '之后只要输出速率仍增长 10% 以上就加倍并发，最高到这一档',
  'tpl.calibration.requests': '每一档（默认：max(16, 3 × 档位)）',
  'tpl.team.colleagues': '问题所指的团队人数',
  'tpl.team.bisect': '在最后一个满足 SLO 的档位和第一个不满足的档位之间二分',
  'tpl.team.attainment': '必须满足全部 SLO 的计划轮次比例',
  'tpl.team.min_turns': '每个档位至少据以判定的轮次：不足时汇总同样用户数的多次运行',
  'tpl.team.time_scale': '思考时间和爬坡时间除以这个数（测试、冒烟运行）',
  'tpl.voice.vary': '唯一的开关：tts_chunk | endpoint_ms | asr_gpu | concurrency',
  'tpl.voice.values': '每个值一个条件（tts_chunk：sentence、chars:N、whole）',
  'tpl.voice.base': '所有不变的设置',
  'tpl.voice.endpoint': '说话结束后、判定本轮结束之前的静音时长',
  'tpl.voice.asr_gpu': '模拟器目标：colocated | separate',
  'tpl.voice.concurrency': '模拟的用户数',
  'tpl.voice.turns': '每个条件计划的轮数',
  'tpl.voice.speech': '每轮生成的音频（秒）',
  'tpl.voice.output_len': '每轮 LLM 的 max_tokens（ignore_eos）',
  'tpl.voice.playback': '播放前的抖动缓冲',
  'tpl.voice.asr_url': 'URL 目标：ASR 服务器（默认：目标的 URL）',
  'tpl.voice.tts_url': 'URL 目标：TTS 服务器（默认：目标的 URL）',
  'tpl.voice.out': '把每个条件的记录和 waterfall.svg 写到这里',
  'tpl.baseline.load': '（每次一个请求；数量由 baseline.requests 决定）',
  'tpl.prefix.load': '（每次一个请求；数量由 prefix_cache 决定）',
  'tpl.sweep.requests': '每一档计入测量的请求数',
  'tpl.sweep.rates': '每秒请求数',
  'tpl.sweep.per_rate': '每个速率',
  'tpl.mixed.load': '（到达由 mixed_input 决定；load.requests、load.concurrency 和 load.rates 不适用）',
  'tpl.ab.the_switch': '唯一的开关',
  'tpl.matrix.requests': '每个单元格、每一档',
  'tpl.calibration.ignore_eos': '每个请求恰好生成 output_len 个 token',
  'tpl.calibration.load': '（档位即 calibration.saturation.concurrency）',
  'tpl.team.users': '各档位：用户数，每人一个会话',
  'tpl.team.turns': '每个会话的轮数',
  'tpl.team.think': '从拿到回答到提出下一个问题的秒数',
  'tpl.team.ramp': '用户在这么多秒内陆续开始',
  'tpl.team.session_rate': '或者：会话按每秒泊松到达开始',
  'tpl.team.input': '每个问题的 token 数',
  'tpl.team.output': '每个回答的 token 数',
  'tpl.team.documents': '共享文档',
  'tpl.voice.load': '（用户数来自 voice.base.concurrency 或 voice.values；load.rates 不适用）',
  'tpl.simopt.tp': '张量并行规模：模型切分到的 GPU 数量。',
  'tpl.simopt.dtype': '权重精度；int4 是 AWQ/GPTQ 风格的仅权重量化。',
  'tpl.simopt.kv_cache_dtype': 'KV 缓存精度；auto 为 16 位。',
  'tpl.simopt.max_num_seqs': '一个批次中同时运行的最多请求数。',
  'tpl.simopt.max_num_batched_tokens': '引擎一步的 token 预算；更长的预填充会被切分成块。',
  'tpl.simopt.block_size': '每个 KV 缓存块的 token 数。',
  'tpl.simopt.gpu_memory_utilization': '引擎可用于权重、激活和 KV 缓存的 GPU 显存比例。',
  'tpl.simopt.max_model_len': '上下文长度：单个请求的提示词与输出 token 之和的上限。',
  'tpl.simopt.enable_prefix_caching': '复用之前算过的提示词前缀的 KV 缓存块（自动前缀缓存）。',
  'tpl.simopt.engine':
    '要模仿的引擎：它的调度器、前缀缓存、/metrics 名称、路由和传输格式（vllm-v1、vllm-v0 或 sglang；见 docs/sim.md 中的 profile 各节）。',
  'tpl.simopt.enable_chunked_prefill':
    'vllm-v0：把长提示词切块，与解码共享引擎步（vLLM v1 总是这样做；不开启时，v0 的一步要么全是预填充，要么全是解码）。',
  'tpl.simopt.num_scheduler_steps':
    'vllm-v0 多步调度：每次调度运行这么多个解码步，每个请求的 token 也按这个数量成批流式输出。',
  'tpl.simopt.schedule_policy': 'sglang：等待队列的顺序，先来先服务（fcfs）或最长前缀匹配优先（lpm）。',
  'tpl.simopt.chunked_prefill_size': 'sglang：一个预填充步的最多提示词 token 数；更长的提示词分块预填充。',
  'tpl.simopt.parallel':
    'llamacpp：服务器槽位数（llama.cpp 的 -np/--parallel），即同时运行的最多请求数；其余请求等待（deferred）。',
  'tpl.simopt.ctx_size':
    'llamacpp：总上下文（llama.cpp 的 -c/--ctx-size），在槽位之间平分：每个槽位容纳 ctx_size / parallel 个 token，向上取整到 256 的倍数。',
  'tpl.simopt.batch_size':
    'llamacpp：一次 llama_decode 的最多 token 数（llama.cpp 的 -b/--batch-size）：先放各槽位的解码 token，再按槽位顺序放提示词 token。',
  'tpl.simopt.cache_ram':
    'llamacpp：内存提示词缓存的大小（llama.cpp 的 --cache-ram，0 表示关闭）：槽位被复用前先把它的提示词存入缓存，之后的请求取回与自己前缀最长相同的那一条。',
  'tpl.simopt.cont_batching':
    'llamacpp：连续批处理（llama.cpp 的 --cont-batching）；关闭时，只有在没有槽位解码的步里才处理提示词。',
  'tpl.simopt.speculative_config':
    'vllm-v1：推测解码，与 vLLM 的 --speculative-config 相同：每一步为每个解码中的请求提出 num_speculative_tokens 个草稿，在一次前向中验证，保留被接受的前缀再加一个 token（docs/sim.md“推测解码”一节）。acceptance_rate 是 servelab 自己的设置，不是 vLLM 的：要模拟的接受情况，用 vLLM 报告的单位，一个数表示被接受/草稿 token 之比，一个列表表示每个位置的被接受/草稿次数之比（默认按方法；ngram：取自提示词自身的重复，提示词为合成词时用公开发表的先验值）。',
  'tpl.simopt.cold_start_ms': '引擎第一步的额外耗时，模拟冷启动的引擎。',
  'tpl.simopt.record_steps':
    '记录引擎的每一步（开始时间与耗时、decode 的请求、带 token 数的 prefill chunk、占用的 KV block、抢占）：由 /servelab/steps 接口提供，以 steps.jsonl 随运行保存，报告命令将其画成步时间线。',
  'tpl.simopt.api_server_count':
    '分担流式输出工作的 API 服务器进程数（vLLM 的 --api-server-count）；每个进程为自己的流做反分词并写出数据块。',
  'tpl.simopt.catalogue': '额外 GPU 和模型的 YAML/JSON 文件，用 Hugging Face config.json 的术语描述。',
  'tpl.simopt.model_config':
    '要模拟的模型的 Hugging Face config.json，以其所在目录命名，除非 --model 另行指定。',
  'tpl.simopt.profile':
    'servelab calibrate 写出的校准文件：用拟合得到的成本模型常数模拟它所对应的模型、GPU 和引擎。',
  'tpl.simopt.seed': '模拟的输出长度、文本、id 和故障所用的种子。',
  'tpl.simopt.time_scale': '让时钟比真实时间快这么多倍（演示、测试）；引擎时间仍是模拟的毫秒。',
  'tpl.simopt.served_model_name': '在 /v1/models 上提供、并在请求中接受的模型 id。',
  'tpl.simopt.max_waiting':
    '已有这么多请求在等待时，对新到的请求回答 429（每个请求都要等待它的第一步，因此 ≥ 1）。',
  'tpl.simopt.reasoning_field':
    '推理增量字段的名称：reasoning_content（SGLang、较旧的 vLLM）或 reasoning（较新的 vLLM）。',
  'tpl.simopt.context_error':
    '上下文长度错误的回答方式：像 vLLM（400，放不下的 max_tokens 被拒绝），或像 llama.cpp 的服务器（400 exceed_context_size_error，带 n_prompt_tokens 和 n_ctx；max_tokens 被截到上下文长度）。',
  'tpl.simopt.enable_prompt_tokens_details': '在 usage.prompt_tokens_details 中报告命中缓存的提示词 token。',
  'tpl.simopt.expose_timings': '给每个数据块标上服务器的发出时间和引擎步，并在最后附上一个 timings 对象。',
  'tpl.simopt.fault_rate': '一个请求遭遇某种故障的概率。',
  'tpl.simopt.faults': '可抽取的故障；stall:MS 让流暂停 MS 毫秒的引擎时间。',
  'tpl.simopt.fault_profile':
    '重现一个引擎升级缺陷（见 docs/sim.md 中关于故障配置的一节）：reasoning-renamed、ignore-json-schema、empty-tool-args、abort-as-success。',
  'tpl.simopt.answer_accuracy':
    '用已知答案回答升级闸门的固定问题（src/workload/questions.ts），以这个概率答对（按问题设种子），而不是输出伪文本。',
  'tpl.simopt.max_body_bytes': '请求体超过这个大小时，在读取之前回答 413 并关闭连接。',
  'tpl.simopt.sentence_words':
    '伪文本平均每 N 个词以 "." 结束一个句子（有种子），让语音客户端有可以分块的句子边界。',
  'tpl.simopt.asr_fixed_ms':
    '/v1/audio/transcriptions：一次转写 GPU 时间中的固定部分（引擎毫秒），与音频长度无关。',
  'tpl.simopt.asr_rtf':
    '/v1/audio/transcriptions：实时因子，每毫秒音频所需的 GPU 毫秒数；一次转写耗时 asr_fixed_ms + asr_rtf × 音频毫秒数。',
  'tpl.simopt.asr_gpu':
    '转写在哪里运行：在 LLM 的模拟 GPU 上（colocated：在引擎步之间排队，下一步要等它们完成），或在独立的 GPU 上（separate：只在彼此之间排队）。',
  'tpl.simopt.tts_first_byte_ms': '/v1/audio/speech：从请求到第一批音频字节的引擎毫秒数。',
  'tpl.simopt.tts_rtf':
    '/v1/audio/speech：第一批字节之后的实时因子，每毫秒音频所需的合成引擎毫秒数（每个语音流各自独立）。',
  'tpl.simopt.tts_chunk_ms': '/v1/audio/speech：每个流式数据块中的音频毫秒数。',
  'tpl.simopt.drain_timeout':
    '收到 SIGTERM 后，等待在途请求完成的时长（墙钟秒），期间新请求得到 503；然后停止。',
};
