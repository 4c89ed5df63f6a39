import type { team as en } from '../en/team.js';

/** "team" 部分的文字：`team-assistant` 实验的进度行、控制台结果与报告章节（小林的资料助手，32 位同事同时提问会怎样）。 */
export const team: Record<keyof typeof en, string> = {
  'team.progress.level':
    '  {target} users={users}：{met} 的轮次满足 SLO，TTFT p90 {ttft} ms，TPOT p90 {tpot} ms，{verdict}',
  'team.progress.replicated': '（汇总 {reps} 次运行，共 {turns} 轮）',
  'team.undetermined_probe': '{users} 个用户的那次运行无效（{codes}）',
  'team.header': '{target}：每个会话 {turns} 轮，思考 {think} 秒；SLO {slo}，要求至少 {pct}% 的轮次满足',
  'team.col.users': '用户数',
  'team.col.turns': '成功轮次',
  'team.col.met': '满足 SLO',
  'team.col.queue': '排队 ms',
  'team.col.prefill': '预填充 ms',
  'team.col.interference': 'decode 干扰 ms',
  'team.col.server_hit': '服务端缓存命中',
  'team.col.intended': '预期共享',
  'team.search_note': '* 在最后一个满足 SLO 的档位与第一个不满足的档位之间二分时加测的档位',
  'team.largest': '满足 SLO 的最大团队：{n} 个用户',
  'team.largest_unbounded':
    '满足 SLO 的最大团队：至少 {n} 个用户（测试的最大档位仍然满足；请在 load.users 中加入更大的档位）',
  'team.largest_undetermined': '满足 SLO 的最大团队：无法确定（{why}）',
  'team.colleagues_fit': '{n} 位同事的团队：满足 SLO',
  'team.colleagues_no_fit': '{n} 位同事的团队：不满足 SLO',
  'team.wait.split':
    '{users} 个用户时等待在哪里（每轮平均）：排队 {queue} ms，prefill {prefill} ms，decode 干扰 {decode} ms（停顿比 {ratio}）',
  'team.wait.split_client':
    '{users} 个用户时等待在哪里（每轮平均，仅客户端视角：服务端未提供 timings）：客户端排队 {queue} ms，decode 干扰 {decode} ms（停顿比 {ratio}）；prefill 与引擎排队无法区分',
  'team.wait.verdict': '  → 等待主要来自：{where}',
  'team.wait.unknown': '  → 无法判断等待在哪里：服务端未提供 timings，也没有诊断规则触发',
  'team.wait.queueing': '排队（轮次在等引擎接手）',
  'team.wait.prefill': 'prefill（读输入：缓存没有覆盖的文档与历史）',
  'team.wait.decode': 'decode 干扰（其他轮次的 prefill 拖慢了正在写的回答）',
  'team.wait.rules': '  诊断：{rules}',
  'team.cache':
    '{users} 个用户时的前缀缓存：服务端命中率 {server}（响应中 {usage} 为缓存 token），负载预期 {intended}，其中共享文档占 {documents}',
  'team.time_scale':
    '思考时间与会话开始时间已除以 time_scale {scale}：同事们的思考速度比问题设定快了这么多倍',
  'team.writeup.title': '团队问题：多少位同事可以共用这个助手？',
  'team.writeup.question':
    '资料助手一人使用时表现良好。课程的问题是：{n} 位同事同时提问会怎样？每位同事提问、阅读回答、思考，再就同一份文档追问，因此每一轮都会重新发送整段对话，同事之间也共享这些文档。',
  'team.writeup.design':
    '每位同事是一个 {turns} 轮的会话，在收到回答和提出下一个问题之间思考 {think} 秒。若团队计划的轮次中至少 {pct}% 满足 {slo}（未发出的轮次算作不满足），则该团队满足 SLO。实验扫描了用户数，并在最后一个满足 SLO 的档位与第一个不满足的档位之间二分。',
  'team.writeup.fit': '在这套配置上，{n} 位同事的团队满足 SLO。',
  'team.writeup.no_fit': '在这套配置上，{n} 位同事的团队不满足 SLO。',
  'team.writeup.wait_intro':
    '等待在哪里（以决定答案的那个档位为准；先画出等待，再选择实验）：排队是一轮在引擎接手之前等待的时间（客户端等待加引擎队列），prefill 是 TTFT 减去引擎排队，decode 干扰是回答因其他轮次的 prefill 而损失的时间。',
  'team.writeup.means_queueing':
    '首个内容来得晚，是因为轮次在排队：引擎已满。可以增加副本、在显存允许时调大 max_num_seqs，或减少每个副本服务的同事；并发扫描（`servelab exp init concurrency-sweep`）能显示队列从哪里开始。',
  'team.writeup.means_prefill':
    '首个内容来得晚，是因为输入很长：缓存没有覆盖的文档和历史要重新读一遍。请对照前缀缓存命中率与预期共享比例，有多个副本时检查会话亲和路由，并检查 chunked prefill（`servelab exp init prefix-cache`）。',
  'team.writeup.means_decode':
    '回答写到一半停住：其他同事的 prefill 与 decode 共用引擎的步。调小 max_num_batched_tokens（chunked prefill）可以限制停顿；`servelab exp init mixed-input` 可以测量它。',
  'team.writeup.cache':
    '服务端前缀缓存命中率为 {server}；负载预期为 {intended}（无限大缓存可达到的命中率），其中 {documents} 来自共享文档。',
};
