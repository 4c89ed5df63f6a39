/**
 * A writer killed with SIGKILL half-way leaves a readable store holding every committed record,
 * and a second process reads it while it is being written (WAL).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/index.js';
import { tempDir } from './helpers.js';

const tmp = tempDir();
after(() => tmp.cleanup());

it('kill -9 mid-run: the store opens, the finished records are there, the run shows interrupted', async () => {
  const path = join(tmp.dir, 'crash.db');
  const writer = fileURLToPath(new URL('./fixtures/writer.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', writer, path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  let runId = '';
  let committed = 0;
  let readsWhileWriting = 0;
  let lastSeen = 0;
  let buf = '';
  let reader: ReturnType<typeof openStore> | undefined;
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => reject(new Error('writer exited early')));
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        nl = buf.indexOf('\n');
        if (line.startsWith('run ')) runId = line.slice(4);
        if (line.startsWith('committed ')) committed = Number(line.slice(10));
      }
      if (runId && committed > 0) {
        // Read while the child keeps writing: WAL readers neither block nor see partial batches.
        reader ??= openStore(path, { readonly: true });
        const seen = reader.getRun(runId)?.records ?? 0;
        assert.ok(seen >= lastSeen, 'the committed count never goes back');
        assert.equal(seen % 20, 0, 'batches are all-or-nothing');
        lastSeen = seen;
        readsWhileWriting++;
      }
      if (committed >= 400 && readsWhileWriting >= 3) resolve();
    });
  });
  child.kill('SIGKILL');
  const [code, signal] = await exited.catch(() => [null, 'SIGKILL']);
  assert.equal(code, null);
  assert.equal(signal, 'SIGKILL');
  reader?.close();

  const s = openStore(path);
  const ok = s.db.pragma('integrity_check', { simple: true });
  assert.equal(ok, 'ok');
  const run = s.getRun(runId);
  assert.ok(run);
  assert.equal(run.status, 'interrupted', 'its writer is gone');
  assert.ok(run.records >= committed, `${run.records} records stored, ${committed} reported committed`);
  const recs = [...s.getRecords(runId)];
  assert.equal(recs.length, run.records);
  recs.forEach((r, i) => {
    assert.equal(r.id, `r${i}`, 'records are whole and in order');
  });
  s.close();
});
