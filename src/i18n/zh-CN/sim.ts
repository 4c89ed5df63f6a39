import type { sim as en } from '../en/sim.js';

/** "sim" 部分的文字：servelab sim 和 plan 关于模拟器的说明，以及模拟器参数之间的规则。 */
export const sim: Record<keyof typeof en, string> = {
  'sim.fidelity.low':
    '模拟器保真度（低负载）：误差绝对值中位数 {median}%，最大 {max}%，基于 {rows} 个公开测量（docs/fidelity.md）',
  'sim.fidelity.saturation':
    '模拟器保真度（饱和）：误差绝对值中位数 {median}%，最大 {max}%，基于 {rows} 个公开测量（docs/fidelity.md）',
  'sim.band.line': '{metric} {value} ms，80% 区间 {low}–{high} ms',
  'sim.band.head': '模拟器误差区间（80%，来自 {n} 个公开 vLLM 运行的留一实验预测；docs/fidelity.md）：',
  'sim.band.note': '80% 区间来自公开 vLLM 运行的留一实验误差（docs/fidelity.md）',
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
  // src/sim/calibrate/format.ts, fit.ts, src/cli/commands/calibrate.ts: the calibration result
  'sim.calibrate.title':
    '已校准 {model}，运行在 {tp}× {gpu} 上，{engine}，权重精度 {dtype}，KV 缓存精度 {kv}，{servers} 个 API 服务进程',
  'sim.calibrate.runs': '各次运行',
  'sim.calibrate.constants': '拟合出的常数（± 一个标准误）',
  'sim.calibrate.held':
    '保持默认值：{keys}（这些运行无法确定，或仅凭客户端数据无法区分；配置文件逐项说明原因）',
  'sim.calibrate.moved': '偏离默认值的常数：{keys}',
  'sim.calibrate.moved_none': '偏离默认值的常数：无（每个拟合值都在先验的误差范围内）',
  'sim.calibrate.col.fitted': '拟合值',
  'sim.calibrate.col.moved': '已调整',
  'sim.calibrate.yes': '是',
  'sim.calibrate.no_kept_prior': '否（保留先验）',
  'sim.calibrate.residuals': '残差（实测 − 拟合模型）',
  'sim.calibrate.col.run': '运行',
  'sim.calibrate.col.label': '标签',
  'sim.calibrate.col.conc': '并发',
  'sim.calibrate.col.regime': '负载区间',
  'sim.calibrate.col.constant': '常数',
  'sim.calibrate.col.value': '值',
  'sim.calibrate.col.stderr': '± 标准误',
  'sim.calibrate.col.rel': '相对',
  'sim.calibrate.col.default': '先验（默认值）',
  'sim.calibrate.col.from': '依据',
  'sim.calibrate.col.metric': '指标',
  'sim.calibrate.col.mean_err': '平均 |误差|',
  'sim.calibrate.col.max_err': '最大 |误差|',
  'sim.calibrate.regime.low-load': '低负载',
  'sim.calibrate.regime.saturated': '饱和',
  'sim.calibrate.regime.unused': '未使用',
  'sim.calibrate.from.decode': '低负载下的解码间隔（{n}）',
  'sim.calibrate.from.decode_ctx': '低负载下跨 {tokens} 个上下文 token 的解码间隔',
  'sim.calibrate.from.prefill_lens': '低负载下的 TTFT，{n} 种提示长度 {from}–{to}',
  'sim.calibrate.from.prefill': '低负载下的 TTFT（{n}）',
  'sim.calibrate.from.chunk': '饱和时的批间隔（{n}，{levels}）',
  'sim.calibrate.from.none': '没有运行',
  'sim.calibrate.unknown_target': '这些运行没有记录它们是在哪个 {key} 上测得的',
  'sim.calibrate.name_it': '请指定：{flag} {example}（模拟器目录中的名称；见 servelab plan --help）',
  'sim.calibrate.wrote':
    '已写入 {path}：用 --profile {file} 使用它（servelab plan、servelab sim），或在模拟目标中写 profile:',
  'sim.calibrate.lows': '并发 1 的运行（{ids}）',
  'sim.calibrate.lows_none': '并发 1 的运行（无）',
  'sim.calibrate.undetermined.decode':
    '无法确定：低负载下没有解码间隔：{lows} 中没有输出 3 个及以上 token 的请求',
  'sim.calibrate.undetermined.decode_hint':
    '加一个并发 1、output_len ≥ 64 的运行（`servelab exp init calibration` 里有）',
  'sim.calibrate.undetermined.ctx':
    '无法确定：低负载下解码上下文只跨 {spread} 个 token；KV 读取项需要 ≥ {min}',
  'sim.calibrate.undetermined.ctx_hint': '在并发 1 下用不同长度的提示词解码（例如 128 和 4096 个 token）',
  'sim.calibrate.undetermined.prefill':
    '无法确定：低负载下预填充长度没有变化：{lows} 中只有 {n} 种未命中缓存的提示词长度{range}',
  'sim.calibrate.undetermined.prefill_range': '（{lo}–{hi} 个 token）',
  'sim.calibrate.undetermined.prefill_hint':
    '在并发 1 下扫描提示词长度：至少 {lengths} 种长度，跨度 ≥ {ratio} 倍，最长 ≥ {longest} 个 token（例如 128、512、2048、4096）',
  'sim.calibrate.undetermined.saturated':
    '无法确定：没有饱和的级别：每个并发级别的输出速率仍在增长（{levels}）',
  'sim.calibrate.undetermined.one_in_flight':
    '无法确定：没有饱和的级别：没有哪个运行同时有一个以上的请求在途',
  'sim.calibrate.undetermined.saturated_hint':
    '增加并发级别，直到输出速率不再增长（扫描并发直至饱和，如 `servelab exp init calibration`）',
  'sim.calibrate.vllm.queueing': 'max_concurrency 为 {conc} 的汇总结果，其平均 TTFT 和 TPOT 混入了排队时间',
  'sim.calibrate.vllm.queueing_unlimited':
    'max_concurrency 不设上限的汇总结果，其平均 TTFT 和 TPOT 混入了排队时间',
  'sim.calibrate.vllm.queueing_hint':
    '请给出用 --max-concurrency 1 测得的结果，或带逐请求记录的运行（servelab run，requests.jsonl）',
  'sim.calibrate.vllm.incomplete': '该结果没有完成的请求，或缺少 mean_ttft_ms、mean_tpot_ms 或 token 总数',
  'sim.calibrate.vllm.incomplete_hint': '请给出 `vllm bench serve --save-result` 为一次完成的运行写下的文件',
};
