/**
 * Prose of the "voice" section (keys `voice.*`): `servelab voice` and `servelab demo voice`
 * (src/cli/commands/voice.ts), the voice workload's audio files (src/workload/audio.ts), the voice
 * analysis and report (src/analysis/voice-metrics.ts, src/report/voice-waterfall.ts), the voice
 * experiment kind and the voice diagnosis rule.
 */
export const voice = {
  'voice.wav.not_wav': '{file} is not a WAV file: {why}',
  'voice.wav.not_wav_hint':
    'give 16-bit PCM WAV files (RIFF/WAVE), e.g. ffmpeg -i in.mp3 -ac 1 -ar 16000 out.wav; or generate audio with --speech-seconds',
  'voice.wav.why.riff': 'it does not start with a RIFF/WAVE header',
  'voice.wav.why.fmt': 'its fmt chunk is missing or cut short',
  'voice.wav.why.codec': 'its samples are compressed (only PCM and float WAV are read)',
  'voice.wav.why.data': 'it has no data chunk',
  'voice.audio.unreadable': 'cannot read the audio directory {dir}: {error}',
  'voice.audio.empty': 'no .wav files in {dir}',
  'voice.audio.dir_hint': '--audio takes a directory of .wav files; or use --speech-seconds DIST',
  'voice.speech_seconds.hint':
    'seconds of speech per turn: a number (3), uniform:MIN-MAX (uniform:2-6), normal:MEAN,STD (normal:4,1), exp:MEAN or lognormal:MEDIAN,SIGMA',
  'voice.chunk.bad': 'unknown TTS chunk policy {value}',
  'voice.chunk.hint': 'use sentence, chars:N (e.g. chars:40) or whole',
  'voice.no_model': '{url}/models lists no models',
  'voice.no_model_hint': 'give the LLM model with --model NAME',
  'voice.table.metric': 'metric (ms)',
  'voice.table.llm_ttft': 'llm ttft_ms (text TTFT)',
  'voice.table.not_text_ttft': 'first audio − text TTFT',
  'voice.table.title': 'First audio: {turns} turns planned, {measured} reached playback',
  'voice.table.outcomes': 'turn outcomes: {outcomes}',
  'voice.table.failed': '{n} failed at {stage}, e.g. {error}',
  'voice.table.why':
    "First audio came {first_audio} ms after speech ended (mean), of which the LLM's own TTFT is {ttft} ms: {rest} ms ({share}%) is endpointing, ASR, waiting for a text chunk, TTS and the jitter buffer, which a text benchmark never sees.",
  'voice.format.bad': 'unknown TTS format {value}',
  'voice.format.hint': "use pcm (24 kHz 16-bit mono, OpenAI's pcm) or wav",
  'voice.audio.both': '--audio and --speech-seconds both given',
  'voice.audio.both_hint':
    'keep one: --audio DIR for real WAV files, --speech-seconds DIST for generated audio',
  'voice.header': 'Voice run: LLM {model}, TTS chunks: {chunk}, seed {seed}',
  'voice.wrote': 'wrote {files}',
  'voice.demo.simulator':
    'simulator: {model} on {gpu} at {url} (LLM, /v1/audio/transcriptions and /v1/audio/speech on one port)',
  'voice.demo.condition': 'voice, --tts-chunk {chunk}: 4 users, 12 turns',
  'voice.demo.compare':
    'Sentence chunks gave first audio at {sentence} ms, whole replies at {whole} ms (means): {saved} ms earlier, about the LLM generation that sentence chunking no longer waits for.',
  'voice.demo.unknown': 'unknown demo {kind}',
  'voice.demo.unknown_hint': 'servelab demo runs the load demo; servelab demo voice the first-audio demo',
  'voice.chart.waterfall': 'First audio: the critical path per condition (mean ms)',
  'voice.chart.axis_ms': 'ms after speech ended',
  'voice.chart.text_ttft': 'where text TTFT ends',
  'voice.waterfall.condition': 'condition',
  'voice.waterfall.legend':
    'waterfall (e endpoint, a asr, L llm_ttft, w first_chunk_wait, t tts_first_byte, b buffer):',
  'voice.waterfall.delta':
    '{label} against {first}: first audio {delta} ms, of which the wait for the first text chunk {wait} ms (its LLM generation after the first token: {gen} ms)',
  'voice.diag.symptom':
    "a voice user waits {mean} ms (mean; p90 {p90} ms) from the end of speech to the first audio, while the LLM's own TTFT is {ttft} ms",
  'voice.diag.ev_sum': 'time_to_first_audio_ms = {sum} = {total} ms (means)',
  'voice.diag.ev_dominant': 'dominant segment: {segment}, {ms} ms ({share}% of first audio)',
  'voice.diag.ev_not_ttft': 'not text TTFT: {rest} ms ({share}% of first audio)',
  'voice.diag.why.endpoint':
    'Endpointing dominates ({ms} ms): the client waits for a window of silence before it even sends the audio to ASR, so nothing on any server can start earlier.',
  'voice.diag.why.asr':
    'ASR dominates ({ms} ms): the whole utterance is transcribed after speech ends, and on a GPU shared with the LLM a transcription also waits for engine steps (and they for it).',
  'voice.diag.why.llm_ttft':
    "The LLM's time to first token dominates ({ms} ms): queueing and prefill on the LLM server, the one part a text benchmark measures.",
  'voice.diag.why.first_chunk_wait':
    "Waiting for the first text chunk dominates ({ms} ms): TTS gets nothing until the chunk policy sees a complete chunk, so the LLM's decode speed up to that point adds to first audio; with whole replies, all of it.",
  'voice.diag.why.tts_first_byte':
    "TTS time to first audio byte dominates ({ms} ms): the speech server's queueing and its first synthesis step.",
  'voice.diag.why.buffer':
    'The jitter buffer dominates ({ms} ms): playback waits until enough audio has arrived, and audio arrives only as fast as the TTS makes it.',
  'voice.diag.not_ttft':
    'First audio is not text TTFT: text TTFT ({ttft} ms) starts when the transcript is sent to the LLM, but {before} ms of endpointing and ASR come before it and {after} ms of chunk wait, TTS and buffering come after the first token, of {total} ms in all.',
  'voice.diag.next.endpoint':
    'shorten the silence window (--endpoint-ms 300, 150) or let a streaming ASR server endpoint (--endpoint-ms 0), and compare first audio',
  'voice.diag.next.asr':
    'run ASR on a GPU of its own (asr_gpu: separate) against colocated, and stream the transcript',
  'voice.diag.next.llm_ttft':
    "find where LLM TTFT grows with load (vary concurrency), then servelab diagnose the LLM's requests.jsonl",
  'voice.diag.next.first_chunk_wait':
    'send text to TTS sooner: --tts-chunk sentence or chars:N instead of whole, and compare first audio',
  'voice.diag.next.tts_first_byte':
    'see how TTS first-byte time grows with users (vary concurrency); a TTS that streams sooner or more TTS capacity shortens it',
  'voice.diag.next.buffer':
    'lower --playback-buffer-ms, or give TTS smaller first chunks (chars:N) so audio arrives sooner',
  'voice.diag.unreadable': 'cannot read the voice measurement: {error}',
  'voice.diag.unreadable_hint': 'give the voice.json that servelab voice --out DIR wrote',
  'voice.diag.not_voice': 'not a voice measurement (no summary.time_to_first_audio_ms)',
  'voice.source.vllm_transcription':
    'the streamed transcript: transcription.chunk events whose delta carries the text, the ASR leg of first audio',
  'voice.source.sim_audio':
    "how the simulator's transcription reads the WAV, books GPU time and streams the transcript",
  'voice.source.sim_asr_device':
    'where a colocated transcription waits for the engine step in flight, and the next step for it',
} as const;
