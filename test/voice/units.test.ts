/**
 * The voice path's pure parts, by table: the text chunker (sentence with 。！？ and .!?, chars:N,
 * whole), the first-audio breakdown of a record, the simulator's transcription device
 * (colocated or separate), and the WAV reader.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diagnoseVoice, voiceSlow } from '../../src/analysis/diagnose/voice-slow.js';
import {
  dominantSegment,
  firstAudio,
  summarizeVoice,
  voiceWaterfall,
} from '../../src/analysis/voice-metrics.js';
import { UsageError } from '../../src/core/errors.js';
import { translator } from '../../src/i18n/index.js';
import { emptyRecord } from '../../src/record/types.js';
import type { VoiceRecord } from '../../src/record/voice-turn.js';
import { parseChunkPolicy, sentenceEnd, TextChunker } from '../../src/runner/chunker.js';
import { AsrDevice, speechMsOf } from '../../src/sim/server/audio.js';
import { generateUtterances, generateWav, parseWav } from '../../src/workload/audio.js';

test('sentence chunking cuts after 。！？ at once and after .!? followed by a space or at the end', () => {
  const cases: [string[], string[], string[]][] = [
    // deltas, chunks while streaming, rest at the end
    [[' Hello', ' there.', ' How', ' are', ' you?'], ['Hello there.', 'How are you?'], []],
    [['你好。', '今天', '天气', '怎么样？', '很好'], ['你好。', '今天天气怎么样？'], ['很好']],
    [['It costs 3.5 dollars', ' today'], [], ['It costs 3.5 dollars today']],
    [['Really?!', ' Yes.'], ['Really?!', 'Yes.'], []],
    [['no boundary at all'], [], ['no boundary at all']],
  ];
  for (const [deltas, chunks, rest] of cases) {
    const c = new TextChunker({ kind: 'sentence' });
    assert.deepEqual(
      deltas.flatMap((d) => c.push(d)),
      chunks,
      deltas.join('|'),
    );
    assert.deepEqual(c.flush(), rest, deltas.join('|'));
  }
  assert.equal(sentenceEnd('a. b'), 2);
  assert.equal(sentenceEnd('a.b'), null);
});

test('chars:N cuts at the last space within N characters; whole waits for the end', () => {
  const c = new TextChunker({ kind: 'chars', n: 10 });
  // 'three four' is 10 characters too, and its last word may still be growing: cut before it
  assert.deepEqual(c.push('one two three four'), ['one two', 'three']);
  assert.deepEqual(c.push(' five'), []);
  assert.deepEqual(c.flush(), ['four five']);
  const nospace = new TextChunker({ kind: 'chars', n: 4 });
  assert.deepEqual(nospace.push('abcdefghij'), ['abcd', 'efgh']);
  const whole = new TextChunker({ kind: 'whole' });
  assert.deepEqual(whole.push('One. Two. Three.'), []);
  assert.deepEqual(whole.flush(), ['One. Two. Three.']);
  const problems: { message: string }[] = [];
  assert.deepEqual(parseChunkPolicy('chars:40', problems), { kind: 'chars', n: 40 });
  parseChunkPolicy('paragraph', problems);
  parseChunkPolicy('chars:0', problems);
  assert.equal(problems.length, 2);
});

/** A turn whose boundaries are given as offsets from speech end at 1000 ms. */
function turn(b: [number, number, number, number, number, number], ttftFromSent = b[2] - b[1]): VoiceRecord {
  const at = (i: number) => 1000 + (b[i] as number);
  const llm = emptyRecord({ id: 'x', planned_id: 'x', attempt: 1, phase: 'measure', index: 0 });
  llm.sent_at_ms = at(2) - ttftFromSent;
  llm.first_content_at_ms = at(2);
  llm.first_token_at_ms = at(2);
  llm.end_at_ms = at(2) + 400;
  llm.outcome = 'ok';
  const stage = { headers_at_ms: null, http_status: 200, stream: true, outcome: 'ok' as const, error: null };
  return {
    id: 'u0t0',
    user: 0,
    turn: 0,
    phase: 'measure',
    audio: 'a.wav',
    speech_seconds: 2,
    tts_chunk: 'sentence',
    endpoint_ms: 500,
    playback_buffer_ms: 150,
    speech_start_at_ms: 0,
    speech_end_at_ms: 1000,
    endpoint_at_ms: at(0),
    asr: { ...stage, sent_at_ms: at(0), first_at_ms: null, end_at_ms: at(1), text: 'hi' },
    llm,
    first_chunk_at_ms: at(3),
    tts: [
      {
        ...stage,
        chunk: 0,
        chars: 10,
        text_ready_at_ms: at(3),
        sent_at_ms: at(3),
        first_at_ms: at(4),
        end_at_ms: at(5) + 100,
        audio_bytes: 9600,
        audio_ms: 200,
        buffered_at_ms: at(5),
      },
    ],
    playback_start_at_ms: at(5),
    end_at_ms: at(5) + 100,
    outcome: 'ok',
    failed_stage: null,
    error: null,
  };
}

test('first audio and its six segments, by hand', () => {
  // endpoint 500, asr 120, llm_ttft 60, first_chunk_wait 90, tts_first_byte 80, buffer 10
  const fa = firstAudio(turn([500, 620, 680, 770, 850, 860], 55));
  assert.deepEqual(fa, {
    time_to_first_audio_ms: 860,
    segments: { endpoint: 500, asr: 120, llm_ttft: 60, first_chunk_wait: 90, tts_first_byte: 80, buffer: 10 },
    llm_ttft_ms: 55,
  });
  const failed = { ...turn([500, 620, 680, 770, 850, 860]), playback_start_at_ms: null };
  assert.equal(firstAudio(failed), undefined);
});

test('the summary: outcome counts, breakdown stats, the part that is not text TTFT, the waterfall', () => {
  const a = turn([500, 600, 650, 700, 780, 790], 50);
  const b = turn([500, 700, 800, 1000, 1080, 1090], 100);
  const bad: VoiceRecord = {
    ...turn([500, 600, 650, 700, 780, 790]),
    outcome: 'timeout',
    failed_stage: 'tts',
    error: 'chunk 0: x',
  };
  const s = summarizeVoice([a, b, bad]);
  assert.equal(s.turns, 3);
  assert.equal(s.measured, 2);
  assert.deepEqual(s.outcomes, { ok: 2, timeout: 1 });
  assert.deepEqual(s.failed_stages, { tts: 1 });
  assert.equal(s.time_to_first_audio_ms.mean, 940);
  assert.equal(s.llm_ttft_ms.mean, 75);
  assert.equal(s.not_text_ttft_ms.mean, 865);
  assert.equal(s.segments.first_chunk_wait.mean, 125);
  const w = voiceWaterfall(s);
  assert.deepEqual(
    w?.map((x) => [x.segment, x.start_ms, x.ms]),
    [
      ['endpoint', 0, 500],
      ['asr', 500, 150],
      ['llm_ttft', 650, 75],
      ['first_chunk_wait', 725, 125],
      ['tts_first_byte', 850, 80],
      ['buffer', 930, 10],
    ],
  );
  assert.deepEqual(dominantSegment(s), { segment: 'endpoint', mean_ms: 500, share: 500 / 940 });
  assert.equal(voiceWaterfall(summarizeVoice([bad])), null);
  assert.equal(dominantSegment(summarizeVoice([])), null);
});

test('the transcription device: colocated jobs wait for the engine step in flight, all wait their turn', () => {
  const d = new AsrDevice(40, 0.03);
  assert.equal(d.costMs(2), 100);
  // separate: only the device's own queue
  assert.deepEqual(d.reserve(0, 2), { startMs: 0, endMs: 100 });
  assert.deepEqual(d.reserve(50, 1), { startMs: 100, endMs: 170 });
  // colocated: the step in flight ends at 300
  assert.deepEqual(d.reserve(200, 1, 300), { startMs: 300, endMs: 370 });
  assert.equal(d.freeAtMs(), 370);
  assert.equal(speechMsOf('ab'), 132);
  assert.equal(speechMsOf('你好'), 500);
});

test('WAV: generated files read back with their duration; other bytes are not WAV, with the reason', () => {
  const w = parseWav(generateWav(3, 1));
  assert.ok(w.ok);
  assert.equal(w.info.seconds, 3);
  assert.equal(w.info.sampleRate, 16_000);
  assert.deepEqual(parseWav(Buffer.from('ID3 mp3 data')), { ok: false, why: 'riff' });
  const noData = generateWav(1, 1).subarray(0, 36);
  assert.deepEqual(parseWav(noData), { ok: false, why: 'data' });
  const u = generateUtterances('uniform:1-3', 20, 5);
  assert.equal(u.length, 20);
  assert.ok(u.every((x) => x.seconds >= 1 && x.seconds <= 3 && parseWav(x.wav).ok));
  assert.deepEqual(
    generateUtterances('uniform:1-3', 20, 5).map((x) => x.seconds),
    u.map((x) => x.seconds),
    'the same seed, the same audio',
  );
  assert.throws(() => generateUtterances('sometimes', 1, 1), UsageError);
});

test('voice_slow names the dominant segment, its next experiment, and the part that is not text TTFT', () => {
  // first_chunk_wait dominates: 900 of 1700 ms
  const slow = summarizeVoice([
    turn([300, 400, 450, 1350, 1430, 1440], 50),
    turn([300, 400, 450, 1350, 1430, 1440], 50),
  ]);
  const f = voiceSlow('r1', slow, [], translator('en'));
  assert.ok(f);
  assert.equal(f.rule, 'voice_slow');
  assert.deepEqual(f.runs, ['r1']);
  assert.match(f.symptom, /waits 1440 ms .* TTFT is 50 ms/);
  assert.ok(f.evidence.some((e) => /dominant segment: first_chunk_wait, 900 ms \(63%/.test(e)));
  assert.ok(f.evidence.some((e) => /not text TTFT: 1390 ms \(97%/.test(e)));
  assert.match(f.mechanism, /400 ms of endpointing and ASR come before it and 990 ms/);
  assert.match(f.next.command, /vary: tts_chunk/);
  // endpointing dominates: the next experiment varies endpoint_ms
  const ep = voiceSlow('r2', summarizeVoice([turn([900, 950, 990, 1020, 1100, 1110])]));
  assert.match(ep?.next.command ?? '', /vary: endpoint_ms/);
  // fast enough, or nothing reached playback: no finding
  assert.equal(voiceSlow('r3', summarizeVoice([turn([100, 150, 200, 250, 300, 310])])), null);
  assert.equal(voiceSlow('r4', summarizeVoice([])), null);
  const zh = voiceSlow('r1', slow, [], translator('zh-CN'));
  assert.match(zh?.symptom ?? '', /平均要等 1440 ms/);
  assert.equal(diagnoseVoice([{ id: 'a', summary: slow }]).findings.length, 1);
});
