/**
 * @module test/bench
 * The benchmark suite's plumbing at toy scale: the child SSE server's grid and stamps, the match
 * between client chunks and server stamps, and the pass/MISSED logic of the table. Figures are
 * not asserted (benchmarks print, they do not assert); only behaviour that must hold on any
 * machine, however loaded: every chunk arrives, every chunk is matched to its write stamp, and
 * no chunk is received before the server wrote it (which also checks the clock-offset math).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { benchClient, type ClientRun } from '../../bench/client.js';
import { benchColdReset } from '../../bench/cold-reset.js';
import { infoRow, medianRows, pcts, renderTable, targetRow } from '../../bench/lib.js';
import { benchSimReal, type SimRealRun } from '../../bench/sim-real.js';

describe('bench client scenario (toy scale)', () => {
  it('matches every chunk to a server write stamp, causally, for both clients', async () => {
    const res = await benchClient({
      streamCounts: [5],
      intervalMs: 20,
      durationMs: 1000,
      clients: ['servelab', 'fetch'],
      warmup: false,
      log: () => {},
    });
    const runs = res.details.runs as ClientRun[];
    assert.equal(runs.length, 2);
    for (const r of runs) {
      assert.equal(r.errors, 0, `${r.client}: ${r.first_error}`);
      assert.equal(r.unmatched_streams, 0);
      assert.equal(r.chunks_received, r.chunks_expected);
      assert.equal(r.chunks_expected, 5 * 50);
      assert.ok(r.recv_error_ms.n > 0, 'some chunks fall in the steady window');
      // Received after written: a wrong offset sign or unit would put this far below zero.
      assert.ok((r.recv_error_ms.min as number) >= -0.05, `${r.client} min ${r.recv_error_ms.min}`);
    }
    assert.ok(res.rows.some((row) => row.metric === 'CPU/chunk ratio'));
  });
});

describe('bench sim-real scenario (toy scale)', () => {
  it('reads the server stamps of every stream, none emitted before planned or received before emitted', async () => {
    const res = await benchSimReal({
      streamCounts: [4],
      model: 'llama-3.1-8b',
      gpu: 'h100',
      promptWords: 16,
      rampMs: 300,
      measureMs: 600,
      log: () => {},
    });
    const [r] = res.details.runs as SimRealRun[];
    assert.equal(r.http_errors, 0);
    // A loaded machine may starve a stream out of the short window; at least one must be seen.
    assert.ok(r.streams_with_tokens > 0 && r.streams_with_tokens <= 4);
    assert.ok(r.steps > 0 && r.tokens >= r.steps, `${r.tokens} tokens in ${r.steps} steps`);
    assert.ok((r.emit_error_ms.min as number) >= 0, `emit before planned: ${r.emit_error_ms.min}`);
    // Cross-process: a wrong clock offset on either side would show up here.
    assert.ok((r.delivery_ms.min as number) >= -0.05, `received before emitted: ${r.delivery_ms.min}`);
    // The server's own per-step lag came over IPC: no step's writes ended before its release.
    assert.ok(r.step_lag_ms.n > 0, 'the driver reported the lag of the steps in the window');
    assert.ok((r.step_lag_ms.min as number) >= 0, `writes done before the release: ${r.step_lag_ms.min}`);
    assert.ok((r.server_cpu_us_per_chunk ?? 0) > 0);
  });
});

describe('bench cold-reset scenario (toy scale)', () => {
  it('measures a cold pair per time scale with the server’s own account of each request', async () => {
    const res = await benchColdReset({
      timeScales: [5],
      model: 'llama-3.1-8b',
      gpu: 'h100',
      promptWords: 50,
      pairs: 1,
      realtime: false,
      log: () => {},
    });
    assert.deepEqual(
      res.rows.map((r) => r.metric),
      ['|TTFT after reset ÷ first cold − 1|', 'TTFT after reset ÷ first cold'],
    );
    const { pairs } = res.details.time_scale_5 as {
      pairs: { ttftMs: number; modelledEngineMs: number | null; serverCpuMs: number; maxLagMs: number }[][];
    };
    const [first, again] = pairs[0];
    for (const m of [first, again]) {
      assert.ok(m.ttftMs > 0 && m.serverCpuMs > 0 && m.maxLagMs >= 0);
      assert.ok(m.modelledEngineMs !== null && m.modelledEngineMs > 0, 'the final chunk carries timings');
    }
    // The engine's cache was emptied in between: the same prompt, the same modelled TTFT.
    assert.ok(Math.abs((again.modelledEngineMs ?? 0) - (first.modelledEngineMs ?? 0)) < 0.01);
    assert.equal(res.details.realtime_priority, false);
  });
});

describe('bench table', () => {
  it('marks targets ok or MISSED and leaves untargeted rows blank', () => {
    const base = { scenario: 's', case: 'c', metric: 'm', unit: 'ms' };
    assert.equal(targetRow({ ...base, value: 2 }, { max: 2 }).pass, true);
    assert.equal(targetRow({ ...base, value: 2 }, { below: 2 }).pass, false);
    assert.equal(targetRow({ ...base, value: 5000 }, { min: 5000 }).pass, true);
    assert.equal(targetRow({ ...base, value: null }, { max: 2 }).pass, false);
    const text = renderTable([
      targetRow({ ...base, value: 3 }, { max: 2 }),
      { ...base, value: 1.5, target: null, pass: null },
    ]);
    const lines = text.split('\n');
    assert.equal(lines.length, 4);
    assert.match(lines[2], /\s3\s+ms\s+≤ 2\s+MISSED$/);
    assert.match(lines[3], /1\.500\s+ms$/);
  });

  it('takes the median of repeated runs per figure and re-judges it against the goal', () => {
    const base = { scenario: 's', case: 'c', metric: 'p99', unit: 'ms' };
    const info = { scenario: 's', case: 'c', metric: 'rate', unit: '1/s' };
    const runs = [1, 5, 3].map((v) => [
      targetRow({ ...base, value: v }, { max: 2 }),
      infoRow({ ...info, value: v * 10 }),
    ]);
    const med = medianRows(runs);
    assert.equal(med.length, 2);
    assert.equal(med[0].value, 3);
    assert.equal(med[0].pass, false);
    assert.equal(med[0].target, '≤ 2');
    assert.equal(med[1].value, 30);
    assert.equal(med[1].pass, null);
    // even count: the upper median (never flatters a latency)
    assert.equal(
      medianRows([[infoRow({ ...info, value: 1 })], [infoRow({ ...info, value: 2 })]])[0].value,
      2,
    );
  });

  it('summarises samples with nulls when empty', () => {
    assert.deepEqual(pcts([]), { n: 0, min: null, p50: null, p99: null, max: null });
    assert.deepEqual(pcts([3, 1, 2]), { n: 3, min: 1, p50: 2, p99: 2.98, max: 3 });
  });
});
