/**
 * @module test/analysis/summary
 * Run summary: counts, latency stats, throughput, goodput, retries, queue_ms, Little's law, warnings, dialects.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSlo } from '../../src/analysis/slo.js';
import { SUMMARY_METRICS, summarize } from '../../src/analysis/summary.js';
import { OUTCOMES } from '../../src/record/types.js';
import { rec } from './records.js';

const close = (a: number | null | undefined, b: number, msg?: string) =>
  assert.ok(a != null && Math.abs(a - b) < 1e-9, `${msg ?? ''} ${a} ≠ ${b}`);

/**
 * One warm-up request, then three measured ones (ms):
 *   w1  warm-up, sent 0, ends 50, 100 tokens
 *   r1  ok,      sent 1000, content at 1100 and 1200, end 1200, 10 tokens, prompt 20
 *   r2  length,  sent 1100, content at 1300, end 1500, 5 tokens, prompt 30
 *   r3  http_error, sent 1200, end 1210, no usage
 * Window = [1000, 1500] = 0.5 s.
 */
function run() {
  return [
    rec({ id: 'w1', phase: 'warmup', sent: 0, chunks: [[50, 'c']], end: 50, tokens: 100, prompt: 100 }),
    rec({
      id: 'r1',
      sent: 1000,
      chunks: [
        [1100, 'c'],
        [1200, 'c'],
      ],
      end: 1200,
      tokens: 10,
      prompt: 20,
    }),
    rec({ id: 'r2', sent: 1100, chunks: [[1300, 'c']], end: 1500, tokens: 5, prompt: 30, outcome: 'length' }),
    rec({ id: 'r3', sent: 1200, end: 1210, outcome: 'http_error', finish_reason: null }),
  ];
}

describe('summarize', () => {
  it('counts requests, outcomes (all nine, zeros included) and finish reasons; warm-up excluded', () => {
    const s = summarize(run());
    assert.deepEqual(s.requests, { planned: 4, measured: 3, succeeded: 2, failed: 1 });
    assert.deepEqual(Object.keys(s.outcomes), [...OUTCOMES]);
    assert.equal(s.outcomes.ok, 1);
    assert.equal(s.outcomes.length, 1);
    assert.equal(s.outcomes.http_error, 1);
    assert.equal(s.outcomes.timeout, 0);
    assert.deepEqual(s.finish_reasons, { stop: 1, length: 1, none: 1 });
    close(s.error_rate, 1 / 3);
    assert.equal(s.usage_missing, 0);
  });

  it('leaves per-token metrics null, never 0, for a non-streaming run, and says why', () => {
    const recs = [0, 1, 2].map((i) =>
      rec({
        id: `n${i}`,
        sent: i * 100,
        chunks: [[i * 100 + 80, 'c']],
        end: i * 100 + 80,
        tokens: 20,
        stream: false,
      }),
    );
    const s = summarize(recs, { slo: parseSlo('tpot_ms=50') });
    for (const k of [
      'ttft_ms',
      'ttfr_ms',
      'tpot_ms',
      'itl_ms',
      'max_gap_ms',
      'ttft_from_planned_ms',
    ] as const) {
      assert.equal(s[k].n, 0, k);
      assert.equal(s[k].p50, null, k);
    }
    assert.equal(s.metric_dialects.vllm_ttft_ms.n, 0);
    assert.equal(s.metric_dialects.guidellm_tpot_ms.n, 0);
    assert.equal(s.e2e_ms.n, 3);
    close(s.e2e_ms.p50, 80);
    assert.ok(
      s.warnings.some((w) => /^3 successful request\(s\) were not streamed: .*tpot_ms/.test(w)),
      s.warnings.join('\n'),
    );
    // A TPOT objective cannot be met without per-token times (it used to be met at 0).
    assert.equal(s.goodput.fraction, 0);
    // One streamed request among them: only it has a TTFT.
    const mixed = summarize([
      ...recs,
      rec({ id: 's', sent: 400, chunks: [[450, 'c']], end: 450, tokens: 1 }),
    ]);
    assert.equal(mixed.ttft_ms.n, 1);
    assert.ok(mixed.warnings.some((w) => /^3 successful request\(s\) were not streamed/.test(w)));
  });

  it('computes latency stats over successful measured requests only', () => {
    const s = summarize(run());
    assert.equal(s.ttft_ms.n, 2); // r1 100, r2 200; warm-up's 50 is left out
    close(s.ttft_ms.mean, 150);
    assert.equal(s.ttft_ms.min, 100);
    assert.equal(s.e2e_ms.max, 400);
    assert.equal(s.tpot_ms.n, 2);
    close(s.tpot_ms.max, 100 / 9); // r1: (1200 − 1100) / 9; r2: 0 / 4
    assert.equal(s.tpot_ms.min, 0);
    assert.equal(s.itl_ms.n, 1); // r1's one gap; r2 has a single chunk
    assert.equal(s.itl_ms.p50, 100);
    assert.equal(s.ttfr_ms.n, 0);
    assert.equal(s.ttfr_ms.p99, null);
    assert.equal(s.lateness_ms.n, 3); // every sent measured request, failures included
    for (const k of SUMMARY_METRICS) assert.ok(k in s, k);
  });

  it('divides throughput by the measurement window', () => {
    const s = summarize(run());
    close(s.output_throughput_tok_s, 30); // (10 + 5) tokens / 0.5 s
    close(s.total_throughput_tok_s, 130); // (15 + 50) / 0.5
    close(s.request_throughput_rps, 4); // 2 successes / 0.5 s
    close(s.achieved_rate_rps, 10); // 3 sends over 200 ms: 2 intervals / 0.2 s
    close(s.input_tokens.mean, 25);
    close(s.output_tokens.mean, 7.5);
    const wide = summarize(run(), { window: { start_ms: 1000, end_ms: 2000 } });
    close(wide.output_throughput_tok_s, 15);
  });

  it('errors: the failed measured requests by final attempt, grouped, with hints (warm-up and retried-away failures left out)', () => {
    const fail = (
      id: string,
      status: number,
      message: string,
      extra: Partial<Parameters<typeof rec>[0]> = {},
    ) => {
      const r = rec({ id, sent: 1000, end: 1010, outcome: 'http_error', finish_reason: null, ...extra });
      r.http_status = status;
      r.error = `HTTP ${status}: ${message}`;
      return r;
    };
    const s = summarize([
      ...run().filter((r) => r.id !== 'r3'),
      fail('a', 401, 'Invalid or missing API key'),
      fail('b', 401, 'Invalid or missing API key'),
      fail('w', 404, 'no such model', { phase: 'warmup' }),
      // Failed with 429, then succeeded on the retry: not an error of the run.
      fail('c', 429, 'slow down', { planned_id: 'c' }),
      rec({
        id: 'c.2',
        planned_id: 'c',
        attempt: 2,
        sent: 1100,
        chunks: [[1150, 'c']],
        end: 1150,
        tokens: 1,
      }),
    ]);
    assert.deepEqual(s.errors, [
      {
        count: 2,
        outcome: 'http_error',
        http_status: 401,
        message: 'HTTP 401: Invalid or missing API key',
        hint: 'set INFERENCE_API_KEY (or name the variable with --api-key-env)',
      },
    ]);
    assert.deepEqual(summarize(run().filter((r) => r.id !== 'r3')).errors, []);
  });

  it('goodput counts errors as misses', () => {
    const s = summarize(run(), { slo: parseSlo('ttft_ms=150') });
    // r1 (ttft 100) is good; r2 (ttft 200) misses; r3 failed.
    close(s.goodput.fraction, 1 / 3);
    close(s.goodput.rps, 2); // 1 good / 0.5 s
    assert.deepEqual(s.goodput.slo, { ttft_ms: 150 });
    const none = summarize(run());
    assert.deepEqual(none.goodput, { rps: null, fraction: null, slo: null });
  });

  it('goodput: a single-token answer meets a TPOT objective; a missing TTFT misses', () => {
    const recs = [
      rec({ id: 'a', sent: 0, chunks: [[10, 'c']], end: 10, tokens: 1 }),
      rec({ id: 'b', sent: 0, chunks: [[10, 'r']], end: 10, tokens: 1, outcome: 'length' }),
    ];
    const s = summarize(recs, { slo: parseSlo('tpot_ms=5,ttft_ms=100') });
    close(s.goodput.fraction, 0.5);
  });

  it('counts a retried request once, by its final attempt, and measures from the first plan', () => {
    const recs = [
      rec({ id: 'p1', planned_id: 'p1', attempt: 1, planned: 0, sent: 2, end: 5, outcome: 'http_error' }),
      rec({
        id: 'p1.2',
        planned_id: 'p1',
        attempt: 2,
        planned: 100,
        sent: 100,
        chunks: [[150, 'c']],
        end: 160,
        tokens: 1,
      }),
    ];
    const s = summarize(recs);
    assert.deepEqual(s.requests, { planned: 1, measured: 1, succeeded: 1, failed: 0 });
    assert.equal(s.outcomes.ok, 1);
    assert.equal(s.outcomes.http_error, 0);
    assert.equal(s.ttft_ms.mean, 50);
    assert.equal(s.ttft_from_planned_ms.mean, 150);
    assert.equal(s.e2e_from_planned_ms.mean, 160);
    assert.deepEqual([s.lateness_ms.n, s.lateness_ms.mean], [1, 2]); // the first attempt's send
    assert.ok(s.warnings.some((w) => w.includes('1 retry attempt')));
  });

  it('queue_ms is the wait for a slot under --max-concurrency; lateness includes it', () => {
    const recs = [
      rec({ id: 'a', planned: 0, sent: 0, chunks: [[100, 'c']], end: 100, tokens: 1 }),
      rec({ id: 'b', planned: 50, sent: 100, chunks: [[150, 'c']], end: 150, tokens: 1 }), // slot busy at 50
      rec({ id: 'c', planned: 200, sent: 203, chunks: [[250, 'c']], end: 250, tokens: 1 }), // late, not queued
    ];
    const s = summarize(recs, { max_concurrency: 1 });
    assert.equal(s.queue_ms.max, 50);
    close(s.queue_ms.mean, 50 / 3);
    close(s.lateness_ms.mean, 53 / 3);
    close(s.ttft_from_planned_ms.max, 100); // b: 150 − 50
    const uncapped = summarize(recs);
    assert.equal(uncapped.queue_ms.max, 0);
  });

  it("checks Little's law on a hand-built schedule", () => {
    // In flight: A [0,100], B [50,150], C [100,300], D [200,300]. An open loop, judged over the
    // send span without its fill: mean W = 125 ms, capped at half the span → [100, 200]:
    // B 50 + C 100 = 150 ms of area over 100 ms → 1.5.
    const recs = [
      rec({ id: 'A', sent: 0, end: 100, chunks: [[100, 'c']] }),
      rec({ id: 'B', sent: 50, end: 150, chunks: [[150, 'c']] }),
      rec({ id: 'C', sent: 100, end: 300, chunks: [[300, 'c']] }),
      rec({ id: 'D', sent: 200, end: 300, chunks: [[300, 'c']] }),
    ];
    const s = summarize(recs);
    close(s.littles_law.measured_in_flight, 1.5);
    // Sent in [100, 200): C alone, λ = 1 / 100 ms, W = 200 ms → 2
    close(s.littles_law.predicted_in_flight, 2);
    close(s.littles_law.rel_gap, (2 - 1.5) / 1.5);
    // Four requests: reported, not judged, and not warned about.
    assert.equal(s.littles_law.judged, false);
    assert.ok(!s.warnings.some((w) => w.includes("Little's law")));
  });

  it('warns on thin percentiles, missing usage and a slow generator; carries client health', () => {
    const recs = [rec({ id: 'a', sent: 0, chunks: [[10, 'c']], end: 10, noUsage: true })];
    const s = summarize(recs, {
      target_rate_rps: 100,
      client: { event_loop_delay_ms: { p50: 1, p99: 40, max: 80 }, cpu_percent: 97 },
    });
    assert.equal(s.usage_missing, 1);
    assert.equal(s.output_throughput_tok_s, null); // no usage: no data, not 0
    assert.equal(s.output_tokens.mean, null);
    const w = s.warnings.join('\n');
    assert.match(w, /p99 rests on fewer than 100 samples for ttft_ms \(n=1\)/);
    assert.match(w, /p95 rests on fewer than 20 samples/);
    assert.match(w, /no usage\.completion_tokens/);
    assert.match(w, /event-loop delay p99 is 40\.0 ms/);
    assert.match(w, /client CPU at 97%/);
    assert.equal(s.client.event_loop_delay_ms?.p99, 40);
    assert.equal(s.achieved_rate_rps, null); // one send: no rate

    const slow = summarize(
      [0, 100, 200].map((t, i) =>
        rec({ id: `s${i}`, sent: t, chunks: [[t + 5, 'c']], end: t + 5, tokens: 1 }),
      ),
      { target_rate_rps: 20 },
    );
    close(slow.achieved_rate_rps, 10);
    assert.match(slow.warnings.join('\n'), /achieved send rate 10\.00 rps is below the target 20 rps/);
    const burst = summarize(
      [0, 100, 200].map((t, i) =>
        rec({ id: `b${i}`, sent: t, chunks: [[t + 5, 'c']], end: t + 5, tokens: 1 }),
      ),
      { target_rate_rps: Number.POSITIVE_INFINITY },
    );
    assert.doesNotMatch(burst.warnings.join('\n'), /achieved send rate/, '--rate inf has no target to miss');
  });

  it('is empty, with nulls, for no records; interrupted unsent requests count as failed', () => {
    const e = summarize([]);
    assert.deepEqual(e.requests, { planned: 0, measured: 0, succeeded: 0, failed: 0 });
    assert.equal(e.error_rate, null);
    assert.equal(e.request_throughput_rps, null);
    assert.equal(e.littles_law.measured_in_flight, null);
    assert.match(e.warnings[0], /no measured requests/);

    const s = summarize([
      rec({ id: 'a', sent: 0, chunks: [[10, 'c']], end: 10, tokens: 2 }),
      rec({ id: 'b', planned: 20, sent: null, end: null, outcome: 'cancelled', finish_reason: null }),
    ]);
    assert.equal(s.outcomes.cancelled, 1);
    close(s.error_rate, 0.5);
    assert.match(s.warnings.join('\n'), /1 request\(s\) were cancelled before being sent/);
  });

  it('reports the metric dialects with their definitions', () => {
    const s = summarize([
      rec({
        id: 'a',
        sent: 0,
        first_chunk: 5,
        chunks: [
          [20, 'r'],
          [60, 'c'],
        ],
        end: 60,
        tokens: 3,
      }),
      rec({ id: 'b', sent: 0, chunks: [[10, 'c']], end: 30, tokens: 4 }),
    ]);
    const d = s.metric_dialects;
    assert.deepEqual([d.vllm_ttft_ms.min, d.vllm_ttft_ms.max], [5, 10]);
    // guidellm TPOT: a 60/3 = 20, b 10/4 = 2.5
    close(d.guidellm_tpot_ms.mean, 11.25);
    // guidellm ITL: a (60−20)/2 = 20 with weight 2; b (10−10)/3 = 0 with weight 3 → mean 40/5
    assert.equal(d.guidellm_itl_ms.n, 5);
    close(d.guidellm_itl_ms.mean, 8);
    assert.match(d.guidellm_tpot_ms.definition, /TTFT included/);
  });
});
