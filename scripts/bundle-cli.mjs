#!/usr/bin/env node
// Bundles the compiled memoryctl (packages/cli/dist/bin/main.js, from
// `tsc -b`) with everything it imports into one minified file,
// packages/cli/dist/memoryctl.cjs, plus a V8 code cache for it,
// packages/cli/dist/memoryctl.v8cache (see scripts/bundle-cjs.mjs). Scripts
// run memoryctl once per line, so its start-up is the user's wait, as the
// shim's is. packages/cli/bin/memoryctl.js runs the bundle through
// dist/bundle-loader.cjs when it is current, else the compiled dist.
//
// The cache is made by running the bundle's commands once against a real
// daemon on a temporary socket and data dir (status, add, search, list,
// agents, a --help and a usage error), so the functions a command needs are
// in it, then checked: V8 must accept it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT, bundleCjs, checkCodeCache, firstConnection, runForCodeCache, runToEnd } from './bundle-cjs.mjs';

const dist = join(ROOT, 'packages/cli/dist');
const BUNDLE = join(dist, 'memoryctl.cjs');
const CACHE = join(dist, 'memoryctl.v8cache');
const DAEMON_BIN = join(ROOT, 'packages/daemon/bin/memoryd.js');

if (process.argv[2] === '--write-code-cache') {
  const socket = process.argv[3];
  await runForCodeCache(BUNDLE, CACHE, async ({ main }) => {
    const on = ['--socket', socket, '--no-autostart'];
    for (const argv of [
      ['status', ...on],
      ['status', '--json', ...on],
      ['add', 'bundle', 'the code cache is made from real commands', '--tag', 'build', ...on],
      ['search', 'bundle', 'code cache', ...on],
      ['list', 'bundle', ...on],
      ['agents', ...on],
      ['--help'],
      ['status', '--help'],
      ['no-such-command'],
    ]) {
      await main(argv);
    }
    process.exitCode = 0;
  });
} else {
  await bundleCjs({ entry: 'packages/cli/dist/bin/main.js', outfile: BUNDLE, cacheFile: CACHE });
  await writeCodeCache();
  checkCodeCache('bundle-cli', BUNDLE, CACHE);
}

/** Starts a daemon on a temp dir, runs this script in child mode against it, and cleans up (bounded). */
async function writeCodeCache() {
  const dir = mkdtempSync(join(tmpdir(), 'memoryd-bundle-cli-'));
  const socket = join(dir, 'd.sock');
  const daemon = spawn(process.execPath, [DAEMON_BIN, '--socket', socket, '--data-dir', join(dir, 'data'), '--log-level', 'error'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    (await firstConnection('bundle-cli', socket, daemon)).destroy();
    // Its stderr holds the usage error it is made to print: shown only on failure.
    await runToEnd('bundle-cli', [fileURLToPath(import.meta.url), '--write-code-cache', socket], 30_000);
  } finally {
    daemon.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
