#!/usr/bin/env node
'use strict';
// Committed entry point, so `npx memoryd` resolves an executable file even
// before the build has run. A service manager or an autostarting client
// waits for the socket, and a restart's first search waits for the daemon:
// the bundle and its V8 code cache (scripts/bundle-daemon.mjs) start much
// faster than some 200 modules compiled afresh. The loader the build puts
// beside them picks the bundle while it is current, else the compiled
// dist. CommonJS (bin/package.json), like the other bins, so the release
// package (scripts/pack.mjs) can carry all three in one bin/ folder.
const { join } = require('node:path');

const argv = process.argv.slice(2);
const fail = (err) => {
  process.stderr.write(`memoryd: ${err && err.stack ? err.stack : err}\n`);
  process.exitCode = 1;
};

let loader;
try {
  loader = require('../dist/bundle-loader.cjs');
} catch {
  // Compiled (tsc -b) but never bundled: the dist is all there is.
  import('../dist/bin/main.js').then((m) => m.main(argv)).catch(fail);
}
loader?.runFrontEnd(join(__dirname, '..', 'dist'), 'memoryd', argv, fail);
