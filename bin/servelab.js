#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm install` through the
// `prepare` script). Keeping this file plain JS lets `npx servelab` work without tsx.
// A closed stdout (`servelab report … | head -1`) is handled in cli/io processIo: writes stop,
// the command finishes its files, and its exit code stands.
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
