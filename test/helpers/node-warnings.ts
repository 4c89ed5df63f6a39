/**
 * No Node warning may reach a user's stderr: a `MaxListenersExceededWarning` or a
 * `DeprecationWarning` printed by `servelab exp run` is a bug, whatever the exit code says.
 *
 * - A CLI spawned as a process: {@link assertNoNodeWarning} on its stderr (`cliProcess` does it
 *   for every call; the tests that spawn the CLI themselves call it).
 * - The CLI run in this process (`main(args, memoryIo(…))`): importing this module listens for
 *   `process` 'warning' events (https://nodejs.org/api/process.html#event-warning) and fails
 *   the file's run in an `after` hook, naming each warning and where it was emitted.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';

/** A line Node prints for a process warning: `(node:1234) [DEP0040] DeprecationWarning: …`. */
const NODE_WARNING = /^\(node:\d+\) (?:\[\w+\] )?\w*Warning: .*$/m;

/** Fail when `stderr` holds a Node warning line, quoting it. */
export function assertNoNodeWarning(stderr: string, what = 'the CLI'): void {
  const m = NODE_WARNING.exec(stderr);
  assert.equal(m, null, `${what} printed a Node warning on stderr: ${m?.[0]}`);
}

const seen: string[] = [];
process.on('warning', (w) => {
  seen.push(`${w.name}: ${w.message}\n${w.stack ?? ''}`);
});
after(() => {
  assert.deepEqual(seen, [], `Node warnings were emitted in this process:\n${seen.join('\n')}`);
});
