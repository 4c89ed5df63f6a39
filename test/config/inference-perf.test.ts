import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { parseInferencePerfConfig } from '../../src/config/inference-perf.js';
import { UsageError } from '../../src/core/errors.js';
import { stageRequestCount } from '../../src/schedule/stages.js';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/inference-perf/shared-prefix.yml');

describe('inference-perf config', () => {
  it('reads stages, load type, API and shared-prefix data, with upstream defaults for ignored keys', () => {
    const p = parseInferencePerfConfig(readFileSync(FIXTURE, 'utf8'));
    assert.equal(p.endpoint, 'completions');
    assert.equal(p.stream, true);
    assert.equal(p.arrival, 'poisson');
    assert.equal(p.stagePauseS, 1);
    assert.deepEqual(p.stages, [
      { rateRps: 5, durationS: 600 },
      { rateRps: 10, durationS: 600 },
    ]);
    assert.deepEqual(p.stages.map(stageRequestCount), [3000, 6000]);
    assert.equal(p.data.kind, 'shared_prefix');
    if (p.data.kind !== 'shared_prefix') return;
    // e8e0aa99 has no num_unique_system_prompts key: its defaults of 10 × 10 apply, as the fit data saw.
    assert.deepEqual(p.data.sharedPrefix, {
      numGroups: 10,
      promptsPerGroup: 10,
      systemPromptLen: 100,
      questionLen: 466,
      outputLen: 247,
    });
    assert.equal(p.notes.length, 2);
  });

  it('reads random data and chat, and the defaults', () => {
    const p = parseInferencePerfConfig(
      'api: {type: chat}\ndata:\n  type: random\n  input_distribution: {mean: 300, std_dev: 10, min: 200, max: 400}\nload:\n  type: poisson\n  stages: [{rate: 2, duration: 30}]\n',
    );
    assert.equal(p.endpoint, 'chat');
    assert.equal(p.stream, false);
    assert.equal(p.data.kind, 'random');
    if (p.data.kind === 'random') {
      assert.equal(p.data.input?.mean, 300);
      assert.equal(p.data.output, null);
    }
    assert.match(p.notes[0], /poisson/);
  });

  it('refuses a config without stages, or with a bad load type, naming the key', () => {
    assert.throws(
      () => parseInferencePerfConfig('load: {type: constant}\n', 'x.yml'),
      (e) => e instanceof UsageError && /load\.stages/.test(e.message),
    );
    assert.throws(
      () => parseInferencePerfConfig('load: {type: burst, stages: [{rate: 1, duration: 1}]}\n'),
      (e) => e instanceof UsageError && /load\.type/.test(e.message),
    );
    assert.throws(() => parseInferencePerfConfig('load: [\n'), UsageError);
  });
});
