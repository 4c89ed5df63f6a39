import type { gateLoad as en } from '../en/gate-load.js';

/** "gate-load" 部分的文字：门禁的第 4、8、10 组检查（docs/gate.md）。 */
export const gateLoad: Record<keyof typeof en, string> = {
  'gate-load.title.disconnect-mid-stream': '客户端在流式输出中途断开后，服务端释放其请求',
  'gate-load.title.queued-never-start': '排队中、尚未收到首字节就被取消的请求不会再开始',
  'gate-load.title.client-timeout': '非流式请求的客户端超时会让服务端中止该请求',
  'gate-load.title.overload-health': '2 倍饱和负载下 /health 仍然很快，错误只有 429/503',
  'gate-load.title.warm-cold-parity': '冷缓存与热缓存下的贪心请求给出相同文本',
  'gate-load.title.latency-goodput': '在旧版最大有效吞吐的 50% 与 80% 下比较延迟与有效吞吐',
  'gate-load.title.quality-questions': '有标准答案的固定问题集：新版不比旧版差',

  'gate-load.skip.no-metrics': '{url} 没有返回 servelab 能读取的指标',
  'gate-load.skip.no-series': '{url} 没有暴露 {names}',
  'gate-load.skip.gauge-flat': '{n} 个请求在途时 running 指标没有上升，因此看不到释放',
  'gate-load.skip.unobserved':
    '无法观测：{n} 个请求在途期间，{url} 没有返回 running 和 waiting 指标（{failed} 次抓取失败或为空）',
  'gate-load.skip.not-saturated':
    '{n} 个流同时在途时没有请求排队（running 为 {running}）：批大小超过了本检查能填满的规模',
  'gate-load.skip.finished-first': '请求在 {ms} ms 客户端超时之前就结束了（HTTP {status}），无法观察中止',
  'gate-load.skip.no-correct': '旧版 {n} 道题一道也没答对，因此这组问题无法说明该模型的质量',
  'gate-load.skip.invalid':
    '无法下结论：{side} 在 {level} 的运行按 servelab 自身的有效性判定无效（{reasons}）',
  'gate-load.skip.no-goodput':
    '无法下结论：旧版在任何并发下都没有满足 SLO（ttft ≤ {ttft} ms，tpot ≤ {tpot} ms）',

  'gate-load.cancel.no-stream': '{n} 个流没有在 {ms} ms 内全部开始输出（状态码：{codes}）',
  'gate-load.cancel.not-settled':
    '{what}之后，各项指标没有在 {ms} ms 内回到基线（基线 {base}，最后一次 {now}）',
  'gate-load.cancel.still-generating':
    '{what}之后，生成 token 计数在随后 {ms} ms 内又增加了 {n}：服务端仍在生成',
  'gate-load.cancel.queue-kept': '取消 {n} 个排队请求后，waiting 指标没有在 {ms} ms 内下降',
  'gate-load.cancel.queued-started':
    '被取消的 {n} 个排队请求仍然开始执行了：取消之后又预填充了 {tokens} 个提示 token',
  'gate-load.cancel.health-slow':
    '{n} 个并发请求下 /health 的 p99 为 {p99} ms（上限 {limit} ms；{bad} 次探测不是 200）',
  'gate-load.cancel.overload-errors': '{n} 个并发请求下服务端返回了 {statuses}（只允许 429 和 503）',
  'gate-load.what.disconnect': '{n} 个客户端在流式输出中途断开',
  'gate-load.what.saturation': '取消造成饱和的 {n} 个流',
  'gate-load.what.timeout': '{ms} ms 的客户端超时',

  'gate-load.evidence.still-busy':
    '上一个检查结束 {ms} 毫秒后服务器仍有请求在运行或排队（有其他流量？），检查继续进行',
  'gate-load.evidence.baseline': '检查开始前的 /metrics 基线',
  'gate-load.evidence.during': '{n} 个请求在途时的 /metrics',
  'gate-load.evidence.after': '{ms} ms 窗口结束时的 /metrics',
  'gate-load.evidence.queued': '{running} 个流在运行、{queued} 个尚无首字节时的 /metrics',
  'gate-load.evidence.after-queued': '取消 {n} 个排队请求之后的 /metrics',
  'gate-load.evidence.sent': '发送的请求',
  'gate-load.evidence.overload': '{n} 个并发客户端在 {ms} ms 内看到的结果',
  'gate-load.evidence.overload-error': '过载时某个请求得到了 {status}',

  'gate-load.cache.diverged':
    '热缓存的回答在第 {index} 个 token 处与冷缓存不同（{cold} 对 {warm}），该位置前两名的 logprob 相差 {margin}（≥ {limit}）',
  'gate-load.cache.diverged-no-logprobs':
    '热缓存的回答在第 {index} 个字符处与冷缓存不同，且没有返回 logprobs 来说明这是近似平局',
  'gate-load.cache.failed': '{which}请求失败：{error}',
  'gate-load.evidence.cold': '冷缓存请求及其回答',
  'gate-load.evidence.warm': '热缓存重复请求及其回答',

  'gate-load.load.regressed': '{metrics} 变差超过 {limit}%（Holm 校正后 p < {alpha}）',
  'gate-load.load.goodput-dropped': '在 {levels} 下 SLO 达成率下降',
  'gate-load.load.quality-dropped':
    '新版答对 {n} 题中的 {new} 题，旧版答对 {old} 题：下降 {delta} 超出了 95% 置信区间 [{low}, {high}]',
  'gate-load.load.quality-failed': '{side}版本一道题也没有回答（{errors} 个错误）',
  'gate-load.evidence.max-goodput':
    '旧版的最大有效吞吐：并发 {c} 时为 {rps} 请求/秒（SLO：ttft ≤ {ttft} ms，tpot ≤ {tpot} ms）',
  'gate-load.evidence.metric':
    '{metric}：旧版 {old}，新版 {new}（{pct}%，95% 置信区间 [{low}, {high}]，Holm p {p}）',
  'gate-load.evidence.wrong': '问题 {id}：标准答案为 {answer}',
};
