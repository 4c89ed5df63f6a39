/**
 * The voice chain end to end against the simulator over loopback HTTP: its audio endpoints
 * (/v1/audio/transcriptions multipart and stream, /v1/audio/speech streamed PCM and WAV) and a
 * full voice measurement with sentence chunking, whose records carry every boundary.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { firstAudio, VOICE_SEGMENTS } from '../../src/analysis/voice-metrics.js';
import { synthesize, transcribe, transcriptionForm } from '../../src/client/audio.js';
import { measureVoice } from '../../src/pipeline/measure-voice.js';
import { RealClock } from '../../src/runtime/clock.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import { generateWav, parseWav } from '../../src/workload/audio.js';

let sim: SimServer;
let url = '';
before(async () => {
  sim = await startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', port: 0, sentenceWords: 6 });
  url = `${sim.url}/v1`;
});
after(() => sim.close());

const signal = new AbortController().signal;
const target = (model: string) => ({ baseUrl: url, model, clock: new RealClock(), timeoutMs: 20_000 });

test('the simulator transcribes a WAV upload, as JSON and as a vLLM transcription.chunk stream', async () => {
  const wav = generateWav(2, 7);
  const plain = await transcribe(target('whisper-1'), wav, { stream: false, signal });
  assert.equal(plain.outcome, 'ok', plain.error ?? '');
  assert.equal(plain.stream, false);
  // 2 s of speech at 2.5 words a second
  assert.equal(plain.text?.split(/\s+/).length, 5);
  const streamed = await transcribe(target('whisper-1'), wav, { stream: true, signal });
  assert.equal(streamed.outcome, 'ok', streamed.error ?? '');
  assert.equal(streamed.stream, true);
  assert.equal(streamed.text, plain.text, 'the same audio gives the same transcript');
  assert.ok(streamed.first_at_ms !== null && streamed.end_at_ms !== null);
  assert.ok(streamed.first_at_ms <= streamed.end_at_ms);
});

test('the simulator refuses an upload that is not a WAV with 400, which the client classifies', async () => {
  const rec = await transcribe(target('whisper-1'), Buffer.from('not audio at all'), {
    stream: false,
    signal,
  });
  assert.equal(rec.outcome, 'http_error');
  assert.equal(rec.http_status, 400);
  assert.match(rec.error ?? '', /Invalid or unsupported audio file/);
  const form = transcriptionForm(generateWav(1, 1), { model: 'x', response_format: 'srt' });
  const res = await request(`${url}/audio/transcriptions`, {
    method: 'POST',
    headers: { 'content-type': form.contentType },
    body: form.body,
  });
  assert.equal(res.statusCode, 400);
  assert.match(await res.body.text(), /response_format srt/);
});

test('the simulator streams speech as PCM and as WAV whose header says 24 kHz', async () => {
  const text = 'Hello there, this is a test of the speech endpoint.';
  const pcm = await synthesize(target('tts-1'), text, {
    voice: 'alloy',
    format: 'pcm',
    bufferMs: 150,
    chunk: 0,
    textReadyAtMs: 0,
    signal,
  });
  assert.equal(pcm.outcome, 'ok', pcm.error ?? '');
  // 66 ms of speech per character, 48 bytes per ms
  assert.equal(pcm.audio_bytes, Math.round(text.length * 66 * 48) & ~1);
  assert.ok(pcm.first_at_ms !== null && pcm.buffered_at_ms !== null && pcm.first_at_ms <= pcm.buffered_at_ms);
  const wav = await synthesize(target('tts-1'), text, {
    voice: 'alloy',
    format: 'wav',
    bufferMs: 150,
    chunk: 0,
    textReadyAtMs: 0,
    signal,
  });
  assert.equal(wav.outcome, 'ok', wav.error ?? '');
  assert.equal(wav.audio_bytes, pcm.audio_bytes + 44);
  assert.ok(Math.abs((wav.audio_ms ?? 0) - (pcm.audio_ms ?? 0)) < 1e-9);
  const res = await request(`${url}/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tts-1', input: 'Hi.', voice: 'alloy', response_format: 'wav' }),
  });
  const head = parseWav(Buffer.from(await res.body.arrayBuffer()));
  assert.ok(head.ok && head.info.sampleRate === 24_000 && head.info.channels === 1);
  const mp3 = await request(`${url}/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tts-1', input: 'Hi.', voice: 'alloy' }),
  });
  assert.equal(mp3.statusCode, 400, 'mp3, OpenAI default, is refused with a message, not served as noise');
  await mp3.body.text();
});

test('a voice measurement on the simulator: every boundary recorded, the breakdown adds up', async () => {
  const m = await measureVoice(
    {
      asrUrl: url,
      llmUrl: url,
      ttsUrl: url,
      asrModel: 'whisper-1',
      asrStream: true,
      ttsModel: 'tts-1',
      ttsVoice: 'alloy',
      ttsFormat: 'pcm',
      model: null,
      users: 2,
      turns: 4,
      seed: 3,
      audioDir: null,
      speechSeconds: 'uniform:1-2',
      endpointMs: 100,
      chunk: { kind: 'sentence' },
      bufferMs: 150,
      outputLen: '40',
      maxTokens: null,
      temperature: 0,
      ignoreEos: true,
      timeoutS: 30,
      timeoutFirstS: null,
      headers: {},
      apiKeyEnv: 'INFERENCE_API_KEY',
      out: null,
      speakRealTime: false,
    },
    { env: {}, signal },
  );
  assert.equal(m.model, 'llama-3.1-8b', 'the LLM model comes from /v1/models');
  assert.equal(m.records.length, 4);
  for (const r of m.records) {
    assert.equal(r.outcome, 'ok', r.error ?? '');
    assert.equal(r.llm?.usage?.completion_tokens, 40, 'the LLM leg is a full run record, usage included');
    assert.ok(r.tts.length > 1, 'sentences of about 6 words: several chunks per 40-token reply');
    assert.ok(r.tts.every((c, i) => c.chunk === i && c.outcome === 'ok'));
    const fa = firstAudio(r);
    assert.ok(fa, 'playback started');
    const sum = VOICE_SEGMENTS.reduce((a, s) => a + fa.segments[s], 0);
    assert.ok(Math.abs(sum - fa.time_to_first_audio_ms) < 1e-6);
    assert.ok(
      VOICE_SEGMENTS.every((s) => fa.segments[s] >= 0),
      JSON.stringify(fa.segments),
    );
    assert.ok(fa.segments.endpoint >= 100 - 1, 'the silence window passed before ASR');
    assert.ok(fa.llm_ttft_ms !== undefined && fa.llm_ttft_ms > 0);
  }
  assert.equal(m.summary.measured, 4);
});
