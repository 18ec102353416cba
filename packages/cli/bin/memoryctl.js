#!/usr/bin/env node
'use strict';
// Committed entry point, so `npx memoryctl` resolves an executable file even
// before the build has run. Scripts run memoryctl once per line, so start-up
// is the user's wait: the bundle and its V8 code cache (scripts/bundle-cli.mjs)
// start several times faster than the compiled modules. The loader the build
// puts beside them picks the bundle while it is current, else the compiled
// dist. CommonJS (bin/package.json), so no ESM loader starts on that path.
const argv = process.argv.slice(2);
const fail = (err) => {
  process.stderr.write(`memoryctl: ${err && err.stack ? err.stack : err}\n`);
  process.exitCode = 1;
};
let loader;
try {
  loader = require('../dist/bundle-loader.cjs');
} catch {
  // Compiled (tsc -b) but never bundled: the dist is all there is.
  import('../dist/bin/main.js').then((m) => m.main(argv)).catch(fail);
}
loader?.runFrontEnd(require('node:path').join(__dirname, '..', 'dist'), 'memoryctl', argv, fail);
