import type { exp as en } from '../en/exp.js';

/** "exp" 部分的文字：servelab exp run 结果的框架和 exp 命令自己的输出行。 */
export const exp: Record<keyof typeof en, string> = {
  'exp.header': '实验 {id}：{name}（{kind}），{n} 次运行',
  'exp.threshold_failed': '{target} {label} 未通过阈值：{threshold}（实际 {actual}）',
  'exp.threshold_failed_reason': '{target} {label} 未通过阈值：{threshold}（实际 {actual}，{reason}）',
  'exp.time_scale':
    '注意：{name} 是时间倍率为 {scale} 的模拟器：它的 ms 和 req/s 是墙钟时间（引擎 ms / {scale}）；调度（速率、间隔）按模拟时间计',
  'exp.warning': '警告：{message}',
  'exp.runs': '各次运行：{list}',
  'exp.report_hint': '实验 {id}：servelab report {id} --html report.html',
  'exp.interrupted': '已中断：已完成的运行保存在存储中',
  'exp.no_such': '没有这个实验',
  'exp.no_such.hint': '参见 `servelab exp list`',
  'exp.no_text': '存储的实验没有可重复的文件内容',
  'exp.no_text.hint': '请用 `servelab exp run` 重新运行原始文件',
};
