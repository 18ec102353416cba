// What the fast-start bundles of the front ends share (bundle-shim.mjs for
// memoryd-mcp, bundle-cli.mjs for memoryctl): one minified CommonJS file per
// bin, made by esbuild from the compiled dist, run by bundle-loader.cjs with
// a V8 code cache made at build time. CommonJS-shaped because only
// `vm.Script` takes a code cache on Node 20.
import { copyFileSync, rmSync } from 'node:fs';
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

/** Ends a bundle script with `PROG: MESSAGE` and exit 1. */
export function fail(prog, message) {
  console.error(`${prog}: ${message}`);
  process.exit(1);
}
