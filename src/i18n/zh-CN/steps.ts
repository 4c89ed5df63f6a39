import type { steps as en } from '../en/steps.js';

/** 引擎步时间线（键 `steps.*`）：图表、卡顿原因、trace 导出。 */
export const steps: Record<keyof typeof en, string> = {
  'steps.chart.title': '{request} 流式输出期间的引擎步 — {run}',
  'steps.series.stepMs': '步耗时（ms）',
  'steps.series.gapMs': '{request} 每个 token 之前的间隔（ms）',
  'steps.series.prefill': '本步的 prefill token 数',
  'steps.axis.runMs': '运行时间（ms）',
  'steps.axis.ms': '毫秒',
  'steps.axis.tokens': 'token 数',
  'steps.mark.chunk': '{other} 的 prefill：{tokens} 个 token',
  'steps.mark.gap': '间隔 {gap} ms',
  'steps.cause.chunk':
    '请求 {request} 等第 {token} 个 token 等了 {gap} ms：第 {step} 步耗时 {dur} ms，因为这一步同时为 {other} prefill 了 {tokens} 个提示词 token。',
  'steps.cause.preempted':
    '请求 {request} 等第 {token} 个 token 等了 {gap} ms：这些步里有 {n} 个请求被抢占（释放 KV 腾出空间）。',
  'steps.cause.none':
    '请求 {request} 等第 {token} 个 token 等了 {gap} ms；这段间隔内的 {steps} 个步都没有 prefill（延迟发生在引擎步之外：排队、API 服务器或网络）。',
  'steps.h.timeline': '引擎步时间线',
  'steps.no_steps': '运行 {id} 没有引擎步记录：它不是在记录步的模拟器上测得的',
  'steps.no_steps_hint':
    '用 servelab plan --record-steps 测量，或对 servelab sim --record-steps 测量；然后再导出',
  'steps.no_request': '运行 {id} 中没有至少两个 token 的请求 {request}',
  'steps.no_request_hint':
    '给出 requests.jsonl 里的请求 id（或其工作负载序号），或省略 --request 以查看最严重的卡顿',
  'steps.wrote_trace': '已写入 {file}（{events} 个 trace 事件；可在 https://ui.perfetto.dev 打开）',
};
