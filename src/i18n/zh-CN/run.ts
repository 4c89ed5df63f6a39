import type { run as en } from '../en/run.js';

/** "run" 部分的文字：run、plan、demo 的控制台汇总、结论、分词、阈值和结束语。 */
export const run: Record<keyof typeof en, string> = {
  'run.table.requests': '请求',
  'run.table.planned': '计划',
  'run.table.measured': '计入测量',
  'run.table.succeeded': '成功',
  'run.table.failed': '失败',
  'run.table.error_rate': '错误率',
  'run.table.usage_missing': '缺少 usage',
  'run.table.outcomes': '结果分类',
  'run.table.finish_reasons': '结束原因（finish reason）',
  'run.table.latency': '延迟（ms）',
  'run.table.stages': '负载阶段（ms）',
  'run.table.stage': '阶段',
  'run.table.metric': '指标',
  'run.table.throughput': '吞吐量',
  'run.table.output_tok_s': '输出 token/s',
  'run.table.total_tok_s': '总 token/s',
  'run.table.requests_s': '请求/s',
  'run.table.achieved_rate': '实际发送速率（请求/s）',
  'run.table.goodput': '有效吞吐 goodput（{slo}）',
  'run.table.good_rps': '达标请求/s',
  'run.table.good_fraction': '达标比例',
  'run.table.littles_law': '利特尔定律',
  'run.table.measured_in_flight': '实测在途',
  'run.table.predicted_in_flight': '预测（λ·W）',
  'run.table.relative_gap': '相对偏差',
  'run.table.predicted_users': '预测（闭环用户数）',
  'run.table.littles_law_not_judged': '未判定：请求太少',
  'run.table.tokens': 'token 数（每请求平均）',
  'run.table.input': '输入',
  'run.table.output': '输出',
  'run.table.client': '客户端',
  'run.table.event_loop': '事件循环延迟 p50/p99/max（ms）',
  'run.table.cpu': 'CPU 占用',
  'run.table.prepared': '测量窗口前的准备',
  'run.table.prepared_value': '打开 {connections} 个连接，进程内预热 {warm} 次，均不计入记录',
  'run.table.top_errors': '主要错误',
  'run.table.warnings': '警告',
  'run.table.ttft_split': 'TTFT 分解（ms，来自服务端自己的 timings：{source}）',
  'run.table.ttft_split_none': 'TTFT 分解（ms）',
  'run.ttft_split.no_ttft': '没有一个成功的请求以流式收到首个 token',
  'run.ttft_split.no_timings':
    '服务端没有返回逐请求的 timings（llama.cpp 和 `servelab sim --expose-timings` 会返回；vLLM 和 SGLang 不会）',
  'run.ttft_split.no_queue':
    '服务端的 timings 不含排队时间（llama.cpp 即是如此）：等待空闲 slot 的时间计入 ttft_rest_ms',
  'run.verdict.valid': '结论：有效（没有发现怀疑这些数字的理由）',
  'run.verdict.invalid': '结论：无效，这些数字不能作为依据：',
  'run.tokenization': '分词：{what}',
  'run.tokenization.tokenizer': '离线分词器（精确）',
  'run.tokenization.server_tokenize': '服务端的 /tokenize（精确）',
  'run.tokenization.approximate':
    '近似估计（合成提示词精确；英文文本约 +10%（−3% 到 +25%）；中文约 −11%（−18% 到 −3%），以 Qwen3 为基准）',
  'run.tokenization.tokenizer_agrees':
    '{name} 的离线分词器（精确：服务器的 /tokenize 在探测文本上与之一致，{local} 个 token）',
  'run.tokenization.tokenizer_unchecked':
    '{name} 的离线分词器（近似：没有服务器 /tokenize 应答，无法证明服务器使用的是这个分词器）',
  'run.tokenization.tokenizer_differs':
    '服务器的 /tokenize（所服务模型自己的分词器），而不是 {name} 的分词器：后者把探测文本数成 {local} 个 token，服务器数成 {server} 个，说明服务器用的是另一套词表',
  'run.prompt_overhead':
    '请求的输入为 {requested} 个 token（中位数）；服务器在每个提示上另计 {sign}{n} 个（BOS，chat 请求还有聊天模板；取自 usage.prompt_tokens）',
  'run.tokenization.none': '不需要（提示词按原样发送）',
  'run.header': 'servelab run：{url}，模型 {model}，种子 {seed}',
  'run.header_run': 'servelab run：{url}，模型 {model}（运行 {id}），种子 {seed}',
  'run.progress.line': '[{elapsed}s] 已完成 {count} · 在途 {in_flight} · 错误 {errors} · {rate} req/s{eta}',
  'run.progress.line_one_error':
    '[{elapsed}s] 已完成 {count} · 在途 {in_flight} · 错误 {errors} · {rate} req/s{eta}',
  'run.progress.eta': ' · 预计剩余 {eta}',
  'run.started': '运行 {id} 已开始',
  'run.wrote': '已写入 {files}',
  'run.drain_timeout': '排空超时：运行结束 {s} 秒后仍在途的请求已取消（--drain-timeout）',
  'run.context.over':
    '--input-len {input} 的每个提示都不短于 {model} 的上下文长度（{max} 个词元，/v1/models 中的 max_model_len）：服务器会拒绝每个请求',
  'run.context.overHint': '请给出小于 {max} 个词元的 --input-len，并为输出留出空间',
  'run.interrupted': '已中断：在途和未发送的请求记为已取消',
  'run.fail_fast': '提前停止（fail fast）：{reason}',
  'run.fail_fast.same_way': '最初的请求全部以同样的方式失败',
  'run.fail_fast.unsent': '{n} 个未发送的请求记为已取消；加 --no-fail-fast 则无论如何都发送所有请求',
  'run.thresholds': '阈值',
  'run.thresholds.pass': '通过',
  'run.thresholds.fail': '未通过',
  'run.thresholds.no_data': '无数据',
  'run.thresholds.limit': '（上限 {limit}）',
  'run.thresholds.limit_baseline': '（上限 {limit}，基线 {baseline}）',
  'run.plan.header': 'servelab plan：{model}，运行于 {gpu}（虚拟时间，模拟了 {s} 秒），种子 {seed}',
  'run.plan.header_run':
    'servelab plan：{model}，运行于 {gpu}（虚拟时间，模拟了 {s} 秒）（运行 {id}），种子 {seed}',
  'run.plan.max_concurrency': '满足 SLO 的最大并发（≥ {pct}% 达标）：{c}',
  'run.plan.no_concurrency': '没有任何并发能满足 SLO',
  'run.demo.simulator':
    '模拟器：{model}，运行于 {gpu}（类 vLLM 引擎），在本进程内运行，时钟：虚拟时间（同 servelab plan：在任何机器上数字都相同）',
  'run.demo.closed': '闭环：8 个并发用户，48 个请求',
  'run.demo.poisson': '开环：泊松到达，每秒 6 个请求，共 36 个请求，最多 32 个在途',
  'run.demo.next': '下一步：打开 {file}，或者试试',
  'run.warn.no_measured': '没有计入测量的请求：所有指标都为空',
  'run.warn.none_succeeded': '{n} 个计入测量的请求没有一个成功',
  'run.warn.thin_p99': '{metrics} 的 p99 基于不到 100 个样本：请视为不稳定',
  'run.warn.thin_p95': '{metrics} 的 p95 基于不到 20 个样本：请视为不稳定',
  'run.warn.usage_missing':
    '{n} 个成功请求没有返回 usage.completion_tokens：tpot_ms、token 吞吐量和 token 均值未包含它们（服务端是否支持 stream_options.include_usage？）',
  'run.warn.not_streamed':
    '{n} 个成功请求不是流式的：非流式响应一次性到达，没有逐 token 时刻，所以 ttft_ms、ttfr_ms、tpot_ms、itl_ms、max_gap_ms 和 ttft_from_planned_ms 未包含它们（没有任何流式请求时为 null）；e2e_ms 是它们的延迟',
  'run.warn.truncated':
    '{n} 个请求被截断：在达到所要求的输出长度之前（或根本没有要求长度）就停在了 token 上限（finish_reason length，outcome length）',
  'run.warn.retries': '{n} 次重试：每个请求只按最后一次尝试计一次',
  'run.warn.cancelled_unsent':
    '{n} 个请求在发送前被取消（运行被中断、fail fast 提前停止，或服务器停止响应）；它们计为失败',
  'run.warn.zero_window': '测量窗口长度为零：吞吐量为 null',
  'run.warn.rate_behind':
    '实际发送速率 {achieved} rps 低于目标 {target} rps：压测客户端落后了，或者并发上限压住了请求（见 lateness_ms、queue_ms）',
  'run.warn.event_loop':
    '客户端事件循环延迟 p99 为 {p99} ms（> {max} ms）：尾延迟里可能混入了客户端自身的滞后',
  'run.warn.cpu': '客户端 CPU 占用 {cpu}%（> {max}%）：瓶颈可能在压测客户端本身',
  'run.warn.littles_law':
    '利特尔定律：实测在途 {measured}，预测 {predicted}（偏差 {pct}%）：这次运行没有进入稳态（发送期间积压了队列，或者客户端没能让所有用户保持忙碌）',
  'run.limit.planned':
    '计划发送 {n} 个请求，超过单次运行的上限（{max}）：一次运行会把计划和全部记录都放在内存里',
  'run.prompts.bad_utf8':
    '警告：{file} 不是有效的 UTF-8（第一个错误字节位于偏移 {offset}）：无法解码的字节已替换为 U+FFFD，发送的提示词与文件内容不同',
  'run.limit.planned_hint':
    '把负载拆成多次运行，每次至多 {max} 个请求（减少 --requests 或 --warmup，降低 --rate 或缩短 --duration）',
  'run.spec.line':
    '推测解码（{source}）：接受率 {rate}（接受/草稿），平均接受长度 {length} 个 token/每次验证，草稿效率 {eff}',
  'run.spec.why':
    '每次验证为每个请求计算 {verified} 个位置、只保留 {length} 个：{wasted} 的计算被丢弃。decode 受内存带宽限制时（小批量，无论查询多宽都读同样的权重）这几乎不花时间；大批量使每步受算力限制后，这就成了代价，加速随之缩小，直至反转',
  'run.spec.null.no_data': '没有推测解码数据：引擎没有暴露 spec-decode 计数器，响应里也没有草稿 timings',
  'run.spec.null.no_drafts': '本次运行没有产生任何草稿（ngram：提示词的 n-gram 没有重复）',
  'run.spec.null.drafts_not_reported': '引擎不报告草稿次数：平均接受长度和草稿效率未知',
  'run.spec.ngram_prior':
    'ngram 的接受率按每个位置 {alpha} 假设（合成提示词没有可供匹配的文本；来源：{source} 中提示词查找解码（prompt lookup decoding）每步平均接受 {mat} 个 token）；要实测它，请给出带文本的数据集（--dataset、--prompts），或在 --speculative-config 中设置 acceptance_rate',
  'run.spec.source.metrics': '引擎 /metrics',
  'run.spec.source.sglang_gauges': 'SGLang 的仪表值，取读数平均',
  'run.spec.source.llamacpp_timings': 'llama.cpp timings，按响应求和',
};
