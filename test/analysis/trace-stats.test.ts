/** The trace statistics of `servelab trace stats`, against hand-computed values. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { interArrivalCv, prefixSharing, rateOverTime, traceStats } from '../../src/analysis/trace-stats.js';

describe('rateOverTime', () => {
  it('counts requests per bin as req/s, the bin the smallest round width giving ≤ 60 bins', () => {
    assert.deepEqual(rateOverTime([0, 500, 1500]), { bin_s: 1, t_s: [0, 1], rps: [2, 1] });
    // 100 s span: 1 s would give 101 bins, 2 s 51.
    const r = rateOverTime([0, 1000, 100_000]);
    assert.equal(r?.bin_s, 2);
    assert.equal(r?.rps.length, 51);
    assert.deepEqual([r?.rps[0], r?.rps[50]], [1, 0.5]);
    // An hour: 60 s bins would give 61, so 120 s.
    assert.equal(rateOverTime([0, 3_600_000])?.bin_s, 120);
    assert.equal(rateOverTime([]), null);
  });
});

describe('interArrivalCv', () => {
  const cases: [string, number[], number | null, string | null][] = [
    ['a constant rate', [0, 1000, 2000, 3000], 0, null],
    // gaps 1, 3: mean 2, population σ 1
    ['gaps 1 and 3 s', [0, 1000, 4000], 0.5, null],
    // gaps 0, 0, 4: mean 4/3, σ = √(32/9) → CV √2
    ['a burst then a pause', [0, 0, 0, 4000], Math.SQRT2, null],
    ['two requests', [0, 1000], null, 'few_gaps'],
    ['all at once', [5, 5, 5], null, 'same_time'],
  ];
  for (const [name, ts, want, reason] of cases)
    it(name, () => {
      const r = interArrivalCv(ts);
      assert.equal(r.reason, reason);
      if (want === null) assert.equal(r.value, null);
      else assert.ok(Math.abs((r.value as number) - want) < 1e-12, `${r.value} vs ${want}`);
    });
});

describe('prefixSharing', () => {
  it('counts the tokens of blocks an earlier request had, the last block holding the remainder', () => {
    const r = prefixSharing(
      [
        { hash_ids: [1, 2], input_len: 20 }, // 10 + 10, nothing seen
        { hash_ids: [1, 3], input_len: 15 }, // block 1 seen (10), block 3 new (5)
        { hash_ids: [1, 2, 4], input_len: 25 }, // 1 and 2 seen (20), 4 new (5)
      ],
      10,
    );
    assert.deepEqual(r, {
      ratio: 30 / 60,
      shared_tokens: 30,
      total_tokens: 60,
      blocks_seen: 3,
      blocks: 7,
      block_size: 10,
    });
  });

  it('a last block seen before counts with at most the tokens it had then', () => {
    // Request 2's last block is hash 2 with 10 tokens; request 1 had only 4 of them.
    const r = prefixSharing(
      [
        { hash_ids: [1, 2], input_len: 14 },
        { hash_ids: [1, 2], input_len: 20 },
      ],
      10,
    );
    assert.equal(r?.shared_tokens, 14);
    assert.equal(r?.total_tokens, 34);
  });

  it('is null without hashes', () => {
    assert.equal(prefixSharing([{ input_len: 10 }], 512), null);
  });
});

describe('traceStats', () => {
  it('gives null with a reason where a statistic does not apply', () => {
    const s = traceStats(
      [
        { timestamp_ms: 0, input_len: 100, output_len: 10 },
        { timestamp_ms: 2000, input_len: 300, output_len: 30 },
      ],
      null,
    );
    assert.equal(s.requests, 2);
    assert.equal(s.span_s, 2);
    assert.equal(s.mean_rate_rps, 0.5);
    assert.equal(s.input_tokens.p50, 200);
    assert.equal(s.output_tokens.max, 30);
    assert.deepEqual(s.burstiness_cv, { value: null, reason: 'few_gaps' });
    assert.deepEqual(s.prefix_sharing, { value: null, reason: 'no_hashes' });
    assert.equal(traceStats([{ timestamp_ms: 0, output_len: 1 }], null).mean_rate_rps, null);
  });
});
