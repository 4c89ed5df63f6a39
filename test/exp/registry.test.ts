/**
 * The experiment kinds are a registry: every kind is one module in `src/exp/kinds/` with its
 * section schema and rules, defaults, template, runner and console output, and the code that
 * reads kinds (the file format, `exp init`, `exp run`) names none of them, so adding a kind
 * touches `src/exp/kinds/` only.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { EXPERIMENT_KINDS, KINDS } from '../../src/exp/kinds/index.js';
import { KIND_SECTIONS, parseExperiment } from '../../src/exp/schema.js';
import '../helpers/node-warnings.js';

const SRC = resolve(import.meta.dirname, '..', '..', 'src');

describe('experiment kind registry', () => {
  it('holds one complete module per kind, keyed by its kind', () => {
    assert.deepEqual(Object.keys(KINDS), [...EXPERIMENT_KINDS]);
    for (const kind of EXPERIMENT_KINDS) {
      const m = KINDS[kind];
      assert.equal(m.kind, kind);
      assert.equal(KIND_SECTIONS[kind], m.section);
      assert.ok(m.schema instanceof z.ZodObject, `${kind}: schema`);
      assert.ok(m.file instanceof z.ZodObject, `${kind}: file`);
      assert.ok(Object.hasOwn(m.schema.shape, m.section), `${kind}: its section is in its schema`);
      for (const fn of ['defaults', 'template', 'run', 'format'] as const)
        assert.equal(typeof m[fn], 'function', `${kind}: ${fn}`);
    }
  });

  for (const kind of EXPERIMENT_KINDS)
    it(`exp init ${kind} prints a template that validates as ${kind}`, async () => {
      const io = memoryIo();
      assert.equal(await main(['exp', 'init', kind], io), 0, io.err());
      assert.equal(parseExperiment(io.out(), `${kind}.yaml`).kind, kind);
    });

  it('an unknown kind lists the registered ones', async () => {
    const io = memoryIo();
    assert.equal(await main(['exp', 'init', 'nope'], io), 1);
    for (const kind of EXPERIMENT_KINDS) assert.ok(io.err().includes(kind), kind);
  });

  it("a kind's runner reads its own section, defaulted, and no other kind's (checked by the compiler)", () => {
    type CalibrationFile = Parameters<(typeof KINDS)['calibration']['run']>[0]['exp'];
    const reads = (f: CalibrationFile) => {
      const own: NonNullable<CalibrationFile['calibration']> = f.calibration;
      // @ts-expect-error another kind's section is not in a kind's file
      const other = f.sweep;
      return [own, other];
    };
    assert.equal(typeof reads, 'function');
  });

  it('the code that reads kinds names none of them', () => {
    const names = [...new Set([...EXPERIMENT_KINDS, ...Object.values(KIND_SECTIONS)])];
    for (const file of [
      'exp/schema.ts',
      'exp/run-experiment.ts',
      'exp/templates.ts',
      'exp/template-parts.ts',
      'exp/fields.ts',
      'exp/kinds/context.ts',
      'exp/kinds/kind.ts',
      ...readdirSync(join(SRC, 'exp', 'harness')).map((f) => `exp/harness/${f}`),
      'cli/main.ts',
    ]) {
      const text = readFileSync(join(SRC, file), 'utf8');
      for (const name of names)
        assert.doesNotMatch(
          text,
          new RegExp(`['"\`]${name.replace(/[-]/g, '\\-')}['"\`]`),
          `${file} names the kind or section ${name}: that belongs in src/exp/kinds/`,
        );
    }
  });
});
