import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

// Every MCP session spawns a shim, so start-up is the user's wait, and most
// of it is V8 compiling the bundled SDK. Node 20 has no compile cache for
// modules (module.enableCompileCache() came in 22.1), but `vm.Script` takes
// V8 code cache data. So the bundle is CommonJS-shaped (scripts/bundle-shim.mjs)
// and run here the way Node's CommonJS loader would, with a code cache made
// at build time. V8 checks only the source's length against a cache, so the
// cache file starts with a SHA-256 of the bundle it was made from; any
// mismatch (or a V8 that rejects it) just means compiling as usual.

/** What the bundle exports: the entry of dist/bin/main.js. */
export interface ShimEntry {
  main(argv: readonly string[]): Promise<void>;
}

/** A bundle run in this process. */
export interface LoadedBundle {
  entry: ShimEntry;
  /** True when V8 used the code cache. */
  cacheAccepted: boolean;
  /** Writes a code cache of everything compiled so far (build time only). */
  writeCodeCache(): void;
}

const HASH_BYTES = 32;
// Node's CommonJS wrapper, plus the bundle's import.meta.url (see the
// bundle script's banner).
const HEAD = '(function (exports, require, module, __filename, __dirname, __memorydBundleUrl) {';
const TAIL = '\n})';

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The V8 data of `cacheFile` if it was made from `source`, else undefined. */
function cacheFor(cacheFile: string, source: string): Buffer | undefined {
  let data: Buffer;
  try {
    data = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  if (data.length <= HASH_BYTES || !data.subarray(0, HASH_BYTES).equals(sha256(source))) return undefined;
  return data.subarray(HASH_BYTES);
}

/**
 * Runs the bundle `file` (esbuild's CommonJS output) in this context, using
 * the code cache in `cacheFile` when it matches, and returns its exports.
 */
export function loadBundle(file: string, cacheFile: string): LoadedBundle {
  const source = readFileSync(file, 'utf8');
  const cachedData = cacheFor(cacheFile, source);
  const script = new Script(HEAD + source + TAIL, { filename: file, ...(cachedData !== undefined ? { cachedData } : {}) });
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} as ShimEntry };
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file), pathToFileURL(file).href);
  return {
    entry: module.exports,
    cacheAccepted: cachedData !== undefined && script.cachedDataRejected === false,
    writeCodeCache: () => writeFileSync(cacheFile, Buffer.concat([sha256(source), script.createCachedData()])),
  };
}
