/**
 * The `voice` experiment kind on the simulator: one switch at a time, a fresh simulator per
 * condition, the waterfall written; and the rules that refuse a second switch's values.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import type { VoiceResult } from '../../src/exp/kinds/voice.js';
import { formatExperimentResult } from '../../src/exp/run-experiment.js';
import { exp, run, tempStore } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-voice-exp-'));

const file = (voice: string) => `
kind: voice
name: v
targets:
  sim: {sim: {model: llama-3.1-8b, gpu: h100}}
voice: ${voice}
`;

test('vary asr_gpu: each condition on its own simulator, every turn measured, the waterfall written', async () => {
  const out = join(dir, 'asr');
  const { store, cleanup } = tempStore();
  const { result } = await run(
    exp(
      file(
        `{vary: asr_gpu, values: [colocated, separate], turns: 2, speech_seconds: '1', output_len: '24', base: {concurrency: 2, endpoint_ms: 0}, out: ${JSON.stringify(out)}}`,
      ),
    ),
    store,
  );
  // Each condition's LLM legs are a stored run of the experiment, with its records, so
  // `report EXP` reads them like any experiment's runs.
  try {
    assert.equal(result.runs.length, 2);
    for (const info of result.runs) {
      assert.ok(info.run_id, `${info.label}: not stored`);
      const row = store.getRun(info.run_id);
      assert.equal(row?.experiment_id, result.experiment_id);
      assert.equal([...store.getRecords(info.run_id)].length, 2);
    }
  } finally {
    cleanup();
  }
  const r = result.results as VoiceResult;
  assert.equal(r.vary, 'asr_gpu');
  assert.deepEqual(
    r.targets[0]?.conditions.map((c) => [c.value, c.summary.turns, c.summary.measured]),
    [
      ['colocated', 2, 2],
      ['separate', 2, 2],
    ],
  );
  assert.ok(r.waterfall && existsSync(r.waterfall));
  const svg = readFileSync(r.waterfall, 'utf8');
  assert.match(svg, /^<svg/);
  assert.match(svg, /asr_gpu=colocated/);
  assert.match(svg, /first_chunk_wait/);
  for (const v of ['colocated', 'separate'])
    assert.equal(
      readFileSync(join(out, 'sim', `asr_gpu=${v}`, 'voice.jsonl'), 'utf8')
        .trim()
        .split('\n').length,
      2,
    );
  const text = formatExperimentResult(result);
  assert.match(text, /asr_gpu=separate against asr_gpu=colocated: first audio/);
});

test('the rules refuse values the switched setting cannot take, and a single condition', () => {
  const problems = (voice: string) => {
    try {
      exp(file(voice));
    } catch (e) {
      if (e instanceof UsageError) return e.problems.map((p) => `${p.path}: ${p.message}`);
      throw e;
    }
    return [];
  };
  assert.deepEqual(problems('{vary: tts_chunk, values: [sentence, paragraph]}'), [
    'test.yaml: voice.values[1]: tts_chunk: expected sentence, chars:N or whole (line 6)',
  ]);
  assert.match(problems('{vary: concurrency, values: [4]}').join('\n'), /at least two values/);
  assert.match(
    problems('{vary: asr_gpu, values: [colocated, elsewhere]}').join('\n'),
    /expected colocated or separate/,
  );
  assert.deepEqual(problems('{vary: endpoint_ms, values: [500, 150]}'), []);
});
