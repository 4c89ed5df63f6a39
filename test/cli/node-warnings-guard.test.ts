/**
 * "No Node warning reaches stderr in any test's CLI run" (issue 23) holds only if every test file
 * that runs the CLI listens for warnings: in this process (`main(…)` from src/cli/main, which
 * test/helpers/node-warnings fails on in an `after` hook) or as a spawned process (its stderr
 * checked by test/helpers/cli-process, or by the file itself with `assertNoNodeWarning`). This
 * test lists the files that run the CLI without either, so a new one cannot forget.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
}

test('every test file that runs the CLI fails on a Node warning', () => {
  const runsCli = /from '\.\.\/\.\.\/src\/cli\/main\.js'|cli-entry/;
  const guarded =
    /helpers\/node-warnings\.js'|helpers\/cli-process\.js'|helpers\/run-lesson\.js'|assertNoNodeWarning/;
  const missing = testFiles(ROOT)
    .filter((f) => {
      const text = readFileSync(f, 'utf8');
      return runsCli.test(text) && !guarded.test(text);
    })
    .map((f) => f.slice(ROOT.length + 1));
  assert.deepEqual(missing, [], "import '../helpers/node-warnings.js' in these files");
});
