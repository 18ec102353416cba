#!/usr/bin/env node
// Committed entry point, so `npx memoryd-mcp` resolves an executable file
// even before the build has run. Every MCP session spawns a shim, so start-up
// is the user's wait: the bundle and its V8 code cache (scripts/bundle-shim.mjs)
// start much faster than hundreds of modules compiled afresh. Without a
// current bundle, the compiled dist runs.
import { statSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/', import.meta.url);
const bundle = fileURLToPath(new URL('memoryd-mcp.cjs', dist));

/** The bundle exists and is not older than the last `tsc -b` (else it would run stale code). */
function bundleIsCurrent() {
  const built = statSync(bundle, { throwIfNoEntry: false });
  if (built === undefined) return false;
  const compiled = statSync(new URL('.tsbuildinfo', dist), { throwIfNoEntry: false });
  return compiled === undefined || built.mtimeMs >= compiled.mtimeMs;
}

let main;
if (bundleIsCurrent()) {
  const { loadBundle } = await import('../dist/bundle-loader.js');
  ({ main } = loadBundle(bundle, fileURLToPath(new URL('memoryd-mcp.v8cache', dist))).entry);
} else {
  // Node >= 22.1 can keep compiled modules between runs (a no-op on Node 20).
  module.enableCompileCache?.();
  ({ main } = await import('../dist/bin/main.js'));
}
await main(process.argv.slice(2));
