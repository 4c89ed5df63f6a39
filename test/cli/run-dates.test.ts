/**
 * A run on a virtual clock (`servelab plan`) carries its wall-clock start: `runs list` and the
 * dashboard's API date it today, not 1970 (its run clock's virtual origin), and list it first.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startDashboard } from '../../src/dashboard/index.js';
import { unixNowMs } from '../../src/runtime/clock.js';
import { openStore } from '../../src/store/index.js';
import { getJson } from '../dashboard/helpers.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-dates-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const db = join(dir, 'runs.db');

const iso = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

describe('a virtual-clock run is dated by the wall clock', () => {
  it('in `runs list` and in the dashboard API', async () => {
    // An older run on the wall clock, stored a day ago: the virtual run must list above it.
    const writer = openStore(db);
    const older = writer.createRun({
      kind: 'run',
      label: 'yesterday',
      startedAtUnixMs: unixNowMs() - 86_400_000,
    });
    writer.finishRun(older.id, null, 'completed');
    writer.close();

    const before = Math.floor(unixNowMs() / 1000) * 1000;
    const plan = memoryIo({}, dir);
    const args = ['plan', '--model', 'llama-3.1-8b', '--gpu', 'h100', '--requests', '6', '--rate', '4'];
    assert.equal(await main([...args, '--output-len', '8', '--db', db, '--json'], plan), 0, plan.err());
    const after_ = unixNowMs();
    const runId = JSON.parse(plan.out()).run_id as string;
    assert.ok(runId, 'plan stored its run');

    const list = memoryIo({}, dir);
    assert.equal(await main(['runs', 'list', '--db', db], list), 0, list.err());
    const lines = list.out().trim().split('\n');
    assert.ok(lines[0].startsWith(runId), `the virtual run is the newest:\n${list.out()}`);
    const shown = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/.exec(lines[0])?.[0];
    assert.ok(shown, lines[0]);
    assert.doesNotMatch(lines[0], /1970-01-01/);
    // plan judged the run: its verdict is on its line; the older run was never judged.
    assert.match(lines[0], / (valid|INVALID: [a-z_, ]+) /);
    assert.match(lines[1], / completed +- /);
    assert.ok(shown >= iso(before) && shown <= iso(after_), `${shown} within the plan's wall time`);

    const json = memoryIo({}, dir);
    assert.equal(await main(['runs', 'list', '--db', db, '--json'], json), 0, json.err());
    const row = (JSON.parse(json.out()) as Record<string, number | string>[]).find((r) => r.id === runId);
    assert.ok(row);
    // The run clock's origin stays virtual (the report's times are relative to it); the wall start is a date.
    assert.ok((row.started_at_unix_ms as number) < 86_400_000, 'the run clock is virtual');
    const wall = row.wall_started_at_unix_ms as number;
    assert.ok(wall >= before && wall <= after_, `${wall} within [${before}, ${after_}]`);
    assert.equal(
      typeof (row.verdict as unknown as { valid: boolean }).valid,
      'boolean',
      'the stored verdict',
    );

    const dash = await startDashboard({ dbPath: db });
    try {
      const { body } = await getJson<{ runs: Record<string, unknown>[] }>(`${dash.url}api/runs`);
      assert.equal(body.runs[0].id, runId, 'newest first on the dashboard too');
      assert.equal(body.runs[0].wall_started_at_unix_ms, wall);
      assert.equal(body.runs[1].label, 'yesterday');
      // plan judged the run; the list carries the verdict it stored.
      assert.equal(typeof (body.runs[0].verdict as { valid: boolean }).valid, 'boolean');
    } finally {
      await dash.close();
    }
  });
});
