import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diagnose } from '../../src/analysis/diagnose/index.js';
import { loadedRunFromStore } from '../../src/dashboard/store-runs.js';
import { arrange, type MixedInputResult } from '../../src/exp/kinds/mixed-input.js';
import { exp, run, tempStore } from './helpers.js';

test('arrange puts longs first, last or spread evenly', () => {
  const L = ['L1', 'L2'];
  const S = ['s1', 's2', 's3', 's4'];
  const names = (o: 'short-first' | 'long-first' | 'interleaved') => arrange(o, L, S).map((x) => x.item);
  assert.deepEqual(names('short-first'), ['s1', 's2', 's3', 's4', 'L1', 'L2']);
  assert.deepEqual(names('long-first'), ['L1', 'L2', 's1', 's2', 's3', 's4']);
  assert.deepEqual(names('interleaved'), ['L1', 's1', 's2', 'L2', 's3', 's4']);
});

test('virtual clock: decoding requests stall while long prefills overlap them', async () => {
  const { result } = await run(
    exp(`
kind: mixed-input
name: mixed
targets:
  t:
    sim: {model: qwen3-0.6b, gpu: h100, clock: virtual}
mixed_input:
  long: {input_len: 4096, output_len: 16, count: 3}
  short: {input_len: 128, output_len: 96, count: 8}
  spacing_ms: 20
`),
  );
  const r = result.results as MixedInputResult;
  const byOrder = Object.fromEntries(r.targets[0].orders.map((o) => [o.order, o]));
  const sf = byOrder['short-first'];
  assert.equal(sf.intervals_from, 'server');
  // Shorts decode when the longs arrive: their gaps during a long prefill are much longer.
  assert.ok(sf.gaps_overlapping_ms.n > 0);
  assert.ok((sf.stall_ratio as number) > 2, `stall ratio ${sf.stall_ratio}`);
  assert.ok((sf.gaps_overlapping_ms.mean as number) > (sf.gaps_clean_ms.p99 as number));
  // Long-first: the long prefills finish before most shorts start decoding: fewer stalled gaps.
  assert.ok(byOrder['long-first'].gaps_overlapping_ms.n < sf.gaps_overlapping_ms.n);
  assert.equal(result.runs.length, 3);
});

test('over HTTP with exposed timings: the stall shows on the engine timeline, and diagnose names the same stall ratio', async () => {
  const { store, cleanup } = tempStore();
  try {
    const { result } = await run(
      exp(`
kind: mixed-input
name: mixed-http
targets:
  t:
    sim: {model: qwen3-0.6b, gpu: h100, time_scale: 20, expose_timings: true}
mixed_input:
  long: {input_len: 4096, output_len: 8, count: 4}
  short: {input_len: 128, output_len: 64, count: 8}
  orders: [short-first]
  spacing_ms: 20
`),
      store,
    );
    const o = (result.results as MixedInputResult).targets[0].orders[0];
    // Engine ms from the server's timings, not the client's clock.
    assert.equal(o.intervals_from, 'server');
    assert.ok(o.gaps_overlapping_ms.n > 0);
    assert.ok((o.stall_ratio as number) > 2, `stall ratio ${o.stall_ratio}`);
    // The stored run, diagnosed from its records alone (no server series), names the table's number.
    const row = store.getRun(o.run_id as string);
    assert.ok(row);
    const d = diagnose([loadedRunFromStore(store, row)]);
    const f = d.findings.find((x) => x.rule === 'stall_prefill_interference');
    assert.ok(f, JSON.stringify(d.findings.map((x) => x.rule)));
    assert.match(
      f.evidence[0],
      new RegExp(
        `^stall ratio ${(o.stall_ratio as number).toFixed(2)}: .* over ${o.gaps_overlapping_ms.n} gaps overlapping`,
      ),
    );
    assert.ok(!d.findings.some((x) => x.rule === 'truncation'), 'the asked output lengths were reached');
  } finally {
    cleanup();
  }
});
