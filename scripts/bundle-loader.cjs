'use strict';
// Runs the fast-start bundles of the front ends (memoryd-mcp, memoryctl).
// Every MCP session spawns a shim and every script line spawns memoryctl,
// so start-up is the user's wait, and most of it is V8 compiling bundled
// code. Node 20 has no compile cache for modules (module.enableCompileCache()
// came in 22.1), but `vm.Script` takes V8 code cache data. So the bundles
// are CommonJS-shaped (scripts/bundle-cjs.mjs) and run here the way Node's
// CommonJS loader would, with a code cache made at build time. V8 checks only the source's length against a cache, so the
// cache file starts with a 64-bit digest of the bundle it was made from; any
// mismatch (or a V8 that rejects it) just means compiling as usual. The
// digest is computed here in JS rather than with node:crypto, whose loading
// alone cost ~6 ms of every spawn; it guards against a stale cache, not an
// adversary (whoever can write the cache can write the bundle).
//
// The build copies this file into each front end's dist/ (and `npm run pack`
// into the release's), beside its bundle, where the bin requires it.
// CommonJS, like the bins: Node's ESM loader would add ~10 ms to every spawn.
const { readFileSync, statSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { basename, dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { Script } = require('node:vm');

const HASH_BYTES = 8;
// Node's CommonJS wrapper, plus the bundle's import.meta.url (see the
// bundle script's banner).
const HEAD = '(function (exports, require, module, __filename, __dirname, __memorydBundleUrl) {';
const TAIL = '\n})';

/**
 * A 64-bit digest of `bytes` (cyrb53's mixing over 32-bit words, widened to
 * two full words): a quarter of the steps of hashing the text by character,
 * which was ~4 ms of every start.
 * @param {Buffer} bytes
 */
function digest(bytes) {
  // Word access needs 4-byte alignment; a fresh read's buffer has it.
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(bytes);
  const words = new Int32Array(aligned.buffer, aligned.byteOffset, aligned.length >>> 2);
  let h1 = 0xdeadbeef ^ bytes.length;
  let h2 = 0x41c6ce57 ^ bytes.length;
  for (let i = 0; i < words.length; i++) {
    const c = words[i];
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  for (let i = words.length << 2; i < aligned.length; i++) {
    const c = aligned[i];
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const out = Buffer.alloc(HASH_BYTES);
  out.writeUInt32LE(h1 >>> 0, 0);
  out.writeUInt32LE(h2 >>> 0, 4);
  return out;
}

/**
 * The V8 data of `cacheFile` if it was made from `bytes`, else undefined.
 * @param {string} cacheFile @param {Buffer} bytes the bundle's
 */
function cacheFor(cacheFile, bytes) {
  let data;
  try {
    data = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  if (data.length <= HASH_BYTES || !data.subarray(0, HASH_BYTES).equals(digest(bytes))) return undefined;
  return data.subarray(HASH_BYTES);
}

/**
 * Runs the bundle `file` (esbuild's CommonJS output) in this context, using
 * the code cache in `cacheFile` when it matches.
 * @param {string} file
 * @param {string} cacheFile
 * @returns {{ entry: { main(argv: readonly string[]): Promise<void> }, cacheAccepted: boolean, writeCodeCache(): void }}
 *   `entry` is what the bundle exports (dist/bin/main.js); `cacheAccepted`
 *   is true when V8 used the cache; `writeCodeCache` writes a cache of
 *   everything compiled so far (build time only).
 */
function loadBundle(file, cacheFile) {
  const bytes = readFileSync(file);
  const source = bytes.toString('utf8');
  const cachedData = cacheFor(cacheFile, bytes);
  // The script is named by its file name alone: a code cache keeps the name the script had when the
  // cache was made, so a full path would be the build machine's in every stack the release prints.
  const script = new Script(HEAD + source + TAIL, { filename: basename(file), ...(cachedData !== undefined ? { cachedData } : {}) });
  const wrapper = script.runInThisContext();
  const module = { exports: {} };
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file), pathToFileURL(file).href);
  return {
    entry: module.exports,
    cacheAccepted: cachedData !== undefined && script.cachedDataRejected === false,
    writeCodeCache: () => writeFileSync(cacheFile, Buffer.concat([digest(bytes), script.createCachedData()])),
  };
}

/**
 * What a front end's bin runs (memoryd-mcp, memoryctl): `DIST/NAME.cjs`
 * with its code cache when it exists and is not older than the last
 * `tsc -b` (else it would run stale code; a release has no .tsbuildinfo),
 * otherwise the compiled `DIST/bin/main.js`. `fail` gets any error.
 * @param {string} dist @param {string} name @param {readonly string[]} argv
 * @param {(err: unknown) => void} fail
 */
function runFrontEnd(dist, name, argv, fail) {
  const bundle = join(dist, `${name}.cjs`);
  const built = statSync(bundle, { throwIfNoEntry: false });
  const compiled = statSync(join(dist, '.tsbuildinfo'), { throwIfNoEntry: false });
  if (built !== undefined && (compiled === undefined || built.mtimeMs >= compiled.mtimeMs)) {
    loadBundle(bundle, join(dist, `${name}.v8cache`)).entry.main(argv).catch(fail);
    return;
  }
  // Node >= 22.1 can keep compiled modules between runs (a no-op on Node 20).
  require('node:module').enableCompileCache?.();
  import(pathToFileURL(join(dist, 'bin', 'main.js')).href).then((m) => m.main(argv)).catch(fail);
}

module.exports = { loadBundle, runFrontEnd };
