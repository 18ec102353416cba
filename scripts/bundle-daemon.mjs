#!/usr/bin/env node
// Bundles the compiled daemon (packages/daemon/dist/bin/main.js, from
// `tsc -b`) with its pure-JS dependencies into one ESM file,
// packages/daemon/dist/memoryd.mjs. A service manager or an autostarting
// client waits for the daemon's socket: one file loads in ~90 ms where the
// ~200 modules (TypeBox alone is most of them) took ~260 ms. `level` and
// `classic-level` stay outside: they load a native addon next to their own
// files. packages/daemon/bin/memoryd.js runs the bundle when it is current,
// else the compiled dist.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'packages/daemon/dist');
const { build } = await import('esbuild');
/** What both bundles share: Node 20, ESM, the native addon's packages left outside. */
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['level', 'classic-level'],
  // The bundle's CommonJS dependencies (json-rpc-2.0) call require(); ESM has none of its own.
  banner: { js: "import { createRequire as __memorydRequire } from 'node:module'; const require = __memorydRequire(import.meta.url);" },
  logLevel: 'warning',
};
// The search index worker (a worker thread the daemon starts to rebuild an
// index, store/index-builder.ts) is its own bundle beside the daemon's.
await build({ ...common, entryPoints: [join(dist, 'search/index-worker.js')], outfile: join(dist, 'memoryd-index-worker.mjs') });
// In dist/, so the bundle's `require('../package.json')` (version.ts) finds the package's manifest.
await build({ ...common, entryPoints: [join(dist, 'bin/main.js')], outfile: join(dist, 'memoryd.mjs') });
