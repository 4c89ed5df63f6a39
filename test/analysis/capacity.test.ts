/**
 * pipeline/capacity: the one verdict of a capacity probe (judgeProbe) and the measuring search
 * over it (findMaxLevel). The search's own order of levels is held in
 * test/exp-kinds/team-assistant.test.ts and test/sim-engine/mechanisms.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findMaxLevel, judgeProbe, type ProbeRun } from '../../src/analysis/capacity.js';
import type { Summary } from '../../src/analysis/index.js';

const run = (
  fraction: number | null,
  p90: number | null,
  error_rate: number,
  codes: string[] = [],
): ProbeRun => ({
  summary: {
    goodput: { fraction, rps: null, slo: null },
    error_rate,
    ttft_ms: { p90 },
  } as unknown as Summary,
  validity: codes.map((code) => ({ code })),
});
const invalid = (level: number, codes: string) => `level ${level} is not valid (${codes})`;

test('the attainment rule: at least that share of good requests; no share fails', () => {
  const judge = { rule: { attainment: 0.99 }, invalid };
  assert.deepEqual(judgeProbe(4, run(0.99, null, 0), judge), { ok: true, attainment: 0.99, undecided: null });
  assert.deepEqual(judgeProbe(4, run(0.98, null, 0), judge), {
    ok: false,
    attainment: 0.98,
    undecided: null,
  });
  assert.deepEqual(judgeProbe(4, run(null, null, 0), judge), {
    ok: false,
    attainment: null,
    undecided: null,
  });
});

test('the p90 rule: each metric p90 within its limit and the error rate within the rule', () => {
  const judge = { rule: { p90: { ttft_ms: 500 }, maxErrorRate: 0.05 }, invalid };
  assert.deepEqual(judgeProbe(8, run(1, 500, 0.05), judge), { ok: true, attainment: null, undecided: null });
  assert.equal(judgeProbe(8, run(1, 501, 0), judge).ok, false);
  assert.equal(judgeProbe(8, run(1, null, 0), judge).ok, false);
  assert.equal(judgeProbe(8, run(1, 100, 0.06), judge).ok, false);
});

test('a run that is not valid leaves the probe undecided, unless the search takes numbers as they are', () => {
  const bad = run(1, 100, 0, ['lateness', 'sim_behind']);
  assert.equal(
    judgeProbe(16, bad, { rule: { attainment: 0.9 }, invalid }).undecided,
    'level 16 is not valid (lateness, sim_behind)',
  );
  assert.equal(judgeProbe(16, bad, { rule: { attainment: 0.9 }, invalid: null }).undecided, null);
});

test('findMaxLevel measures each probe once, judges it, and stops undetermined at an invalid one', async () => {
  const seen: [number, boolean][] = [];
  const found = await findMaxLevel(
    async (level) => run(level <= 5 ? 1 : 0.5, null, 0),
    { rule: { attainment: 0.99 }, invalid, onProbe: (level, _r, v) => seen.push([level, v.ok]) },
    { max: 64 },
  );
  assert.equal(found.level, 5);
  assert.equal(found.undetermined, null);
  assert.deepEqual(
    seen,
    found.probes.map((p) => [p.level, p.ok]),
  );
  const stopped = await findMaxLevel(
    async (level) => run(1, null, 0, level >= 4 ? ['lateness'] : []),
    { rule: { attainment: 0.99 }, invalid },
    { max: 64 },
  );
  assert.equal(stopped.undetermined, 'level 4 is not valid (lateness)');
  assert.deepEqual(
    stopped.probes.map((p) => p.level),
    [1, 2, 4],
  );
});
