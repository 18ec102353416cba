import { stemmer } from 'stemmer';
import { isStopWord } from './stop-words.js';

// One analysis for facts and queries alike: a query word finds a fact word
// exactly when both analyse to the same term. See docs/search.md
// "Text analysis" for the rules and the reasons behind each.

/** One term produced from a text. */
export interface AnalysedTerm {
  /** What is matched exactly: the stem of an English word, else the folded form. */
  term: string;
  /** The folded, unstemmed form: what prefix matching compares against. */
  surface: string;
  /** An English stop word (ignored in queries that have other words). */
  stop: boolean;
  /**
   * A part of an identifier (`snake` of `snake_case`): indexed so the part
   * finds the fact, but not counted in the fact's length and never
   * produced for a query (a query identifier is matched whole).
   */
  part: boolean;
}

/**
 * Names the rules below. Change it with any change to what terms a text
 * yields: the index is then rebuilt at the next start (store/level/index-build.ts),
 * because postings are found again by analysing a fact's text anew.
 */
export const ANALYSIS_VERSION = '4';

const segmenter = new Intl.Segmenter('en', { granularity: 'word' });

/** One piece of a folded text, as `Intl.Segmenter` (granularity word) cuts it. */
export interface WordSegment {
  segment: string;
  index: number;
  isWordLike: boolean;
}

const ASCII = /^[\x00-\x7f]*$/;
// UAX #29 word boundaries restricted to folded (lower-case) ASCII: letters,
// digits and `_` join; `:` `.` `'` join two letters; `.` `,` `;` `'` join
// two digits. Checked equal to Intl.Segmenter's word-like segments on
// hundreds of thousands of random ASCII strings; ~20× faster.
const ASCII_WORD = /[a-z0-9_]+(?:(?:(?<=[a-z])[:.'](?=[a-z])|(?<=[0-9])[.,;'](?=[0-9]))[a-z0-9_]+)*/g;
const HAS_ALNUM = /[a-z0-9]/;

/**
 * Cuts folded text into segments: Intl.Segmenter, or for pure ASCII an
 * equivalent regular expression (the segmenter dominates analysis time).
 * On the fast path a connector or sigil character between words is a
 * segment of its own and any other run of them one segment: only that
 * matters to {@link analyze}. `icu` forces the segmenter.
 */
export function wordSegments(folded: string, icu = false): WordSegment[] {
  if (icu || !ASCII.test(folded)) {
    return Array.from(segmenter.segment(folded), (s) => ({ segment: s.segment, index: s.index, isWordLike: s.isWordLike === true }));
  }
  const out: WordSegment[] = [];
  let at = 0;
  // A character that joins or leads an identifier is a segment of its own;
  // any other run between words is one segment: all analyze asks of it is
  // that it is neither.
  const gap = (to: number) => {
    let run = -1;
    for (; at < to; at++) {
      const c = folded[at]!;
      if (!CONNECTORS.has(c) && !SIGILS.has(c)) {
        if (run < 0) run = at;
        continue;
      }
      if (run >= 0) out.push({ segment: folded.slice(run, at), index: run, isWordLike: false });
      run = -1;
      out.push({ segment: c, index: at, isWordLike: false });
    }
    if (run >= 0) out.push({ segment: folded.slice(run, to), index: run, isWordLike: false });
  };
  for (const m of folded.matchAll(ASCII_WORD)) {
    gap(m.index);
    out.push({ segment: m[0], index: m.index, isWordLike: HAS_ALNUM.test(m[0]) || m[0].length > 1 });
    at = m.index + m[0].length;
  }
  gap(folded.length);
  return out;
}

// Characters that join words into one identifier when nothing separates
// them: `snake_case`, `kebab-case`, `user@example.com`, `a/b`, `10:30`.
const CONNECTORS = new Set(['.', '-', '_', '@', ':', '/', '+']);
// Prefixes that belong to the word they precede when they start a word:
// `#123`, `$HOME`, `@alice`.
const SIGILS = new Set(['#', '$', '@']);
// Whether a word holds a joining character (the segmenter itself keeps
// `snake_case`, `example.com`, `3.14` and `v2.3` as one word).
const JOINED = /[.\-_@:/+#$]/u;
// Separators between the larger pieces of an identifier: the domain of an
// e-mail address, the host of a URL.
const STRONG = /[@/:]+/u;
const NOT_WORD_CHAR = /[^\p{L}\p{N}\p{M}]+/u;
const NUMBER = /^\p{N}+(?:[.,]\p{N}+)*$/u;
const ENGLISH = /^[a-z]+$/;
const POSSESSIVE = /^([a-z]+)'s$/;
const COMBINING_DIACRITICS = /[\u0300-\u036f]/g;

/**
 * Folds text for matching: NFKC (ligatures, full-width forms), lower case
 * with `ß` as `ss`, typographic apostrophes as `'`, and Latin-style
 * diacritics removed (NFD, then only U+0300–U+036F are dropped, so the
 * vowel signs of scripts such as Devanagari, which are parts of letters,
 * stay), recomposed with NFC so both sides compare code point by code point.
 */
export function foldText(text: string): string {
  // Every step below is the identity on ASCII except lower-casing.
  if (ASCII.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .normalize('NFD')
    .replace(COMBINING_DIACRITICS, '')
    .normalize('NFC');
}

// Stems by word: the vocabulary is far smaller than the text, and the
// stemmer dominates analysis time. Emptied when full to bound memory.
const STEM_CACHE_MAX = 100_000;
const stems = new Map<string, string>();

function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    if (stems.size >= STEM_CACHE_MAX) stems.clear();
    s = stemmer(word);
    stems.set(word, s);
  }
  return s;
}

/** The term of a plain (already folded) word: stemmed when it is English. */
function wordTerm(surface: string, part: boolean): AnalysedTerm {
  if (isStopWord(surface)) return { term: surface, surface, stop: true, part };
  if (ENGLISH.test(surface)) return { term: stem(surface), surface, stop: false, part };
  // `user's` is `user`; `what's`, `it's` are stop words like `what`, `it`.
  const possessive = POSSESSIVE.exec(surface);
  if (possessive === null) return { term: surface, surface, stop: false, part };
  const base = possessive[1]!;
  return isStopWord(base) ? { term: base, surface, stop: true, part } : { term: stem(base), surface, stop: false, part };
}

/** Emits an identifier whole (never stemmed), its larger pieces, then its words. */
function emitIdentifier(whole: string, visit: (t: AnalysedTerm) => void): void {
  visit({ term: whole, surface: whole, stop: false, part: false });
  // A number is one value: `3.14` must not be found by `3` or `14`.
  if (NUMBER.test(whole)) return;
  for (const piece of whole.split(STRONG)) {
    if (piece !== whole && JOINED.test(piece) && !NUMBER.test(piece)) {
      visit({ term: piece, surface: piece, stop: false, part: true });
    }
  }
  for (const word of whole.split(NOT_WORD_CHAR)) if (word !== '') visit(wordTerm(word, true));
}

/**
 * Analyses a text, calling `visit` once per term in text order. Words come
 * from `Intl.Segmenter` (so Japanese or Thai without spaces still splits
 * into words); adjacent words joined by connectors, or led by a sigil at
 * the start of a word, form one identifier, emitted whole and by parts.
 * Returns the folded text and the end offset of the last whole term in it
 * (used to tell whether a query's last word is still being typed).
 */
export function analyze(text: string, visit: (t: AnalysedTerm) => void): { folded: string; lastEnd: number } {
  const folded = foldText(text);
  const segs = wordSegments(folded);
  let lastEnd = -1;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    const start = i;
    if (!seg.isWordLike) {
      const sigil = SIGILS.has(seg.segment) && segs[i + 1]?.isWordLike === true && segs[i - 1]?.isWordLike !== true;
      if (!sigil) continue;
      i++;
    }
    // Extend over `connector+ word` runs with nothing in between.
    let end = i;
    for (;;) {
      let k = end + 1;
      while (k < segs.length && CONNECTORS.has(segs[k]!.segment)) k++;
      if (k === end + 1 || k >= segs.length || !segs[k]!.isWordLike) break;
      end = k;
    }
    const from = segs[start]!.index;
    const to = segs[end]!.index + segs[end]!.segment.length;
    const token = folded.slice(from, to);
    if (start !== i || end !== i || JOINED.test(token)) emitIdentifier(token, visit);
    else visit(wordTerm(token, false));
    lastEnd = to;
    i = end;
  }
  return { folded, lastEnd };
}

/** The minimum length, in code points, of a last query word matched as a prefix. */
export const MIN_PREFIX = 2;

/** What a query looks for. */
export interface AnalysedQuery {
  /** Distinct terms matched exactly. */
  terms: string[];
  /**
   * The folded last word when the query asks for it to be completed (a
   * `*` right after it, ending the query): any fact word starting with it
   * matches too.
   */
  prefix?: { surface: string; term: string };
}

/** Ends a query whose last word is to be completed: `postg*`, trailing white space allowed. */
const PREFIX_MARK = /(?<=[^\s*])\*\s*$/u;

/**
 * Analyses a query the way facts are analysed, keeping identifiers whole
 * (no parts) and dropping English stop words unless the query has nothing
 * else (then "the who" still finds "The Who"). The last word becomes a
 * prefix only when asked: a `*` follows it directly and ends the query
 * (`postg*`), it survived the stop-word rule and it has at least
 * {@link MIN_PREFIX} code points. Without the `*` every word is a whole
 * word (ADR 0018): agents send finished words, and completing them found
 * `catalog` for `cat`.
 */
export function analyzeQuery(query: string): AnalysedQuery {
  const mark = PREFIX_MARK.exec(query);
  const text = mark === null ? query : query.slice(0, mark.index);
  const words: AnalysedTerm[] = [];
  const { folded, lastEnd } = analyze(text, (t) => {
    if (!t.part) words.push(t);
  });
  const content = words.filter((w) => !w.stop);
  const kept = content.length > 0 ? content : words;
  const terms = [...new Set(kept.map((w) => w.term))];
  const last = words[words.length - 1];
  if (mark === null || last === undefined || lastEnd !== folded.length || !kept.includes(last) || [...last.surface].length < MIN_PREFIX) {
    return { terms };
  }
  return { terms, prefix: { surface: last.surface, term: last.term } };
}
