import type { shard as en } from '../en/shard.js';

/** "shard" 部分的文字:`run --shard`、统一起跑时刻与 `merge`。 */
export const shard: Record<keyof typeof en, string> = {
  'shard.flag.bad': '不是形如 i/N（0 ≤ i < N）的分片（收到 {got}）',
  'shard.flag.hint':
    '例如 --shard 0/3 --start-in 10（序号默认取 $JOB_COMPLETION_INDEX，分片数默认取 $SERVELAB_SHARD_COUNT）',
  'shard.cap.split': '上限 {cap} 无法分给 {count} 个分片',
  'shard.cap.hint': '把 {flag} 设为 {count} 或更大，或者减少分片数',
  'shard.late.bad': '未知的迟到策略“{got}”',
  'shard.late.hint': '可用 fail（迟到超过 1 秒的分片一个请求也不发）或 truncate（把错过的请求记为已取消）',
  'shard.start.both': '--start-at 与 --start-in 只能给一个',
  'shard.start.hint':
    '所有分片需要同一个起跑时刻：--start-at 2026-12-01T15:00:00Z（RFC 3339），或 --start-in 10（从现在起的秒数）',
  'shard.start.bad': '不是 RFC 3339 时间：“{got}”',
  'shard.seed.needed': '同一运行的各分片必须发送相同的请求，而每个分片会各自抽取种子',
  'shard.seed.needed_hint': '给每个分片相同的 --seed N，或相同的 --start-at（种子由它得出）',
  'shard.start.badIn': '不是 ≥ 0 的秒数：“{got}”',
  'shard.start.noShard': '--start-at、--start-in 和 --late-policy 只用于分片运行',
  'shard.start.required': '分成多个分片的运行需要一个统一的起跑时刻',
  'shard.late.failed':
    '分片 {index}/{count} 比统一起跑时刻晚了 {late_ms} 毫秒（超过 {limit_ms} 毫秒），因此没有发送任何请求',
  'shard.late.failedHint':
    '让每个分片在起跑时刻之前就绪（把 --start-at 定得更晚），或用 --late-policy truncate 接受迟到',
  'shard.late.truncated': '迟到错过的 {n} 个请求已记为已取消（原因：late start）',
  'shard.run.wrote': '运行 {run_id} 的分片 {index}/{count}:已写入 {files}',
  'shard.merge.noFiles': '没有给出分片报告',
  'shard.merge.noFilesHint':
    '请给出分片文件，例如 servelab merge --expect 3 out/report.shard-*.json --out merged',
  'shard.merge.expect': '--expect 必须是 ≥ 1 的整数（收到 {got}）',
  'shard.merge.expectHint': '即这次运行拆成的分片数，例如 --expect 3',
  'shard.merge.out': '缺少 --out',
  'shard.merge.outHint': '合并后的 report.json 所在的目录，例如 --out merged',
  'shard.merge.read': '无法读取 {file}:{why}',
  'shard.merge.notShard': '{file} 不是分片报告（{why}）',
  'shard.merge.notShardHint': '请给出 run --shard i/N 写下的 report.shard-<i>-of-<N>.json 文件',
  'shard.merge.count': '{file} 是 {count} 个分片中的第 {index} 个，但 --expect 是 {expect}',
  'shard.merge.countHint': '--expect 应等于运行时 --shard i/N 中的 N',
  'shard.merge.duplicate': '分片 {index} 出现了两次：{files}',
  'shard.merge.duplicateHint': '每个分片只给一次',
  'shard.merge.missing': '共 {expect} 个分片，缺少分片 {missing}',
  'shard.merge.missingHint': '请给出全部分片；或加 --allow-missing 合并其余分片，并把缺失分片的请求计为丢失',
  'shard.merge.mismatch': '{file} 的 {field} 是 {got},而 {first} 的是 {want}:它们不是同一次运行的分片',
  'shard.merge.mismatchHint': '只合并同一次运行的分片（相同的参数、种子和起跑时刻）',
  'shard.merge.layout': '{file} 的直方图布局不同（{got}）',
  'shard.merge.layoutHint': '所有分片请用同一版本的 servelab 运行',
  'shard.merge.records': '无法读取 {file} 的请求记录：{why}',
  'shard.merge.recordsHint': '--exact 需要每个分片报告旁边的 requests.shard-<i>-of-<N>.jsonl',
  'shard.merge.spread':
    '各分片实际起跑时刻相差 {spread_ms} 毫秒（超过 50 毫秒）：合起来的到达过程与计划略有出入（请给所有分片同一个 --start-at）',
  'shard.merge.lost': '缺失分片 {shards} 计划中的 {n} 个请求计为丢失（失败）',
  'shard.merge.approx':
    '百分位数取自合并后的直方图（与记录值相差不超过 0.1%）；merge --exact 会根据请求记录重新计算全部统计量',
  'shard.merge.noDetail': '分片直方图不保存 {fields}:此处为 null;merge --exact 会根据请求记录重新计算',
  'shard.merge.shardWarning': '分片 {index}:{warning}',
  'shard.merge.invalid': '分片 {index} 无效：{reason}',
  'shard.merge.counts': '计划 {planned}  已测 {measured}  成功 {succeeded}  失败 {failed}（其中丢失 {lost}）',
  'shard.merge.done': '已合并运行 {run_id} 的 {n}/{expect} 个分片（{mode}）:{files}',
  'shard.workers.bad': '--workers 须为 ≥ 1 的整数或 auto（收到 {got}）',
  'shard.workers.hint': '例如 --workers 4，或用 --workers auto 每个核一个',
  'shard.workers.withShard': '--workers 在本机上拆分一次运行；--shard 是跨多台主机拆分的运行中的一个分片',
  'shard.workers.withShardHint':
    '二者只给其一：在一台主机上用 --workers N，或在 N 台主机上各用 --shard i/N（使用 --workers 时请取消 $JOB_COMPLETION_INDEX）',
  'shard.workers.start':
    '正在启动 {n} 个工作进程（run --shard i/{n}）；最后一个就绪 {margin_ms} ms 后同时开始',
  'shard.workers.failed': '工作进程 {index}/{count} 以退出码 {code} 结束：\n{stderr}',
  'shard.workers.failedHint': '该工作进程运行的是 run --shard {index}/{count}；按其错误信息修正后重新运行',
  'shard.workers.late': '有工作进程在共同开始时间之后才启动，未发送任何请求：合并后的运行缺少它的请求',
  'shard.workers.interruptedEmpty':
    '在任何工作进程开始测量之前被中断：没有记录任何请求，也未写入文件或存储记录',
  'shard.workers.wrote': '已合并运行 {run_id} 的 {n} 个工作进程：已写入 {files}',
  'shard.workers.merged': '已合并运行 {run_id} 的 {n} 个工作进程',
};
