import type { lessonSpeculation as en } from '../en/lesson-speculation.js';

/** `lesson-speculation` 实验模板的文字（见 en/lesson-speculation.ts）。 */
export const lessonSpeculation: Record<keyof typeof en, string> = {
  'lesson.speculation.about':
    '课程：为什么推测解码能加速单个请求，却在满批次时不再有效。\n唯一改变的因素：关闭推测（spec-off）或 EAGLE 每步 3 个草稿（spec-on）。\n保持不变：模型、GPU、提示词（64 个 token）、输出（128 个 token）、种子、并发级别。',
  'lesson.speculation.real_engine':
    '对真实引擎：在 url 目标下让 spec-off 和 spec-on 指向两个服务（其中一个以 --speculative-config 启动）。',
  'lesson.speculation.question': '随着批次增大，推测解码让每个输出 token 快了多少？',
  'lesson.speculation.header': '课程：推测解码与批次大小',
  'lesson.speculation.row': '并发 {c}：TPOT p50 关闭 {off} ms → 开启 {on} ms：加速 ×{x}（{sign}）',
  'lesson.speculation.sign.faster': '更快',
  'lesson.speculation.sign.slower': '更慢',
  'lesson.speculation.sign.same': '无变化',
  'lesson.speculation.falls': '加速随批次增大而下降：并发 {c1} 时 ×{first}，并发 {cn} 时 ×{last}。',
  'lesson.speculation.not_falling':
    '这里加速没有随批次下降（并发 {c1} 时 ×{first}，并发 {cn} 时 ×{last}）：请确认并发级别达到了受算力限制的批次。',
  'lesson.speculation.missing': '无法比较：扫描需要目标 spec-off 和 spec-on 在相同的并发级别上。',
  'lesson.speculation.mechanism':
    '原因：每一步，每个解码中的请求提出 k 个草稿 token（EAGLE：一层草稿头跑 k 次），目标模型在一次前向中验证这 k + 1 个位置；保留被接受的前缀和自己采样的一个 token，被拒绝的草稿回滚（num_computed_tokens −= num_rejected：它们的 KV 槽位在下一步被覆盖）。批次小时每步受内存带宽限制：读一遍权重的代价对 1 个或 k + 1 个位置都一样，所以每步约 2.8 个 token 只比一步多花一点。批次增大后每步变为受算力限制：每个请求 k + 1 个位置就是 k + 1 倍的 GEMM 计算，被拒绝的也算在内，于是加速缩小，然后反转。\n去看：步时间线（--record-steps）显示每个验证步为每个 decode 批处理 k + 1 个 token；运行摘要会打印接受率和验证中被丢弃的计算。源码对照：vLLM vllm/v1/core/sched/scheduler.py（update_from_output，回滚）与 vllm/v1/spec_decode/eagle.py；SGLang python/sglang/srt/speculative/eagle_worker.py；llama.cpp tools/server/server.cpp（timings.draft_n、draft_n_accepted）。',
};
