/**
 * @module test/analysis/thresholds
 * SLO and threshold parsing (with hints) and evaluation, absolute and relative to a baseline.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatSlo, parseSlo } from '../../src/analysis/slo.js';
import { summarize } from '../../src/analysis/summary.js';
import {
  allPassed,
  evaluateThresholds,
  parseThreshold,
  parseThresholds,
} from '../../src/analysis/thresholds.js';
import { UsageError } from '../../src/core/errors.js';
import { rec } from './records.js';

/** A run with one success (TTFT 105 ms) and one HTTP error: error_rate 0.5. */
const summary = summarize([
  rec({ id: 'a', sent: 0, chunks: [[105, 'c']], end: 120, tokens: 1 }),
  rec({ id: 'b', sent: 10, end: 20, outcome: 'http_error', finish_reason: null }),
]);

function usageProblems(fn: () => unknown): { message: string; hint?: string }[] {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof UsageError, `expected UsageError, got ${e}`);
    return e.problems;
  }
  assert.fail('expected a UsageError');
}

describe('parseSlo', () => {
  it('parses metric=limit pairs', () => {
    assert.deepEqual(parseSlo('ttft_ms=500, tpot_ms=50,e2e_ms=10000'), {
      ttft_ms: 500,
      tpot_ms: 50,
      e2e_ms: 10000,
    });
    assert.equal(formatSlo(parseSlo('e2e_ms=1,ttft_ms=2')), 'ttft_ms=2,e2e_ms=1');
  });

  it('lists every problem at once, each with a hint', () => {
    const ps = usageProblems(() => parseSlo('ttft=500,tpot_ms=-1,e2e_ms=abc,ttft_ms=1,ttft_ms=2,nonsense'));
    assert.equal(ps.length, 5);
    assert.match(ps[0].message, /unknown SLO metric "ttft"/);
    assert.match(ps[0].hint ?? '', /ttft_ms/);
    assert.match(ps[1].message, /not a positive number/);
    assert.match(ps[3].message, /given twice/);
    assert.match(ps[4].message, /not metric=limit/);
    assert.equal(usageProblems(() => parseSlo('')).length, 1);
  });
});

describe('parseThreshold', () => {
  it('parses path, operator and an absolute or relative limit', () => {
    assert.deepEqual(parseThreshold('ttft_ms.p99<500'), {
      text: 'ttft_ms.p99<500',
      path: 'ttft_ms.p99',
      op: '<',
      value: 500,
      relative_percent: null,
    });
    assert.equal(parseThreshold(' error_rate <= 0.01 ').op, '<=');
    assert.equal(parseThreshold('ttft_ms.p99<+10%').relative_percent, 10);
    assert.equal(parseThreshold('output_throughput_tok_s>=-5%').relative_percent, -5);
    // Nested and open paths resolve too.
    for (const p of [
      'outcomes.timeout==0',
      'finish_reasons.stop>1',
      'goodput.fraction>0.9',
      'goodput.slo.ttft_ms<1',
      'littles_law.rel_gap<0.1',
      'client.event_loop_delay_ms.p99<20',
      'client.cpu_percent<90',
      'metric_dialects.guidellm_tpot_ms.p50<40',
      'requests.failed==0',
      'input_tokens.mean>1',
    ]) {
      assert.doesNotThrow(() => parseThreshold(p), p);
    }
  });

  it('rejects bad text with hints, every problem at once', () => {
    const ps = usageProblems(() =>
      parseThresholds([
        'ttft.p99<500',
        'ttft_ms<500',
        'ttft_ms.p99<500ms',
        'error_rate<1%',
        'garbage',
        'warnings<1',
        'metric_dialects.guidellm_tpot_ms.definition<1',
        'ttft_ms.p98<1',
      ]),
    );
    assert.equal(ps.length, 8);
    assert.match(ps[0].hint ?? '', /did you mean ttft_ms\?/);
    assert.match(ps[0].hint ?? '', /error_rate/); // lists the valid names
    assert.match(ps[1].message, /is an object, not a number/);
    assert.match(ps[1].hint ?? '', /ttft_ms\.p99/);
    assert.match(ps[2].message, /not a number/);
    assert.match(ps[3].message, /needs a sign/);
    assert.match(ps[4].message, /not <path><op><limit>/);
    assert.match(ps[5].message, /resolved to no number/);
    assert.match(ps[6].message, /resolved to no number/);
    assert.match(ps[7].hint ?? '', /p50, p90, p95, p99/);
  });
});

describe('evaluateThresholds', () => {
  it('compares with every operator and reports actual values', () => {
    const ts = parseThresholds([
      'ttft_ms.p99<106',
      'ttft_ms.p99<105',
      'ttft_ms.p99<=105',
      'error_rate>0.4',
      'error_rate>=0.6',
      'requests.succeeded==1',
      'outcomes.http_error==0',
    ]);
    const rs = evaluateThresholds(summary, ts);
    assert.deepEqual(
      rs.map((r) => r.pass),
      [true, false, true, true, false, true, false],
    );
    assert.equal(rs[0].actual, 105);
    assert.equal(rs[0].limit, 106);
    assert.equal(rs[6].actual, 1);
    assert.equal(allPassed(rs), false);
    assert.equal(allPassed(rs.filter((r) => r.pass)), true);
  });

  it('reads an absent finish reason as 0 and fails a threshold with no data', () => {
    const [fr, nodata] = evaluateThresholds(
      summary,
      parseThresholds(['finish_reasons.length<1', 'ttfr_ms.p50<10']),
    );
    assert.deepEqual([fr.pass, fr.actual], [true, 0]);
    assert.equal(nodata.pass, false);
    assert.equal(nodata.actual, null);
    assert.match(nodata.reason ?? '', /no data/);
    // Through a null object (no client health measured, no --slo): no data, not a usage error.
    const rs = evaluateThresholds(
      summary,
      parseThresholds(['client.event_loop_delay_ms.p99<20', 'goodput.slo.ttft_ms<1']),
    );
    assert.deepEqual(
      rs.map((r) => [r.actual, r.pass]),
      [
        [null, false],
        [null, false],
      ],
    );
  });

  it('compares a relative threshold against the baseline', () => {
    const ts = parseThresholds(['ttft_ms.p99<+10%', 'ttft_ms.p99<+4%', 'error_rate<=-50%']);
    const baseline = { ttft_ms: { p99: 100 }, error_rate: 1 };
    const [up10, up4, err] = evaluateThresholds(summary, ts, baseline);
    assert.equal(up10.pass, true); // 105 < 110
    assert.ok(Math.abs((up10.limit as number) - 110) < 1e-9);
    assert.equal(up10.baseline, 100);
    assert.equal(up4.pass, false); // 105 ≥ 104
    assert.equal(err.pass, true); // 0.5 ≤ 0.5
    const [missing] = evaluateThresholds(summary, ts.slice(0, 1), { error_rate: 1 });
    assert.equal(missing.pass, false);
    assert.match(missing.reason ?? '', /baseline has no value/);
  });

  it('a relative threshold without a baseline is a usage error', () => {
    const ps = usageProblems(() => evaluateThresholds(summary, [parseThreshold('ttft_ms.p99<+10%')]));
    assert.match(ps[0].hint ?? '', /--baseline/);
  });
});
