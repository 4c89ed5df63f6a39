/**
 * Output paths: what cannot be written is found before any work; missing folders are fine.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { outputPathProblem, writeErrorProblem } from '../../src/core/output-path.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-output-path-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'a-file');
const folder = join(dir, 'a-dir');
writeFileSync(file, 'x');
mkdirSync(folder);

test('a path that can be written, or created with its folders, is no problem', () => {
  assert.equal(outputPathProblem(file, '--json'), null);
  assert.equal(outputPathProblem(join(dir, 'new', 'deeper', 'r.json'), '--json'), null);
  assert.equal(outputPathProblem(folder, '--out', 'dir'), null);
  assert.equal(outputPathProblem(join(dir, 'new-dir'), '--out', 'dir'), null);
});

test('a folder where a file is wanted, a file where a folder is, a file on the way', () => {
  assert.match(outputPathProblem(folder, '--json')?.message ?? '', /a-dir is a directory$/);
  assert.match(outputPathProblem(file, '--out', 'dir')?.message ?? '', /a-file is a file, not a directory$/);
  const p = outputPathProblem(join(file, 'sub', 'r.html'), '--html');
  assert.equal(p?.path, '--html');
  assert.match(p?.message ?? '', /cannot create .*a-file[/\\]sub: .*a-file is a file$/);
  assert.ok(p?.hint);
});

test('writeErrorProblem names the flag for a file-system error and keeps a bug a bug', () => {
  const enospc = Object.assign(new Error('no space'), { code: 'ENOSPC' });
  assert.deepEqual(writeErrorProblem(enospc, '/x/r.json', '--json'), {
    path: '--json',
    message: 'cannot write /x/r.json: no space left on the device',
    hint: 'give a path in a folder you can write to (missing folders are created)',
  });
  assert.equal(writeErrorProblem(new TypeError('x is undefined'), '/x', '--json'), null);
});
