#!/usr/bin/env node
// Bundles the compiled daemon (packages/daemon/dist/bin/main.js, from
// `tsc -b`) with its pure-JS dependencies into one minified CommonJS file,
// packages/daemon/dist/memoryd.cjs, plus a V8 code cache for it,
// packages/daemon/dist/memoryd.v8cache, as the front ends are bundled
// (scripts/bundle-cjs.mjs). A service manager or an autostarting client
// waits for the daemon's socket, and a restart's first search waits for
// the daemon: one file loads in a fraction of the time of the ~200
// compiled modules (TypeBox alone is most of them), and compiled code
// from the cache saves compiling it again (about 40 ms of each start
// here, against the ESM bundle this replaced). `level` and `classic-level`
// stay outside: they load a native addon next to their own files.
// packages/daemon/bin/memoryd.js runs the bundle when it is current, else
// the compiled dist.
//
// The cache is made by running the bundle once: a daemon on a temporary
// data dir, serving a few adds, searches and checkpoints, then stopped by
// SIGTERM, so the functions of a start, a first search and a stop are in
// it; then checked: V8 must accept it. The search index worker (a worker
// thread the daemon starts to rebuild an index, store/level/index-builder.ts) is
// an ESM bundle of its own beside the daemon's.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NdjsonClient } from './bench/ndjson-client.mjs';
import { ROOT, bundleCjs, checkCodeCache, fail as failWith, firstConnection, runForCodeCache, runToEnd } from './bundle-cjs.mjs';

const dist = join(ROOT, 'packages/daemon/dist');
const BUNDLE = join(dist, 'memoryd.cjs');
const CACHE = join(dist, 'memoryd.v8cache');
// pg-native: pg's optional libpq binding, required only if asked for (ADR 0027: the pure JavaScript client is used).
// onnxruntime-node, @huggingface/tokenizers: the local embedder's optional packages, imported only with --embedder local (docs/embeddings.md).
const EXTERNAL = ['level', 'classic-level', 'pg-native', 'onnxruntime-node', '@huggingface/tokenizers'];
/** Bound on the code-cache run, ms. */
const RUN_TIMEOUT_MS = 60_000;

function fail(message) {
  failWith('bundle-daemon', message);
}

if (process.argv[2] === '--write-code-cache') {
  // Child mode: serve on a temporary socket, drive it, stop by SIGTERM;
  // the daemon's exit writes the code cache of everything that ran.
  const [socket, dataDir] = process.argv.slice(3);
  await runForCodeCache(BUNDLE, CACHE, async ({ main }) => {
    const serving = main(['--socket', socket, '--data-dir', dataDir, '--log-level', 'error']);
    await exercise(socket);
    process.kill(process.pid, 'SIGTERM');
    await serving;
  });
} else {
  const { build } = await import('esbuild');
  await build({
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    // The bundle's CommonJS dependencies (json-rpc-2.0) call require(); ESM has none of its own.
    banner: { js: "import { createRequire as __memorydRequire } from 'node:module'; const require = __memorydRequire(import.meta.url);" },
    logLevel: 'warning',
    entryPoints: [join(dist, 'store/level/index-worker.js')],
    outfile: join(dist, 'memoryd-index-worker.mjs'),
  });
  // In dist/, so the bundle's `require('../package.json')` (version.ts) finds the package's manifest.
  await bundleCjs({ entry: 'packages/daemon/dist/bin/main.js', outfile: BUNDLE, cacheFile: CACHE, external: EXTERNAL });
  rmSync(join(dist, 'memoryd.mjs'), { force: true });
  await writeCodeCache();
  // Made under the daemon's umask (077); the release's users must read it too.
  chmodSync(CACHE, 0o644);
  checkCodeCache('bundle-daemon', BUNDLE, CACHE);
}

/** Runs this script in child mode on a temporary dir, bounded, and cleans up. */
async function writeCodeCache() {
  const dir = mkdtempSync(join(tmpdir(), 'memoryd-bundle-daemon-'));
  try {
    await runToEnd('bundle-daemon', [fileURLToPath(import.meta.url), '--write-code-cache', join(dir, 'd.sock'), join(dir, 'data')], RUN_TIMEOUT_MS);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits for the daemon on `socket`, then sends it what a first session sends, one request at a time. */
async function exercise(socket) {
  const client = new NdjsonClient(await firstConnection('bundle-daemon', socket), RUN_TIMEOUT_MS);
  const call = (method, params) => client.request(method, params).catch((err) => fail(`${method} failed in the code-cache run: ${err.message}`));
  const agentId = 'bundle';
  await call('daemon.hello', { client: 'bundle-daemon' });
  for (const content of ['the code cache is made by a real daemon', 'a first search after a restart', 'the cache covers a start, a search and a stop']) {
    await call('memory.add', { agentId, content, tags: ['build'] });
  }
  await call('memory.search', { agentId, query: 'code cache', limit: 10 });
  await call('memory.search', { agentId, query: 'restart sear*', limit: 5 });
  await call('memory.list', { agentId });
  await call('checkpoint.save', { agentId, state: { step: 1 } });
  await call('checkpoint.resume', { agentId });
  await call('daemon.status', {});
  client.socket.end();
}
