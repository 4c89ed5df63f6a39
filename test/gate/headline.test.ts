/**
 * The gate's headline and exit code count regressions only: checks that pass on the old version
 * and fail on the new. A failure both versions share is shown and named apart, never counted
 * (two simulators with the same fault: exit 0); the same fault on the new one alone is a
 * regression (exit 2); a check that could not be judged on the old version is no regression.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countRows, gateFailed, isRegression } from '../../src/gate/run-gate.js';
import type { CheckRow, SideResult } from '../../src/gate/types.js';
import { gate, rowsOf, startGateSim } from './helpers.js';

const good = await startGateSim();
const bad = await startGateSim({ faultProfile: 'ignore-json-schema' });
const bad2 = await startGateSim({ faultProfile: 'ignore-json-schema' });

const counts = (out: string) => (JSON.parse(out) as { counts: Record<string, number> }).counts;

describe('gate headline and exit code', () => {
  test('the same failure on both versions: not a regression, exit 0, named apart', async () => {
    const r = await gate(['--old', bad.base, '--new', bad2.base, '--checks', '2.4,stream.done', '--json']);
    assert.equal(r.code, 0, r.err);
    const row = rowsOf(r.out).find((x) => x.id === 'errors.ignored-constraint');
    assert.equal(row?.status, 'fail');
    assert.equal(row?.old?.status, 'fail');
    assert.deepEqual(counts(r.out), { pass: 1, fail: 1, skipped: 0, regressions: 0, both: 1 });
    assert.match(r.err, /no regression/);
    assert.match(r.err, /without passing on the old \(1, not counted\): 2\.4 errors\.ignored-constraint/);
    assert.doesNotMatch(r.err, /REGRESSION/);
  });

  test('fixed on the new version: exit 0', async () => {
    const r = await gate(['--old', bad.base, '--new', good.base, '--checks', '2.4', '--json']);
    assert.equal(r.code, 0, r.err);
    assert.equal(counts(r.out).regressions, 0);
  });

  test('passes on the old version, fails on the new: a regression, exit 2', async () => {
    const r = await gate(['--old', good.base, '--new', bad.base, '--checks', '2.4,stream.done', '--json']);
    assert.equal(r.code, 2, r.err);
    assert.deepEqual(counts(r.out), { pass: 1, fail: 1, skipped: 0, regressions: 1, both: 0 });
    assert.match(r.err, /REGRESSION: 1 check\(s\) pass on the old version and fail on the new/);
  });

  test('one endpoint: any failure fails the conformance report (exit 2)', async () => {
    const r = await gate(['--url', bad.base, '--checks', '2.4', '--json']);
    assert.equal(r.code, 2, r.err);
  });

  test('counting: an old side that was skipped or failed makes no regression', () => {
    const side = (status: SideResult['status']): SideResult => ({ status, evidence: [] });
    const row = (n: SideResult['status'], o?: SideResult['status']): CheckRow => ({
      id: 'x.y',
      number: '0.1',
      group: 'stream',
      title: 'x',
      status: n,
      new: side(n),
      ...(o ? { old: side(o) } : {}),
    });
    const rows = [row('fail', 'pass'), row('fail', 'skipped'), row('fail', 'fail'), row('pass', 'fail')];
    assert.deepEqual(rows.map(isRegression), [true, false, false, false]);
    const c = countRows(rows);
    assert.deepEqual(c, { pass: 1, fail: 3, skipped: 0, regressions: 1, both: 2 });
    assert.equal(gateFailed({ old_url: 'http://old/v1', counts: c }), true);
    const c2 = countRows(rows.slice(1));
    assert.equal(gateFailed({ old_url: 'http://old/v1', counts: c2 }), false);
    assert.equal(gateFailed({ old_url: null, counts: countRows([row('fail')]) }), true);
  });
});
