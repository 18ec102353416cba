// What the fast-start bundles of the front ends share (bundle-shim.mjs for
// memoryd-mcp, bundle-cli.mjs for memoryctl): one minified CommonJS file per
// bin, made by esbuild from the compiled dist, run by bundle-loader.cjs with
// a V8 code cache made at build time. CommonJS-shaped because only
// `vm.Script` takes a code cache on Node 20.
import { spawn } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOADER = join(ROOT, 'scripts/bundle-loader.cjs');

/** @type {(file: string, cacheFile: string) => { entry: { main(argv: readonly string[]): Promise<void> }, cacheAccepted: boolean, writeCodeCache(): void }} */
export const loadBundle = createRequire(import.meta.url)(LOADER).loadBundle;

/**
 * Bundles `entry` (a compiled dist file, relative to the repository root)
 * into `outfile` with everything it imports, drops a stale code cache
 * `cacheFile`, and puts bundle-loader.cjs beside the bundle, where the bin
 * requires it.
 * @param {{ entry: string, outfile: string, cacheFile: string, plugins?: import('esbuild').Plugin[], external?: string[] }} options
 */
export async function bundleCjs({ entry, outfile, cacheFile, plugins = [], external = [] }) {
  const { build } = await import('esbuild');
  rmSync(cacheFile, { force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    plugins,
    external,
    // A bundle runs in a vm.Script, which has no loader for import(): lazy
    // imports of Node's own modules (kept external) become require().
    supported: { 'dynamic-import': false },
    // import.meta does not exist in CommonJS: the loader passes the bundle's
    // URL as __memorydBundleUrl; under a plain require() it comes from
    // __filename (version.ts and the client's memoryd lookup use it).
    define: { 'import.meta.url': '__memorydImportMetaUrl' },
    banner: {
      js: "var __memorydImportMetaUrl = typeof __memorydBundleUrl === 'string' ? __memorydBundleUrl : require('node:url').pathToFileURL(__filename).href;",
    },
    legalComments: 'none',
    logLevel: 'warning',
  });
  copyFileSync(LOADER, join(dirname(outfile), 'bundle-loader.cjs'));
}

/**
 * Child mode of a bundle script: runs `drive` against the freshly compiled
 * bundle, then writes the code cache of everything that ran.
 * @param {string} bundle @param {string} cacheFile
 * @param {(entry: { main(argv: readonly string[]): Promise<void> }) => Promise<void>} drive
 */
export async function runForCodeCache(bundle, cacheFile, drive) {
  const loaded = loadBundle(bundle, cacheFile);
  process.on('exit', () => loaded.writeCodeCache());
  await drive(loaded.entry);
}

/** Fails the build unless V8 takes the cache just written for `bundle`. */
export function checkCodeCache(prog, bundle, cacheFile) {
  if (!loadBundle(bundle, cacheFile).cacheAccepted) fail(prog, 'V8 rejected the code cache just written');
}

/**
 * Runs `node ARGS` to its end, killed after `timeoutMs`; fails `prog` with
 * the child's stderr unless it exits 0. How a bundle script runs itself in
 * child mode to write a code cache.
 * @param {string} prog @param {string[]} args @param {number} timeoutMs
 */
export async function runToEnd(prog, args, timeoutMs) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (t) => (stderr += t));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  if (code !== 0) fail(prog, `the code-cache run exited with ${code}:\n${stderr}`);
}

/**
 * The first connection `socket` accepts; fails `prog` after 15 s, or as
 * soon as `daemon` (its child process, when given) has exited.
 * @param {string} prog @param {string} socket @param {import('node:child_process').ChildProcess} [daemon]
 * @returns {Promise<import('node:net').Socket>}
 */
export async function firstConnection(prog, socket, daemon) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (daemon !== undefined && daemon.exitCode !== null) fail(prog, `the daemon for the code-cache run exited with ${daemon.exitCode}`);
    const conn = await new Promise((resolve) => {
      const s = connect(socket);
      s.once('connect', () => resolve(s));
      s.once('error', () => resolve(undefined));
    });
    if (conn !== undefined) return conn;
    if (Date.now() > deadline) fail(prog, 'the daemon for the code-cache run did not serve within 15 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Ends a bundle script with `PROG: MESSAGE` and exit 1. */
export function fail(prog, message) {
  console.error(`${prog}: ${message}`);
  process.exit(1);
}
