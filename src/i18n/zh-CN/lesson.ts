import type { lesson as en } from '../en/lesson.js';

/** 课程各课（键 `lesson.*`）：`exp init lesson-…`，每课的效应与机制。 */
export const lesson: Record<keyof typeof en, string> = {
  'lesson.factor_label': '只改变的一个因素',
  'lesson.fixed_label': '保持不变',
  'lesson.run_it':
    '运行：servelab exp run {name}.yaml，然后 servelab report EXP_ID --html r.html（步时间线显示机制）。对自己的引擎：servelab exp init {name} --url URL。',
  'lesson.tpl.cells': '提示词长度：要改变的因素',
  'lesson.tpl.batch': '同时在途的请求数（batch）',
  'lesson.tpl.ignore_eos': '每个请求生成相同数量的 token',
  'lesson.tpl.shared_prefix': '每个提示词以相同的 token 开头',
  'lesson.tpl.mixed': '长短提示词混合',
  'lesson.tpl.int4_levels': 'batch 1（受权重读取限制）和大 batch（受计算限制）',
  'lesson.tpl.voice_vary': '回复如何切分后送去合成语音',
  'lesson.tpl.spec_levels': '从单个请求（受内存带宽限制）到每步受算力限制的批次',
  'lesson.tpl.two_gpu':
    '选用 A100-80GB：两个引擎的默认每步设置在这张卡上不同——vLLM 每步 2,048 个 token 并与 decode 共用一步，SGLang 的 prefill 批次最多 8,192 个 token 且单独运行',
  'lesson.tpl.two_levels': '先单个请求，再 4 个、16 个并发：prefill 与 decode 相遇之处',
  'lesson.no_data': '无数据：这些运行没有给出可判断效应的数字',
  'lesson.holds': '符合课程的预期。',
  'lesson.not_holds': '不符合课程的预期：请对照步时间线阅读下面的机制。',
  'lesson.factor': '改变：{text}',
  'lesson.fixed': '保持不变：{text}',
  'lesson.mechanism_label': '机制：{text}',
  'lesson.look_steps':
    '在哪里看：servelab report EXP_ID --html r.html 会画出每次运行的步时间线（--request ID 选择请求；--trace-events t.json 可在 Perfetto 中打开）。',
  'lesson.source': '源码（{engine}）：{path} {symbol}（docs/source-map.md）',
  'lesson.mechanism.cache': '缓存',
  'lesson.mechanism.scheduling': '调度',
  'lesson.mechanism.kernel': 'kernel（算子）',
  'lesson.mechanism.precision': '精度',
  'lesson.mechanism.output_length': '输出长度',
  'lesson.mechanism.none': '未找到机制',
  'lesson.two.diff': '并发 {c} 时的 {metric}：{a} 对 {b} → {mechanism}',

  'lesson.lesson-long-context.question': '长上下文为什么仍让 decode 变慢？',
  'lesson.lesson-long-context.factor': '提示词长度（1k、4k、8k token）',
  'lesson.lesson-long-context.fixed':
    '模型、GPU 与引擎，batch（并发 1 和 8），输出长度（64 个 token，ignore_eos）',
  'lesson.lesson-long-context.effect':
    '并发 {c} 时，TPOT p50 从 {short} ms（{from}）变为 {long} ms（{to}）：{change}。',
  'lesson.lesson-long-context.mechanism':
    '每个 decode 步都要读取 batch 中每个请求的全部 KV cache：对 n 个上下文 token 做注意力，要从显存搬运 n ×（每 token 的 KV 字节数），再加上权重。权重每步只读一次，与上下文无关；KV 却随上下文增长，所以即使 batch 相同，长上下文的步也更长。在步时间线中，请求数相同时，8k 单元的 decode 步比 1k 单元的更长。',
  'lesson.lesson-paging-vs-prefix.question': '分页与前缀命中为什么不同？',
  'lesson.lesson-paging-vs-prefix.factor': '自动前缀缓存开或关',
  'lesson.lesson-paging-vs-prefix.fixed':
    '提示词（2,048 个共享 token + 各自 256 个）、输出长度、引擎及其 KV block 大小',
  'lesson.lesson-paging-vs-prefix.effect':
    '并发 1 时，开启前缀缓存的 TTFT p50 为 {on} ms，关闭时为 {off} ms（{change}）。',
  'lesson.lesson-paging-vs-prefix.blocks':
    '运行中的请求在开启前缀缓存时持有 {on} 个 KV block，关闭时持有 {off} 个：命中省下的是计算，不是显存页。',
  'lesson.lesson-paging-vs-prefix.no_blocks':
    '持有的 KV block：无数据（这些运行没有记录步：需要 record_steps 和结果库）。',
  'lesson.lesson-paging-vs-prefix.mechanism':
    '分页（vLLM 的 PagedAttention block、SGLang 的 token 池、llama.cpp 的 slot 单元）是 KV 显存的组织方式：无论是否命中，请求的上下文每 block_size 个 token 就占一个 block。前缀命中只意味着其中一些 block 已经存有正确的 KV，这些 token 不必再 prefill：TTFT 下降，运行中请求持有的 block 数不变。在步时间线中，开启前缀缓存的运行每次 prefill 256 个 token，关闭时 prefill 2,304 个，而最后一个 chunk 之后的 block 数相同。',
  'lesson.lesson-batch-vs-tail.question': '增大 batch 为什么可能伤害尾延迟？',
  'lesson.lesson-batch-vs-tail.factor': '同时在途的请求数（并发 1 → 32）',
  'lesson.lesson-batch-vs-tail.fixed': '模型、GPU 与引擎，每步 token 预算（2,048），提示词与输出长度',
  'lesson.lesson-batch-vs-tail.effect':
    '并发从 {lo} 到 {hi}，p99 ITL 从 {itl_lo} ms 变为 {itl_hi} ms（{itl_change}），同时输出吞吐从 {tp_lo} 变为 {tp_hi} tok/s（{tp_change}）。',
  'lesson.lesson-batch-vs-tail.mechanism':
    'batch 越大，每步的权重读取由越多请求分摊，吞吐上升；但每步更长，而且请求越多，越多的步还夹带着其他请求的 prefill chunk（分块 prefill 把它和 decode 放进同一次前向计算）。这样一步里的 decode 要等整个 chunk 算完：这就是尾部的间隔。在大 batch 的步时间线里，请求最坏间隔下方的长步，正是带有 prefill chunk 的那些步。',
  'lesson.lesson-int4.question': 'INT4 为什么不一定快？',
  'lesson.lesson-int4.factor': '权重精度（bf16 或 int4，AWQ/GPTQ 式仅权重量化）',
  'lesson.lesson-int4.fixed': '模型（Llama 3.1 8B）、GPU、引擎、提示词与输出长度；batch 1 和 batch 128',
  'lesson.lesson-int4.effect':
    '并发 {c} 时，TPOT p50 在 bf16 下为 {bf16} ms，在 int4 下为 {int4} ms（{change}）。',
  'lesson.lesson-int4.mechanism':
    'batch 1 时，decode 步受读取权重的限制：int4 只读约四分之一的字节，所以更快。batch 大时，步受矩阵乘法的限制，而仅权重 int4 在做同样的乘法前，要先把每块权重反量化为 16 位（Marlin/AWQ kernel）：省下的显存带宽已抵不过这份额外工作，于是 int4 不再更快，甚至更慢。',
  'lesson.lesson-speculation.question': '推测解码为什么会回滚？为什么它的加速随批次增大而下降？',
  'lesson.lesson-speculation.factor': '关闭推测解码（spec-off）或 EAGLE 每步 3 个草稿 token（spec-on）',
  'lesson.lesson-speculation.fixed':
    '模型（Qwen3 8B）、GPU 与引擎、提示词（64 个 token）、输出长度（128 个 token，ignore_eos）、种子和并发级别',
  'lesson.lesson-speculation.effect':
    '并发 {c}：TPOT p50 关闭 {off} ms → 开启 {on} ms：加速 ×{x}（{sign}）。',
  'lesson.lesson-speculation.faster': '更快',
  'lesson.lesson-speculation.slower': '更慢',
  'lesson.lesson-speculation.same': '无变化',
  'lesson.lesson-speculation.falls': '加速随批次增大而下降：并发 {c1} 时 ×{first}，并发 {cn} 时 ×{last}。',
  'lesson.lesson-speculation.not_falling':
    '这里加速没有随批次下降（并发 {c1} 时 ×{first}，并发 {cn} 时 ×{last}）：请确认并发级别达到了受算力限制的批次。',
  'lesson.lesson-speculation.mechanism':
    '每一步，每个解码中的请求提出 k 个草稿 token（EAGLE：一层草稿头跑 k 次），目标模型在一次前向中验证这 k + 1 个位置；保留被接受的前缀和自己采样的一个 token，被拒绝的草稿回滚（num_computed_tokens −= num_rejected：它们的 KV 槽位在下一步被覆盖）。批次小时每步受内存带宽限制：读一遍权重的代价对 1 个或 k + 1 个位置都一样，所以每步约 2.8 个 token 只比一步多花一点。批次增大后每步变为受算力限制：每个请求 k + 1 个位置就是 k + 1 倍的 GEMM 计算，被拒绝的也算在内，于是加速缩小，然后反转。在 spec-on 的步时间线里，每个验证步为每个 decode 计算 k + 1 个 token，trace 的 spec_proposed 与 spec_accepted 显示这一步丢弃了多少；运行摘要会打印接受率。',
  'lesson.lesson-voice.question': '语音回复的首音频为什么不是文本 TTFT？',
  'lesson.lesson-voice.factor': '回复如何切分后送去合成（按句或整段）',
  'lesson.lesson-voice.fixed': '语音输入、LLM 及其负载、ASR 与 TTS 及其设置',
  'lesson.lesson-voice.effect':
    '按 {value} 切分：首音频时间 p50 为 {tfa} ms，文本 TTFT p50 为 {ttft} ms（{gap} ms），由端点检测 {endpoint} ms、ASR {asr} ms、等待第一块文本 {wait} ms、TTS 首字节 {tts} ms 和播放缓冲 {buffer} ms 组成。',
  'lesson.lesson-voice.mechanism':
    '首音频要等整条链路：先检测用户说完（端点检测），再转写（ASR），LLM 产出第一批 token（文本 TTFT），然后还要有足够的文本构成第一段可朗读的内容（一句或整段回复），TTS 产出首字节，播放器还要缓冲。文本 TTFT 只是其中一环；步时间线只显示 LLM 的部分。',
  'lesson.lesson-two-engines.question': '同条件下，类 vLLM 与类 SGLang 引擎之间的每项差异来自哪里？',
  'lesson.lesson-two-engines.factor':
    '引擎，各用各的默认设置：vLLM v1 的调度器（每步 2,048 个 token，prefill chunk 与 decode 混在一步）与分页 KV，对比 SGLang 的调度器（最多 8,192 个 token 的 prefill 批次单独运行）与 radix cache',
  'lesson.lesson-two-engines.fixed': '模型、GPU、精度、提示词（含共享前缀）、输出长度与负载档位',
  'lesson.lesson-two-engines.effect': '{a} 与 {b} 之间有 {n} 项差异，每项对应一个机制：{list}。',
  'lesson.lesson-two-engines.same': '{a} 与 {b} 在每个指标上的差别都在 10% 以内：没有需要解释的差异。',
  'lesson.lesson-two-engines.mechanism':
    '每项差异归到一个机制：缓存（命中率不同）、调度（负载下如何接纳提示词、如何让 prefill chunk 与 decode 交错）、kernel（batch 1 时每 token 成本不同）、精度（权重不同）或输出长度（token 数不同）。这里两个引擎的差别在调度：vLLM 把每个提示词切成 2,048 个 token 的 chunk，与正在 decode 的请求共用一步，提示词进来期间每个 decode token 都要等一个 chunk（TPOT 与 p99 ITL 上升）；SGLang 在单独的批次里一次 prefill 最多 8,192 个 token，decode 整批停下，之后全速运行。两者对 1,024 个 token 的共享前缀命中相同（按 16 个 token 的整块，或按 radix 树的 token），精度与输出长度保持不变。在两个引擎的步时间线里逐项对照：prefill chunk 有多大，哪些工作与它共用一步。',
};
