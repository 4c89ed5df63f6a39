/**
 * The gate's group 10 (quality and latency against the old version), called directly on two
 * in-process simulators on virtual clocks (registered with gate/load/endpoint, so the load runs
 * through measureOn on their clocks: fast and deterministic). Identical simulators pass both
 * checks; a slower cost model fails 10.1 on the latency percentiles and the SLO attainment;
 * lowered answer accuracy fails 10.2; an invalid run (the new side failing a third of its
 * requests) makes 10.1 inconclusive, never failed.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { checks } from '../../src/gate/checks/load.js';
import { targetOf } from '../../src/gate/load/endpoint.js';
import type { PairCheck } from '../../src/gate/types.js';
import { simEndpoint } from '../../src/pipeline/endpoint.js';
import type { SimServerOptions } from '../../src/sim/server/index.js';
import { ctxOf, slowerSim } from './load-helpers.js';

const latency = checks.find((c) => c.id === 'load.latency-goodput') as PairCheck;
const quality = checks.find((c) => c.id === 'load.quality-questions') as PairCheck;
const MODEL = 'llama-3.1-8b';
const BASE: SimServerOptions = { model: MODEL, gpu: 'h100', maxNumSeqs: 16, answerAccuracy: 0.9 };

async function pair(next: SimServerOptions) {
  const eo = await simEndpoint(BASE, { virtual: true });
  const en = await simEndpoint(next, { virtual: true });
  after(async () => {
    await eo.close();
    await en.close();
  });
  return { old: targetOf(eo, 'old', MODEL), next: targetOf(en, 'new', MODEL) };
}

type Obs = Record<string, number>;

test('10.1 and 10.2 pass on two identical simulators', async () => {
  const { old, next } = await pair(BASE);
  const l = await latency.run(old, next, ctxOf());
  assert.equal(l.new.status, 'pass', l.new.reason);
  assert.equal(l.old.status, 'pass');
  const o = l.old.observed as Obs;
  const n = l.new.observed as Obs;
  assert.ok(o.max_goodput_rps > 0);
  for (const k of ['ttft_ms p99 @50%', 'tpot_ms p50 @80%', 'slo_met @80%'])
    assert.ok(Math.abs(n[k] - o[k]) <= 0.01 * o[k], k);
  assert.ok(l.new.evidence.some((e) => /maximum goodput/.test(e.note)));
  const q = await quality.run(old, next, ctxOf());
  assert.equal(q.new.status, 'pass', q.new.reason);
  assert.deepEqual(
    [(q.old.observed as Obs).right, (q.new.observed as Obs).right],
    [(q.old.observed as Obs).right, (q.old.observed as Obs).right],
  );
  assert.ok((q.new.observed as Obs).right >= 40, 'answer accuracy 0.9 answers most of the 54');
});

test('10.1 fails a new version with a slower cost model, naming the percentiles that rose', async () => {
  const { old, next } = await pair(slowerSim(BASE, 1.4));
  const l = await latency.run(old, next, ctxOf());
  assert.equal(l.new.status, 'fail');
  assert.match(l.new.reason ?? '', /ttft_ms p50 @50% \+\d+/);
  assert.match(l.new.reason ?? '', /tpot_ms p99 @80% \+\d+/);
  assert.ok(l.new.evidence.some((e) => /^tpot_ms p50 @50%: old [\d.]+, new [\d.]+ \(\d+\.\d%/.test(e.note)));
  // The same engine otherwise: the questions still pass.
  const q = await quality.run(old, next, ctxOf());
  assert.equal(q.new.status, 'pass', q.new.reason);
});

test('10.2 fails a new version that answers fewer questions right, with the wrong answers as evidence', async () => {
  const { old, next } = await pair({ ...BASE, answerAccuracy: 0.6 });
  const q = await quality.run(old, next, ctxOf());
  assert.equal(q.new.status, 'fail');
  assert.match(q.new.reason ?? '', /answered \d+ of 54 questions right, the old \d+/);
  const obs = q.new.observed as Obs;
  assert.ok(obs.ci_high < 0);
  assert.ok(q.new.evidence.length > 0 && q.new.evidence.every((e) => /expected/.test(e.note)));
});

test('10.1 is inconclusive, never failed, when a run is invalid by servelab’s own verdict', async () => {
  const { old, next } = await pair({ ...BASE, faultRate: 0.3, faults: 'http500' });
  const l = await latency.run(old, next, ctxOf());
  assert.equal(l.new.status, 'skipped');
  assert.match(l.new.reason ?? '', /^inconclusive: the new run at 50% is not valid.*error_rate/);
  assert.equal(l.old.status, 'skipped');
});
