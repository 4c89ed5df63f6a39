/**
 * Entry point for tests that spawn the CLI as a real process (signals, exit codes) without
 * needing a build: `node --import tsx test/helpers/cli-entry.ts run …`.
 */
import { main } from '../../src/cli/main.js';

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
