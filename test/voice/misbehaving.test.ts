/**
 * The voice chain against purpose-built loopback ASR and TTS servers that misbehave, over real
 * HTTP: an ASR that returns no text, a TTS that stalls before its first byte, a TTS that breaks
 * mid-stream after a 200, a TTS that answers 500, and a WAV file that is not a WAV. In each
 * case every planned turn gives one record, the failure is classified like `run`'s outcomes and
 * pinned to its stage, and the bad file is a clear usage error (no stack trace).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { measureVoice, type VoiceSettings } from '../../src/pipeline/measure-voice.js';
import { generateWav } from '../../src/workload/audio.js';
import {
  misbehaviours,
  type Script,
  type SeenRequest,
  startSseServer,
  type TestServer,
} from '../helpers/misbehaving.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-voice-'));
const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

const json = (o: unknown): Script => ({
  headers: { 'content-type': 'application/json' },
  steps: [JSON.stringify(o)],
});
/** 200 ms of OpenAI pcm (24 kHz 16-bit mono) in two writes. */
const goodSpeech = (): Script => ({
  headers: { 'content-type': 'audio/pcm' },
  steps: [Buffer.alloc(4800), { delay_ms: 5 }, Buffer.alloc(4800)],
});

/** One loopback server for all three legs, each path playing its script. */
async function voiceServer(scripts: { asr?: () => Script; tts?: () => Script; llm?: () => Script }) {
  const srv = await startSseServer((req: SeenRequest) =>
    req.path.endsWith('/audio/transcriptions')
      ? (scripts.asr ?? (() => json({ text: 'what is the weather' })))()
      : req.path.endsWith('/audio/speech')
        ? (scripts.tts ?? goodSpeech)()
        : (scripts.llm ?? misbehaviours.wellBehaved)(),
  );
  servers.push(srv);
  return srv;
}

function settings(url: string, o: Partial<VoiceSettings> = {}): VoiceSettings {
  return {
    asrUrl: url,
    llmUrl: url,
    ttsUrl: url,
    asrModel: 'whisper-1',
    asrStream: false,
    ttsModel: 'tts-1',
    ttsVoice: 'alloy',
    ttsFormat: 'pcm',
    model: 'm',
    users: 2,
    turns: 3,
    seed: 1,
    audioDir: null,
    speechSeconds: '1',
    endpointMs: 0,
    chunk: { kind: 'sentence' },
    bufferMs: 50,
    outputLen: null,
    maxTokens: null,
    temperature: 0,
    ignoreEos: false,
    timeoutS: 10,
    timeoutFirstS: null,
    headers: {},
    apiKeyEnv: 'INFERENCE_API_KEY',
    out: null,
    speakRealTime: false,
    ...o,
  };
}

const run = (s: VoiceSettings) => measureVoice(s, { env: {}, signal: new AbortController().signal });

test('a well-behaved stack: every turn reaches playback and its segments add up to first audio', async () => {
  const srv = await voiceServer({});
  const m = await run(settings(srv.baseUrl));
  assert.equal(m.records.length, 3);
  for (const r of m.records) {
    assert.equal(r.outcome, 'ok', r.error ?? '');
    assert.equal(r.failed_stage, null);
    assert.equal(r.asr?.text, 'what is the weather');
    assert.equal(r.llm?.outcome, 'ok');
    assert.ok(r.tts.length >= 1);
    assert.ok(r.playback_start_at_ms !== null);
  }
  assert.equal(m.summary.measured, 3);
  assert.equal(m.llmRecords.length, 3);
  // what went to the TTS is the LLM's reply
  const speech = srv.requests.filter((q) => q.path.endsWith('/audio/speech'));
  assert.equal(speech.map((q) => q.body?.input).join(' '), Array(3).fill('Hello, world').join(' '));
  assert.equal(speech[0]?.body?.response_format, 'pcm');
  // the transcript went to the LLM as the user's message
  const chat = srv.requests.find((q) => q.path.endsWith('/chat/completions'));
  assert.deepEqual((chat?.body?.messages as unknown[] | undefined)?.[0], {
    role: 'user',
    content: 'what is the weather',
  });
  const asr = srv.requests.find((q) => q.path.endsWith('/audio/transcriptions'));
  assert.match(String(asr?.headers['content-type']), /^multipart\/form-data; boundary=/);
  assert.match(asr?.raw ?? '', /name="model"\r\n\r\nwhisper-1\r\n/);
});

test('an ASR that returns no text: no_content at asr, the LLM is never asked, one record per turn', async () => {
  const srv = await voiceServer({ asr: () => json({ text: '' }) });
  const m = await run(settings(srv.baseUrl));
  assert.equal(m.records.length, 3);
  for (const r of m.records) {
    assert.equal(r.outcome, 'no_content');
    assert.equal(r.failed_stage, 'asr');
    assert.equal(r.llm, null);
    assert.equal(r.tts.length, 0);
  }
  assert.equal(srv.requests.filter((q) => q.path.endsWith('/chat/completions')).length, 0);
  assert.equal(m.summary.measured, 0);
  assert.equal(m.summary.failed_stages.asr, 3);
});

test('a streamed transcript in OpenAI event shape is read to its done event', async () => {
  const srv = await voiceServer({
    asr: () => ({
      headers: { 'content-type': 'text/event-stream' },
      steps: [
        'data: {"type":"transcript.text.delta","delta":"hello"}\n\n',
        { delay_ms: 5 },
        'data: {"type":"transcript.text.delta","delta":" there"}\n\n',
        'data: {"type":"transcript.text.done","text":"hello there"}\n\n',
      ],
    }),
  });
  const m = await run(settings(srv.baseUrl, { asrStream: true, turns: 1, users: 1 }));
  const asr = m.records[0]?.asr;
  assert.equal(asr?.outcome, 'ok');
  assert.equal(asr?.stream, true);
  assert.equal(asr?.text, 'hello there');
  assert.ok(asr?.first_at_ms !== null && asr?.end_at_ms !== null && asr.first_at_ms <= asr.end_at_ms);
});

test('a streamed transcript cut before its end is incomplete at asr', async () => {
  const srv = await voiceServer({
    asr: () => ({
      headers: { 'content-type': 'text/event-stream' },
      steps: ['data: {"object":"transcription.chunk","choices":[{"delta":{"content":"hel"}}]}\n\n'],
    }),
  });
  const m = await run(settings(srv.baseUrl, { asrStream: true, turns: 2 }));
  assert.deepEqual(
    m.records.map((r) => [r.outcome, r.failed_stage]),
    [
      ['incomplete', 'asr'],
      ['incomplete', 'asr'],
    ],
  );
});

test('a TTS that stalls before its first byte: timeout at tts, once the first-byte limit passes', async () => {
  const srv = await voiceServer({
    tts: () => ({ headers: { 'content-type': 'audio/pcm' }, steps: [{ stall: true }] }),
  });
  const m = await run(settings(srv.baseUrl, { timeoutFirstS: 0.3 }));
  assert.equal(m.records.length, 3);
  for (const r of m.records) {
    assert.equal(r.outcome, 'timeout');
    assert.equal(r.failed_stage, 'tts');
    assert.equal(r.llm?.outcome, 'ok', 'the LLM leg itself succeeded');
    assert.equal(r.tts[0]?.first_at_ms, null);
    assert.match(r.error ?? '', /first audio byte/);
    assert.equal(r.playback_start_at_ms, null);
  }
});

test('a TTS that breaks mid-stream after a 200: stream_error at tts', async () => {
  const srv = await voiceServer({
    tts: () => ({
      headers: { 'content-type': 'audio/pcm' },
      steps: [Buffer.alloc(2400), { delay_ms: 5 }, { reset: true }],
    }),
  });
  const m = await run(settings(srv.baseUrl));
  assert.equal(m.records.length, 3);
  for (const r of m.records) {
    assert.equal(r.outcome, 'stream_error');
    assert.equal(r.failed_stage, 'tts');
    assert.equal(r.tts[0]?.audio_bytes, 2400);
    assert.ok(r.tts[0]?.first_at_ms !== null, 'its first byte came');
  }
});

test('a TTS that answers 500: http_error at tts with the server message', async () => {
  const srv = await voiceServer({
    tts: () => ({
      status: 500,
      headers: { 'content-type': 'application/json' },
      steps: ['{"error":{"message":"vocoder crashed"}}'],
    }),
  });
  const m = await run(settings(srv.baseUrl));
  assert.equal(m.records.length, 3);
  for (const r of m.records) {
    assert.equal(r.outcome, 'http_error');
    assert.equal(r.failed_stage, 'tts');
    assert.match(r.error ?? '', /HTTP 500: vocoder crashed/);
  }
});

test('an LLM that fails: the LLM leg is classified as run classifies it, and no TTS is asked', async () => {
  const srv = await voiceServer({ llm: misbehaviours.truncated });
  const m = await run(settings(srv.baseUrl, { chunk: { kind: 'whole' } }));
  for (const r of m.records) {
    assert.equal(r.failed_stage, 'llm');
    assert.equal(r.outcome, 'incomplete');
    assert.equal(r.llm?.outcome, 'incomplete');
    assert.equal(r.tts.length, 0);
  }
  assert.equal(srv.requests.filter((q) => q.path.endsWith('/audio/speech')).length, 0);
});

test('a WAV file that is not a WAV: a clear usage error naming it, no stack trace, nothing sent', async () => {
  const srv = await voiceServer({});
  const audio = join(dir, 'audio');
  mkdirSync(audio);
  writeFileSync(join(audio, 'a.wav'), generateWav(1, 3));
  writeFileSync(join(audio, 'b.wav'), 'ID3\u0003 this is an mp3 renamed to .wav');
  const io = memoryIo({}, dir);
  const code = await main(
    ['voice', '--llm-url', srv.baseUrl, '--model', 'm', '--audio', 'audio', '--requests', '2'],
    io,
  );
  assert.equal(code, 1);
  assert.match(io.err(), /b\.wav is not a WAV file: it does not start with a RIFF\/WAVE header/);
  assert.match(io.err(), /hint: /);
  assert.doesNotMatch(io.err(), /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(io.err(), /a\.wav is not/);
  assert.equal(srv.requests.length, 0);
});

test('voice writes one voice.jsonl line per planned turn and the LLM legs to requests.jsonl', async () => {
  const srv = await voiceServer({ asr: () => json({ text: '' }) });
  const out = join(dir, 'out');
  const io = memoryIo({}, dir);
  const code = await main(
    [
      'voice',
      '--llm-url',
      srv.baseUrl,
      '--model',
      'm',
      '--speech-seconds',
      '1',
      '--requests',
      '3',
      '--endpoint-ms',
      '0',
      '--out',
      'out',
    ],
    io,
  );
  assert.equal(code, 3, 'no turn reached playback');
  const lines = readFileSync(join(out, 'voice.jsonl'), 'utf8').trim().split('\n');
  assert.equal(lines.length, 3);
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).outcome),
    ['no_content', 'no_content', 'no_content'],
  );
  assert.match(io.out(), /3 failed at asr/);
});
