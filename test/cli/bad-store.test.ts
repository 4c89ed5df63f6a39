/**
 * A --db that is not a servelab store is a usage error with a hint, for every command that
 * opens the store, never an internal error with a stack.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { UsageError } from '../../src/core/errors.js';
import { openStore } from '../../src/store/index.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-bad-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const notDb = join(dir, 'not-a-database.json');
writeFileSync(notDb, '{"a": 1}\n');

test('openStore refuses a file that is not a database with a UsageError', () => {
  assert.throws(
    () => openStore(notDb),
    (e: unknown) => e instanceof UsageError && /not a servelab store/.test(e.problems[0].message),
  );
});

for (const argv of [
  ['report', 'abc', '--db', notDb],
  ['diagnose', 'abc', '--db', notDb],
  ['runs', 'list', '--db', notDb],
  ['exp', 'list', '--db', notDb],
]) {
  test(`${argv.slice(0, 2).join(' ')} --db not-a-database: exit 1, a hint, no stack`, async () => {
    const io = memoryIo({}, dir);
    assert.equal(await main(argv, io), 1, io.err());
    assert.match(io.err(), /is not a servelab store/);
    assert.match(io.err(), /hint: point --db at the servelab.db/);
    assert.doesNotMatch(io.err(), /internal error|\n\s+at /);
  });
}
