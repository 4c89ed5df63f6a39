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

describe('exp and lognormal, for counts and for seconds (one grammar)', () => {
  it('parses exp:MEAN and lognormal:MEDIAN,SIGMA and round-trips their text', () => {
    for (const [text, spec] of [
      ['exp:2', { kind: 'exp', mean: 2 }],
      ['exp:0.5', { kind: 'exp', mean: 0.5 }],
      ['lognormal:10,0.5', { kind: 'lognormal', median: 10, sigma: 0.5 }],
    ] as const) {
      for (const unit of ['int', 'real'] as const) {
        const r = parseLengthDist(text, '--think-time', unit);
        assert.ok(r.ok, text);
        assert.deepEqual(r.dist.spec, spec);
        assert.equal(String(r.dist), text);
        assert.equal(r.dist.unit, unit);
      }
    }
  });

  it('samples whole numbers ≥ 1 for counts and reals ≥ 0 for seconds, reproducibly', () => {
    const draw = (text: string, unit: 'int' | 'real', seed: number) => {
      const d = parseLengthDistOrThrow(text, undefined, unit);
      const rng = new Rng(seed);
      return Array.from({ length: 4000 }, () => d.sample(rng));
    };
    const ints = draw('exp:3', 'int', 1);
    assert.deepEqual(ints, draw('exp:3', 'int', 1));
    assert.ok(ints.every((x) => Number.isInteger(x) && x >= 1));
    const secs = draw('exp:2', 'real', 2);
    assert.ok(secs.every((x) => x >= 0));
    assert.ok(secs.some((x) => !Number.isInteger(x)));
    const mean = secs.reduce((a, b) => a + b, 0) / secs.length;
    assert.ok(mean > 1.8 && mean < 2.2, `exp:2 mean ${mean}`);
    const logn = draw('lognormal:10,0.5', 'real', 3).sort((a, b) => a - b);
    const median = logn[logn.length / 2];
    assert.ok(median > 9.5 && median < 10.5, `lognormal median ${median}`);
    const uni = draw('uniform:1.5-2.5', 'real', 4);
    assert.ok(uni.every((x) => x >= 1.5 && x <= 2.5) && uni.some((x) => !Number.isInteger(x)));
    assert.equal(parseLengthDistOrThrow('0', undefined, 'real').sample(new Rng(1)), 0);
  });

  it('rejects what the unit cannot take, with the forms in the hint', () => {
    for (const [text, unit] of [
      ['0', 'int'],
      ['1.5', 'int'],
      ['uniform:1.5-3', 'int'],
      ['exp:0', 'real'],
      ['lognormal:0,1', 'real'],
      ['exp:', 'real'],
      ['poisson:3', 'int'],
    ] as const) {
      const r = parseLengthDist(text, '--turns', unit);
      assert.ok(!r.ok, `${text} (${unit})`);
      assert.equal(r.problem.hint, LENGTH_FORMS_HINT);
      assert.match(r.problem.hint ?? '', /exp:MEAN/);
    }
    assert.ok(parseLengthDist('1.5', '--think-time', 'real').ok);
  });
});
