#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm install` through the
// `prepare` script). Keeping this file plain JS lets `npx servelab` work without tsx.
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
