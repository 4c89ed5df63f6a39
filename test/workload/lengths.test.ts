import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { Rng } from '../../src/runtime/rng.js';
import { LENGTH_FORMS_HINT, parseLengthDist, parseLengthDistOrThrow } from '../../src/workload/lengths.js';

describe('parseLengthDist', () => {
  it('parses the three forms and round-trips their text', () => {
    for (const [text, spec] of [
      ['512', { kind: 'fixed', value: 512 }],
      [256, { kind: 'fixed', value: 256 }],
      ['uniform:128-1024', { kind: 'uniform', min: 128, max: 1024 }],
      ['normal:512,64', { kind: 'normal', mean: 512, std: 64 }],
      ['normal:10.5,2.5', { kind: 'normal', mean: 10.5, std: 2.5 }],
    ] as const) {
      const r = parseLengthDist(text);
      assert.ok(r.ok, String(text));
      assert.deepEqual(r.dist.spec, spec);
      assert.equal(String(r.dist), String(text));
    }
  });

  it('rejects bad text with the path and a hint showing the three forms', () => {
    for (const text of [
      '0',
      'abc',
      'uniform:10-5',
      'uniform:0-5',
      'normal:0,1',
      'normal:5',
      '-3',
      '1.5',
      'uniform:1-',
    ]) {
      const r = parseLengthDist(text, '--input-len');
      assert.ok(!r.ok, text);
      assert.equal(r.problem.path, '--input-len');
      assert.equal(r.problem.hint, LENGTH_FORMS_HINT);
      assert.match(r.problem.message, new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    }
    assert.throws(() => parseLengthDistOrThrow('x', '--output-len'), UsageError);
  });

  it('samples integers ≥ 1 inside the range, reproducibly', () => {
    const u = parseLengthDistOrThrow('uniform:3-7');
    const a = Array.from(
      { length: 2000 },
      (
        (rng) => () =>
          u.sample(rng)
      )(new Rng(5)),
    );
    const b = Array.from(
      { length: 2000 },
      (
        (rng) => () =>
          u.sample(rng)
      )(new Rng(5)),
    );
    assert.deepEqual(a, b);
    assert.deepEqual([...new Set(a)].sort(), [3, 4, 5, 6, 7]);

    const n = parseLengthDistOrThrow('normal:2,5');
    const rng = new Rng(9);
    const xs = Array.from({ length: 5000 }, () => n.sample(rng));
    assert.ok(xs.every((x) => Number.isInteger(x) && x >= 1));
    assert.ok(xs.includes(1), 'clamped at 1');
    assert.equal(n.min, 1);
    assert.equal(parseLengthDistOrThrow('64').sample(rng), 64);
  });
});
