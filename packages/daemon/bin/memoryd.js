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
const { readdirSync, statSync } = require('node:fs');
const { open } = require('node:fs/promises');
const { homedir } = require('node:os');
const { join } = require('node:path');

const argv = process.argv.slice(2);
const fail = (err) => {
  process.stderr.write(`memoryd: ${err && err.stack ? err.stack : err}\n`);
  process.exitCode = 1;
};

/**
 * Begins reading the data dir's newest search index image (the agent in
 * use at the last stop, likeliest to search first) on the thread pool, now,
 * while the daemon's code loads and its store opens: at a million facts
 * the image is 76 MB, some 150 ms to read. The daemon takes the read over
 * when it would read the same file (store/image-read-ahead.ts) and checks
 * it as any image. The data dir as config.ts finds it, the newest image
 * as IndexImages.prefetchNewest does, the bytes as store/read-whole-file.ts
 * reads them (this file runs before any of those modules can load); a
 * mistake here costs one wasted read, never a wrong one. Only when serving.
 */
function readImageAhead() {
  if (argv.some((a) => /^(-h|--help|-v|--version|--verify|--repair)$/.test(a))) return;
  // For bench:search's A/B runs only (issue 29).
  if (process.env.MEMORYD_BENCH_NO_READ_AHEAD === '1') return;
  let dataDir = process.env.MEMORYD_DATA_DIR || undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--data-dir') dataDir = argv[i + 1];
    else if (argv[i].startsWith('--data-dir=')) dataDir = argv[i].slice('--data-dir='.length);
  }
  if (dataDir === undefined) {
    // packages/protocol/src/data-dir.ts's default.
    const home = (process.env.HOME || homedir()).replace(/\/+$/, '');
    const xdg = (process.env.XDG_DATA_HOME || '').replace(/\/+$/, '');
    dataDir = process.platform === 'darwin' ? `${home}/Library/Application Support/memoryd` : `${xdg || `${home}/.local/share`}/memoryd`;
  }
  if (!dataDir) return;
  const dir = join(dataDir, 'search');
  let newest;
  try {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.index')) continue;
      const path = join(dir, name);
      const { mtimeMs } = statSync(path);
      if (newest === undefined || mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
    }
  } catch {
    return;
  }
  if (newest === undefined) return;
  const bytes = (async () => {
    const file = await open(newest.path, 'r');
    try {
      const { size } = await file.stat();
      // A buffer of its own (offset 0), as the daemon's typed arrays need.
      const into = Buffer.allocUnsafeSlow(size);
      for (let at = 0; at < size; ) {
        const { bytesRead } = await file.read(into, at, size - at, at);
        if (bytesRead === 0) return undefined;
        at += bytesRead;
      }
      return into;
    } finally {
      await file.close();
    }
  })().catch(() => undefined);
  process[Symbol.for('memoryd.imageReadAhead')] = { path: newest.path, bytes };
}

readImageAhead();
let loader;
try {
  loader = require('../dist/bundle-loader.cjs');
} catch {
  // Compiled (tsc -b) but never bundled: the dist is all there is.
  import('../dist/bin/main.js').then((m) => m.main(argv)).catch(fail);
}
loader?.runFrontEnd(join(__dirname, '..', 'dist'), 'memoryd', argv, fail);
