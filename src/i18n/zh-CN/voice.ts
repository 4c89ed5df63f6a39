import type { voice as en } from '../en/voice.js';

/** "voice" 部分的文字：servelab voice、demo voice、语音工作负载的音频文件、语音分析与报告、语音实验和语音诊断规则。 */
export const voice: Record<keyof typeof en, string> = {
  'voice.wav.not_wav': '{file} 不是 WAV 文件：{why}',
  'voice.wav.not_wav_hint':
    '请提供 16 位 PCM 的 WAV 文件（RIFF/WAVE），例如 ffmpeg -i in.mp3 -ac 1 -ar 16000 out.wav；或用 --speech-seconds 生成音频',
  'voice.wav.why.riff': '文件开头不是 RIFF/WAVE 头',
  'voice.wav.why.fmt': '缺少 fmt 块，或 fmt 块不完整',
  'voice.wav.why.codec': '采样是压缩格式（只读取 PCM 和浮点 WAV）',
  'voice.wav.why.data': '没有 data 块',
  'voice.audio.unreadable': '无法读取音频目录 {dir}：{error}',
  'voice.audio.empty': '{dir} 中没有 .wav 文件',
  'voice.audio.dir_hint': '--audio 需要一个存放 .wav 文件的目录；也可以用 --speech-seconds DIST 生成音频',
  'voice.speech_seconds.hint':
    '每轮说话的秒数：一个数（3）、uniform:MIN-MAX（uniform:2-6）、normal:MEAN,STD（normal:4,1）、exp:MEAN 或 lognormal:MEDIAN,SIGMA',
  'voice.chunk.bad': '未知的 TTS 分块策略 {value}',
  'voice.chunk.hint': '可用 sentence、chars:N（例如 chars:40）或 whole',
  'voice.no_model': '{url}/models 没有列出任何模型',
  'voice.no_model_hint': '请用 --model NAME 指定 LLM 模型',
  'voice.table.metric': '指标（ms）',
  'voice.table.llm_ttft': 'llm ttft_ms（文本 TTFT）',
  'voice.table.not_text_ttft': '首音频 − 文本 TTFT',
  'voice.table.title': '首音频：计划 {turns} 轮，其中 {measured} 轮开始播放',
  'voice.table.outcomes': '各轮结果：{outcomes}',
  'voice.table.failed': '{n} 轮在 {stage} 失败，例如：{error}',
  'voice.table.why':
    '语音结束后平均 {first_audio} ms 才听到第一段音频，其中 LLM 自身的 TTFT 只有 {ttft} ms：其余 {rest} ms（{share}%）花在端点检测、ASR、等待文本分块、TTS 和抖动缓冲上，这些是纯文本基准测不到的。',
  'voice.format.bad': '未知的 TTS 音频格式 {value}',
  'voice.format.hint': '可用 pcm（24 kHz 16 位单声道，即 OpenAI 的 pcm）或 wav',
  'voice.audio.both': '同时给出了 --audio 和 --speech-seconds',
  'voice.audio.both_hint': '只保留一个：真实 WAV 文件用 --audio DIR，生成的音频用 --speech-seconds DIST',
  'voice.header': '语音测试：LLM {model}，TTS 分块：{chunk}，种子 {seed}',
  'voice.wrote': '已写入 {files}',
  'voice.demo.simulator':
    '模拟器：{model}，{gpu}，地址 {url}（LLM、/v1/audio/transcriptions 和 /v1/audio/speech 共用一个端口）',
  'voice.demo.condition': '语音，--tts-chunk {chunk}：4 个用户，12 轮',
  'voice.demo.compare':
    '按句分块时首音频平均在 {sentence} ms，整段回复时在 {whole} ms：早了 {saved} ms，大致就是按句分块不必再等的 LLM 生成时间。',
  'voice.demo.unknown': '未知的演示 {kind}',
  'voice.demo.unknown_hint': 'servelab demo 运行负载演示；servelab demo voice 运行首音频演示',
  'voice.chart.waterfall': '首音频：各条件下的关键路径（平均 ms）',
  'voice.chart.axis_ms': '语音结束后的 ms',
  'voice.chart.text_ttft': '文本 TTFT 结束处',
  'voice.waterfall.condition': '条件',
  'voice.waterfall.legend':
    '瀑布图（e 端点检测，a ASR，L llm_ttft，w 等待首个文本块，t TTS 首字节，b 缓冲）：',
  'voice.waterfall.delta':
    '{label} 相比 {first}：首音频 {delta} ms，其中等待首个文本块 {wait} ms（其 LLM 首 token 之后的生成时间：{gen} ms）',
  'voice.diag.symptom':
    '语音用户从说完话到听到第一段音频平均要等 {mean} ms（p90 为 {p90} ms），而 LLM 自身的 TTFT 只有 {ttft} ms',
  'voice.diag.ev_sum': 'time_to_first_audio_ms = {sum} = {total} ms（均值）',
  'voice.diag.ev_dominant': '占比最大的环节：{segment}，{ms} ms（占首音频的 {share}%）',
  'voice.diag.ev_not_ttft': '不属于文本 TTFT 的部分：{rest} ms（占首音频的 {share}%）',
  'voice.diag.why.endpoint':
    '端点检测占比最大（{ms} ms）：客户端要先等一段静音才把音频发给 ASR，所以任何服务端都无法更早开始。',
  'voice.diag.why.asr':
    'ASR 占比最大（{ms} ms）：整句话要在说完之后才转写；若与 LLM 共用 GPU，转写还要等引擎步骤（引擎步骤也要等它）。',
  'voice.diag.why.llm_ttft':
    'LLM 的首 token 时间占比最大（{ms} ms）：这是 LLM 服务端的排队和预填充，也是纯文本基准唯一测到的部分。',
  'voice.diag.why.first_chunk_wait':
    '等待首个文本块占比最大（{ms} ms）：分块策略凑齐一个完整的块之前 TTS 拿不到任何文本，所以在此之前的 LLM 解码时间都计入首音频；整段回复时则是全部解码时间。',
  'voice.diag.why.tts_first_byte':
    'TTS 首个音频字节的时间占比最大（{ms} ms）：这是语音合成服务端的排队和第一步合成。',
  'voice.diag.why.buffer':
    '抖动缓冲占比最大（{ms} ms）：播放要等收到足够的音频，而音频到达的速度取决于 TTS 合成的速度。',
  'voice.diag.not_ttft':
    '首音频不等于文本 TTFT：文本 TTFT（{ttft} ms）从把转写文本发给 LLM 时才开始计时，但在它之前还有 {before} ms 的端点检测和 ASR，在首 token 之后还有 {after} ms 的等待分块、TTS 和缓冲，总共 {total} ms。',
  'voice.diag.next.endpoint':
    '缩短静音窗口（--endpoint-ms 300、150），或交给流式 ASR 服务端做端点检测（--endpoint-ms 0），比较首音频',
  'voice.diag.next.asr': '让 ASR 使用独立 GPU（asr_gpu: separate）与共用 GPU 对比，并流式返回转写',
  'voice.diag.next.llm_ttft':
    '找出 LLM TTFT 随负载增长的位置（改变 concurrency），再用 servelab diagnose 分析 LLM 的 requests.jsonl',
  'voice.diag.next.first_chunk_wait':
    '更早把文本交给 TTS：用 --tts-chunk sentence 或 chars:N 代替 whole，比较首音频',
  'voice.diag.next.tts_first_byte':
    '观察 TTS 首字节时间随用户数的增长（改变 concurrency）；更早开始流式输出的 TTS 或更多 TTS 容量可以缩短它',
  'voice.diag.next.buffer': '调小 --playback-buffer-ms，或给 TTS 更小的首块（chars:N），让音频更早到达',
  'voice.diag.unreadable': '无法读取语音测量结果：{error}',
  'voice.diag.unreadable_hint': '请给出 servelab voice --out DIR 写出的 voice.json',
  'voice.diag.not_voice': '不是语音测量结果（没有 summary.time_to_first_audio_ms）',
  'voice.source.vllm_transcription':
    '流式转写结果：delta 中携带文本的 transcription.chunk 事件，即首音频中的 ASR 环节',
  'voice.source.sim_audio': '模拟器的转写如何读取 WAV、占用 GPU 时间并流式返回转写文本',
  'voice.source.sim_asr_device': '共用 GPU 时转写在哪里等待正在执行的引擎步骤，以及下一步骤如何等待转写',
};
