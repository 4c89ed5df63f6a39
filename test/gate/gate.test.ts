/**
 * `servelab gate` between simulators: two identical ones pass (through the real CLI process);
 * each fault profile makes its named check fail with evidence and exit 2; --junit writes JUnit
 * XML that a strict reader accepts; bad usage exits 1, an unreachable target 3; --probe repeats
 * the probe checks until its duration ends; one endpoint skips the pair checks with the reason.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ALL_CHECKS } from '../../src/gate/checks/index.js';
import { runGate, selectChecks } from '../../src/gate/run-gate.js';
import type { CheckContext, PairCheck } from '../../src/gate/types.js';
import { translator } from '../../src/i18n/index.js';
import { cliProcess } from '../helpers/cli-process.js';
import { refusedPort } from '../helpers/misbehaving.js';
import { gate, parseXml, rowsOf, startGateSim } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-gate-'));

const old = await startGateSim();
const same = await startGateSim();
/** `--old` the reference simulator, `--new` the given one. */
const pair = (next: string) => ['--old', old.base, '--new', next];

const cli = (args: string[]) => cliProcess(args);

describe('servelab gate', () => {
  test('two identical simulators: exit 0, every check passed or skipped with its reason', async () => {
    // groups 1–3, 5–7 and 9 (4, 8 and 10 have their own tests, with the load they need)
    const r = await cli([
      'gate',
      '--old',
      old.base,
      '--new',
      same.base,
      '--checks',
      'stream,errors,context,structured,tools,reasoning,metrics',
      '--json',
    ]);
    assert.equal(r.code, 0, r.err);
    const rows = rowsOf(r.out);
    const mine = rows;
    assert.ok(mine.length >= 30, `${mine.length} rows`);
    for (const row of rows) {
      assert.notEqual(row.status, 'fail', `${row.id}: ${row.reason}`);
      if (row.status === 'skipped') assert.ok(row.reason && row.reason.length > 10, row.id);
    }
    const passed = mine.filter((row) => row.status === 'pass').map((row) => row.id);
    for (const id of [
      'stream.parity',
      'errors.ignored-constraint',
      'context.over-limit',
      'structured.json-schema-valid',
      'tools.stream-parity',
      'reasoning.field-name',
      'metrics.names',
    ])
      assert.ok(passed.includes(id), id);
    // the human table went to stderr, with its verdict line
    assert.match(r.err, /every check that could run passes/);
  });

  const profiles: [string, string, string, RegExp][] = [
    ['reasoning-renamed', 'reasoning', 'reasoning.field-name', /BREAKING.*reasoning_content, now reasoning/],
    ['ignore-json-schema', '2.4,5.1', 'structured.json-schema-valid', /not valid against the schema/],
    ['ignore-json-schema', '2.4', 'errors.ignored-constraint', /accepted but ignored: response_format/],
    ['empty-tool-args', 'tools.stream-parity', 'tools.stream-parity', /arguments are not a JSON object: ""/],
    ['abort-as-success', 'stream.finish-reason', 'stream.finish-reason', /abort\/error and then \[DONE\]/],
  ];
  for (const [profile, checks, id, reason] of profiles)
    test(`--fault-profile ${profile} on the new one: ${id} fails with evidence, exit 2`, async () => {
      const bad = await startGateSim({ faultProfile: profile as 'reasoning-renamed' });
      const junit = join(dir, `${profile}-${id}.xml`);
      const r = await gate([...pair(bad.base), '--checks', checks, '--json', '--junit', junit]);
      assert.equal(r.code, 2, r.err);
      const row = rowsOf(r.out).find((x) => x.id === id);
      assert.ok(row, id);
      assert.equal(row.status, 'fail');
      assert.match(row.reason ?? '', reason);
      assert.equal(row.old?.status, 'pass');
      const ev = row.new.evidence[0];
      assert.ok(ev?.request_id?.startsWith('servelab-gate-'), JSON.stringify(row.new.evidence));
      assert.ok(ev.received && ev.received.length > 0 && ev.received.length <= 2048 + 40);
      // the JUnit failure carries the evidence too (a comparison's verdict included)
      const cases = parseXml(readFileSync(junit, 'utf8')).children.flatMap((suite) => suite.children);
      const tc = cases.find((c) => c.attrs.name.includes(` ${id}:`));
      const failure = tc?.children.find((c) => c.name === 'failure');
      assert.match(failure?.text ?? '', /x-request-id servelab-gate-new-/);
      // the human output names it
      assert.match(r.err, new RegExp(`FAIL \\d+\\.\\d+ ${id.replace('.', '\\.')}`));
    });

  test('--junit writes JUnit XML: one suite per group, a failure or skipped element where it did not pass', async () => {
    const bad = await startGateSim({ faultProfile: 'ignore-json-schema' });
    const file = join(dir, 'gate.xml');
    const r = await gate([...pair(bad.base), '--checks', 'errors,5.1,5.3', '--junit', file]);
    assert.equal(r.code, 2, r.err);
    const root = parseXml(readFileSync(file, 'utf8'));
    assert.equal(root.name, 'testsuites');
    let tests = 0;
    let failures = 0;
    let skipped = 0;
    for (const suite of root.children) {
      assert.equal(suite.name, 'testsuite');
      for (const a of ['name', 'tests', 'failures', 'errors', 'skipped', 'time'])
        assert.ok(a in suite.attrs, a);
      assert.equal(Number(suite.attrs.tests), suite.children.length);
      for (const tc of suite.children) {
        assert.equal(tc.name, 'testcase');
        for (const a of ['classname', 'name', 'time']) assert.ok(a in tc.attrs, a);
        const kinds = tc.children.map((c) => c.name);
        assert.ok(
          kinds.every((k) => ['failure', 'skipped', 'system-out'].includes(k)),
          kinds.join(),
        );
        const f = tc.children.find((c) => c.name === 'failure');
        const s = tc.children.find((c) => c.name === 'skipped');
        assert.ok(!(f && s));
        if (f) {
          assert.ok(f.attrs.message && f.attrs.type === 'regression');
          assert.match(f.text, /x-request-id servelab-gate-new-/);
        }
        if (s) assert.ok(s.attrs.message);
      }
      tests += suite.children.length;
      failures += Number(suite.attrs.failures);
      skipped += Number(suite.attrs.skipped);
      assert.equal(
        Number(suite.attrs.skipped),
        suite.children.filter((c) => c.children.some((x) => x.name === 'skipped')).length,
      );
      assert.equal(
        Number(suite.attrs.failures),
        suite.children.filter((c) => c.children.some((x) => x.name === 'failure')).length,
      );
    }
    assert.equal(Number(root.attrs.tests), tests);
    assert.equal(Number(root.attrs.failures), failures);
    assert.equal(root.attrs.skipped, undefined); // not a <testsuites> attribute in junit-10.xsd
    assert.ok(failures >= 2, `failures ${failures}`);
    assert.equal(
      tests,
      failures +
        skipped +
        root.children
          .flatMap((x) => x.children)
          .filter((c) => !c.children.some((k) => k.name !== 'system-out')).length,
    );
    // the reader is strict: it refuses what is not well-formed
    assert.throws(() => parseXml('<a><b></a></b>'));
    assert.throws(() => parseXml('<a x=1/>'));
    assert.throws(() => parseXml('<a>1 & 2</a>'));
  });

  test('usage errors exit 1 with a hint; an unreachable target exits 3', async () => {
    const u = await gate(['--old', old.base, '--new', same.base, '--checks', 'stream,nope']);
    assert.equal(u.code, 1);
    assert.match(u.err, /unknown check, group or number "nope"/);
    assert.match(u.err, /hint:/);
    assert.equal((await gate(['--new', same.base])).code, 1);
    assert.equal((await gate(['--url', same.base, '--old', old.base])).code, 1);
    assert.equal((await gate(['--url', same.base, '--duration', '1m'])).code, 1);
    const port = await refusedPort();
    const d = await gate(['--old', old.base, '--new', `http://127.0.0.1:${port}/v1`, '--checks', 'stream']);
    assert.equal(d.code, 3);
    assert.match(d.err, /new target .* is unreachable/);
  });

  test('--probe repeats the probe checks until --duration ends; load checks are left out', async () => {
    const r = await gate([
      '--probe',
      '--duration',
      '1.5s',
      '--interval',
      '0.2s',
      '--old',
      old.base,
      '--new',
      same.base,
      '--checks',
      '1.1,1.2,5.4,9',
      '--json',
    ]);
    assert.equal(r.code, 0, r.err);
    const res = JSON.parse(r.out) as { mode: string; passes: number; rows: { id: string; status: string }[] };
    assert.equal(res.mode, 'probe');
    assert.ok(res.passes >= 2, `passes ${res.passes}`);
    assert.deepEqual(
      res.rows.map((x) => x.id),
      ['stream.role-first', 'stream.one-id', 'metrics.names'],
    );
    assert.match(r.err, /probe pass 2:/);
  });

  test('one endpoint (--url) is a conformance report; a pair check is skipped with the reason', async () => {
    const r = await gate(['--url', same.base, '--checks', 'stream.done,context.max-model-len', '--json']);
    assert.equal(r.code, 0, r.err);
    const rows = rowsOf(r.out);
    assert.deepEqual(
      rows.map((x) => [x.id, x.status, x.old]),
      [
        ['stream.done', 'pass', undefined],
        ['context.max-model-len', 'pass', undefined],
      ],
    );
    const t = translator('en');
    let ran = false;
    const pair: PairCheck = {
      kind: 'pair',
      id: 'test.pair',
      number: '0.1',
      group: 'load',
      title: 'gate.check.stream.done',
      probe: false,
      run: async () => {
        ran = true;
        return { old: { status: 'pass', evidence: [] }, new: { status: 'pass', evidence: [] } };
      },
    };
    const ctx: CheckContext = {
      t,
      timeoutMs: 5000,
      seed: 1,
      signal: new AbortController().signal,
      probe: false,
    };
    const rows2 = await runGate([pair], null, { role: 'url', baseUrl: same.base, model: 'qwen3-8b' }, ctx);
    assert.equal(ran, false);
    assert.equal(rows2[0].status, 'skipped');
    assert.match(rows2[0].reason ?? '', /needs an old and a new version/);
  });

  test('--checks takes ids, numbers, group names and group numbers, in docs/gate.md order', () => {
    const t = translator('en');
    const problems: { message: string }[] = [];
    const ids = selectChecks('7,stream.done,1.1,metrics', t, problems).map((c) => c.id);
    assert.deepEqual(problems, []);
    assert.deepEqual(ids, ['stream.role-first', 'stream.done', 'reasoning.field-name', 'metrics.names']);
    // ids and numbers are unique and stable in form
    const all = ALL_CHECKS.map((c) => c.id);
    assert.equal(new Set(all).size, all.length);
    assert.equal(new Set(ALL_CHECKS.map((c) => c.number)).size, all.length);
    for (const c of ALL_CHECKS) assert.match(c.id, new RegExp(`^${c.group}\\.[a-z0-9-]+$`));
  });
});
