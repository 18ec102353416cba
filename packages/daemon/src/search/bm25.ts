import { queryTerms, tokenize } from './tokenize.js';

/** BM25 term-frequency saturation (the usual default). */
export const K1 = 1.2;
/** BM25 length normalisation (the usual default). */
export const B = 0.75;
/**
 * A tag word counts this many times as a body word: tags are the agent's
 * own labels for a fact, a stronger signal than any word of its text.
 */
export const TAG_WEIGHT = 2;

/** A document to rank: a fact's id (time-sortable), text and tags. */
export interface SearchDocument {
  id: string;
  content: string;
  tags?: readonly string[];
}

/** A document with its score. */
export interface Scored<D> {
  doc: D;
  score: number;
}

interface Analysed<D> {
  doc: D;
  length: number;
  tf: Map<string, number>;
}

function analyse<D extends SearchDocument>(doc: D, terms: ReadonlySet<string>): Analysed<D> {
  const tf = new Map<string, number>();
  const body = tokenize(doc.content);
  let length = body.length;
  for (const word of body) if (terms.has(word)) tf.set(word, (tf.get(word) ?? 0) + 1);
  for (const tag of doc.tags ?? []) {
    const words = tokenize(tag);
    length += TAG_WEIGHT * words.length;
    for (const word of words) if (terms.has(word)) tf.set(word, (tf.get(word) ?? 0) + TAG_WEIGHT);
  }
  return { doc, length, tf };
}

/**
 * Ranks documents for a query with Okapi BM25 over content and tags: any
 * query word matches (OR), rarer words weigh more (idf), more occurrences
 * weigh more with saturation (k1), long documents are discounted (b).
 * idf is Lucene's `ln(1 + (N - df + 0.5) / (df + 0.5))`, always positive,
 * so a document scores above zero exactly when it holds a query word.
 * Returns documents with score > 0, best first, ties newest (highest id)
 * first, at most `limit`.
 */
export function rankDocuments<D extends SearchDocument>(docs: readonly D[], query: string, limit: number): Scored<D>[] {
  const terms = new Set(queryTerms(query));
  if (terms.size === 0 || docs.length === 0) return [];
  const analysed = docs.map((d) => analyse(d, terms));
  const n = analysed.length;
  const avgLength = analysed.reduce((sum, a) => sum + a.length, 0) / n;
  if (avgLength === 0) return [];
  const idf = new Map<string, number>();
  for (const term of terms) {
    const df = analysed.reduce((count, a) => count + (a.tf.has(term) ? 1 : 0), 0);
    idf.set(term, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }
  const scored: Scored<D>[] = [];
  for (const a of analysed) {
    let score = 0;
    for (const [term, f] of a.tf) {
      const norm = K1 * (1 - B + (B * a.length) / avgLength);
      score += (idf.get(term) ?? 0) * ((f * (K1 + 1)) / (f + norm));
    }
    if (score > 0) scored.push({ doc: a.doc, score });
  }
  scored.sort((x, y) => y.score - x.score || (x.doc.id < y.doc.id ? 1 : x.doc.id > y.doc.id ? -1 : 0));
  return scored.slice(0, limit);
}
