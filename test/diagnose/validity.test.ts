/**
 * The validity verdict: every reason fires on a run that has its defect and stays silent on a
 * clean one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diagnose } from '../../src/analysis/diagnose/index.js';
import type { LoadedRun, SeriesPoint } from '../../src/analysis/loaded-run.js';
import {
  coldRunHits,
  generatorLatenessP99,
  tokenCounts,
  validityReasons,
} from '../../src/analysis/validity.js';
import { translator } from '../../src/i18n/index.js';
import type { RequestRecord } from '../../src/record/types.js';
import { handRecord, handRun, many, simRun } from './helpers.js';

/** 200 sequential requests, 1 s apart, each 20 ms TTFT + 9 × 10 ms. */
const base = () => Array.from({ length: 200 }, (_, i) => handRecord(`v${i}`, i * 1000, 20, 10, 10));
const codes = (run: LoadedRun) => validityReasons(run).map((r) => r.code);

/**
 * An open loop at 40 requests/s into a FIFO server of 2 slots that each take 100 ms (capacity
 * 20 requests/s): each request waits for a slot, and the waits grow.
 */
function overloaded(n: number) {
  const free = [0, 0];
  return Array.from({ length: n }, (_, i) => {
    const sent = i * 25;
    free.sort((a, b) => a - b);
    const start = Math.max(sent, free[0]);
    free[0] = start + 100;
    // Ten tokens: the first at the end of the wait + 10 ms, then every 10 ms.
    return handRecord(`o${i}`, sent, start - sent + 10, 10, 10);
  });
}

describe('validity verdict', () => {
  it('a clean run has no reason', () => {
    const run = handRun('clean', base());
    assert.deepEqual(codes(run), []);
    assert.equal(diagnose([run]).valid, true);
  });

  it('generator lateness p99 above 5 ms', () => {
    const recs = base();
    // 3% of the requests left 12 ms after their planned time.
    for (const r of recs.slice(0, 6)) r.planned_at_ms = (r.sent_at_ms as number) - 12;
    assert.ok((generatorLatenessP99(handRun('late', recs)) as number) > 5);
    assert.deepEqual(codes(handRun('late', recs)), ['lateness']);
  });

  it('a burst at an unbounded rate (--rate inf) has no rate for lateness to miss', () => {
    const recs = base();
    for (const r of recs.slice(0, 6)) r.planned_at_ms = (r.sent_at_ms as number) - 12;
    // JSON writes Infinity as null, so a stored inf run reads rateRps null; in memory it is Infinity.
    for (const rateRps of [null, Number.POSITIVE_INFINITY])
      assert.deepEqual(codes(handRun('inf', recs, {}, { config: { load: { mode: 'open', rateRps } } })), []);
    assert.deepEqual(codes(handRun('r', recs, {}, { config: { load: { mode: 'open', rateRps: 5 } } })), [
      'lateness',
    ]);
  });

  it('slot waits at a concurrency cap are not generator lateness', () => {
    // Closed-loop sim run: planned = sent for every request.
    const run = simRun({
      label: 's',
      engine: { model: 'qwen3-0.6b', gpu: 'h100' },
      shapes: many(40, { input: 64, output: 8 }),
      load: {
        kind: 'open',
        arrivalsMs: many(40, { input: 0, output: 0 }).map((_, i) => i),
        maxConcurrency: 2,
      },
      level: { concurrency: 2 },
      seriesPoints: 0,
    });
    assert.ok((run.summary.lateness_ms.p99 as number) > 5, 'requests waited for a slot');
    assert.equal(generatorLatenessP99(run), 0);
    assert.ok(!codes(run).includes('lateness'));
  });

  it('client event loop lag and CPU saturation', () => {
    const run = handRun('busy', base(), {
      client: { event_loop_delay_ms: { p50: 3, p99: 40, max: 90 }, cpu_percent: 97 },
    });
    assert.deepEqual(codes(run), ['event_loop_lag', 'client_cpu']);
  });

  it('usage missing', () => {
    const recs = base();
    recs[3].usage = null;
    assert.deepEqual(codes(handRun('nousage', recs)), ['usage_missing']);
  });

  it('client and server token counts disagree', () => {
    const recs = base();
    const series = (gen: number): SeriesPoint[] => [
      { t_ms: -500, source: 's', name: 'generation_tokens_total', value: 1000 },
      { t_ms: 250_000, source: 's', name: 'generation_tokens_total', value: 1000 + gen },
    ];
    const ok = handRun('tok', recs, {}, { series: series(2000) });
    assert.deepEqual(tokenCounts(ok), { client: 2000, server: 2000 });
    assert.deepEqual(codes(ok), []);
    const off = handRun('tok', recs, {}, { series: series(2600) });
    assert.deepEqual(codes(off), ['token_mismatch']);
    // A series that does not bracket the run cannot be compared.
    const short = handRun(
      'tok',
      recs,
      {},
      { series: [...series(2600)].map((p, i) => ({ ...p, t_ms: i ? 1000 : 0 })) },
    );
    assert.equal(tokenCounts(short), null);
    // Nor can a series without records (a report.json whose requests.jsonl is gone): there is
    // no client side, which is not a client sum of 0.
    const bare = { ...off, records: [] };
    assert.equal(tokenCounts(bare), null);
    assert.ok(!codes(bare).includes('token_mismatch'));
  });

  it('error rate too high', () => {
    const recs = base();
    for (const r of recs.slice(0, 20)) {
      r.outcome = 'http_error';
      r.http_status = 500;
    }
    assert.deepEqual(codes(handRun('errors', recs)), ['error_rate']);
  });

  it("does not judge Little's law on fewer than 50 requests, nor client CPU over a window under 5 s", () => {
    // The overloaded shape of below, but only 12 requests: too few to judge.
    const short = handRun('short', overloaded(12));
    assert.ok((short.summary.littles_law.rel_gap as number) > 0.1);
    assert.equal(short.summary.littles_law.judged, false);
    assert.ok(!codes(short).includes('littles_law'));
    // Four quick requests (window ~1 s) at 110% CPU: start-up, not saturation.
    const quick = Array.from({ length: 4 }, (_, i) => handRecord(`q${i}`, i * 250, 20, 10, 10));
    const run = handRun('quick', quick, {
      client: { event_loop_delay_ms: { p50: 0, p99: 1, max: 2 }, cpu_percent: 110 },
    });
    assert.ok(!codes(run).includes('client_cpu'));
  });

  it('a cold run does not count recomputation after preemption as a warm cache', () => {
    // 40 requests of 200 prompt + 100 completion tokens; the counters over the run.
    const counters = (queries: number, hits: number, preemptions: number | null): SeriesPoint[] =>
      (
        [
          ['prefix_queries_total', queries],
          ['prefix_hits_total', hits],
          ...(preemptions === null ? [] : [['preemptions_total', preemptions] as const]),
        ] as const
      ).flatMap(([name, v]) => [
        { t_ms: -1, source: 'sim', name, value: 0 },
        { t_ms: 60_000, source: 'sim', name, value: v },
      ]);
    const records = (preempted: number | null) =>
      Array.from({ length: 40 }, (_, i) => {
        const r = handRecord(`p${i}`, i * 1000, 20, 100, 10, 200);
        if (preempted !== null) r.timings = { preemptions: i < preempted ? 1 : 0 };
        return r;
      });
    const cold = (recs: RequestRecord[], series: SeriesPoint[]) =>
      validityReasons(handRun('cold', recs, {}, { series, config: { prompts: 'fresh' } })).filter(
        (r) => r.code === 'cache_hits',
      );
    // 17 preemptions put 13% of the queried tokens back as hits: their own blocks, recomputed.
    assert.deepEqual(cold(records(17), counters(10_000, 1_310, 17)), []);
    // Without per-request counts, each preemption is bounded by the largest request.
    assert.deepEqual(cold(records(null), counters(10_000, 1_310, 17)), []);
    assert.equal(
      coldRunHits(handRun('x', records(17), {}, { series: counters(10_000, 1_310, 17) }))?.recompute_bound,
      17 * 300,
    );
    // A warm cache stays a warm cache, preemptions or not.
    const warm = cold(records(2), counters(10_000, 8_000, 2));
    assert.equal(warm.length, 1);
    assert.match(
      warm[0].message,
      /74\.0% of the prompt tokens .* beyond what recomputation after its 2 preemption/,
    );
    // No preemption counter, no preemption to discount: the counters' rate is judged as before.
    assert.match(
      cold(records(null), counters(10_000, 1_310, null))[0]?.message ?? '',
      /13\.1% of the prompt tokens/,
    );
  });

  it('a simulator that fell behind names the fix of the surface the run came from', () => {
    const series: SeriesPoint[] = [0, 5].map((value, i) => ({
      t_ms: i * 300_000,
      source: 'sim',
      name: 'sim_behind_total',
      value,
    }));
    const hint = (config: Record<string, unknown>, t = translator('en')) => {
      const run = handRun('late-sim', base(), {}, { series, config });
      const r = validityReasons(run, {}, t).find((x) => x.code === 'sim_behind');
      assert.ok(r, 'sim_behind');
      return r.message;
    };
    // An experiment's run names its target by its name in the file.
    const file = hint({ target: 'sim', mode: 'http' });
    assert.match(file, /`clock: virtual` on the sim target in the experiment file/);
    assert.doesNotMatch(file, /servelab plan/);
    // `run` against `servelab sim` describes the URL it reached: virtual time is `plan` there.
    const cli = hint({ target: { url: 'http://127.0.0.1:8000/v1' } });
    assert.match(cli, /`servelab plan`/);
    assert.doesNotMatch(cli, /clock: virtual/);
    assert.match(hint({ target: 'sim' }, translator('zh-CN')), /`clock: virtual`/);
  });

  it("judges a closed loop by its population: three requests per user are not a Little's-law violation", () => {
    // 32 users, 96 requests: three rounds. λ·W over the send span read its edges as a > 10% gap;
    // 32 users kept 32 requests in flight, which is what a closed loop predicts.
    const shapes = many(96, { input: 128, output: 64 });
    const run = simRun({
      label: 'c32',
      engine: { model: 'qwen3-0.6b', gpu: 'h100' },
      shapes,
      load: { kind: 'closed', concurrency: 32 },
      level: { concurrency: 32 },
      config: { ignore_eos: true },
    });
    const ll = run.summary.littles_law;
    assert.equal(ll.basis, 'closed_loop');
    assert.equal(ll.judged, true);
    assert.equal(ll.predicted_in_flight, 32);
    assert.ok((ll.rel_gap as number) < 0.1, JSON.stringify(ll));
    assert.ok(!codes(run).includes('littles_law'));
  });

  it("Little's law off by more than 10% in an overloaded open loop", () => {
    // 40 requests/s into a server that serves 20/s: the queue grows for the whole run.
    const run = handRun('overloaded', overloaded(300));
    assert.equal(run.summary.littles_law.judged, true);
    assert.ok((run.summary.littles_law.rel_gap as number) > 0.1);
    assert.ok(codes(run).includes('littles_law'));
  });
});

describe('sim_behind: the share of late simulator steps, as lateness is judged at p99', () => {
  const series = (behind: [number, number], steps?: [number, number]): SeriesPoint[] => [
    ...behind.map((value, i) => ({ t_ms: i * 1000, source: 's', name: 'sim_behind_total', value })),
    ...(steps ?? []).map((value, i) => ({ t_ms: i * 1000, source: 's', name: 'sim_steps_total', value })),
  ];
  const cases: [string, [number, number], [number, number] | undefined, boolean][] = [
    ['none late', [0, 0], [0, 400], false],
    ['3 of 400 late (0.75%)', [0, 3], [0, 400], false],
    ['5 of 400 late (1.25%)', [2, 7], [100, 500], true],
    ['1 late, step count not exposed', [0, 1], undefined, true],
  ];
  for (const [name, behind, steps, invalid] of cases)
    it(name, () => {
      const run = handRun('s', base(), {}, { series: series(behind, steps) });
      assert.equal(codes(run).includes('sim_behind'), invalid);
    });
});
