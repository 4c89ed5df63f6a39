/**
 * Diagnosis rules on runs built with the simulator's virtual-time planner (and hand-made
 * records where the simulator has no such mechanism): each rule names the right mechanism on
 * a run that shows its symptom, and a clean run gets no finding at all.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diagnose } from '../../src/analysis/diagnose/index.js';
import { ALL_RULES, NEEDS } from '../../src/analysis/diagnose/rules/index.js';
import type { Diagnosis } from '../../src/analysis/diagnose/types.js';
import type { LoadedRun } from '../../src/analysis/loaded-run.js';
import { handRecord, handRun, many, simRun } from './helpers.js';

const H100 = { model: 'llama-3.1-8b', gpu: 'h100' } as const;
/** A fixed-length benchmark's config (ignore_eos); its requests reach their asked length: `ok`. */
const FIXED = { ignore_eos: true };
const rules = (d: Diagnosis) => d.findings.map((f) => f.rule).sort();

const clean = simRun({
  label: 'clean',
  engine: H100,
  shapes: many(120, { input: 256, output: 64 }),
  load: { kind: 'closed', concurrency: 4 },
  level: { concurrency: 4 },
  config: FIXED,
});

describe('a clean run', () => {
  it('is valid and gets no finding and nothing unexplained', () => {
    const d = diagnose([clean]);
    assert.equal(d.valid, true, JSON.stringify(d.reasons));
    assert.deepEqual(d.findings, []);
    assert.deepEqual(d.unexplained, []);
  });
});

describe('cold start', () => {
  it('names a cold start when the first requests pay --cold-start-ms', () => {
    const run = simRun({
      label: 'cold',
      engine: { ...H100, coldStartMs: 3000 },
      shapes: many(40, { input: 256, output: 64 }),
      load: { kind: 'closed', concurrency: 2 },
      config: FIXED,
    });
    const d = diagnose([run]);
    assert.deepEqual(rules(d), ['cold_start']);
    const f = d.findings[0];
    // Both requests of the first closed-loop wave hit the cold step.
    assert.deepEqual(f.request_ids.sort(), ['r0', 'r1']);
    assert.match(f.mechanism, /cold start/);
    assert.match(f.next.command, /^servelab exp init baseline$/);
    assert.match(f.next.change, /warmup/);
  });
});

describe('cold start or a burst on a warm engine', () => {
  // 40 requests 1 s apart; the first two wait 600 ms for their first token, the rest 30 ms.
  const slowStart = () =>
    Array.from({ length: 40 }, (_, i) => handRecord(`q${i}`, i * 1000, i < 2 ? 600 : 30, 20, 10));
  const tokensSeries = (from: number): LoadedRun['series'] =>
    [0, 40_000].map((t_ms, i) => ({
      t_ms,
      source: 'sim',
      name: 'generation_tokens_total',
      value: from + i * 800,
    }));

  it('is a cold start on an engine that had served nothing before', () => {
    assert.deepEqual(rules(diagnose([handRun('cold', slowStart(), {}, { series: tokensSeries(0) })])), [
      'cold_start',
    ]);
  });

  it('is no cold start when a warm-up request was served first', () => {
    const warm = handRecord('w0', -500, 30, 20, 10);
    warm.phase = 'warmup';
    const d = diagnose([handRun('warmed', [warm, ...slowStart()], {}, { series: tokensSeries(0) })]);
    assert.ok(!rules(d).includes('cold_start'), JSON.stringify(rules(d)));
  });

  it('is no cold start when the engine had generated tokens before the run (an earlier level)', () => {
    const d = diagnose([handRun('served', slowStart(), {}, { series: tokensSeries(12_000) })]);
    assert.ok(!rules(d).includes('cold_start'), JSON.stringify(rules(d)));
  });
});

describe('cold start or first requests with long uncached prompts', () => {
  // The first two wait 600 ms for their first token, the rest 30 ms; the engine's own prefill
  // times (record.server) say whether the first two were slow per token (a start-up cost) or
  // only had many more tokens to prefill (a session's first turn over a fresh document).
  const withPrefill = (firstPrompt: number) =>
    Array.from({ length: 40 }, (_, i) => {
      const r = handRecord(`p${i}`, i * 1000, i < 2 ? 600 : 30, 20, 10);
      const prompt = i < 2 ? firstPrompt : 200;
      r.usage = { prompt_tokens: prompt, completion_tokens: 20, total_tokens: prompt + 20, cached_tokens: 0 };
      r.server = { queue_ms: 0, prefill_ms: i < 2 ? 580 : 20, decode_ms: 100, source: 'sim' };
      return r;
    });

  it('is no cold start when the prefill per prompt token was normal (long prompts, 5800 tokens)', () => {
    const d = diagnose([handRun('long-first', withPrefill(5800))]);
    assert.ok(!rules(d).includes('cold_start'), JSON.stringify(rules(d)));
  });

  it('is a cold start when the same prompts prefilled 29× slower per token', () => {
    assert.ok(rules(diagnose([handRun('slow-first', withPrefill(200))])).includes('cold_start'));
  });
});

describe('high TTFT with normal decode', () => {
  it('says queueing when the server has waiting requests (max_num_seqs far below the concurrency)', () => {
    const run = simRun({
      label: 'queue',
      engine: { ...H100, maxNumSeqs: 4 },
      shapes: many(120, { input: 256, output: 256 }),
      load: { kind: 'closed', concurrency: 32 },
      config: FIXED,
    });
    const d = diagnose([run]);
    assert.deepEqual(rules(d), ['high_ttft_queueing']);
    assert.match(d.findings[0].evidence.join('\n'), /server waiting: max 28/);
    assert.match(d.findings[0].mechanism, /queueing/);
  });

  it('says prefill when TTFT grows with the prompt length at concurrency 1', () => {
    const run = simRun({
      label: 'prefill',
      engine: { model: 'qwen3-8b', gpu: 'l40s' },
      shapes: Array.from({ length: 24 }, (_, i) => ({ input: 1000 + (i % 8) * 4000, output: 16 })),
      load: { kind: 'closed', concurrency: 1 },
      config: FIXED,
    });
    const d = diagnose([run]);
    assert.deepEqual(rules(d), ['high_ttft_prefill']);
    assert.match(d.findings[0].evidence.join('\n'), /R² 0\.9\d|R² 1\.00/);
  });

  it('says front-end cost when TTFT is high, flat in input length, and requests never overlap', () => {
    // Sequential requests: 800–820 ms TTFT whatever the prompt (100–3100 tokens), 10 ms/token.
    const recs = Array.from({ length: 30 }, (_, i) =>
      handRecord(`h${i}`, i * 2000, 800 + (i % 3) * 10, 50, 10, 100 + (i % 7) * 500),
    );
    const d = diagnose([handRun('frontend', recs)]);
    assert.deepEqual(rules(d), ['high_ttft_frontend']);
    assert.match(d.findings[0].mechanism, /template/);
  });

  it('leaves an undecidable case unexplained instead of guessing', () => {
    // Same TTFT, one input length, no server series: queueing and overhead look the same.
    const recs = Array.from({ length: 30 }, (_, i) => handRecord(`u${i}`, i * 2000, 900, 50, 10, 500));
    const d = diagnose([handRun('ambiguous', recs)]);
    assert.deepEqual(d.findings, []);
    assert.equal(d.unexplained.length, 1);
    assert.match(d.unexplained[0].observation, /cannot be told apart/);
  });
});

describe('pauses mid-generation', () => {
  it("blames long-prefill interference when stalls overlap other requests' long prefills", () => {
    const arrivals: number[] = [];
    const shapes = [];
    for (let i = 0; i < 200; i++) {
      arrivals.push(i * 50);
      shapes.push(i % 20 === 10 ? { input: 8000, output: 16 } : { input: 128, output: 200 });
    }
    const run = simRun({
      label: 'mixed',
      engine: H100,
      shapes,
      load: { kind: 'open', arrivalsMs: arrivals },
      config: FIXED,
    });
    const d = diagnose([run]);
    // Interference alone: the batch grows here too, but not enough outside the prefills to be
    // named as a second mechanism.
    assert.deepEqual(rules(d), ['stall_prefill_interference']);
    const f = d.findings[0];
    // The long prompts (every 20th request from r10) are named as the cause.
    assert.ok(
      f.request_ids.some((id) => Number(id.slice(1)) % 20 === 10),
      f.request_ids.join(),
    );
    assert.match(f.next.change, /max_num_batched_tokens/);
  });
});

describe('long-prefill interference without stalls', () => {
  /**
   * 12 short requests decode side by side (128-token prompts, 10 ms a token) while three long
   * prompts (4096 tokens) arrive at 500, 1500 and 2500 ms and prefill for 300 ms each. With
   * `slowed`, the shorts' gaps stretch to 18 ms while a long prefill runs: far below the 50 ms
   * stall threshold, so no single gap is a stall, but decoding is ~1.8× slower meanwhile.
   */
  const mixed = (slowed: boolean) => {
    const longAt = [500, 1500, 2500];
    const inPrefill = (t: number) => longAt.some((s) => t >= s && t < s + 300);
    const recs = [];
    for (let k = 0; k < 12; k++) {
      const gaps: number[] = [];
      for (let t = 20 + k; gaps.length < 299; ) {
        const g = slowed && inPrefill(t) ? 18 : 10;
        gaps.push(g);
        t += g;
      }
      recs.push(handRecord(`s${k}`, k, 20, 300, gaps, 128));
    }
    longAt.forEach((at, j) => {
      recs.push(handRecord(`L${j}`, at, 300, 2, 10, 4096));
    });
    return handRun(`mixed-${slowed ? 'slowed' : 'steady'}`, recs);
  };

  it('names the interference and its stall ratio when decoding slows during long prefills', () => {
    const d = diagnose([mixed(true)]);
    assert.deepEqual(rules(d), ['stall_prefill_interference']);
    const f = d.findings[0];
    const ratio = Number(/stall ratio ([\d.]+)\)$/.exec(f.symptom)?.[1]);
    assert.ok(ratio > 1.5 && ratio < 2, f.symptom);
    assert.match(
      f.evidence[0],
      /^stall ratio 1\.\d\d: mean chunk gap [\d.]+ ms over \d+ gaps overlapping a long prefill vs 10\.00 ms over \d+ clean gaps, from the client's records/,
    );
    // The long prompts are named as the cause.
    assert.deepEqual(f.request_ids, ['L0', 'L1', 'L2']);
    assert.match(f.next.change, /max_num_batched_tokens/);
  });

  it('says nothing when the long prefills leave decoding as fast as before', () => {
    const d = diagnose([mixed(false)]);
    assert.deepEqual(d.findings, []);
    assert.deepEqual(d.unexplained, []);
  });
});

describe('pauses from batch growth', () => {
  /**
   * Staggered open loop: 32 long-context requests (6000-token prompts) sent 300 ms apart, each
   * decoding 1000 tokens, so the running batch climbs from 1 to 32 and every decode step reads
   * more KV as it does. The long prefills' windows are left out of the evidence by the rule.
   */
  const growing = (ctx?: Parameters<typeof simRun>[0]['ctx']) =>
    simRun({
      label: 'grow',
      engine: H100,
      shapes: many(32, { input: 6000, output: 1000 }),
      load: { kind: 'open', arrivalsMs: Array.from({ length: 32 }, (_, i) => i * 300) },
      config: FIXED,
      ctx,
    });

  it('names batch growth when decode gaps grow with the number of running requests', () => {
    const d = diagnose([growing()]);
    assert.deepEqual(rules(d), ['stall_batch_growth']);
    const f = d.findings[0];
    assert.equal(f.severity, 'warn');
    assert.match(f.mechanism, /^batch growth/);
    assert.match(
      f.symptom,
      /gap p50 [\d.]+ ms at ≤ \d+ running vs [\d.]+ ms at ≥ \d+ running \((1\.[3-9]\d*|[2-9](\.\d+)?)×\)/,
    );
    assert.match(f.evidence.join('\n'), /server running series/);
    const rho = Number(
      /Spearman rank correlation of gap vs batch size: ([\d.]+)/.exec(f.evidence.join('\n'))?.[1],
    );
    assert.ok(rho >= 0.5, String(rho));
    assert.ok(
      f.request_ids.length > 0 && f.request_ids.every((id) => /^r\d+$/.test(id)),
      f.request_ids.join(),
    );
    assert.equal(f.next.command, 'servelab exp init concurrency-sweep');
    assert.match(f.next.change, /max_num_seqs/);
    // Without the scraped series the client's in-flight count tells the same story.
    const bare = growing();
    bare.series = undefined;
    const b = diagnose([bare]).findings.find((x) => x.rule === 'stall_batch_growth');
    assert.ok(b, 'no finding from client records alone');
    assert.match(b.evidence.join('\n'), /requests in flight \(client records\)/);
  });

  it('does not judge the batch when the client lagged (its gaps include the client)', () => {
    const d = diagnose([
      growing({ client: { event_loop_delay_ms: { p50: 5, p99: 60, max: 90 }, cpu_percent: 40 } }),
    ]);
    assert.ok(!rules(d).includes('stall_batch_growth'), rules(d).join());
  });

  it('says nothing on a constant small batch', () => {
    const run = simRun({
      label: 'steady',
      engine: H100,
      // 500-token prompts: a wave sent together now reaches the engine one request after another
      // (the API server's input path), so the wave's first stream waits out the others' prefills;
      // with 2000-token prompts that wait passes the 50 ms pause threshold.
      shapes: many(80, { input: 500, output: 200 }),
      load: { kind: 'closed', concurrency: 4 },
      config: FIXED,
    });
    const d = diagnose([run]);
    assert.deepEqual(d.findings, []);
    assert.deepEqual(d.unexplained, []);
  });

  /**
   * Four long-lived streams (10 ms gaps, 40 ms while the extras run) and, every 1.5 s, four
   * extra requests in flight for 1 s: in `prefill` they spend that second in prefill (the slow
   * gaps are interference), in `decode` they decode all along (the slow gaps are the batch).
   */
  const doubled = (extras: 'prefill' | 'decode') => {
    const cycles = 8;
    const busy = (t: number) => t % 1500 >= 200 && t % 1500 < 1200;
    const recs = [];
    for (let k = 0; k < 4; k++) {
      const gaps: number[] = [];
      for (let t = 20 + k; t < cycles * 1500; ) {
        const g = busy(t) ? 40 : 10;
        gaps.push(g);
        t += g;
      }
      recs.push(handRecord(`b${k}`, k, 20, gaps.length + 1, gaps));
    }
    for (let j = 0; j < cycles; j++)
      for (let k = 0; k < 4; k++) {
        const id = `x${j * 4 + k}`;
        const at = j * 1500 + 200;
        recs.push(extras === 'prefill' ? handRecord(id, at, 1000, 2, 5) : handRecord(id, at, 5, 25, 40));
      }
    return handRun(`doubled-${extras}`, recs);
  };

  it("leaves out gaps that overlap other requests' prefill, so interference is not read as batch growth", () => {
    assert.ok(!rules(diagnose([doubled('prefill')])).includes('stall_batch_growth'));
    // The same slow gaps with the extras decoding instead: that is the batch.
    assert.ok(rules(diagnose([doubled('decode')])).includes('stall_batch_growth'));
  });
});

describe('pauses mid-generation: client', () => {
  it('blames the client when every stream pauses at once and the event loop lagged as long', () => {
    // 6 concurrent streams, 10 ms/token, each with a 300 ms gap at the same instants.
    const gaps = (k: number) =>
      Array.from({ length: 99 }, (_, j) => (j === 30 || j === 60 || j === 80 ? 300 - k : 10));
    const recs = Array.from({ length: 6 }, (_, k) => handRecord(`c${k}`, k, 20, 100, gaps(k)));
    const run = handRun('lag', recs, {
      client: { event_loop_delay_ms: { p50: 1, p99: 250, max: 310 }, cpu_percent: 50 },
    });
    const d = diagnose([run]);
    assert.deepEqual(rules(d), ['stall_client']);
    // The same shape without client lag is not blamed on the client.
    const quiet = diagnose([handRun('quiet', recs)]);
    assert.deepEqual(rules(quiet), []);
    assert.match(
      quiet.unexplained.map((u) => u.observation).join(),
      /coincide with no other request.s prefill and no client lag/,
    );
  });
});

describe('pauses mid-generation: client lag at the stall', () => {
  // The same 6 streams with three shared 300 ms gaps; the first begins at ~320 ms.
  const gaps = (k: number) =>
    Array.from({ length: 99 }, (_, j) => (j === 30 || j === 60 || j === 80 ? 300 - k : 10));
  const recs = Array.from({ length: 6 }, (_, k) => handRecord(`c${k}`, k, 20, 100, gaps(k)));
  const lagged = (lags: { from_ms: number; to_ms: number; max_ms: number }[]) =>
    handRun('lag-at', recs, {
      client: { event_loop_delay_ms: { p50: 1, p99: 250, max: 310 }, cpu_percent: 50, event_loop_lags: lags },
    });

  it('blames the client only for the stalls its event loop lagged through', () => {
    const d = diagnose([lagged([{ from_ms: 300, to_ms: 650, max_ms: 300 }])]);
    const f = d.findings.find((x) => x.rule === 'stall_client');
    assert.ok(f, rules(d).join());
    // The first shared pause of each of the 6 streams; the other 12 stay unexplained.
    assert.match(f.symptom, /^6 pause\(s\)/);
    assert.match(f.evidence.join('\n'), /client event-loop delay during these stalls: max 300 ms/);
    assert.match(d.unexplained.map((u) => u.observation).join(), /^12 mid-generation pause/);
  });

  it("does not blame the client for stalls its loop did not lag through, whatever the run's maximum", () => {
    const d = diagnose([lagged([{ from_ms: 5000, to_ms: 5100, max_ms: 310 }])]);
    assert.deepEqual(rules(d), []);
  });
});

describe('throughput vs concurrency', () => {
  const sweep = (gpuMemoryUtilization: number | undefined, levels: number[]) =>
    levels.map((c) =>
      simRun({
        label: `c${c}`,
        engine: { ...H100, gpuMemoryUtilization },
        shapes: many(64, { input: 512, output: 256 }),
        load: { kind: 'closed', concurrency: c },
        level: { concurrency: c },
        config: FIXED,
      }),
    );

  it('names KV pressure and preemption when a small KV cache caps throughput', () => {
    const d = diagnose(sweep(0.27, [2, 8, 32, 64]));
    assert.ok(rules(d).includes('kv_pressure'), rules(d).join());
    const f = d.findings.find((x) => x.rule === 'kv_pressure')!;
    assert.match(f.evidence.join('\n'), /KV usage max 100%, preemptions \+\d+/);
    assert.match(f.next.command, /exp init ab/);
    // The evicted streams' long gaps are attributed to preemption, not left unexplained.
    assert.ok(rules(d).includes('stall_preemption'));
  });

  /** Hand-made level runs with a given throughput and client health. */
  const level = (c: number, tokS: number, cpu: number) => {
    const recs = Array.from({ length: 30 }, (_, i) => handRecord(`l${c}-${i}`, i * 1000, 20, 10, 10));
    const r = handRun(
      `c${c}`,
      recs,
      { client: { event_loop_delay_ms: { p50: 1, p99: 2, max: 3 }, cpu_percent: cpu } },
      { level: { concurrency: c } },
    );
    r.summary = { ...r.summary, output_throughput_tok_s: tokS };
    return r;
  };

  it('names a client-side limit when the high levels ran on a saturated client', () => {
    const d = diagnose([level(4, 400, 30), level(16, 1500, 60), level(64, 1600, 98)]);
    const f = d.findings.filter((x) => x.rule === 'client_limit');
    assert.equal(f.length, 1);
    assert.deepEqual(
      f[0].runs,
      ['c16', 'c64'].filter((id) => id === 'c64'),
    );
    assert.match(f[0].evidence.join('\n'), /c64: client CPU 98%/);
    // Same curve on a healthy client, no series: a plateau is left unexplained, not blamed.
    const healthy = diagnose([level(4, 400, 30), level(16, 1500, 60), level(64, 1600, 60)]);
    assert.deepEqual(rules(healthy), []);
    assert.match(
      healthy.unexplained.map((u) => u.observation).join(),
      /stops rising[\s\S]*compute saturation/,
    );
  });

  it('says nothing when throughput keeps rising with concurrency', () => {
    const d = diagnose(sweep(undefined, [1, 2, 4]));
    assert.deepEqual(rules(d), []);
  });

  it('judges each target of a two-target sweep on its own curve', () => {
    // A fast and a slow GPU, both still rising: pooled into one curve, the slow GPU's last level
    // sat below the fast one's peak and read as "throughput falls".
    const target = (name: string, gpu: string) =>
      [1, 2, 4].map((c) =>
        simRun({
          label: `${name} c${c}`,
          engine: { model: 'llama-3.1-8b', gpu },
          shapes: many(32, { input: 256, output: 64 }),
          load: { kind: 'closed', concurrency: c },
          level: { concurrency: c },
          config: { ...FIXED, target: name },
          seriesPoints: 0,
        }),
      );
    const runs = [...target('fast', 'h100'), ...target('slow', 'l40s')];
    const d = diagnose(runs);
    assert.deepEqual(rules(d), []);
    assert.deepEqual(d.unexplained, []);
    // Each curve alone is clean too; and a target whose own curve flattens is still caught.
    const flat = diagnose([
      ...target('fast', 'h100'),
      ...sweep(0.27, [2, 8, 32, 64]).map((r) => ({ ...r, config: { ...r.config, target: 'small' } })),
    ]);
    assert.ok(rules(flat).includes('kv_pressure'), rules(flat).join());
  });
});

describe('A/B pairs', () => {
  const prec = (
    dtype: 'bf16' | 'int4' | 'fp8',
    gpu: string,
    c: number,
    n: number,
    input: number,
    output: number,
  ): LoadedRun =>
    simRun({
      label: dtype,
      engine: { model: 'llama-3.1-8b', gpu, dtype },
      shapes: many(n, { input, output }),
      load: { kind: 'closed', concurrency: c },
      level: { concurrency: c },
      config: { ...FIXED, dtype },
      seriesPoints: 0,
    });

  it('names the quantisation mechanism when int4 is slower at a large batch', () => {
    const d = diagnose([
      prec('bf16', 'a100-80gb', 128, 256, 1024, 32),
      prec('int4', 'a100-80gb', 128, 256, 1024, 32),
    ]);
    assert.deepEqual(
      d.findings.map((f) => f.rule),
      ['quantised_slower'],
    );
    assert.match(d.findings[0].mechanism, /dequantis/);
    assert.deepEqual(d.findings[0].runs, ['int4', 'bf16']);
  });

  it('pools the blocks of an A/B experiment into one finding per switch', () => {
    // `servelab exp run` measures each A/B side in 4 blocks, level {side, block}: one finding
    // for the int4/bf16 switch, not one per (A block, B block) combination.
    const blocks = (['a', 'b'] as const).flatMap((side) =>
      [1, 2, 3, 4].map((block) => {
        const r = prec(side === 'a' ? 'bf16' : 'int4', 'a100-80gb', 128, 128, 1024, 32);
        r.id = `${side}${block}`;
        r.level = { side, block } as unknown as LoadedRun['level'];
        return r;
      }),
    );
    const d = diagnose(blocks);
    const q = d.findings.filter((f) => f.rule === 'quantised_slower');
    assert.equal(q.length, 1, q.map((f) => f.runs.join()).join(' | '));
    assert.deepEqual(q[0].runs, ['b1', 'b2', 'b3', 'b4', 'a1', 'a2', 'a3', 'a4']);
    assert.match(q[0].evidence.join('\n'), /int4 \(4 runs\)/);
  });

  it('says nothing when fp8 is faster than bf16', () => {
    const d = diagnose([prec('bf16', 'h100', 8, 64, 256, 64), prec('fp8', 'h100', 8, 64, 256, 64)]);
    assert.ok(d.findings.every((f) => f.rule !== 'quantised_slower'));
    assert.ok(d.findings.length === 0);
  });

  const tp = (model: string, gpu: string, t: number) =>
    simRun({
      label: `tp${t}`,
      engine: { model, gpu, tp: t },
      shapes: many(32, { input: 256, output: 64 }),
      load: { kind: 'closed', concurrency: 4 },
      level: { concurrency: 4 },
      config: { ...FIXED, tp: t },
      record: {
        device: {
          value: { gpu, count: t, interconnect: gpu === 'l40s' ? 'PCIe' : 'NVLink' },
          source: 'declared',
        },
      },
      seriesPoints: 0,
    });

  it('names tensor-parallel communication when tp=2 over PCIe is slower', () => {
    const d = diagnose([tp('qwen3-0.6b', 'l40s', 1), tp('qwen3-0.6b', 'l40s', 2)]);
    assert.deepEqual(
      d.findings.map((f) => f.rule),
      ['multi_gpu_slower'],
    );
    assert.match(d.findings[0].evidence.join('\n'), /interconnect: PCIe/);
    assert.match(d.findings[0].mechanism, /all-reduce/);
  });

  it('says nothing when tp=2 over NVLink is faster', () => {
    const d = diagnose([tp('llama-3.1-8b', 'h100', 1), tp('llama-3.1-8b', 'h100', 2)]);
    assert.deepEqual(d.findings, []);
  });
});

describe('structured output: truncation', () => {
  /** 40 requests under a max_tokens cap of 64 (`cap`), or asking for 64 tokens; natural length `eos`. */
  const run = (eos: number, config: Record<string, unknown>, cap = true) =>
    simRun({
      label: 'json',
      engine: H100,
      shapes: many(40, { input: 128, output: 64, eos, cap }),
      load: { kind: 'closed', concurrency: 4 },
      config,
      seriesPoints: 0,
    });

  it('flags answers cut by max_tokens, as schema-breaking under structured output', () => {
    const d = diagnose([run(500, { response_format: { type: 'json_schema' } })]);
    assert.deepEqual(rules(d), ['truncation']);
    assert.equal(d.findings[0].severity, 'critical');
    assert.match(d.findings[0].mechanism, /schema/);
    assert.equal(d.findings[0].request_ids.length, 5);
  });

  it('says nothing when answers end on their own, or reach the length they asked for', () => {
    assert.deepEqual(rules(diagnose([run(30, {})])), []);
    // A fixed-length benchmark: every request asked for 64 tokens and got them (finish_reason
    // length), whatever the config says; even under structured output nothing was cut.
    const fixed = run(500, { response_format: { type: 'json_schema' } }, false);
    assert.equal(fixed.summary.finish_reasons.length, 40);
    assert.equal(fixed.summary.outcomes.length, 0);
    assert.deepEqual(rules(diagnose([fixed])), []);
  });

  it('sees structured output requested through the target extra_body', () => {
    const d = diagnose([run(500, { target: { extra_body: { response_format: { type: 'json_object' } } } })]);
    assert.equal(d.findings[0]?.severity, 'critical');
  });
});

describe('symptoms outside the rules', () => {
  it('reports a large E2E tail with none of the causes as unexplained, not as a finding', () => {
    // 150 sequential requests; three in the middle take 2 s to first token (no stall, no queue,
    // not the first ones, same input length as the rest).
    const recs = Array.from({ length: 150 }, (_, i) =>
      handRecord(`x${i}`, i * 3000, [50, 90, 120].includes(i) ? 2000 : 20, 20, 10),
    );
    const d = diagnose([handRun('tail', recs)]);
    assert.deepEqual(d.findings, []);
    assert.equal(d.unexplained.length, 1);
    assert.match(d.unexplained[0].observation, /E2E p99 \d+ ms is [\d.]+× the p50/);
    assert.deepEqual(d.unexplained[0].request_ids.slice(0, 3).sort(), ['x120', 'x50', 'x90']);
    // Without the slow three, nothing at all.
    const calm = diagnose([
      handRun(
        'calm',
        recs.filter((r) => !['x50', 'x90', 'x120'].includes(r.id)),
      ),
    ]);
    assert.deepEqual(calm.unexplained, []);
  });
});

describe("the advice names the engine's own settings", () => {
  it('names SGLang flags when the server was read as SGLang', () => {
    const arrivals: number[] = [];
    const shapes = [];
    for (let i = 0; i < 200; i++) {
      arrivals.push(i * 50);
      shapes.push(i % 20 === 10 ? { input: 8000, output: 16 } : { input: 128, output: 200 });
    }
    const run = {
      ...simRun({
        label: 'sglang-mixed',
        engine: { ...H100, engine: 'sglang' },
        shapes,
        load: { kind: 'open', arrivalsMs: arrivals },
        config: FIXED,
      }),
      engine: 'sglang',
    };
    const d = diagnose([run]);
    const f = d.findings.find((x) => x.rule === 'stall_prefill_interference');
    assert.ok(f, rules(d).join());
    assert.match(f.next.change, /--chunked-prefill-size halved/);
    assert.doesNotMatch(f.next.change, /max_num_batched_tokens/);
    assert.match(f.mechanism, /SGLang runs a prefill batch on its own/);
  });

  it("names SGLang's --max-running-requests for queueing, from a recorded experiment's engine", () => {
    const run = simRun({
      label: 'queue-sglang',
      engine: { ...H100, engine: 'sglang', maxNumSeqs: 4 },
      shapes: many(120, { input: 256, output: 256 }),
      load: { kind: 'closed', concurrency: 32 },
      config: FIXED,
      record: { engine: { value: { name: 'sglang', version: null }, source: 'probed' } },
    });
    const d = diagnose([run]);
    assert.deepEqual(rules(d), ['high_ttft_queueing']);
    assert.match(d.findings[0].mechanism, /--max-running-requests or KV capacity/);
    assert.match(d.findings[0].next.change, /--max-running-requests/);
  });
});

describe('the rule registry', () => {
  it('holds each rule once, under a unique id, with the needs the diagnosis knows', () => {
    const ids = ALL_RULES.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, ids.join(', '));
    for (const r of ALL_RULES) for (const n of r.needs) assert.ok(n in NEEDS, `${r.id} needs ${n}`);
  });

  it('a run without records skips every rule that needs them, named by its findings', () => {
    const run = { ...clean, id: 'bare', records: [] };
    const d = diagnose([run]);
    const checks = d.skipped.filter((s) => s.run === 'bare').flatMap((s) => s.checks);
    for (const r of ALL_RULES.filter((x) => x.needs.includes('records')))
      for (const id of r.emits) assert.ok(checks.includes(id), id);
  });
});
