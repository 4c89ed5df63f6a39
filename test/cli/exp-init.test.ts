/**
 * `servelab exp init KIND FILE` writes the template, refuses to replace an existing (edited)
 * file, and replaces it only with `--force`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { experimentTemplate } from '../../src/exp/index.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-exp-init-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('servelab exp init KIND FILE', () => {
  it('writes a new file', async () => {
    const io = memoryIo({}, dir);
    assert.equal(await main(['exp', 'init', 'prefix-cache', 'new.yaml'], io), 0, io.err());
    assert.equal(readFileSync(join(dir, 'new.yaml'), 'utf8'), experimentTemplate('prefix-cache'));
    assert.match(io.err(), /wrote .*new\.yaml; run it with: servelab exp run new\.yaml/);
    assert.equal(io.out(), '');
  });

  it('refuses to overwrite an existing file, naming it, with a --force hint', async () => {
    const file = join(dir, 'edited.yaml');
    writeFileSync(file, '# my edits\n');
    const io = memoryIo({}, dir);
    assert.equal(await main(['exp', 'init', 'prefix-cache', 'edited.yaml'], io), 1);
    assert.match(io.err(), /edited\.yaml already exists/);
    assert.match(io.err(), /--force to overwrite/);
    assert.doesNotMatch(io.err(), /internal error|at .*\.ts:\d+/);
    assert.equal(readFileSync(file, 'utf8'), '# my edits\n', 'left as it was');
  });

  it('--force overwrites', async () => {
    const file = join(dir, 'forced.yaml');
    writeFileSync(file, '# my edits\n');
    const io = memoryIo({}, dir);
    assert.equal(await main(['exp', 'init', 'baseline', 'forced.yaml', '--force'], io), 0, io.err());
    assert.equal(readFileSync(file, 'utf8'), experimentTemplate('baseline'));
  });

  it('a directory or a missing parent is a usage error, not a stack trace', async () => {
    mkdirSync(join(dir, 'adir'));
    for (const [args, re] of [
      [['adir'], /adir is a directory/],
      [['adir', '--force'], /adir is a directory/],
      [['no/such/dir/x.yaml'], /cannot write .*x\.yaml/],
    ] as const) {
      const io = memoryIo({}, dir);
      assert.equal(await main(['exp', 'init', 'baseline', ...args], io), 1, args.join(' '));
      assert.match(io.err(), re);
      assert.doesNotMatch(io.err(), /internal error/);
    }
  });
});
