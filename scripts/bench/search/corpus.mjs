// The bench corpus: deterministic fact texts of the kind agents keep about
// users, projects and code, sentences of 8–25 words mixing stop words,
// common words and a Zipf-distributed long tail of pseudo-words, with
// identifiers (snake_case, kebab-case, camelCase, versions, paths, emails,
// numbers) and, on some facts, 1–3 tags. One generator per agent, each on
// its own seeded stream, so an agent's facts are the same at every scale.

import { deriveSeed, intBetween, mulberry32, pick, zipfSampler } from './random.mjs';
import { COMMON_WORDS, OPENERS, STOP_WORDS, TAG_WORDS, pseudoWords } from './words.mjs';

/** Distinct pseudo-words in the long tail: some tens of thousands, as in a real user's facts. */
export const VOCABULARY_SIZE = 40_000;

/** Zipf exponent of the pseudo-words: ≈1, as in natural language. */
const ZIPF_EXPONENT = 1.05;

/**
 * Zipf–Mandelbrot rank offset of the pseudo-words. They are the vocabulary
 * after the stop and common words, so their head is flatter than plain
 * Zipf's: with it the most frequent pseudo-word (a project name, say) is in
 * ~8% of facts, where plain Zipf put it in ~45%, more than "user".
 */
const ZIPF_OFFSET = 10;

/** Words per sentence, both included (before an identifier clause). */
export const MIN_WORDS = 8;
export const MAX_WORDS = 25;

/** Share of facts with tags, and of words that are stop words, common words (rest: pseudo-words). */
const TAGGED_SHARE = 0.3;
const STOP_SHARE = 0.3;
const COMMON_SHARE = 0.3;

/** Share of facts that carry an identifier. */
const IDENTIFIER_SHARE = 0.45;

/**
 * The shared word stock of one corpus seed: the pseudo-word list and its
 * Zipf samplers. Built once (a few ms), then used by every agent's generator.
 */
export class WordStock {
  /** @param {number} seed */
  constructor(seed) {
    /** The long-tail vocabulary; index 0 is the most frequent. */
    this.pseudo = pseudoWords(VOCABULARY_SIZE, deriveSeed(seed, 'vocabulary'));
    this.pseudoRank = zipfSampler(this.pseudo.length, ZIPF_EXPONENT, ZIPF_OFFSET);
    // Common and stop words have skewed frequencies too ("the" ≫ "whom").
    this.commonRank = zipfSampler(COMMON_WORDS.length, 0.8);
    this.stopRank = zipfSampler(STOP_WORDS.length, 1.0);
  }

  /** @param {() => number} rand */
  pseudoWord(rand) {
    return /** @type {string} */ (this.pseudo[this.pseudoRank(rand)]);
  }

  /** @param {() => number} rand */
  word(rand) {
    const u = rand();
    if (u < STOP_SHARE) return /** @type {string} */ (STOP_WORDS[this.stopRank(rand)]);
    if (u < STOP_SHARE + COMMON_SHARE) return /** @type {string} */ (COMMON_WORDS[this.commonRank(rand)]);
    return this.pseudoWord(rand);
  }
}

/** @param {string} w */
const capitalize = (w) => w.charAt(0).toUpperCase() + w.slice(1);

/**
 * One identifier as they appear in facts about code and people.
 * @param {WordStock} stock
 * @param {() => number} rand
 */
function identifier(stock, rand) {
  const w = () => stock.pseudoWord(rand);
  switch (intBetween(rand, 0, 7)) {
    case 0: return `${w()}_${w()}${rand() < 0.4 ? `_${pick(rand, COMMON_WORDS)}` : ''}`;
    case 1: return `${w()}-${pick(rand, COMMON_WORDS)}`;
    case 2: return `${w()}${capitalize(w())}`;
    case 3: return `v${intBetween(rand, 0, 12)}.${intBetween(rand, 0, 30)}.${intBetween(rand, 0, 99)}`;
    case 4: return `src/${w()}/${w()}.${pick(rand, ['ts', 'js', 'py', 'go', 'rs'])}`;
    case 5: return `${w()}.${w()}@${w()}.${pick(rand, ['com', 'io', 'dev', 'org'])}`;
    case 6: return `/etc/${w()}/${w()}.conf`;
    default: return String(intBetween(rand, 2, 65_535));
  }
}

/**
 * The facts of one agent, one after another, from its own seeded stream.
 */
export class FactTextGenerator {
  /**
   * @param {WordStock} stock
   * @param {number} seed the corpus seed
   * @param {string} agentId
   */
  constructor(stock, seed, agentId) {
    this.stock = stock;
    this.rand = mulberry32(deriveSeed(seed, `agent:${agentId}`));
  }

  /**
   * The next fact's text and tags. At most 25 words plus one identifier and
   * 3 tags of ≤ 12 characters: a few hundred bytes, far under the 16 KiB
   * content and 64-code-point tag limits.
   * @returns {{content: string, tags?: string[]}}
   */
  next() {
    const { rand, stock } = this;
    const length = intBetween(rand, MIN_WORDS, MAX_WORDS);
    const opener = pick(rand, OPENERS);
    const words = opener.split(' ');
    while (words.length < length) words.push(stock.word(rand));
    // A comma after a word now and then, as in written sentences.
    if (length > 12) {
      const at = intBetween(rand, 4, length - 3);
      words[at] = `${words[at]},`;
    }
    if (rand() < IDENTIFIER_SHARE) {
      words.splice(intBetween(rand, 2, words.length), 0, identifier(stock, rand));
    }
    const content = `${words.join(' ')}${rand() < 0.9 ? '.' : ''}`;
    if (rand() >= TAGGED_SHARE) return { content };
    const tags = new Set();
    const count = intBetween(rand, 1, 3);
    while (tags.size < count) tags.add(rand() < 0.7 ? pick(rand, TAG_WORDS) : stock.pseudoWord(rand));
    return { content, tags: [...tags] };
  }
}

/** The Zipf corpus of issue 15: a 5,000-word vocabulary, plain Zipf (s = 1), 8–20 words a fact. */
export const ZIPF_VOCABULARY = 5_000;
const ZIPF_MIN_WORDS = 8;
const ZIPF_MAX_WORDS = 20;

/**
 * Facts whose words are drawn from {@link ZIPF_VOCABULARY} pseudo-words
 * with plain Zipf frequencies (s = 1): the most common word is in ~79% of
 * facts, the next in ~50%, as the words "the", "user" and "project" are in
 * an agent's notes, but none of them is a stop word. No identifiers, and
 * no tags unless asked for (bench:search --filters): the shape that makes
 * common words expensive.
 */
export class ZipfTextGenerator {
  /**
   * @param {number} seed the corpus seed
   * @param {string} agentId
   * @param {((rand: () => number) => string[]) | undefined} tags draws each fact's tags (bench:search --filters),
   *   from a stream of its own: the texts are the same with tags or without
   */
  constructor(seed, agentId, tags = undefined) {
    this.words = pseudoWords(ZIPF_VOCABULARY, deriveSeed(seed, 'zipf-vocabulary'));
    this.rank = zipfSampler(ZIPF_VOCABULARY, 1);
    this.rand = mulberry32(deriveSeed(seed, `zipf:${agentId}`));
    this.tags = tags;
    this.tagRand = mulberry32(deriveSeed(seed, `zipf-tags:${agentId}`));
  }

  /** @returns {{content: string, tags?: string[]}} */
  next() {
    const length = intBetween(this.rand, ZIPF_MIN_WORDS, ZIPF_MAX_WORDS);
    const words = [];
    for (let i = 0; i < length; i++) words.push(/** @type {string} */ (this.words[this.rank(this.rand)]));
    const tags = this.tags?.(this.tagRand) ?? [];
    return tags.length > 0 ? { content: words.join(' '), tags } : { content: words.join(' ') };
  }
}
