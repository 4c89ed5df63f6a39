/**
 * `servelab demo voice` end to end, in-process: the simulator with its audio endpoints, two
 * voice runs over loopback HTTP, the breakdown printed beside text TTFT, the waterfall written.
 * About 30 s, mostly the simulated users speaking in real time.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import '../helpers/node-warnings.js';

test('servelab demo voice prints the first-audio breakdown next to text TTFT, sentence against whole', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-demo-voice-'));
  const io = memoryIo({}, dir);
  const code = await main(['demo', 'voice', '--out', 'dv', '--json', 'dv.json'], io);
  assert.equal(code, 0, io.err());
  const out = io.out();
  for (const line of [
    'time_to_first_audio_ms',
    'first_chunk_wait',
    'llm ttft_ms (text TTFT)',
    'first audio − text TTFT',
  ])
    assert.ok(out.includes(line), line);
  assert.match(out, /--tts-chunk whole against --tts-chunk sentence: first audio/);
  assert.ok(existsSync(join(dir, 'dv', 'waterfall.svg')));
  const json = JSON.parse(readFileSync(join(dir, 'dv.json'), 'utf8'));
  for (const policy of ['sentence', 'whole']) {
    assert.equal(json[policy].summary.turns, 12);
    assert.equal(json[policy].summary.measured, 12, `${policy}: every turn reached playback`);
    assert.equal(
      readFileSync(join(dir, 'dv', policy, 'voice.jsonl'), 'utf8')
        .trim()
        .split('\n').length,
      12,
    );
  }
});
