#!/usr/bin/env node
// Committed entry point, so `npx memoryd` resolves an executable file even
// before the build has run. A service manager or an autostarting client
// waits for the socket: the bundle (scripts/bundle-daemon.mjs) loads in a
// third of the time of the compiled modules, so it runs whenever it is
// current; otherwise the compiled dist does.
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));

/** The bundle exists and is not older than the last `tsc -b` (else it would run stale code). */
function bundleIsCurrent() {
  const built = statSync(`${dist}memoryd.mjs`, { throwIfNoEntry: false });
  if (built === undefined) return false;
  const compiled = statSync(`${dist}.tsbuildinfo`, { throwIfNoEntry: false });
  return compiled === undefined || built.mtimeMs >= compiled.mtimeMs;
}

const { main } = await import(bundleIsCurrent() ? '../dist/memoryd.mjs' : '../dist/bin/main.js');
main(process.argv.slice(2));
