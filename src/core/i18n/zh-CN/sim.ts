import type { sim as en } from '../en/sim.js';

/** "sim" 部分的文字：servelab sim 和 plan 关于模拟器的说明。 */
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
};
