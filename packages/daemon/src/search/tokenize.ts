import { isStopWord } from './stop-words.js';

// A word is a run of Unicode letters, digits and combining marks (marks
// keep words such as "नमस्ते" whole); everything else separates words.
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * Splits text into search words: NFKC (so `ﬁ` is `fi` and full-width `Ａ`
 * is `A`), lower-cased, whole words only. Used for facts and queries alike,
 * which is what makes matching case-insensitive and whole-word.
 */
export function tokenize(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
}

/**
 * The distinct words of a query, without English stop words unless the
 * query has nothing else (then "the who" still finds "The Who").
 */
export function queryTerms(query: string): string[] {
  const words = [...new Set(tokenize(query))];
  const content = words.filter((w) => !isStopWord(w));
  return content.length > 0 ? content : words;
}
