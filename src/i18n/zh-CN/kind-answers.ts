/**
 * 各实验类型的结论（键 `answer.*`）：扫描、前缀缓存、团队助手、混合输入和矩阵实验的问题、
 * 一句话结论、表头与图表标题（src/exp/kinds/* 的 `answer`）。指标键（`ttft_ms`）和单位保持原样。
 */
import type { kindAnswers as en } from '../en/kind-answers.js';

export const kindAnswers: Record<keyof typeof en, string> = {
  'answer.target_clause': '{target}：{text}',
  'answer.interval.search':
    '搜索区间：在 {met} 时满足 SLO，在 {missed} 时未满足；每个负载级别只测了一次，因此该区间不包含多次运行之间的波动',
  'answer.col.errors_pct': '错误率 %',
  'answer.list_sep': '、',
  'answer.sweep.question_c':
    '随着并发数上升，引擎能提供多少吞吐量？在哪个级别之后再加负载就不再划算（拐点）？',
  'answer.sweep.question_c_slo':
    '随着并发数上升，引擎能提供多少吞吐量？再加负载从哪里开始不再划算（拐点）？满足 SLO 的最大并发数是多少？',
  'answer.sweep.question_rate': '随着请求速率上升，吞吐量和延迟如何变化？引擎在哪个速率开始跟不上（拐点）？',
  'answer.sweep.level_c': '并发数 {level}',
  'answer.sweep.level_rate': '速率 {level} 请求/秒',
  'answer.sweep.tok_s': '输出 {v} tok/s',
  'answer.sweep.rps': '{v} 请求/秒',
  'answer.sweep.rule.error_rate': '错误率达到 {value}（上限 {limit}）',
  'answer.sweep.rule.ttft_p99': 'p99 TTFT 达到 {value} ms，超过第一个级别 {base} ms 的 {k} 倍',
  'answer.sweep.rule.e2e_p99': 'p99 E2E 达到 {value} ms，超过第一个级别 {base} ms 的 {k} 倍',
  'answer.sweep.knee': '吞吐量在{knee} 时不再上升（{tput}）：继续加负载只会增加延迟，不会增加吞吐量',
  'answer.sweep.knee_stop': '拐点是{knee}（{tput}）：在下一个级别{stop} 时，{why}，扫描因此结束',
  'answer.sweep.and_stop': '；扫描在{stop} 时停止：{why}',
  'answer.sweep.undetermined': '无法确定拐点：{n} 个级别中只有 {valid} 个有效',
  'answer.sweep.rising':
    '在最后一个有效级别{last} 时，吞吐量仍在上升（{tput}）：拐点超出了所测的级别，请增加更高的级别',
  'answer.sweep.slo': '；最多 {n} 个并发请求满足 SLO（p90：{slo}）',
  'answer.sweep.slo_unbounded': '；至少 {n} 个并发请求满足 SLO（p90：{slo}），在所测的最大级别仍然满足',
  'answer.sweep.slo_none': '；没有任何并发数满足 SLO（p90：{slo}），连第一个级别也不满足',
  'answer.sweep.slo_past_stop': '（超过了扫描停止的级别：SLO 比停止规则宽松）',
  'answer.sweep.slo_undetermined': '；满足 SLO 的最大并发数无法确定（{why}）',
  'answer.sweep.chart_title': '吞吐量与 p99 延迟随负载的变化',
  'answer.sweep.series.throughput': '吞吐量 tok/s',
  'answer.sweep.series.ttft_p99': 'p99 TTFT（毫秒）',
  'answer.sweep.axis.throughput': '输出吞吐量',
  'answer.sweep.axis.latency': 'p99 延迟',
  'answer.sweep.series.e2e_p99': 'p99 端到端（毫秒）',
  'answer.sweep.slo_line': 'SLO：{metric} ≤ {value} 毫秒',
  'answer.sweep.series.knee': '拐点',
  'answer.sweep.knee_mark': '拐点',
  'answer.sweep.col.knee': '拐点',
  'answer.sweep.col.slo': 'SLO（p90）',
  'answer.team.question':
    '在至少 {pct}% 的对话轮次满足 SLO（{slo}）的前提下，最多能有多少位同事共用这个助手？所问的团队规模：{n}。',
  'answer.team.band_what': '{target}：{n} 位用户时 TTFT p90 {value} ms，80% 区间',
  'answer.team.users': '{n} 个用户',
  'answer.team.one_user': '1 个用户',
  'answer.team.largest':
    '最多 {n}满足 SLO：{n}时 {met} 的轮次满足（95% 置信区间 {ci}），{fail}时只有 {fail_met}（95% 置信区间 {fail_ci}）',
  'answer.team.unbounded':
    '至少 {n}满足 SLO（{n}时 {met} 的轮次满足，95% 置信区间 {ci}）：所测的最大级别仍然满足',
  'answer.team.none': '没有任何团队规模满足 SLO：即使只有 {users}，也只有 {met} 的轮次满足',
  'answer.team.undetermined': '无法给出满足 SLO 的最大团队规模：{why}',
  'answer.team.fit': '；{n} 位同事的团队可以满足',
  'answer.team.no_fit': '；{n} 位同事的团队无法满足',
  'answer.team.chart_title': 'SLO 达成率随用户数的变化',
  'answer.team.required': '要求 {pct}%',
  'answer.team.col.turns_met': '满足轮次',
  'answer.team.col.ci95': '95% 置信区间',
  'answer.team.cannot_tell':
    '；在 {levels} 个用户时无法判断：达成率低于 {pct}%，但其 95% 置信区间仍包含 {pct}%',
  'answer.team.interval':
    '搜索区间：{met} 时满足 SLO，{missed} 时未能证明满足；每个档位汇总多次运行至少 {min_turns} 轮，其 95% 置信区间见表',
  'answer.team.rule':
    '档位的判定规则：每个档位汇总同样用户数的多次运行（会话取自其他种子），直到计划轮次不少于 {min_turns}；至少 {pct}% 的轮次满足 SLO 即为满足（✓），达成率 95% Wilson 置信区间的上限仍低于 {pct}% 即为不满足（✗），其余为无法判断（?）。答案是满足 SLO 的最大档位；无法判断的档位与不满足的档位一样限定搜索。',
  'answer.team.col.meets': '是否满足',
  'answer.team.col.user_ttft': '用户等待 p90 ms',
  'answer.prefix.question':
    '对于重复的提示（{tokens} 个 token 的文档，问题放在最后），前缀缓存能命中多少？能节省多少首 token 时间？',
  'answer.prefix.phase.cold': '冷启动',
  'answer.prefix.phase.exact_repeat': '完全重复',
  'answer.prefix.phase.new_question': '共享文档',
  'answer.prefix.phase.scattered': '打散',
  'answer.prefix.expected.none': '无命中',
  'answer.prefix.expected.full': '整个提示',
  'answer.prefix.expected.document': '文档部分',
  'answer.prefix.expected.partial': '部分命中（再次访问）',
  'answer.prefix.hit_of': '{phase}：{hit}',
  'answer.prefix.ttft_of': '{phase}：{ms} 毫秒',
  'answer.prefix.verdict': '提示中由前缀缓存提供的比例：{hits}；p50 TTFT：冷启动 {cold} ms，之后 {warm}',
  'answer.prefix.verdict_no_cold': '提示中由前缀缓存提供的比例：{hits}；p50 TTFT：{ttft}',
  'answer.prefix.no_counts':
    '服务器没有报告缓存的 token（响应和 /metrics 中都没有），因此无法判断命中情况；p50 TTFT：{ttft}',
  'answer.prefix.not_judged': '；无法判断命中位置：没有请求报告其提示 token 数',
  'answer.prefix.as_expected': '；每个阶段的命中都符合预期',
  'answer.prefix.not_expected': '；以下阶段的命中不符合预期：{phases}',
  'answer.prefix.col.prefill_from': '预填充时间来源',
  'answer.prefix.prefill_server': '服务器计时',
  'answer.prefix.prefill_ttft': 'TTFT（上界）',
  'answer.prefix.chart_title': '各阶段的 p50 TTFT',
  'answer.mixed.question':
    '长请求的预填充（{long} 个 token 的提示）会让短请求（{short} 个 token 的提示）的解码卡顿多少？哪种到达顺序最严重？',
  'answer.mixed.order.short_first': '短请求在前',
  'answer.mixed.order.long_first': '长请求在前',
  'answer.mixed.order.interleaved': '交错',
  'answer.mixed.verdict':
    '长请求预填充在“{worst}”顺序下对解码的卡顿最严重：与长预填充重叠的间隔是无干扰间隔的 {ratio} 倍（最轻：{best}，{best_ratio} 倍）',
  'answer.mixed.verdict_one': '在“{order}”顺序下，与长预填充重叠的间隔是无干扰间隔的 {ratio} 倍',
  'answer.mixed.no_stall': '在任何顺序下长请求预填充都没有造成解码卡顿：最大卡顿比为 {ratio} 倍（{order}）',
  'answer.mixed.no_ratio': '所有顺序都无法计算卡顿比：需要既有与长预填充重叠的间隔，也有不重叠的间隔',
  'answer.mixed.col.overlap_mean': '重叠间隔均值 ms',
  'answer.mixed.col.overlap_p99': '重叠间隔 p99 ms',
  'answer.mixed.col.clean_mean': '无干扰间隔均值 ms',
  'answer.mixed.col.clean_p99': '无干扰间隔 p99 ms',
  'answer.mixed.col.short_ttft': '短请求 TTFT p50 ms',
  'answer.mixed.col.long_ttft': '长请求 TTFT p50 ms',
  'answer.mixed.col.cache_hits': '前缀缓存命中',
  'answer.mixed.col.timeline': '时间线',
  'answer.mixed.timeline_server': '引擎',
  'answer.mixed.timeline_client': '客户端（上界）',
  'answer.mixed.timeline_note': '所有顺序的间隔都按{timeline}时间线计时。',
  'answer.mixed.chart_title': '各到达顺序的卡顿比',
  'answer.matrix.question': '首 token 时间、每输出 token 时间和吞吐量如何随输入/输出长度和并发数变化？',
  'answer.matrix.verdict':
    '吞吐量最高的是 {top}，并发 {top_c}（输出 {tput} tok/s）；首 token 最慢的是 {slow}，并发 {slow_c}（p50 TTFT {ttft} ms）',
  'answer.matrix.no_data': '没有任何单元同时有吞吐量和 TTFT：没有请求成功',
  'answer.matrix.thinking':
    '；模型在回答前会先推理，因此 TTFT 包含思考时间（TTFR，即第一个推理 token 的时间，单独列出）',
  'answer.matrix.thinking_note':
    '注意：模型在回答前会先推理：TTFT（第一个内容 token）包含思考时间；TTFR p50 是第一个推理 token 的时间',
  'answer.matrix.chart_title': '各单元的输出吞吐量',
  'answer.matrix.series': '并发 {c}',
};
