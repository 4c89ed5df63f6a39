/**
 * The simulator's settings are declared once (`src/sim/settings.ts`): the docs table is the
 * schema's, an experiment file's `sim:` section is the schema's, each setting has one range
 * wherever it is written, and the file's settings reach the server and engine by one generic
 * conversion.
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { simSchema } from '../../src/exp/fields.js';
import { simServerOptions } from '../../src/exp/harness/targets.js';
import { parseExperiment } from '../../src/exp/schema.js';
import { BUILTIN_GPUS, BUILTIN_MODELS } from '../../src/sim/catalogue/index.js';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import { resolveServerOptions } from '../../src/sim/server/options.js';
import {
  SIM_SETTINGS,
  simSettingKeys,
  simSettingsSchema,
  simSettingsTable,
  withSimDefaults,
} from '../../src/sim/settings.js';
import { assertGeneratedSection } from '../helpers/generated-doc.js';

const DOC = resolve(import.meta.dirname, '..', '..', 'docs', 'sim.md');

function problemsOf(fn: () => unknown): UsageError['problems'] {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof UsageError, String(e));
    return e.problems;
  }
  assert.fail('expected a UsageError');
}

const file = (sim: string) =>
  `kind: baseline\nname: x\ntargets:\n  a:\n    sim: {model: qwen3-0.6b, gpu: h100${sim ? `, ${sim}` : ''}}\n`;

describe('simulator settings', () => {
  it('docs/sim.md holds the table the schema generates', () => {
    assertGeneratedSection(DOC, 'sim-settings', simSettingsTable(), import.meta.filename);
  });

  it("is an experiment file's sim: section, which names models and GPUs from the catalogue", () => {
    assert.deepEqual(Object.keys(simSchema.shape), [...simSettingKeys('file'), 'clock']);
    for (const model of Object.keys(BUILTIN_MODELS))
      assert.match(SIM_SETTINGS.model.description, new RegExp(model));
    for (const gpu of Object.keys(BUILTIN_GPUS)) assert.match(SIM_SETTINGS.gpu.description, new RegExp(gpu));
    const [p] = problemsOf(() => parseExperiment(file('').replace('h100', 'h999'), 's.yaml'));
    assert.match(p.message, /unknown simulator GPU h999/);
    assert.match(p.hint ?? '', /built-in GPUs: h100, h200/);
  });

  it('gives max_waiting one range everywhere: at least 1 (0 would refuse every request)', () => {
    const [f] = problemsOf(() => parseExperiment(file('max_waiting: 0'), 's.yaml'));
    assert.equal(f.path, 's.yaml: targets.a.sim.max_waiting');
    const [o] = problemsOf(() => resolveServerOptions({ model: 'qwen3-0.6b', gpu: 'h100', maxWaiting: 0 }));
    assert.equal(o.path, '--max-waiting');
    for (const scope of ['sim', 'file', 'server'] as const)
      assert.equal(
        simSettingsSchema(scope).safeParse({ model: 'm', gpu: 'g', max_waiting: 0 }).success,
        false,
      );
    assert.equal(
      resolveServerOptions({ model: 'qwen3-0.6b', gpu: 'h100', maxWaiting: 1 }).server.maxWaiting,
      1,
    );
  });

  it('refuses half of a fault setting, in a file as on the command line', () => {
    const [f] = problemsOf(() => parseExperiment(file('faults: [garble]'), 's.yaml'));
    assert.deepEqual(
      [f.path, f.message],
      ['s.yaml: targets.a.sim.fault_rate', '`faults` is set but `fault_rate` is not (line 5)'],
    );
    const [r] = problemsOf(() => parseExperiment(file('fault_rate: 0.1'), 's.yaml'));
    assert.match(r.message, /a fault rate needs a list of faults/);
    const [o] = problemsOf(() =>
      resolveServerOptions({ model: 'qwen3-0.6b', gpu: 'h100', faults: 'garble' }),
    );
    assert.deepEqual(
      [o.path, o.message],
      ['--fault-rate', '--faults is set but --fault-rate is 0, so no request gets a fault'],
    );
  });

  it('reads catalog as an alias of catalogue, with a warning', () => {
    const notes: string[] = [];
    const spec = parseExperiment(file('catalog: extra.yaml'), 's.yaml', (m) => notes.push(m));
    assert.equal(spec.targets.a.sim?.catalogue, 'extra.yaml');
    assert.equal(notes.length, 1);
    assert.match(notes[0], /targets\.a\.sim\.catalog: `catalog` is an alias of `catalogue` \(line 5\)/);
    const both = problemsOf(() => parseExperiment(file('catalog: a.yaml, catalogue: b.yaml'), 's.yaml'));
    assert.equal(both[0].path, 's.yaml: targets.a.sim.catalog');
  });

  it('keeps what a file writes and reaches the server and engine by the generic conversion', () => {
    const spec = parseExperiment(
      file(
        'tp: 2, dtype: fp8, max_num_seqs: 32, max_waiting: 8, seed: 5, time_scale: 10, fault_rate: 0.5, faults: [garble], expose_timings: true',
      ),
    );
    const sim = spec.targets.a.sim;
    assert.ok(sim);
    // Unset settings stay unset in the file (an A/B's switch names them as defaults)…
    assert.equal(sim.block_size, undefined);
    // …and take their defaults when the simulator starts.
    assert.equal(withSimDefaults(sim).block_size, 16);
    const opts = simServerOptions(sim);
    const { server, engine } = resolveServerOptions(opts);
    assert.deepEqual(
      [
        server.maxWaiting,
        server.seed,
        server.timeScale,
        server.faultRate,
        server.faults,
        server.exposeTimings,
      ],
      [8, 5, 10, 0.5, [{ kind: 'garble' }], true],
    );
    const cfg = resolveEngineConfig(engine);
    assert.deepEqual([cfg.tp, cfg.dtype, cfg.maxNumSeqs, cfg.blockSize], [2, 'fp8', 32, 16]);
  });

  it('checks programmatic options against the same ranges, every problem on its flag', () => {
    const paths = problemsOf(() =>
      resolveServerOptions({ model: 'qwen3-0.6b', gpu: 'h100', timeScale: 0, faultRate: 2, seed: -1 }),
    ).map((p) => p.path);
    assert.deepEqual(paths, ['--sim-seed', '--time-scale', '--fault-rate', '--fault-rate']);
    const engine = problemsOf(() =>
      resolveEngineConfig({ model: 'qwen3-0.6b', gpu: 'h100', tp: 9, dtype: 'fp4' as never }),
    );
    assert.deepEqual(
      engine.map((p) => p.path),
      ['--tp', '--dtype'],
    );
    assert.match(engine[1].hint ?? '', /one of bf16, fp16, fp8, int4/);
  });
});
