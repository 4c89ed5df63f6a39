/**
 * `report` on a run whose process was killed (SIGKILL: the row stays `running`, its pid is gone)
 * says it ended without a summary and what can be recovered, not "wait for it to finish".
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { openStore } from '../../src/store/store.js';
import '../helpers/node-warnings.js';

it('report on a killed run names what is left; on a live one it says to wait', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'servelab-killed-')), 's.db');
  const dead = openStore(db, { isAlive: () => false, pid: 999_999_999 });
  const killed = dead.createRun({ kind: 'run', label: 'killed' }).id;
  dead.close();
  const live = openStore(db);
  const running = live.createRun({ kind: 'run', label: 'live' }).id;
  live.close();

  const io = memoryIo({});
  assert.equal(await main(['report', killed, '--db', db], io), 1);
  assert.match(io.err(), new RegExp(`run ${killed} ended without a summary`));
  assert.match(io.err(), new RegExp(`servelab runs export ${killed}`));
  assert.doesNotMatch(io.err(), /wait for it to finish/);

  const io2 = memoryIo({});
  assert.equal(await main(['report', running, '--db', db], io2), 1);
  assert.match(io2.err(), /has no summary yet \(status running\)/);
  assert.match(io2.err(), /wait for it to finish/);
});
