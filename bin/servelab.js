#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm install` through the
// `prepare` script). Keeping this file plain JS lets `npx servelab` work without tsx.
import { main } from '../dist/cli/main.js';

// `servelab runs export ID | head` closes the pipe early: that is the reader's choice, not an
// error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
