#!/usr/bin/env node
'use strict';
// Committed entry point, so `npx memoryd-mcp` resolves an executable file
// even before the build has run. Every MCP session spawns a shim, so
// start-up is the user's wait: the bundle and its V8 code cache
// (scripts/bundle-shim.mjs) start much faster than hundreds of modules
// compiled afresh. The loader the build puts beside them picks the bundle
// while it is current, else the compiled dist. CommonJS (bin/package.json),
// so no ESM loader starts on that path.
const argv = process.argv.slice(2);
const fail = (err) => {
  process.stderr.write(`memoryd-mcp: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
};
let loader;
try {
  loader = require('../dist/bundle-loader.cjs');
} catch {
  // Compiled (tsc -b) but never bundled: the dist is all there is.
  import('../dist/bin/main.js').then((m) => m.main(argv)).catch(fail);
}
loader?.runFrontEnd(require('node:path').join(__dirname, '..', 'dist'), 'memoryd-mcp', argv, fail);
