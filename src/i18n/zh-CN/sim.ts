import type { sim as en } from '../en/sim.js';

/** "sim" 部分的文字：servelab sim 和 plan 关于模拟器的说明，以及模拟器参数之间的规则。 */
export const sim: Record<keyof typeof en, string> = {
  'sim.fidelity.low':
    '模拟器保真度（低负载）：误差绝对值中位数 {median}%，最大 {max}%，基于 {rows} 个公开测量（docs/fidelity.md）',
  'sim.fidelity.saturation':
    '模拟器保真度（饱和）：误差绝对值中位数 {median}%，最大 {max}%，基于 {rows} 个公开测量（docs/fidelity.md）',
  'sim.listening': '正在监听 {url}（OpenAI base URL）',
  'sim.draining': 'SIGTERM：正在排空（新请求返回 503）；再发一次信号则立即停止',
  'sim.drained': '已排空：所有在途请求都已完成',
  'sim.drain_timeout': '排空超时',
  'sim.stopped': '模拟器已停止',
  'sim.setting.default': '{values}；默认 {default}',
  'sim.rule.fault_rate_needs_faults': '故障率需要配合一个故障列表',
  'sim.rule.fault_rate_needs_faults_hint': '例如加上 {example}',
  'sim.rule.faults_without_rate': '设置了 {faults}，但没有设置 {rate}',
  'sim.rule.faults_rate_zero': '设置了 {faults}，但 {rate} 为 0，因此没有请求会出故障',
  'sim.rule.faults_rate_hint': '设置出故障的请求比例，例如 {example}',
  'sim.rule.file_must_name': '文件必须写明它模拟的 {key}',
  'sim.rule.file_must_name_hint': '加上 {options}',
  'sim.rule.or': ' 或 ',
  'sim.rule.multi_step': '多步调度是 vLLM v0 的功能；{engine_ref} 是 {engine}',
  'sim.rule.llamacpp_only': '{setting} 是 llama.cpp 的设置；{engine_ref} 是 {engine}',
  'sim.rule.lpm': 'lpm 调度策略是 SGLang 的功能；{engine_ref} 是 {engine}',
  'sim.rule.add_or_drop': '加上 {add}，或去掉 {drop}',
  'sim.rule.chunked_prefill': '{setting} 是 SGLang 的设置；{engine_ref} 是 {engine}',
  'sim.rule.chunked_prefill_hint': 'vLLM 用 {setting} 限制每一步的 prefill；或者加上 {add}',
  'sim.rule.unknown_model': '未知的模拟器模型 {model}',
  'sim.rule.unknown_model_hint': '内置模型：{models}；或者用 {add} 添加',
  'sim.rule.unknown_gpu': '未知的模拟器 GPU {gpu}',
  'sim.rule.unknown_gpu_hint': '内置 GPU：{gpus}；或者用 {add} 添加',
};
