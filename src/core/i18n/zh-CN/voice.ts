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
    '每轮说话的秒数：一个数（3）、uniform:MIN-MAX（uniform:2-6）或 normal:MEAN,STD（normal:4,1）',
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
  'voice.header': '语音测试：LLM {model}，TTS 分块：{chunk}',
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
};
