#!/usr/bin/env node
'use strict';
// Committed entry point, so `npx memoryd` resolves an executable file even
// before the build has run. A service manager or an autostarting client
// waits for the socket: the bundle (scripts/bundle-daemon.mjs) loads in a
// third of the time of the compiled modules, so it runs whenever it is
// current; otherwise the compiled dist does. CommonJS (bin/package.json),
// like the other bins, so the release package (scripts/pack.mjs) can carry
// all three in one bin/ folder.
const { statSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');

/** The bundle exists and is not older than the last `tsc -b` (else it would run stale code). */
function bundleIsCurrent() {
  const built = statSync(join(dist, 'memoryd.mjs'), { throwIfNoEntry: false });
  if (built === undefined) return false;
  const compiled = statSync(join(dist, '.tsbuildinfo'), { throwIfNoEntry: false });
  return compiled === undefined || built.mtimeMs >= compiled.mtimeMs;
}

import(bundleIsCurrent() ? '../dist/memoryd.mjs' : '../dist/bin/main.js')
  .then(({ main }) => main(process.argv.slice(2)))
  .catch((err) => {
    process.stderr.write(`memoryd: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 1;
  });
