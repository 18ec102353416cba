// Search queries drawn from the searched agent's own facts: pick a fact at
// random, take 1–3 consecutive words of it that are not stop words, and for
// a share of queries cut the last word short and ask for its completions
// with a trailing `*` (the daemon matches it as a prefix only then).

import { deriveSeed, intBetween, mulberry32 } from './random.mjs';
import { STOP_WORD_SET } from './words.mjs';

/** Share of queries whose last word is cut short, to exercise prefix matching. */
export const PREFIX_SHARE = 0.2;

/** Leading and trailing punctuation that is not part of a word a user would type. */
const EDGE_PUNCTUATION = /^[\s"'(),.:;!?]+|[\s"'(),.:;!?]+$/g;

/**
 * The words of a fact a user could search it by: split on white space,
 * edge punctuation dropped, stop words left out. Identifiers stay whole
 * (`v1.2.3`, `src/a/b.ts`, `a.b@c.io`).
 * @param {string} content
 * @returns {string[]}
 */
export function searchableWords(content) {
  const words = [];
  for (const raw of content.split(/\s+/)) {
    const word = raw.replace(EDGE_PUNCTUATION, '');
    if (word !== '' && !STOP_WORD_SET.has(word.toLowerCase())) words.push(word);
  }
  return words;
}

/**
 * `count` queries from `facts` (deterministic for a seed). Each has 1, 2 or
 * 3 words (2 most often); with probability {@link PREFIX_SHARE} its last
 * word, when it is a plain word of 5 or more letters, keeps only its first
 * 3 … length-2 letters.
 * @param {ReadonlyArray<{content: string}>} facts
 * @param {number} count
 * @param {number} seed
 * @param {string} [stream] names an independent stream: the warm-up's queries are not the timed ones
 * @returns {{text: string, prefix: boolean}[]}
 */
export function drawQueries(facts, count, seed, stream = 'queries') {
  if (facts.length === 0) throw new Error('no facts to draw queries from');
  const rand = mulberry32(deriveSeed(seed, stream));
  const queries = [];
  while (queries.length < count) {
    const fact = /** @type {{content: string}} */ (facts[Math.floor(rand() * facts.length)]);
    const words = searchableWords(fact.content);
    if (words.length === 0) continue;
    const u = rand();
    const length = Math.min(words.length, u < 0.35 ? 1 : u < 0.8 ? 2 : 3);
    const start = intBetween(rand, 0, words.length - length);
    const picked = words.slice(start, start + length);
    let prefix = false;
    const last = /** @type {string} */ (picked[picked.length - 1]);
    if (rand() < PREFIX_SHARE && /^[A-Za-z]{5,}$/.test(last)) {
      picked[picked.length - 1] = `${last.slice(0, intBetween(rand, 3, last.length - 2))}*`;
      prefix = true;
    }
    queries.push({ text: picked.join(' '), prefix });
  }
  return queries;
}
