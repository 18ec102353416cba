#!/usr/bin/env node
'use strict';
// Committed entry point, so `npx memoryctl` resolves an executable file even
// before the build has run. Scripts run memoryctl once per line, so start-up
// is the user's wait: the bundle and its V8 code cache (scripts/bundle-cli.mjs)
// start several times faster than the compiled modules, and this file is
// CommonJS (bin/package.json) so no ESM loader starts on that path. Without
// a current bundle, the compiled dist runs.
const { statSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');
const bundle = join(dist, 'memoryctl.cjs');

/** The bundle exists and is not older than the last `tsc -b` (else it would run stale code). */
function bundleIsCurrent() {
  const built = statSync(bundle, { throwIfNoEntry: false });
  if (built === undefined) return false;
  const compiled = statSync(join(dist, '.tsbuildinfo'), { throwIfNoEntry: false });
  return compiled === undefined || built.mtimeMs >= compiled.mtimeMs;
}

const argv = process.argv.slice(2);
const fail = (err) => {
  process.stderr.write(`memoryctl: ${err && err.stack ? err.stack : err}\n`);
  process.exitCode = 1;
};
if (bundleIsCurrent()) {
  const { loadBundle } = require('../dist/bundle-loader.cjs');
  loadBundle(bundle, join(dist, 'memoryctl.v8cache')).entry.main(argv).catch(fail);
} else {
  require('node:module').enableCompileCache?.();
  import('../dist/bin/main.js').then((m) => m.main(argv)).catch(fail);
}
