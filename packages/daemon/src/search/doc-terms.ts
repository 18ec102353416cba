import { analyze } from './analyze.js';
import { tagKeys } from './normal-form.js';

/**
 * Frequencies and lengths are counted in units of half a word, so that
 * every weight is a whole number (the posting lists keep integers): a
 * word of the fact's text counts {@link UNIT}, and bm25.ts divides by it.
 */
export const UNIT = 2;

/**
 * A tag word counts this many times as a body word: tags are the agent's
 * own labels for a fact, a stronger signal than any word of its text.
 */
export const TAG_WEIGHT = 2;

/**
 * A word of a fact's context (the text of the fact written just before
 * it, ADR 0033) counts this many units: half a word of its own text.
 */
export const CONTEXT_UNITS = 1;

/** What the index keeps of one fact: its weighted term and word counts, and what filters read. */
export interface DocTerms {
  /** Weighted count of whole words (identifier parts not counted), in units: BM25's document length. */
  length: number;
  /** Weighted occurrences of each term, in units. */
  terms: Map<string, number>;
  /** Weighted occurrences of each unstemmed word, with its term (for prefix matching). */
  surfaces: Map<string, { term: string; frequency: number }>;
  /** Its tags as filters compare them (search/normal-form.ts), each once. */
  tagKeys: string[];
  /** When its version was written: `createdAt` in milliseconds since the epoch. */
  createdAt: number;
}

/** What docTerms reads of a fact: a stored version's fields (null read as absent, as PostgreSQL's rows give them). */
export interface IndexedText {
  content: string;
  tags?: readonly string[] | null | undefined;
  context?: string | null | undefined;
  createdAt: string;
}

/**
 * Analyses a fact the one way both the index and the scoring of a
 * candidate see it: content words weigh 1 ({@link UNIT} units), tag
 * words {@link TAG_WEIGHT}, context words half ({@link CONTEXT_UNITS}).
 */
export function docTerms(fact: IndexedText): DocTerms {
  const { content, tags, context } = fact;
  const doc: DocTerms = { length: 0, terms: new Map(), surfaces: new Map(), tagKeys: tagKeys(tags ?? undefined), createdAt: Date.parse(fact.createdAt) };
  const visit = (weight: number) => (t: { term: string; surface: string; part: boolean }) => {
    if (!t.part) doc.length += weight;
    doc.terms.set(t.term, (doc.terms.get(t.term) ?? 0) + weight);
    const s = doc.surfaces.get(t.surface);
    if (s === undefined) doc.surfaces.set(t.surface, { term: t.term, frequency: weight });
    else s.frequency += weight;
  };
  analyze(content, visit(UNIT));
  const tagVisit = visit(UNIT * TAG_WEIGHT);
  for (const tag of tags ?? []) analyze(tag, tagVisit);
  // Context words count in frequency and length; they are not words of the agent's dictionary (a
  // prefix completes to its own words), but a completion counts where it occurs in a context too.
  if (context !== undefined && context !== null) {
    analyze(context, (t) => {
      if (!t.part) doc.length += CONTEXT_UNITS;
      doc.terms.set(t.term, (doc.terms.get(t.term) ?? 0) + CONTEXT_UNITS);
    });
  }
  return doc;
}
