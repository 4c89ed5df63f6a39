import type { diagnose as en } from '../en/diagnose.js';

/** "diagnose" 部分的文字：有效性原因、每条规则的症状、证据、机制和下一步实验，以及分组后的控制台诊断。 */
export const diagnose: Record<keyof typeof en, string> = {
  // ---- 控制台诊断 ----
  'diagnose.verdict.valid': '结论：有效（valid: true）',
  'diagnose.verdict.invalid': '结论：无效（valid: false）',
  'diagnose.verdict.partly': '（部分检查无法运行：见“未检查”）',
  'diagnose.render.not_checked': '未检查',
  'diagnose.render.findings_none': '发现：无',
  'diagnose.render.symptom': '症状：',
  'diagnose.render.evidence': '证据：',
  'diagnose.render.requests': '请求：',
  'diagnose.render.mechanism': '机制：',
  'diagnose.render.next': '下一步：',
  'diagnose.render.unexplained': '无法解释',
  'diagnose.render.runs': '（{n} 次运行）',
  'diagnose.render.evidence_at': '取自 {level}（{n} 个中的最后一个）：',
  'diagnose.level.concurrency': '并发 {x}',
  'diagnose.level.concurrency_range': '并发 {from}–{to}',
  'diagnose.level.concurrency_list': '并发 {list}',
  'diagnose.level.rate': '速率 {x} rps',
  'diagnose.level.rate_range': '速率 {from}–{to} rps',
  'diagnose.level.rate_list': '速率 {list} rps',
  'diagnose.severity.info': '提示',
  'diagnose.severity.warn': '警告',
  'diagnose.severity.critical': '严重',

  // ---- 无法运行的检查 ----
  'diagnose.skipped.no_records_vllm':
    '没有逐请求记录：vLLM 结果文件只有汇总统计和每个请求的耗时，没有 servelab 记录的发送时刻和 token 时刻',
  'diagnose.skipped.no_records': '没有逐请求记录（report.json 旁边没有 requests.jsonl，文件里也没有内嵌）',
  'diagnose.skipped.vllm_validity':
    'vLLM 结果文件没有计划发送时刻、客户端健康数据、逐请求的 usage 计数和服务端序列；只检查了错误率',
  'diagnose.skipped.vllm_truncation': 'vLLM 结果文件不记录 finish reason，因此无法区分截断和正常结束',
  'diagnose.skipped.vllm_ttft_p90':
    '文件中没有 TTFT p90（vLLM 只写出 --metric-percentiles 指定的分位数，默认 99）',

  // ---- 有效性原因 ----
  'diagnose.validity.lateness':
    '压测客户端的发送延迟 p99 为 {late} ms > {max} ms：请求比计划晚发出，实际施加的负载不是所要求的负载',
  'diagnose.validity.event_loop_lag':
    '客户端事件循环延迟 p99 为 {p99} ms > {max} ms：token 时刻里混入了客户端自身的滞后',
  'diagnose.validity.client_cpu': '客户端 CPU 占用 {cpu}% > {max}%：瓶颈可能在压测客户端本身',
  'diagnose.validity.usage_missing':
    '{n} 个成功请求没有返回 usage.completion_tokens：token 计数和 TPOT 未包含这些请求',
  'diagnose.validity.token_mismatch':
    '客户端 usage.completion_tokens 合计 {client}，而服务端生成 token 计数器增加了 +{server}（相差 {pct}%）：usage 或计数器有误，或者有其他流量打到了服务端',
  'diagnose.validity.cache_hits':
    '本应冷启动（fresh 提示词）的运行中有 {pct}% 的提示词 token 命中了前缀缓存：它的 TTFT 是热缓存的，不是冷缓存的',
  'diagnose.validity.cache_hits_seen':
    '本应冷启动的运行（合成提示词，没有预热）中有 {pct}% 的提示词 token 命中了前缀缓存：服务器之前见过这些提示词（又用同一个 --seed {seed} 运行了一次？）；它的 TTFT 是热缓存的，不是冷缓存的（不带 --seed 运行即可得到全新的提示词）',
  'diagnose.validity.cache_hits_llamacpp':
    '本应是冷缓存的运行（全新提示词）中，有 {pct}% 的提示词 token 命中了提示缓存：llama-server 会复用槽位上一个提示词、以及内存提示缓存（--cache-ram，server_prompt_cache）里保存的提示词的最长公共前缀，所以只有几个 -np 槽位也能命中许多提示词；它的 TTFT 是热缓存的，不是冷缓存的（用 --cache-ram 0 启动 llama-server，或发送 cache_prompt: false）',
  'diagnose.validity.cache_hits_preempted':
    '本应冷启动（fresh 提示词）的运行中有 {pct}% 的提示词 token 命中了前缀缓存，超出了其 {preemptions} 次抢占后重算所能解释的部分（计数器显示 {raw}%，其中最多 {recomputed} 个 token 是被抢占的请求重新找到自己的块）：它的 TTFT 是热缓存的，不是冷缓存的',
  'diagnose.validity.sim_behind':
    '模拟器在 {behind} 个步骤上落后于真实时间（servelab_sim_behind_total +{behind}）：这些步骤的 token 发得晚，token 时刻里混入了模拟器自身的滞后；这不是引擎慢（{fix}）',
  'diagnose.validity.sim_behind_of':
    '模拟器在 {steps} 个步骤中的 {behind} 个上落后于真实时间（servelab_sim_behind_total +{behind}）：这些步骤的 token 发得晚，token 时刻里混入了模拟器自身的滞后；这不是引擎慢（{fix}）',
  'diagnose.validity.sim_behind_fix_file':
    '在实验文件的 sim 目标上设置 `clock: virtual`：模拟器改在虚拟时间里运行，不会再落后；或者给它一个更空闲的 CPU 核',
  'diagnose.validity.sim_behind_fix_cli':
    '用 `servelab plan` 在虚拟时间里测同样的负载（参数相同，另加 --model 和 --gpu），模拟器在那里不会落后；或者给 `servelab sim` 一个更空闲的 CPU 核、减少并发流',
  'diagnose.validity.error_rate': '错误率 {pct}% > {max}%：延迟只描述了成功的请求',
  'diagnose.validity.server_gone':
    '服务器在 t={at} 秒时停止响应：此后 {n} 个请求连接失败，{unsent} 个请求未发送；这次运行测到的是一台已经停止的服务器（重启它后再运行一次）',
  'diagnose.validity.littles_law':
    '利特尔定律偏差 {pct}%（实测在途 {measured}，预测 {predicted}）：这次运行没有进入稳态',

  // ---- 引擎术语 ----
  'diagnose.engine.prefill_interference_vllm':
    '长提示词的 prefill 分块与正在解码的请求共用一个引擎步，所以每个解码都要等整个分块算完（分块 prefill 用 max_num_batched_tokens 限制分块大小）',
  'diagnose.engine.prefill_interference_sglang':
    'SGLang 单独运行 prefill 批次，所以每个正在解码的请求都要等每个 prefill 分块（分块 prefill 用 --chunked-prefill-size 限制分块大小；--enable-mixed-chunk 让解码共用这一步）',
  'diagnose.engine.prefill_interference_llamacpp':
    '开启连续批处理（--cont-batching，默认开启）时，提示词的 token 与正在运行的各槽位的下一个 token 共用每次 llama_decode 批次，所以每个解码都要等这一块提示词算完（-b/-ub 限制块大小）',
  'diagnose.engine.queue_full_vllm': '达到了 max_num_seqs 或 KV 容量上限',
  'diagnose.engine.queue_full_sglang': '达到了 --max-running-requests 或 KV 容量上限',
  'diagnose.engine.queue_full_llamacpp':
    '-np/--parallel 的每个槽位都在忙；llama-server 会推迟请求，直到有槽位空出，计入 `llamacpp:requests_deferred`',
  'diagnose.engine.kv_capacity_vllm':
    'kv_cache_dtype fp8（KV 容量翻倍），或调高 gpu_memory_utilization；在同样的高并发下吞吐量应当上升、抢占减少',
  'diagnose.engine.kv_capacity_sglang':
    '--kv-cache-dtype fp8_e5m2（KV 容量翻倍），或调高 --mem-fraction-static；在同样的高并发下吞吐量应当上升、retraction 减少',
  'diagnose.engine.kv_capacity_llamacpp':
    '更大的 -c/--ctx-size（KV 缓存按它分配，并平分给 -np/--parallel 个槽位），或 --cache-type-k q8_0 --cache-type-v q8_0（F16 的一半）；在同样的并发下吞吐量应当上升',
  'diagnose.engine.context_window_vllm': 'max_model_len 允许每个请求的提示词加输出共 {ctx} 个 token',
  'diagnose.engine.context_window_sglang': '--context-length 允许每个请求的提示词加输出共 {ctx} 个 token',
  'diagnose.engine.context_window_llamacpp':
    '每个槽位的上下文是 {ctx} 个 token（llama-server 把 -c/--ctx-size 平分给 -np/--parallel 个槽位：n_ctx_slot），槽位的上下文一满，它的请求就结束',

  // ---- 冷启动 ----
  'diagnose.cold_start.symptom':
    '最初 {k} 个请求很慢，之后 TTFT 稳定下来：第一个 TTFT 为 {first} ms，稳态中位数为 {base} ms',
  'diagnose.cold_start.ev_leading': '开头的慢请求：{k} 个（TTFT {list} ms）',
  'diagnose.cold_start.ev_steady': '稳态 TTFT p50：{base} ms（运行的后半段）',
  'diagnose.cold_start.ev_after': '之后的 TTFT p90：{p90} ms',
  'diagnose.cold_start.ev_warmup': '预热请求：{n} 个',
  'diagnose.cold_start.mechanism':
    '冷启动：引擎在最初的请求上付出了一次性开销（加载权重或延迟初始化、torch.compile/CUDA Graph 捕获、显存分配器扩容、前缀缓存为空）；这些不是稳态延迟',
  'diagnose.cold_start.mechanism_llamacpp':
    '冷启动：llama-server 在最初的请求上付出了一次性开销（通过 `mmap` 读入模型页、最初几个批次的计算缓冲区、槽位和提示缓存为空；启动时的预热解码可用 --no-warmup 跳过）；这些不是稳态延迟',
  'diagnose.cold_start.next':
    '对刚启动的服务端跑两次：一次 warmup: 0（冷），一次 warmup: 5（热）；把冷运行的第一个请求单独报告',

  // ---- TTFT 高 ----
  'diagnose.high_ttft.no_records':
    'TTFT p90 为 {p90} ms，偏高，而 TPOT p50 为 {tpot} ms；但没有逐请求记录，无法区分排队、预填充和前端开销',
  'diagnose.high_ttft.no_records_vllm':
    'TTFT p90 为 {p90} ms，偏高，而 TPOT p50 为 {tpot} ms（按 vLLM 的定义）；但没有逐请求记录，无法区分排队、预填充和前端开销',
  'diagnose.high_ttft.symptom': '首 token 时延偏高（p90 {p90} ms），而解码速度为每 token {tpot} ms',
  'diagnose.high_ttft.ev_ttft': 'TTFT p50 {p50} ms，p90 {p90} ms',
  'diagnose.high_ttft.ev_tpot': 'TPOT p50 {tpot} ms（解码正常：TTFT p50 相当于 {ratio} 个 token 的时间）',
  'diagnose.ttft_share.ev':
    'TTFT p99 尾部（{n} 个请求，平均 {ttft} ms）：排队 {queue}，prefill {prefill}，网络与 API 服务器 {rest}',
  'diagnose.ttft_share.ev_no_queue':
    'TTFT p99 尾部（{n} 个请求，平均 {ttft} ms）：prefill {prefill}，网络、API 服务器与等待 {rest}（引擎不报告排队时间）',
  'diagnose.high_ttft.ev_fit': 'TTFT ≈ {a} ms + 每 1k 输入 token {b} ms（R² {r2}）',
  'diagnose.high_ttft.ev_fit_flat': 'TTFT ≈ {a} ms + 每 1k 输入 token {b} ms（R² {r2}）：基本持平',
  'diagnose.high_ttft.unexplained_series':
    'TTFT p90 为 {p90} ms，偏高，而 TPOT p50 为 {tpot} ms；但无法区分排队、预填充和前端开销（没有看到等待中的请求；输入长度{lens}）',
  'diagnose.high_ttft.unexplained_no_series':
    'TTFT p90 为 {p90} ms，偏高，而 TPOT p50 为 {tpot} ms；但无法区分排队、预填充和前端开销（没有采集服务端序列；输入长度{lens}）',
  'diagnose.high_ttft.lens_spread': '解释不了它',
  'diagnose.high_ttft.lens_alike': '全都相同',
  'diagnose.high_ttft_queueing.mechanism':
    '排队：请求在引擎里等待运行槽位或 KV 块，之后才开始 prefill（{why}）',
  'diagnose.high_ttft_queueing.ev_waiting': '服务端等待数：最大 {max}，平均 {mean}',
  'diagnose.high_ttft_queueing.ev_running': '服务端运行数：最大 {max}',
  'diagnose.high_ttft_queueing.ev_kv': 'KV 使用率：最大 {pct}%',
  'diagnose.high_ttft_queueing.ev_kv_none': 'KV 使用率：无数据（服务器没有导出 KV 使用率指标）',
  'diagnose.high_ttft_queueing.next':
    '在引擎的 {maxSeqs} 上下扫描并发：TTFT 应当跟随等待序列变化，并且只在饱和之后才上升',
  'diagnose.high_ttft_prefill.mechanism':
    'prefill：TTFT 随提示词长度增长，所以时间花在 prefill 本身（对整个提示词做注意力和 GEMM，受算力限制）',
  'diagnose.high_ttft_prefill.ev_inputs': '输入 token {min}–{max}',
  'diagnose.high_ttft_prefill.next':
    '在并发 1 下比较短提示词和长提示词；对长提示词尝试前缀缓存或更大的 {batchTokens}',
  'diagnose.high_ttft_frontend.mechanism':
    'prefill 之前的固定单请求开销：API 服务端里的聊天模板渲染、分词或反分词（TTFT 与输入长度无关，请求之间也没有重叠）',
  'diagnose.high_ttft_frontend.ev_inflight': '发送时平均在途请求数：{n}',
  'diagnose.high_ttft_frontend.next':
    '把同一个提示词分别发到 /v1/completions（不套聊天模板）和 /v1/chat/completions；采集 /metrics，读取引擎自己的排队和 prefill 时间',

  // ---- 生成过程中的停顿 ----
  'diagnose.pauses.symptom': '生成过程中有 {n} 次停顿超过 {thr} ms（最长 {max} ms）',
  'diagnose.pauses.ev_stall_p': '停顿 p50 {p50} ms，最长 {max} ms',
  'diagnose.pauses.unexplained':
    '生成过程中有 {n} 次超过 {thr} ms 的停顿（最长 {max} ms），既没有与之重叠的其他请求 prefill，也没有对应的客户端滞后',
  'diagnose.stall_prefill_interference.timeline_server': '按服务端自己的 prefill 窗口（其逐请求 timings）',
  'diagnose.stall_prefill_interference.timeline_client':
    '按客户端记录：每个提示词的 [发送, 首 token] 窗口，包含排队时间',
  'diagnose.stall_prefill_interference.ev_threshold':
    '停顿阈值 {thr} ms（{gaps} 个间隔中有 {stalls} 次停顿；间隔中位数 {median} ms）',
  'diagnose.stall_prefill_interference.ev_overlap_any':
    '{stalls} 次停顿中有 {n} 次（{pct}%）与另一个请求的 prefill 重叠（{windows} 个 prefill 窗口中 {server} 个由服务端计时，其余为 [发送, 首 token]）',
  'diagnose.stall_prefill_interference.ev_culprits_any': '与之重叠的 prefill：{ids}',
  'diagnose.stall_prefill_interference.ev_ratio_any':
    '停顿比 {ratio}：与其他请求 prefill 重叠的 {ovn} 个间隔平均 {ov} ms，不重叠的 {cln} 个间隔平均 {cl} ms，{timeline}',
  'diagnose.stall_prefill_interference.ev_p99_any':
    '与其他请求的 prefill 重叠时分块间隔 p99 为 {ov} ms，其余时候 {cl} ms',
  'diagnose.stall_prefill_interference.ev_long': '长提示词（≥ {cut} token）：{ids}',
  'diagnose.stall_prefill_interference.symptom_slowed':
    '长提示词做 prefill 时解码变慢：与长 prefill 重叠的分块间隔平均 {ov} ms，其余时候 {cl} ms（停顿比 {ratio}）',
  'diagnose.stall_prefill_interference.ev_ratio':
    '停顿比 {ratio}：与长 prefill 重叠的 {ovn} 个间隔平均 {ov} ms，不重叠的 {cln} 个间隔平均 {cl} ms，{timeline}',
  'diagnose.stall_prefill_interference.ev_p99':
    '与长 prefill 重叠时分块间隔 p99 为 {ov} ms，其余时候 {cl} ms',
  'diagnose.stall_prefill_interference.mechanism': '长 prefill 干扰：{how}',
  'diagnose.stall_prefill_interference.next':
    '把 {batchTokens} 减半再跑一次（prefill 分块更小）：停顿应当缩短，而长提示词的 TTFT 会变长',
  'diagnose.stall_client.ev_threshold': '停顿阈值 {thr} ms',
  'diagnose.stall_client.ev_shared': '{n} 次停顿同时出现在大多数流上',
  'diagnose.stall_client.ev_loop': '客户端事件循环延迟最大 {max} ms，p99 {p99} ms',
  'diagnose.stall_client.ev_loop_at':
    '这些停顿期间客户端事件循环延迟：最大 {max} ms，p50 {p50} ms（全程最大 {runMax} ms）',
  'diagnose.stall_client.mechanism':
    '客户端造成的间隔：压测客户端的事件循环（或它的 CPU）暂停了，已到达的分块对所有流同时被打上了迟到的时间戳；服务端并没有停顿',
  'diagnose.stall_client.next':
    '减少每个客户端进程的并发流数（或换一台负载更轻的机器）再跑一次；如果停顿来自客户端，它们应当消失',
  'diagnose.stall_preemption.ev_threshold':
    '停顿阈值 {thr} ms；有 {n} 次停顿背后既没有长 prefill 也没有客户端滞后',
  'diagnose.stall_preemption.ev_server': '服务端抢占 +{n}，KV 使用率最大 {pct}%',
  'diagnose.stall_preemption.mechanism':
    '抢占（preemption）：KV 缓存满了，调度器把正在运行的请求逐出，之后重新计算，所以每个被逐出的流都停顿了“等待 + 重算”的时间',
  'diagnose.stall_preemption.mechanism_retraction':
    '回撤（retraction，SGLang 的抢占）：KV 缓存满了，调度器把正在运行的请求逐出，之后重新计算，所以每个被逐出的流都停顿了“等待 + 重算”的时间',
  'diagnose.stall_preemption.next': '切换：{kvFp8}（或更小的 {maxSeqs}），负载不变：抢占和长间隔应当消失',
  'diagnose.stall_preemption.next_retraction':
    '切换：{kvFp8}（或更小的 {maxSeqs}），负载不变：回撤和长间隔应当消失',

  // ---- 批次增长 ----
  'diagnose.stall_batch_growth.source_series': '服务端运行数序列',
  'diagnose.stall_batch_growth.source_inflight': '在途请求数（客户端记录）',
  'diagnose.stall_batch_growth.symptom':
    '解码间隔随批次增大：运行数 ≤ {loB} 时间隔 p50 为 {lo} ms，运行数 ≥ {hiB} 时为 {hi} ms（{ratio}×）',
  'diagnose.stall_batch_growth.ev_gaps': '{n} 个不与其他请求 prefill 重叠的分块间隔（批次大小取自{source}）',
  'diagnose.stall_batch_growth.ev_batch': '批次大小 p10 {lo}，p90 {hi}',
  'diagnose.stall_batch_growth.ev_deciles':
    '低批次十分位的间隔 p50：{lo} ms（{lon} 个间隔）；高批次十分位：{hi} ms（{hin} 个间隔）',
  'diagnose.stall_batch_growth.ev_rho': '间隔与批次大小的 Spearman 秩相关系数：{rho}',
  'diagnose.stall_batch_growth.mechanism':
    '批次增长：连续批处理中每个运行中的请求每个引擎步得到一个 token，批次越大，一个解码步要读的 KV 越多、每个请求的额外开销也越多，所以运行的请求越多，每个流都越慢（这些间隔没有与任何 prefill 重叠）',
  'diagnose.stall_batch_growth.next':
    '把并发从 {lo} 扫描到 {hi}：TPOT 应当随批次大小增长；或者调小 {maxSeqs} 来限制批次，用吞吐量换取单流速度',

  // ---- 吞吐量不再上升 ----
  'diagnose.plateau.point': '{x}: {v} tok/s',
  'diagnose.plateau.falls_concurrency': '高并发下吞吐量下降（{curve}）',
  'diagnose.plateau.flat_concurrency': '高并发下吞吐量不再上升（{curve}）',
  'diagnose.plateau.falls_rate': '高速率下吞吐量下降（{curve}）',
  'diagnose.plateau.flat_rate': '高速率下吞吐量不再上升（{curve}）',
  'diagnose.plateau.unexplained':
    '{symptom}；没有看到 KV 压力或客户端限制；算力饱和是吞吐平台期的常见原因（查看 GPU 利用率）',
  'diagnose.plateau.unexplained_not_scraped':
    '{symptom}；没有看到 KV 压力（未采集）或客户端限制；算力饱和是吞吐平台期的常见原因（查看 GPU 利用率）',
  'diagnose.kv_pressure.ev':
    '{label}：KV 使用率最大 {pct}%，抢占 +{n}，等待数最大 {waiting}，运行数最大 {running}',
  'diagnose.kv_pressure.mechanism':
    'KV 缓存压力：KV 池满了，调度器接纳的请求比负载提供的少，还会抢占运行中的请求（重算），限制了批次并浪费了计算',
  'diagnose.kv_pressure.next': '切换：{how}',
  'diagnose.client_limit.mechanism':
    '客户端限制：压测客户端无法施加或读取这么大的负载（事件循环滞后、CPU、发送延迟），服务端从未被压得更狠',
  'diagnose.client_limit.next':
    '从第二台客户端机器（或用 --workers）重跑高负载档位，并比较服务端的 token 速率',

  // ---- A/B 对比 ----
  'diagnose.ab.side_runs': '{what}（{n} 次运行）',
  'diagnose.ab.line': '{name}（{what}）：{tok} tok/s，TPOT p50 {tpot} ms，TTFT p50 {ttft} ms',
  'diagnose.ab.line_mean':
    '{name}（{what}）：平均 {tok} tok/s，平均 TPOT p50 {tpot} ms，平均 TTFT p50 {ttft} ms',
  'diagnose.ab.level_concurrency': '档位：并发 {c}',
  'diagnose.ab.level_rate': '档位：速率 {r} rps',
  'diagnose.ab.level_unspecified': '档位：未指定',
  'diagnose.quantised_slower.symptom': '{q} 的输出吞吐量比 {full} 低 {pct}%',
  'diagnose.quantised_slower.mechanism':
    '在这个批次下量化的开销超过了它节省的带宽：仅权重量化的格式在 GEMM 内部反量化，其内核针对小批次（受带宽限制的解码）调优；批次大时 GEMM 受算力限制，额外的计算和效率更低的内核/形状让每一步更慢',
  'diagnose.quantised_slower.next':
    'cells: {full} 和 {q}；concurrency: [1, {c}]：预期量化的一格在并发 1 时更快、在高并发时更慢',
  'diagnose.multi_gpu_slower.symptom': 'tp={hi} 的输出吞吐量比 tp={lo} 低 {pct}%',
  'diagnose.multi_gpu_slower.ev_link': '互联：{link}',
  'diagnose.multi_gpu_slower.ev_link_missing': '互联：记录中缺失',
  'diagnose.multi_gpu_slower.mechanism':
    '张量并行通信：每一层都以跨 GPU 的 all-reduce 结束；在慢速互联（PCIe）上、对小模型而言，通信的代价超过了每块 GPU 算力和带宽减半所节省的时间',
  'diagnose.multi_gpu_slower.next':
    '切换：在更大的模型或 NVLink 机器上比较 tp（{lo} 对 {hi}）；或者改为运行 {hi} 个独立副本（数据并行）',

  // ---- 截断 ----
  'diagnose.truncation.symptom':
    '{n} 个请求中有 {cut} 个（{pct}%）在 token 上限处停止（finish_reason length）',
  'diagnose.truncation.ev_tokens': '被截断的输出 token：p50 {p50}，最大 {max}',
  'diagnose.truncation.ev_structured': '配置了结构化输出（{key}）：被截断的回答不可能有效',
  'diagnose.truncation.ev_unstructured': '没有配置结构化输出',
  'diagnose.truncation.mechanism_structured':
    '结构化输出下被 max_tokens 截断：语法约束让模型保持在 schema 内，但回答在闭合之前就用完了 token，所以输出不符合 schema',
  'diagnose.truncation.mechanism':
    '被 max_tokens 截断：回答比上限更长，所以输出长度（和 E2E）反映的是上限，而不是模型本身',
  'diagnose.truncation.next':
    '调高 max_tokens（output_len），直到 ≥ 95% 的请求 finish_reason 为 stop；输出长度以 usage 为准报告',
  'diagnose.truncation.ev_context':
    '被截断的请求中有 {k} 个停在所要求的 {cap} 个输出 token 之前，此时提示词加输出为 {ctx} 个 token',
  'diagnose.truncation.mechanism_context':
    '被上下文窗口截断，而不是被 max_tokens 截断：{window}，所以提示词加输出在达到所要求的输出长度之前就碰到了上限',
  'diagnose.truncation.next_context':
    '调高 {limit}，或发送更短的提示词，直到提示词加 max_tokens 能放进 {ctx} 个 token；调高 max_tokens 没有用',

  // ---- 没有规则能解释的长尾 ----
  'diagnose.tail.unexplained': 'E2E p99 为 {p99} ms，是 p50（{p50} ms）的 {ratio}×，没有规则能解释它',
  'diagnose.tail.unexplained_no_records':
    'E2E p99 为 {p99} ms，是 p50（{p50} ms）的 {ratio}×，没有规则能解释它（逐请求规则无法运行：没有记录）',
};
