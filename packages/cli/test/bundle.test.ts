import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { cleanupAll, tempDir } from '@memoryd/test-support';
import { MEMORYCTL_BIN as BIN } from './helpers/memoryctl.js';

after(cleanupAll);

// The fast-start build (scripts/bundle-cli.mjs): one bundle and a V8 code
// cache, run by bin/memoryctl.js through dist/bundle-loader.cjs. The other
// tests run the bin, so they exercise the bundle; these pin that it is
// current, that V8 takes its cache, and that the bin runs it.

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const BUNDLE = join(DIST, 'memoryctl.cjs');
const CACHE = join(DIST, 'memoryctl.v8cache');

type LoadBundle = (file: string, cacheFile: string) => { entry: { main?: unknown }; cacheAccepted: boolean };
// The loader is the bin's (CommonJS, like the bin; scripts/bundle-loader.cjs), not public API.
const { loadBundle } = createRequire(import.meta.url)('../dist/bundle-loader.cjs') as { loadBundle: LoadBundle };

describe('the memoryctl bundle', () => {
  test('is built, no older than the compiled dist, and V8 accepts its code cache', () => {
    const bundle = statSync(BUNDLE, { throwIfNoEntry: false });
    assert.ok(bundle, 'run `node scripts/bundle-cli.mjs` after `tsc -b`');
    assert.ok(bundle.mtimeMs >= statSync(join(DIST, '.tsbuildinfo')).mtimeMs, 'the bundle is older than the last tsc -b: run scripts/bundle-cli.mjs');
    const loaded = loadBundle(BUNDLE, CACHE);
    assert.equal(typeof loaded.entry.main, 'function');
    assert.equal(loaded.cacheAccepted, true);
  });

  test('carries every dependency but Node\'s own: it runs with no node_modules', () => {
    const requires = new Set([...readFileSync(BUNDLE, 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!));
    const foreign = [...requires].filter((id) => !id.startsWith('node:') && !['events', 'os', 'readline', 'util', 'tty', 'fs', 'path', 'stream', 'string_decoder'].includes(id));
    assert.deepEqual(foreign, []);
  });

  test('the bin runs the bundle while it is current, else the compiled dist', () => {
    // The bin's choice, in a copy of the package layout whose bundle and
    // dist each say which one ran.
    const pkg = tempDir();
    mkdirSync(join(pkg, 'bin'));
    mkdirSync(join(pkg, 'dist', 'bin'), { recursive: true });
    copyFileSync(BIN, join(pkg, 'bin', 'memoryctl.js'));
    copyFileSync(fileURLToPath(new URL('../bin/package.json', import.meta.url)), join(pkg, 'bin', 'package.json'));
    copyFileSync(join(DIST, 'bundle-loader.cjs'), join(pkg, 'dist', 'bundle-loader.cjs'));
    writeFileSync(join(pkg, 'package.json'), '{"type":"module"}');
    writeFileSync(join(pkg, 'dist', 'memoryctl.cjs'), "exports.main = async (argv) => { process.stdout.write('bundle ' + argv.join(' ')); };");
    writeFileSync(join(pkg, 'dist', 'bin', 'main.js'), "export async function main(argv) { process.stdout.write('dist ' + argv.join(' ')); }");
    const run = () => execFileSync(process.execPath, [join(pkg, 'bin', 'memoryctl.js'), 'status', '--json'], { encoding: 'utf8' });
    assert.equal(run(), 'bundle status --json', 'no .tsbuildinfo (an installed release): the bundle');
    const info = join(pkg, 'dist', '.tsbuildinfo');
    writeFileSync(info, '{}');
    utimesSync(join(pkg, 'dist', 'memoryctl.cjs'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    assert.equal(run(), 'dist status --json', 'a tsc -b after the bundle: the compiled dist');
    utimesSync(info, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    assert.equal(run(), 'bundle status --json', 'a bundle made after the last tsc -b: the bundle');
  });
});
