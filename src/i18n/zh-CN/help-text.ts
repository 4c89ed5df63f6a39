/**
 * @module i18n/zh-CN/help-text
 * `--help` in Chinese: each option's and argument's description, keyed by its English text as
 * the declarations give it (`config/run-settings`, `sim/settings`, `cli/`), so the English
 * stays declared once, and a description whose English changes shows up as untranslated
 * (`test/cli/help-zh.test.ts`) instead of keeping a stale translation. A `{name}` in a key
 * stands for text built from data (the catalogue's models), and is filled into the same
 * `{name}` of the translation. Commands' descriptions are catalogue entries (`cli.cmd.*`).
 */
export const HELP_TEXT_ZH_CN: Readonly<Record<string, string>> = {
  'OpenAI base URL, e.g. http://127.0.0.1:8000/v1 (a bare http://host:port gets /v1)':
    'OpenAI 基础 URL，例如 http://127.0.0.1:8000/v1（只写 http://host:port 时自动补上 /v1）',
  'chat or completions (vLLM path forms /v1/chat/completions, /v1/completions too; default chat)':
    'chat 或 completions（也接受 vLLM 的路径写法 /v1/chat/completions、/v1/completions；默认 chat）',
  'extra JSON fields merged into every request body': '合并进每个请求体的额外 JSON 字段',
  'extra request header (repeatable)': '额外的请求头（可重复）',
  'environment variable holding the API key': '存放 API 密钥的环境变量',
  "sessions: the header carrying each turn's session id, for routers with affinity":
    '会话：携带每轮会话 id 的请求头，供有会话亲和性的路由使用',
  'retry failed attempts up to n times (each attempt is its own record)':
    '失败的尝试最多重试 n 次（每次尝试各自成为一条记录）',
  'keep sending when the first 20 requests all fail with the same 401/403/404 or context-length 400':
    '即使前 20 个请求都以同一个 401/403/404 或上下文长度 400 失败，也继续发送',
  "Prometheus /metrics URL to scrape during the run (repeatable; default: the target's /metrics if it answers)":
    '运行期间抓取的 Prometheus /metrics URL（可重复；默认：目标的 /metrics，若它有响应）',
  "don't scrape the target's /metrics": '不抓取目标的 /metrics',
  'scrape interval in seconds': '抓取间隔，单位为秒',
  "serve servelab's own Prometheus metrics on this port during the run (0 = any)":
    '运行期间在此端口提供 servelab 自身的 Prometheus 指标（0 = 任意端口）',
  'the store (an SQLite file)': '存储（一个 SQLite 文件）',
  "don't record into the store": '不写入存储',
  'a label for this run in the store': '这次运行在存储中的标签',
  'send shard i of N (requests k with k mod N = i; default $JOB_COMPLETION_INDEX/$SERVELAB_SHARD_COUNT)':
    '发送 N 个分片中的第 i 个（第 k 个请求满足 k mod N = i；默认取 $JOB_COMPLETION_INDEX/$SERVELAB_SHARD_COUNT）',
  "the shards' common start (RFC 3339); needed with N > 1":
    '各分片的共同开始时间（RFC 3339）；N > 1 时必须给出',
  'the common start, this many seconds from now': '共同开始时间：从现在起再过这么多秒',
  'a shard more than 1 s late: fail (default: send nothing, exit non-zero) or truncate':
    '分片迟到超过 1 s 时：fail（默认：一个请求也不发，以非零码退出）或 truncate',
  'split the run over n child processes on this host (auto: one per core), merged exactly (default 1)':
    '把这次运行拆给本机上的 n 个子进程（auto：每个核一个），精确合并（默认 1）',
  'streaming requests (server-sent events); off: each response arrives whole (on by default; this flag turns it off)':
    '流式请求（server-sent events）；关闭时每个响应整体返回（默认开启；此选项将其关闭）',
  'Per-request timeout, in seconds (default: none)': '每个请求的超时，单位为秒（默认：无）',
  'Time-to-first-token timeout, in seconds (default: none)': '首个 token 的超时，单位为秒（默认：无）',
  "receive the engine's OpenTelemetry spans (OTLP/HTTP) on this local port and send a traceparent with every request, so each record is joined to its span (default: off)":
    '在这个本地端口接收引擎的 OpenTelemetry span（OTLP/HTTP），并给每个请求带上 traceparent，使每条记录与它的 span 对应（默认：关闭）',
  'model id to request (default: the first model the server lists)':
    '请求的模型 id（默认：服务器列出的第一个模型）',
  'max_tokens for every request, in tokens (default: --output-len, else the server default)':
    '每个请求的 max_tokens，单位为 token（默认：--output-len，否则用服务器的默认值）',
  'sampling temperature': '采样温度',
  'top_p: sample from the smallest set of tokens whose probabilities add up to p':
    'top_p：只从概率之和达到 p 的最小 token 集合中采样',
  'stop string (repeatable; a file gives a list)': '停止字符串（可重复；给文件则读取一个列表）',
  'send ignore_eos: true (vLLM/llama.cpp extension) so outputs reach max_tokens':
    '发送 ignore_eos: true（vLLM/llama.cpp 扩展），使输出达到 max_tokens',
  'the same prompt text for every request': '每个请求都使用的同一段提示词文本',
  'one {"prompt"} or {"messages"} per line, optional output_len (a file: workload.dataset with format prompts)':
    '每行一个 {"prompt"} 或 {"messages"}，可带 output_len（实验文件中：workload.dataset 配 format: prompts）',
  'a file of prompts instead of synthetic ones: the ShareGPT JSON used by vLLM/SGLang':
    '用文件中的提示词代替合成提示词：vLLM/SGLang 使用的 ShareGPT JSON',
  'synthetic input tokens per request (default: 1024 for synthetic prompts (no other prompt source))':
    '每个请求的合成输入 token 数（默认：合成提示词为 1024（没有其他提示词来源时））',
  'output tokens per request: their max_tokens (with --ignore-eos, every output reaches it) (default: 128 for synthetic prompts (no other prompt source))':
    '每个请求的输出 token 数：即它们的 max_tokens（配合 --ignore-eos 时每个输出都会达到它）（默认：合成提示词为 128（没有其他提示词来源时））',
  "take ShareGPT prompts in the file's order instead of shuffling them with the seed":
    '按文件中的顺序取 ShareGPT 提示词，而不是用种子打乱',
  'tokens of shared prefix at the start of each synthetic prompt': '每个合成提示词开头的共享前缀 token 数',
  'number of distinct shared prefixes (with --shared-prefix-len) (default: 1)':
    '不同共享前缀的个数（配合 --shared-prefix-len）（默认：1）',
  'replay a trace: Azure or BurstGPT CSV, Mooncake or servelab JSONL (docs/traces.md)':
    '回放一条轨迹：Azure 或 BurstGPT 的 CSV，Mooncake 或 servelab 的 JSONL（docs/traces.md）',
  'the trace file format (default: detected from the first line)': '轨迹文件的格式（默认：从第一行识别）',
  'replay the trace x times faster': '以 x 倍速回放轨迹',
  'arrival rate × x (every gap ÷ x; multiplies with --trace-speedup)':
    '到达率乘以 x（每个间隔除以 x；与 --trace-speedup 相乘）',
  "replay only seconds START to END of the trace ('600:' to the end), in seconds":
    "只回放轨迹中从第 START 秒到第 END 秒的部分（'600:' 表示直到结尾），单位为秒",
  'tokens per Mooncake hash block (default: 512)': '每个 Mooncake 哈希块的 token 数（默认：512）',
  'sessions: shared documents; each session picks one (Zipf) and its turns start with it':
    '会话：共享的文档；每个会话选一篇（Zipf 分布），它的每一轮都以这篇文档开头',
  'sessions: tokens per document': '会话：每篇文档的 token 数',
  'sessions: how sessions pick documents (default: zipf:1)': '会话：会话如何选择文档（默认：zipf:1）',
  'closed loop: requests in flight, each finished request starts the next (default: 1)':
    '闭环：在途请求数，每完成一个请求就发出下一个（默认：1）',
  'open loop: target arrival rate, in requests/s': '开环：目标到达率，单位为 requests/s',
  'number of measured requests, warm-up not included (default: 100; a trace: all its lines)':
    '测量的请求数，不含预热请求（默认：100；轨迹：它的全部行）',
  'run for this long instead of a request count, in seconds': '按时长运行而不是按请求数，单位为秒',
  'after --duration, let in-flight requests finish for up to this long, in seconds':
    '--duration 结束后，让在途请求最多再用这么长时间完成，单位为秒',
  'Open-loop arrivals: constant, poisson or gamma': '开环的到达方式：constant、poisson 或 gamma',
  'gamma shape for arrival gamma (1 = Poisson; < 1 burstier)': 'gamma 到达的形状参数（1 = 泊松；< 1 更突发）',
  'open loop or trace: cap on requests in flight (waiting requests keep their planned time)':
    '开环或轨迹：在途请求数的上限（等待中的请求保留其计划时间）',
  'sessions: users, each a closed loop over its turns with think time (docs/sessions.md)':
    '会话：用户数，每个用户在自己的各轮之间按思考时间做闭环（docs/sessions.md）',
  'sessions: turns per session (default: 1)': '会话：每个会话的轮数（默认：1）',
  'sessions: seconds from an answer to the next question, in seconds (default: 0)':
    '会话：从一次回答到下一个问题的间隔，单位为秒（默认：0）',
  'sessions: users start evenly spread over this long, in seconds (default: 0)':
    '会话：用户在这段时间内均匀地陆续开始，单位为秒（默认：0）',
  'sessions: sessions start as Poisson arrivals at this rate, in sessions/s':
    '会话：会话以这个速率按泊松过程到达，单位为 sessions/s',
  'seed for arrivals, lengths and prompts: the same seed gives the same requests (default: drawn fresh for each run and experiment (printed and stored))':
    '到达时间、长度和提示词的种子：同一个种子生成同样的请求（默认：每次运行和每个实验重新抽取（会打印并保存））',
  'Warm-up requests sent first, recorded but left out of the metrics': '先发送的预热请求，会记录但不计入指标',
  'SLOs for goodput': '用于 goodput 的 SLO',
  'Pass/fail gate on the summary; exit code 2 when one fails (repeatable)':
    '对汇总结果的通过/失败门限；有一项不通过时退出码为 2（可重复）',
  "baseline for relative thresholds such as 'ttft_ms.p99<+10%'": "相对阈值的基线，例如 'ttft_ms.p99<+10%'",
  'write report.json, requests.jsonl and summary.csv to this directory':
    '把 report.json、requests.jsonl 和 summary.csv 写到这个目录',
  'also write vllm.json with `vllm bench serve` field names (fmt: vllm)':
    '另外写一份使用 `vllm bench serve` 字段名的 vllm.json（fmt 取 vllm）',
  'embed the per-request records in report.json': '把每个请求的记录嵌入 report.json',
  'write the machine-readable result to a file, or stdout': '把机器可读的结果写到文件或标准输出',
  'vllm.json: metrics with percentiles': 'vllm.json：给出百分位数的指标',
  'vllm.json: which percentiles (default: 99)': 'vllm.json：给出哪些百分位数（默认：99）',
  'vllm.json: add the per-request arrays, as vLLM does': 'vllm.json：像 vLLM 那样附上逐请求的数组',
  'vLLM: --input-len': 'vLLM 的写法：即 --input-len',
  'vLLM: --output-len': 'vLLM 的写法：即 --output-len',
  'vLLM: --rate (inf: every request at once)': 'vLLM 的写法：即 --rate（inf：所有请求同时发出）',
  'vLLM: --requests': 'vLLM 的写法：即 --requests',
  'vLLM: --out': 'vLLM 的写法：即 --out',
  'vLLM: lengths uniform in [N·(1−r), N·(1+r)]': 'vLLM：长度在 [N·(1−r), N·(1+r)] 内均匀分布',
  'vLLM: one shared prefix of n tokens before the random input':
    'vLLM：在随机输入之前加一段 n 个 token 的共享前缀',
  'vLLM: random (synthetic, vLLM defaults 1024/128) or sharegpt':
    'vLLM：random（合成，vLLM 默认 1024/128）或 sharegpt',
  'vLLM: the file of --dataset-name sharegpt': 'vLLM：--dataset-name sharegpt 所用的文件',
  'vLLM: the tokenizer to count prompt tokens with (default: the model)':
    'vLLM：统计提示词 token 数所用的分词器（默认：模型自带的）',
  'vLLM: SLOs (--slo)': 'vLLM 的写法：即 SLO（--slo）',
  'vLLM: write vllm.json (into --result-dir, default .)': 'vLLM：写出 vllm.json（写到 --result-dir，默认 .）',
  'vLLM: the file name of --save-result (default: vllm.json)':
    'vLLM：--save-result 的文件名（默认：vllm.json）',
  'SGLang: append the result, one JSON line in vllm.json format':
    'SGLang：追加结果，以 vllm.json 格式写一行 JSON',
  'SGLang: no ignore_eos (already the default here; SGLang sends it unless told not to)':
    'SGLang：不发送 ignore_eos（这里本来就是默认；SGLang 除非被告知否则会发送它）',
  'vLLM: --url (the server root; /v1 is added)': 'vLLM 的写法：即 --url（服务器根地址；会补上 /v1）',
  'SGLang: --extra-body': 'SGLang 的写法：即 --extra-body',
  'vLLM: --url http://HOST:PORT/v1 (default host 127.0.0.1)':
    'vLLM 的写法：即 --url http://HOST:PORT/v1（默认主机 127.0.0.1）',
  'vLLM: --url http://HOST:PORT/v1 (default port 8000)':
    'vLLM 的写法：即 --url http://HOST:PORT/v1（默认端口 8000）',
  'vLLM: openai-chat is --endpoint chat; vllm, openai: completions':
    'vLLM：openai-chat 即 --endpoint chat；vllm、openai：即 completions',
  'SGLang: --no-stream': 'SGLang 的写法：即 --no-stream',
  'language of prose: en or zh-CN (default: from LC_ALL / LANG)':
    '输出文字的语言：en 或 zh-CN（默认：取自 LC_ALL / LANG）',
  'model to probe (default: the first listed)': '要探测的模型（默认：列出的第一个）',
  'write the result as JSON to file, or stdout': '把结果以 JSON 写到文件或标准输出',
  'the old version: OpenAI base URL, e.g. http://10.0.0.1:8000/v1':
    '旧版本：OpenAI 基础 URL，例如 http://10.0.0.1:8000/v1',
  'the new version: OpenAI base URL': '新版本：OpenAI 基础 URL',
  'one endpoint: the same checks as a conformance report, without a diff':
    '单个端点：与一致性报告相同的检查，不做对比',
  'model to ask for (default: the first /v1/models lists)': '请求的模型（默认：/v1/models 列出的第一个）',
  'all, or check ids, group names or numbers, comma-separated': 'all，或检查的 id、分组名或编号，用逗号分隔',
  'write a JUnit XML report (CI)': '写出 JUnit XML 报告（用于 CI）',
  'repeat the cheap checks at a low rate against both pools until --duration ends':
    '以低频率对新旧两组服务反复执行开销小的检查，直到 --duration 结束',
  'with --probe: how long, e.g. 10m, 90s (default 10m)': '配合 --probe：持续多久，例如 10m、90s（默认 10m）',
  'with --probe: pause between passes (default 30s)': '配合 --probe：两轮之间的间隔（默认 30s）',
  'per-request timeout in seconds (default 120)': '每个请求的超时，单位为秒（默认 120）',
  'seed of the sampled requests (default 1)': '抽样请求的种子（默认 1）',
  'where to write the reports (default servelab-out/demo, or servelab-out/demo-voice)':
    '报告写到哪里（默认 servelab-out/demo，或 servelab-out/demo-voice）',
  'write both summaries as JSON to file, or stdout': '把两份汇总以 JSON 写到文件或标准输出',
  'voice: time the first-audio path (ASR → LLM → TTS) on the simulator instead':
    'voice：改为在模拟器上测量首个音频的路径（ASR → LLM → TTS）',
  'the LLM: OpenAI base URL, e.g. http://127.0.0.1:8000/v1':
    'LLM：OpenAI 基础 URL，例如 http://127.0.0.1:8000/v1',
  'the speech recognition server (POST /audio/transcriptions; default: --llm-url)':
    '语音识别服务器（POST /audio/transcriptions；默认：--llm-url）',
  'the text-to-speech server (POST /audio/speech; default: --llm-url)':
    '语音合成服务器（POST /audio/speech；默认：--llm-url）',
  'the transcription model to ask for': '请求的转写模型',
  'ask for the transcript in one response instead of a stream': '一次性返回完整转写结果，而不是流式返回',
  'the speech model to ask for': '请求的语音合成模型',
  'the voice to ask for': '请求的音色',
  'pcm (24 kHz 16-bit mono) or wav': 'pcm（24 kHz 16 位单声道）或 wav',
  'what users say: a directory of .wav files, cycled through': '用户说的话：一个 .wav 文件目录，循环使用',
  'or generated audio of these durations, seconds: N, uniform:A-B, normal:MEAN,STD, exp:MEAN, lognormal:MEDIAN,SIGMA (default uniform:1-3)':
    '或者生成这些时长的音频，单位为秒：N、uniform:A-B、normal:MEAN,STD、exp:MEAN、lognormal:MEDIAN,SIGMA（默认 uniform:1-3）',
  'silence after speech before the turn counts as over (0: the ASR server endpoints)':
    '语音结束后静音多久才算这一轮结束（0：由 ASR 服务器做端点检测）',
  'when text goes to TTS: sentence (。！？.!?), chars:N or whole':
    '何时把文本送去 TTS：sentence（。！？.!?）、chars:N 或 whole',
  'jitter buffer: audio ms received before playback starts': '抖动缓冲：开始播放前要收到的音频毫秒数',
  'simulated users, each speaking its turns one after another (default 1)':
    '模拟的用户数，每个用户依次说完自己的各轮（默认 1）',
  'planned turns in all (default 10)': '计划的总轮数（默认 10）',
  'seed for generated audio and output lengths (default: drawn fresh, printed)':
    '生成音频和输出长度的种子（默认：重新抽取，并打印出来）',
  'LLM max_tokens per turn: N, uniform:A-B or normal:MEAN,STD':
    '每轮 LLM 的 max_tokens：N、uniform:A-B 或 normal:MEAN,STD',
  'limit of each exchange (ASR, LLM, each TTS chunk), seconds (default: none)':
    '每次交互（ASR、LLM、每个 TTS 分块）的时限，单位为秒（默认：无）',
  'limit to the first text (ASR, LLM) or first audio byte (TTS), seconds':
    '到第一段文本（ASR、LLM）或第一个音频字节（TTS）的时限，单位为秒',
  'write voice.jsonl, requests.jsonl (the LLM legs), voice.json and waterfall.svg here':
    '把 voice.jsonl、requests.jsonl（LLM 部分）、voice.json 和 waterfall.svg 写到这里',
  'write the summary as JSON to file, or stdout': '把汇总以 JSON 写到文件或标准输出',
  'Model to simulate: one of the built-in catalogue ({list}) or of the catalogue file; with a model config, the name to give its model. (default: {model})':
    '要模拟的模型：内置目录中的一个（{list}）或目录文件中的一个；配合模型配置时，是给该模型起的名字。（默认：{model}）',
  'GPU to simulate: one of the built-in catalogue ({list}) or of the catalogue file. (default: {gpu})':
    '要模拟的 GPU：内置目录中的一个（{list}）或目录文件中的一个。（默认：{gpu}）',
  'Tensor-parallel size: the number of GPUs the model is split across. (default: 1)':
    '张量并行规模：模型切分到的 GPU 数。（默认：1）',
  'Weight precision; int4 is AWQ/GPTQ-style weight-only quantisation. (default: bf16)':
    '权重精度；int4 是 AWQ/GPTQ 式的仅权重量化。（默认：bf16）',
  'KV cache precision; auto is 16-bit. (default: auto)': 'KV 缓存精度；auto 即 16 位。（默认：auto）',
  "Most requests running in one batch. (default: vLLM's default for the GPU: 1024 on GPUs of 70 GiB or more other than the A100s, else 256)":
    '一个批次中最多同时运行的请求数。（默认：vLLM 对该 GPU 的默认值：显存 70 GiB 及以上、A100 以外的 GPU 为 1024，否则为 256）',
  "Token budget of one engine step; longer prefills are split into chunks. (default: vLLM's default for the GPU: 8192 where max_num_seqs defaults to 1024, else 2048)":
    '一个引擎步的 token 预算；更长的 prefill 会被切成块。（默认：vLLM 对该 GPU 的默认值：max_num_seqs 默认为 1024 时为 8192，否则为 2048）',
  'Tokens per KV cache block. (default: 16)': '每个 KV 缓存块的 token 数。（默认：16）',
  'Fraction of GPU memory the engine may take for weights, activations and the KV cache. (default: 0.9)':
    '引擎可用于权重、激活和 KV 缓存的 GPU 显存比例。（默认：0.9）',
  "Context length: the most prompt and output tokens of one request. (default: the model's max_position_embeddings, lowered to what the KV cache holds)":
    '上下文长度：一个请求的提示词与输出 token 总数上限。（默认：模型的 max_position_embeddings，若 KV 缓存放不下则相应降低）',
  'Reuse the KV cache blocks of a prompt prefix computed before (automatic prefix caching). (on by default; this flag turns it off)':
    '复用之前算过的提示词前缀的 KV 缓存块（自动前缀缓存）。（默认开启；此选项将其关闭）',
  "Engine to impersonate: its scheduler, prefix cache, /metrics names, routes and wire format (vllm-v1, vllm-v0 or sglang; docs/sim.md's profile sections). (default: vllm-v1)":
    '要模仿的引擎：它的调度器、前缀缓存、/metrics 名称、路由和传输格式（vllm-v1、vllm-v0 或 sglang；见 docs/sim.md 中各引擎的章节）。（默认：vllm-v1）',
  'vllm-v0: split long prompts into chunks that share steps with decodes (vLLM v1 always does; without it a v0 step is all prefill or all decode).':
    'vllm-v0：把长提示词切成块，与 decode 共享引擎步（vLLM v1 总是如此；不开启时 v0 的一步要么全是 prefill，要么全是 decode）。',
  "vllm-v0 multi-step scheduling: run this many decode steps per schedule, streaming each request's tokens that many at a time. (default: 1)":
    'vllm-v0 多步调度：每次调度运行这么多个 decode 步，每个请求的 token 也一次流式返回这么多个。（默认：1）',
  'sglang: order of the waiting queue, first come first served (fcfs) or longest prefix match first (lpm). (default: fcfs)':
    'sglang：等待队列的顺序，先来先服务（fcfs）或最长前缀匹配优先（lpm）。（默认：fcfs）',
  "sglang: most prompt tokens of one prefill step; longer prompts are prefilled in chunks. (default: sglang's default for the GPU: 2048 under 35 GB, 8192 under 160 GB, else 16384)":
    'sglang：一个 prefill 步最多处理的提示词 token 数；更长的提示词分块 prefill。（默认：sglang 对该 GPU 的默认值：35 GB 以下为 2048，160 GB 以下为 8192，否则为 16384）',
  "llamacpp: server slots (llama.cpp's -np/--parallel): the most requests running at once; the rest wait (deferred). (default: 4, as llama.cpp's -np auto (each slot gets ctx_size / 4))":
    'llamacpp：服务器槽位数（llama.cpp 的 -np/--parallel）：最多同时运行的请求数；其余的等待（deferred）。（默认：4，与 llama.cpp 的 -np auto 相同（每个槽位分到 ctx_size / 4））',
  "llamacpp: total context (llama.cpp's -c/--ctx-size), split between the slots: each slot holds ctx_size / parallel tokens, rounded up to a multiple of 256. (default: the model's max_position_embeddings (llama.cpp's -c 0: from the model))":
    'llamacpp：总上下文（llama.cpp 的 -c/--ctx-size），在各槽位间平分：每个槽位容纳 ctx_size / parallel 个 token，向上取整到 256 的倍数。（默认：模型的 max_position_embeddings（llama.cpp 的 -c 0：取自模型））',
  "llamacpp: most tokens of one llama_decode (llama.cpp's -b/--batch-size): decodes first, then prompt tokens of the slots in order. (default: 2048)":
    'llamacpp：一次 llama_decode 最多处理的 token 数（llama.cpp 的 -b/--batch-size）：先 decode，再按顺序处理各槽位的提示词 token。（默认：2048）',
  "llamacpp: size of the RAM prompt cache (llama.cpp's --cache-ram; 0 turns it off): a slot's prompt is saved there before the slot is reused, and a later request restores the one sharing its longest prefix. (default: 8192)":
    'llamacpp：内存中提示词缓存的大小（llama.cpp 的 --cache-ram；0 表示关闭）：槽位被复用前先把它的提示词存到这里，之后的请求恢复与它共享最长前缀的那一份。（默认：8192）',
  "llamacpp: continuous batching (llama.cpp's --cont-batching); off, prompts are processed only in steps with no decoding slot. (on by default; this flag turns it off)":
    'llamacpp：连续批处理（llama.cpp 的 --cont-batching）；关闭时只在没有槽位在 decode 的步里处理提示词。（默认开启；此选项将其关闭）',
  'Extra time on the first engine step, as a cold engine takes. (default: 0)':
    '第一个引擎步额外花费的时间，模拟冷启动的引擎。（默认：0）',
  "API server processes that share the streaming work (vLLM's --api-server-count); each detokenises and writes the chunks of its own streams. (default: 1)":
    '分担流式输出工作的 API 服务器进程数（vLLM 的 --api-server-count）；每个进程为自己的流做反分词并写出分块。（默认：1）',
  'YAML/JSON file with extra GPUs and models, in Hugging Face config.json terms.':
    '附加 GPU 和模型的 YAML/JSON 文件，用 Hugging Face config.json 的字段描述。',
  "A model's Hugging Face config.json to simulate, named after its directory unless --model names it.":
    '要模拟的模型的 Hugging Face config.json，以其所在目录命名，除非用 --model 指定名字。',
  'A calibration profile written by servelab calibrate: simulate the model, GPU and engine it was fitted for with its fitted cost-model constants.':
    '由 servelab calibrate 写出的校准文件：模拟它所拟合的模型、GPU 和引擎，并使用拟合得到的成本模型常数。',
  'Seed of the simulated output lengths, text, ids and faults. (default: 0)':
    '模拟的输出长度、文本、id 和故障所用的种子。（默认：0）',
  'Run the clock this many times faster than real time (demos, tests); engine times stay simulated ms. (default: 1)':
    '让时钟比真实时间快这么多倍（演示、测试）；引擎时间仍以模拟的毫秒计。（默认：1）',
  'Address to listen on. (default: 127.0.0.1)': '监听的地址。（默认：127.0.0.1）',
  'TCP port to listen on; 0 picks a free one. (default: 8000)':
    '监听的 TCP 端口；0 表示任选一个空闲端口。（默认：8000）',
  'Model id served on /v1/models and accepted in requests. (default: the catalogue model name)':
    '在 /v1/models 上提供、并在请求中接受的模型 id。（默认：目录中的模型名）',
  'Bearer token that requests to /v1/* must carry; it is never logged.':
    '发往 /v1/* 的请求必须携带的令牌（Bearer）；它永远不会写进日志。',
  "Export one OpenTelemetry span per request to this OTLP/HTTP traces URL (protobuf; no path: /v1/traces), as vLLM's --otlp-traces-endpoint does: its llm_request span, child of the request's traceparent, latencies in wall seconds.":
    '把每个请求的一个 OpenTelemetry span 导出到这个 OTLP/HTTP traces URL（protobuf；不带路径时为 /v1/traces），与 vLLM 的 --otlp-traces-endpoint 相同：它的 llm_request span，是请求 traceparent 的子 span，时延以墙钟秒计。',
  'Answer 429 to a request arriving while this many already wait (each waits for its first step, so ≥ 1). (default: unbounded)':
    '当已有这么多请求在等待时，对新到达的请求回答 429（每个请求都要等到它的第一个引擎步，所以 ≥ 1）。（默认：不限）',
  'Name of the reasoning delta field: reasoning_content (SGLang, older vLLM) or reasoning (newer vLLM). (default: reasoning_content)':
    '推理增量字段的名称：reasoning_content（SGLang、较旧的 vLLM）或 reasoning（较新的 vLLM）。（默认：reasoning_content）',
  "Context-length errors as vLLM answers them (400, max_tokens that do not fit refused) or as llama.cpp's server does (400 exceed_context_size_error with n_prompt_tokens and n_ctx; max_tokens clamped to the context). (default: vllm)":
    '上下文长度错误的回答方式：像 vLLM 那样（400，放不下的 max_tokens 被拒绝），或像 llama.cpp 的服务器那样（400 exceed_context_size_error，带 n_prompt_tokens 和 n_ctx；max_tokens 被截到上下文长度）。（默认：vllm）',
  'Report the cached prompt tokens in usage.prompt_tokens_details. (on by default; this flag turns it off)':
    '在 usage.prompt_tokens_details 中报告命中缓存的提示词 token 数。（默认开启；此选项将其关闭）',
  "Stamp every chunk with the server's emit time and step, and end with a timings object.":
    '给每个分块打上服务器的发出时间和引擎步，并以一个 timings 对象结尾。',
  'Probability that a request gets one of the faults. (default: 0)':
    '一个请求遇到某种故障的概率。（默认：0）',
  'Faults to draw from; stall:MS pauses the stream for MS ms of engine time.':
    '从中抽取的故障；stall:MS 让流暂停 MS 毫秒的引擎时间。',
  'Reproduce an engine-upgrade bug (docs/sim.md, "Fault profiles"): reasoning-renamed, ignore-json-schema, empty-tool-args, abort-as-success. (default: none)':
    '重现一个引擎升级引入的缺陷（docs/sim.md，“Fault profiles”）：reasoning-renamed、ignore-json-schema、empty-tool-args、abort-as-success。（默认：无）',
  "Answer the upgrade gate's fixed questions (src/workload/questions.ts) from their known answers, right with this probability (seeded per question), instead of pseudo-text. (default: off (the usual pseudo-text))":
    '用已知答案回答升级闸门的固定问题（src/workload/questions.ts），以这个概率答对（每个问题单独设种子），而不是输出伪文本。（默认：关闭（照常输出伪文本））',
  'Answer 413 to a request body larger than this, before reading it, and close the connection. (default: 10485760)':
    '请求体大于这个字节数时，在读取之前回答 413 并关闭连接。（默认：10485760）',
  'End a sentence of the pseudo-text with "." every N words on average (seeded), so a voice client has sentence boundaries to chunk at. (default: 0)':
    '伪文本平均每 N 个词以 "." 结束一句（有种子），让语音客户端有句子边界可以分块。（默认：0）',
  "/v1/audio/transcriptions: the fixed part of one transcription's GPU time (engine ms), whatever the audio length. (default: 40)":
    '/v1/audio/transcriptions：一次转写的 GPU 时间中固定的部分（引擎毫秒），与音频长度无关。（默认：40）',
  '/v1/audio/transcriptions: real-time factor, GPU ms per ms of audio; a transcription costs asr_fixed_ms + asr_rtf × audio ms. (default: 0.03)':
    '/v1/audio/transcriptions：实时因子，每毫秒音频所需的 GPU 毫秒数；一次转写耗时 asr_fixed_ms + asr_rtf × 音频毫秒数。（默认：0.03）',
  "Where transcriptions run: on the LLM's simulated GPU (colocated: they queue between engine steps and the next step waits for them) or on a GPU of their own (separate: they queue only behind each other). (default: colocated)":
    '转写在哪里运行：在 LLM 的模拟 GPU 上（colocated：在引擎步之间排队，下一个引擎步要等它们完成），或在单独的 GPU 上（separate：只在彼此之间排队）。（默认：colocated）',
  '/v1/audio/speech: engine ms from the request to the first audio bytes. (default: 80)':
    '/v1/audio/speech：从请求到第一个音频字节的引擎毫秒数。（默认：80）',
  '/v1/audio/speech: real-time factor after the first bytes, engine ms of synthesis per ms of audio (each speech stream on its own). (default: 0.1)':
    '/v1/audio/speech：第一个字节之后的实时因子，每毫秒音频所需的合成引擎毫秒数（每个语音流各自独立）。（默认：0.1）',
  '/v1/audio/speech: milliseconds of audio in each streamed chunk. (default: 100)':
    '/v1/audio/speech：每个流式分块中音频的毫秒数。（默认：100）',
  'On SIGTERM, wait this long (wall seconds) for requests in flight to finish while new ones get 503; then stop. (default: 30)':
    '收到 SIGTERM 后，等待这么久（墙钟秒）让在途请求完成，期间新请求收到 503；然后停止。（默认：30）',
  'write {url, base_url, port, model} as JSON to file, or stdout, once listening':
    '开始监听后，把 {url, base_url, port, model} 以 JSON 写到文件或标准输出',
  'chat or completions (streamed; default chat)': 'chat 或 completions（流式；默认 chat）',
  'search for the largest closed-loop concurrency at which 99% of requests meet --slo':
    '寻找 99% 请求满足 --slo 的最大闭环并发数',
  'sessions: search for the most users (at this think time) for which 99% of turns meet --slo':
    '会话：寻找（在当前思考时间下）99% 的轮次满足 --slo 的最多用户数',
  'overwrite FILE if it exists': 'FILE 已存在时覆盖它',
  'write the template here instead of stdout (refused if it exists)':
    '把模板写到这里而不是标准输出（文件已存在时拒绝）',
  'experiment YAML': '实验 YAML 文件',
  'experiment id (a unique prefix is enough)': '实验 id（唯一的前缀即可）',
  'write the list as JSON to file, or stdout': '把列表以 JSON 写到文件或标准输出',
  'write the run as JSON to file, or stdout': '把这次运行以 JSON 写到文件或标准输出',
  'run id (a unique prefix is enough)': '运行 id（唯一的前缀即可）',
  'write to a file instead of stdout': '写到文件而不是标准输出',
  'write a self-contained HTML report': '写出一份自包含的 HTML 报告',
  'write the Markdown project write-up (its charts as SVG files in NAME.charts/ next to it)':
    '写出 Markdown 项目报告（其中的图以 SVG 文件放在旁边的 NAME.charts/ 中）',
  'GPU price per hour for the cost columns': '每小时 GPU 价格，用于成本各列',
  'report title': '报告标题',
  'write the report as JSON to file, or stdout': '把报告以 JSON 写到文件或标准输出',
  'run ids, experiment ids or report.json files': '运行 id、实验 id 或 report.json 文件',
  'the number of shards N (a missing or extra shard is refused)': '分片数 N（缺少或多出分片都会被拒绝）',
  'folder for the merged report.json (and requests.jsonl with --exact)':
    '合并后的 report.json 所在的目录（配合 --exact 时还有 requests.jsonl）',
  "recompute every statistic from the shards' records, not their histograms":
    '用各分片的记录重新计算每个统计量，而不是用它们的直方图',
  "merge what is there; missing shards' planned requests count as lost":
    '有多少合并多少；缺失分片计划中的请求计为丢失',
  'write the merged report as JSON to file, or stdout': '把合并后的报告以 JSON 写到文件或标准输出',
  'the shard reports, report.shard-<i>-of-<N>.json': '各分片的报告，report.shard-<i>-of-<N>.json',
  'the number of shard pods N': '分片 pod 的个数 N',
  'the common start (RFC 3339)': '共同开始时间（RFC 3339）',
  'the common start, this many seconds after the first shard pod starts':
    '共同开始时间：第一个分片 pod 启动后再过这么多秒',
  'name prefix of the objects': '各对象名称的前缀',
  'container image with servelab on its PATH': 'PATH 中带有 servelab 的容器镜像',
  'CPU of each shard pod (requests = limits)': '每个分片 pod 的 CPU（requests = limits）',
  'memory of each shard pod (requests = limits)': '每个分片 pod 的内存（requests = limits）',
  'size of the ReadWriteMany results volume': 'ReadWriteMany 结果卷的大小',
  'seconds the merge Job waits for every shard file': '合并 Job 等待每个分片文件的秒数',
  "port of each shard's Prometheus exporter": '每个分片的 Prometheus 导出器端口',
  "run's flags, after --, e.g. -- --url http://engine:8000/v1 --rate 200 --duration 300":
    'run 命令的选项，写在 -- 之后，例如 -- --url http://engine:8000/v1 --rate 200 --duration 300',
  'write the diagnosis as JSON to file, or stdout': '把诊断以 JSON 写到文件或标准输出',
  'write the calibration profile (YAML) here; use it with --profile':
    '把校准文件（YAML）写到这里；配合 --profile 使用',
  "catalogue model the runs were measured on (default: the runs' record)":
    '测量这些运行所用的目录模型（默认：取自运行的记录）',
  "catalogue GPU the runs were measured on (default: a simulated target's)":
    '测量这些运行所用的目录 GPU（默认：模拟目标的 GPU）',
  "tensor-parallel size (default: 1, or a simulated target's)": '张量并行规模（默认：1，或模拟目标的值）',
  'weight precision: bf16, fp16, fp8, int4 (default: bf16)': '权重精度：bf16、fp16、fp8、int4（默认：bf16）',
  'KV cache precision: auto, fp8 (default: auto)': 'KV 缓存精度：auto、fp8（默认：auto）',
  'engine: vllm-v1, vllm-v0, sglang (default: vllm-v1)': '引擎：vllm-v1、vllm-v0、sglang（默认：vllm-v1）',
  'API server processes of the engine (default: 1)': '引擎的 API 服务器进程数（默认：1）',
  'YAML/JSON file with extra GPUs and models': '附加 GPU 和模型的 YAML/JSON 文件',
  'write the profile as JSON to file, or stdout': '把校准文件以 JSON 写到文件或标准输出',
  'run ids, experiment ids (e.g. of `exp init calibration`) or report.json files':
    '运行 id、实验 id（例如 `exp init calibration` 的实验）或 report.json 文件',
  'azure, burstgpt, mooncake or servelab (default: detected)':
    'azure、burstgpt、mooncake 或 servelab（默认：自动识别）',
  'tokens per Mooncake hash block (default 512)': '每个 Mooncake 哈希块的 token 数（默认 512）',
  'write the statistics and their charts as a self-contained HTML page':
    '把统计结果和图表写成一个自包含的 HTML 页面',
  'write the statistics as JSON to file, or stdout': '把统计结果以 JSON 写到文件或标准输出',
  'the trace (Azure or BurstGPT CSV, Mooncake or servelab JSONL)':
    '轨迹文件（Azure 或 BurstGPT 的 CSV，Mooncake 或 servelab 的 JSONL）',
  'listen port (0 = any free port)': '监听端口（0 = 任意空闲端口）',
  'listen address': '监听地址',
  // the heading of run's and plan's vLLM/SGLang flags (cli/options addCompatOptions)
  'vLLM and SGLang names (each read as a servelab flag, with a note):':
    'vLLM 与 SGLang 的写法（各按对应的 servelab 选项读取，并给出提示）：',
  "vllm-v1: speculative decoding as vLLM's --speculative-config: each step proposes num_speculative_tokens per decoding request, verifies them in one pass and keeps the accepted prefix plus one token (docs/sim.md, \"Speculative decoding\"). acceptance_rate is servelab's, not vLLM's: the acceptance to simulate in vLLM's reported units, one number for accepted / drafted tokens or a list for each position's accepted / drafts (default by method; ngram: from the prompt's own repetition, or a published prior when the prompts are synthetic words). (default: off (no speculative decoding))":
    'vllm-v1：与 vLLM 的 --speculative-config 相同的推测解码：每一步为每个解码中的请求提出 num_speculative_tokens 个草稿 token，在一次前向中验证，保留被接受的前缀再加一个 token（见 docs/sim.md「Speculative decoding」）。acceptance_rate 是 servelab 自己的键，不是 vLLM 的：要模拟的接受率，单位与 vLLM 的报告相同，一个数表示接受 / 草稿 token 之比，列表表示每个位置的接受 / 草稿之比（默认随 method 而定；ngram：取自提示词自身的重复，提示词为合成词时用公开发表的先验值）。（默认：关闭（不做推测解码））',
  'Record every engine step (its start and duration, the decodes, the prefill chunks with their tokens, KV blocks in use, preemptions): served on GET /servelab/steps, stored with the run as steps.jsonl, drawn by report as the step timeline.':
    '记录引擎的每一步（开始时刻与时长、解码的请求、各预填充块及其 token 数、占用的 KV 块、抢占）：通过 GET /servelab/steps 提供，随运行存为 steps.jsonl，report 把它画成步骤时间线。',
  "a lesson: run it against this engine (OpenAI base URL) instead of the simulator; twice for a lesson's two sides":
    '课程实验：对这个引擎（OpenAI 基础 URL）运行，而不是模拟器；两侧对比的课程给两次',
  'the experiment kind or a lesson (without one, the error lists them)':
    '实验类型或课程名（不给时，错误信息会列出全部）',
  'csv, jsonl, json or chrome-trace (the engine steps, for Perfetto)':
    'csv、jsonl、json 或 chrome-trace（引擎步骤，供 Perfetto 打开）',
  'the request the step timeline is drawn for (a request id, or its workload index); default: the worst stall':
    '为哪个请求画步骤时间线（请求 id 或它在负载中的序号）；默认：停顿最严重的那个',
  "write the run's engine steps (--record-steps) as Chrome Trace Event Format JSON, for the Perfetto UI":
    '把运行的引擎步骤（--record-steps）写成 Chrome Trace Event Format JSON，供 Perfetto UI 打开',
  'fixed questions per prefix group: the run cycles through the groups × this many prompts (inference-perf shared_prefix) (default: every request its own question)':
    '每个前缀组的固定问题数：运行按 组数 × 此数 个提示词循环（inference-perf 的 shared_prefix）（默认：每个请求各有自己的问题）',
  "an inference-perf config (YAML): its api type, load stages and data (shared_prefix, random, synthetic) as servelab's flags; flags given win":
    '一个 inference-perf 配置（YAML）：把其中的 api 类型、负载阶段和数据（shared_prefix、random、synthetic）换成 servelab 的选项；显式给出的选项优先',
  'load stages: int(rate × seconds) arrivals each (--arrival spacing); a stage starts when the previous one has drained, plus --stage-pause, in requests/s × s':
    '负载阶段：每个阶段 int(速率 × 秒数) 个到达（间隔按 --arrival）；前一阶段排空、再过 --stage-pause 后下一阶段开始，单位为 requests/s × s',
  "with --stages: seconds between a stage's last response and the next stage (inference-perf's load.interval) (default: 0)":
    '配合 --stages：一个阶段最后一个响应到下一阶段开始之间的秒数（inference-perf 的 load.interval）（默认：0）',
};
