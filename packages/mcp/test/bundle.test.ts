import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { cleanupAll, tempDir } from '@memoryd/test-support';
import { overStdio } from './helpers/mcp.js';

// The fast-spawn build (scripts/bundle-shim.mjs): one bundle and a V8 code
// cache, run by bin/memoryd-mcp.js through dist/bundle-loader.cjs. The
// stdio tests run the bin, so they exercise the bundle; these pin that it is
// current, that V8 takes its cache, and that a cache made from other source
// is never used (V8 itself compares only the length).

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const BUNDLE = join(DIST, 'memoryd-mcp.cjs');
const CACHE = join(DIST, 'memoryd-mcp.v8cache');

interface LoadedBundle {
  entry: { main?: unknown };
  cacheAccepted: boolean;
  writeCodeCache(): void;
}
type LoadBundle = (file: string, cacheFile: string) => LoadedBundle;

// The loader is the bin's (CommonJS, like the bin; scripts/bundle-loader.cjs), not public API.
const { loadBundle } = createRequire(import.meta.url)('../dist/bundle-loader.cjs') as { loadBundle: LoadBundle };

describe('the shim bundle', () => {
  after(cleanupAll);

  test('is built, no older than the compiled dist, and V8 accepts its code cache', () => {
    const bundle = statSync(BUNDLE, { throwIfNoEntry: false });
    assert.ok(bundle, 'run `node scripts/bundle-shim.mjs` after `tsc -b`');
    assert.ok(bundle.mtimeMs >= statSync(join(DIST, '.tsbuildinfo')).mtimeMs, 'the bundle is older than the last tsc -b: run scripts/bundle-shim.mjs');
    const loaded = loadBundle(BUNDLE, CACHE);
    assert.equal(typeof loaded.entry.main, 'function');
    assert.equal(loaded.cacheAccepted, true);
  });

  test('a code cache made from other source of the same length is not used', () => {
    // A copy laid out like the package (version.ts reads ../package.json).
    const pkg = tempDir();
    mkdirSync(join(pkg, 'dist'));
    copyFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), join(pkg, 'package.json'));
    const file = join(pkg, 'dist', 'memoryd-mcp.cjs');
    const cache = join(pkg, 'dist', 'memoryd-mcp.v8cache');
    const source = readFileSync(BUNDLE, 'utf8');
    writeFileSync(file, source);
    copyFileSync(CACHE, cache);
    assert.equal(loadBundle(file, cache).cacheAccepted, true, 'the same source takes the cache');

    const changed = source.replace('hint: the running memory daemon', 'HINT: the running memory daemon');
    assert.notEqual(changed, source);
    assert.equal(changed.length, source.length);
    writeFileSync(file, changed);
    const loaded = loadBundle(file, cache);
    assert.equal(loaded.cacheAccepted, false);
    assert.equal(typeof loaded.entry.main, 'function', 'it still runs, compiled afresh');

    loaded.writeCodeCache();
    assert.equal(loadBundle(file, cache).cacheAccepted, true, 'a cache written for the new source is taken');
  });
});

describe('the bundled tool catalog', () => {
  after(cleanupAll);

  test('tools/list of the bundled bin equals the catalog generated from the TypeBox types', async () => {
    // The bundle answers tools/list from a JSON literal made at build time
    // (scripts/bundle-shim.mjs); it must be exactly what the types give.
    const { TOOL_CATALOG } = (await import(new URL('../dist/catalog.js', import.meta.url).href)) as { TOOL_CATALOG: unknown[] };
    const shim = await overStdio(['--socket', join(tempDir(), 'none.sock'), '--no-autostart']);
    try {
      assert.deepEqual(shim.tools, JSON.parse(JSON.stringify(TOOL_CATALOG)));
    } finally {
      await shim.close();
    }
  });
});
