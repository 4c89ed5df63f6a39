import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describe as describeStats } from '../../src/analysis/stats.js';
import { UsageError } from '../../src/core/errors.js';
import {
  arrivalOffsetsMs,
  arrivalProblems,
  openLoopCount,
  traceOffsetsMs,
} from '../../src/schedule/arrivals.js';

function gaps(xs: number[]): number[] {
  return xs.slice(1).map((x, i) => x - xs[i]);
}
/** Coefficient of variation: population std / mean. */
function cv(xs: number[]): number {
  const s = describeStats(xs);
  return (s.std as number) / (s.mean as number);
}

describe('arrivalOffsetsMs', () => {
  it('constant: exactly i / rate', () => {
    assert.deepEqual(
      arrivalOffsetsMs({ rateRps: 4, arrival: 'constant', count: 5, seed: 1 }),
      [0, 250, 500, 750, 1000],
    );
    const xs = arrivalOffsetsMs({ rateRps: 3, arrival: 'constant', count: 1000, seed: 1 });
    xs.forEach((x, i) => {
      assert.equal(x, (i * 1000) / 3);
    });
  });

  it('poisson and gamma: reproducible from the seed, start at 0, never go backwards', () => {
    for (const arrival of ['poisson', 'gamma'] as const) {
      const opts = {
        rateRps: 20,
        arrival,
        burstiness: arrival === 'gamma' ? 0.5 : undefined,
        count: 500,
        seed: 42,
      };
      const a = arrivalOffsetsMs(opts);
      assert.deepEqual(arrivalOffsetsMs(opts), a);
      assert.notDeepEqual(arrivalOffsetsMs({ ...opts, seed: 43 }), a);
      assert.equal(a[0], 0);
      assert.ok(gaps(a).every((g) => g >= 0));
      // Rescaled: the N-th gap would end at N / rate, so every offset is before it.
      assert.ok(a[a.length - 1] < (500 / 20) * 1000);
    }
  });

  it('poisson and gamma: the mean rate of the first half is the target within 5%, and gap CVs match the shape', () => {
    const n = 20_000;
    for (const [arrival, k, wantCv] of [
      ['poisson', undefined, 1],
      ['gamma', 1, 1],
      ['gamma', 0.25, 2],
      ['gamma', 4, 0.5],
    ] as const) {
      const xs = arrivalOffsetsMs({ rateRps: 50, arrival, burstiness: k, count: n, seed: 7 });
      // The rescale pins only the end; the first half's rate is free, so it tests the gaps' mean.
      const half = xs.slice(0, n / 2);
      const rate = (half.length - 1) / (half[half.length - 1] / 1000);
      assert.ok(Math.abs(rate / 50 - 1) < 0.05, `${arrival} k=${k}: first-half rate ${rate}`);
      const c = cv(gaps(xs));
      assert.ok(Math.abs(c / wantCv - 1) < 0.1, `${arrival} k=${k}: gap CV ${c}, want ${wantCv}`);
    }
  });

  it('burstiness < 1 gives a larger gap variance than 1', () => {
    const v = (k: number) => {
      const g = gaps(
        arrivalOffsetsMs({ rateRps: 10, arrival: 'gamma', burstiness: k, count: 5000, seed: 3 }),
      );
      return (describeStats(g).std as number) ** 2;
    };
    assert.ok(v(0.3) > 2 * v(1), `${v(0.3)} vs ${v(1)}`);
    assert.ok(v(1) > 2 * v(5));
  });

  it('--duration: ceil(rate × duration) offsets, all inside the duration', () => {
    assert.equal(openLoopCount(0.1, 30), 3);
    assert.equal(openLoopCount(3, 1.5), 5);
    for (const arrival of ['constant', 'poisson', 'gamma'] as const) {
      const xs = arrivalOffsetsMs({
        rateRps: 7,
        arrival,
        burstiness: arrival === 'gamma' ? 0.5 : undefined,
        durationS: 2.1,
        seed: 9,
      });
      assert.equal(xs.length, 15);
      assert.ok(
        xs.every((x) => x >= 0 && x < 2100),
        `${arrival}: ${xs.at(-1)}`,
      );
    }
    const c = arrivalOffsetsMs({ rateRps: 0.1, arrival: 'constant', durationS: 30, seed: 1 });
    assert.deepEqual(c, [0, 10_000, 20_000]);
  });

  it('validates every range at once with hints', () => {
    const problems = arrivalProblems({
      rateRps: 0,
      arrival: 'bursty' as 'gamma',
      burstiness: -1,
      count: 1.5,
      seed: Number.NaN,
    });
    assert.deepEqual(
      problems.map((p) => p.path),
      ['--rate', '--arrival', '--burstiness', '--requests', '--seed'],
    );
    assert.ok(problems.every((p) => p.hint));
    assert.match(
      arrivalProblems({ rateRps: 1, arrival: 'poisson', burstiness: 2, count: 3, seed: 1 })[0].hint!,
      /gamma/,
    );
    assert.equal(
      arrivalProblems({ rateRps: 1, arrival: 'poisson', burstiness: 1, count: 3, seed: 1 }).length,
      0,
    );
    assert.match(arrivalProblems({ rateRps: 1, arrival: 'constant', seed: 1 })[0].message, /exactly one/);
    assert.throws(
      () => arrivalOffsetsMs({ rateRps: -1, arrival: 'constant', count: 2, seed: 1 }),
      UsageError,
    );
  });
});

describe('traceOffsetsMs', () => {
  it('offsets from the first timestamp, divided by the speedup', () => {
    const specs = [
      { timestamp_ms: 1000 },
      { timestamp_ms: 1500 },
      { timestamp_ms: 1500 },
      { timestamp_ms: 4000 },
    ];
    assert.deepEqual(traceOffsetsMs(specs), [0, 500, 500, 3000]);
    assert.deepEqual(traceOffsetsMs(specs, 2), [0, 250, 250, 1500]);
    assert.deepEqual(traceOffsetsMs([]), []);
  });

  it('rejects a bad speedup and specs without timestamps', () => {
    assert.throws(() => traceOffsetsMs([{ timestamp_ms: 0 }], 0), UsageError);
    assert.throws(() => traceOffsetsMs([{ timestamp_ms: 0 }, {}]), /request 1 has no timestamp_ms/);
  });
});
