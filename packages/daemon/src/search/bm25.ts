import { type AnalysedQuery, type AnalysedTerm, analyze, analyzeQuery } from './analyze.js';

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

/**
 * A prefix-only match (the last query word begins a longer fact word)
 * scores this fraction of what an exact match with the same frequency
 * would: a little below, so finished words still win.
 */
export const PREFIX_WEIGHT = 0.8;

interface Analysed<D> {
  doc: D;
  length: number;
  tf: Map<string, number>;
  /** Weighted count of fact words starting with the query's prefix. */
  prefixTf: number;
}

// Analyses a fact once per search, keeping only what the query can use.
function analyseDoc<D extends SearchDocument>(doc: D, query: AnalysedQuery, terms: ReadonlySet<string>): Analysed<D> {
  const a: Analysed<D> = { doc, length: 0, tf: new Map(), prefixTf: 0 };
  const prefix = query.prefix?.surface;
  const add = (weight: number) => (t: AnalysedTerm) => {
    if (!t.part) a.length += weight;
    if (terms.has(t.term)) a.tf.set(t.term, (a.tf.get(t.term) ?? 0) + weight);
    if (prefix !== undefined && t.surface.startsWith(prefix)) a.prefixTf += weight;
  };
  analyze(doc.content, add(1));
  const tagVisit = add(TAG_WEIGHT);
  for (const tag of doc.tags ?? []) analyze(tag, tagVisit);
  return a;
}

/** Lucene's idf, `ln(1 + (N - df + 0.5) / (df + 0.5))`: always positive. */
function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * Ranks documents for a query with Okapi BM25 over content and tags: any
 * query word matches (OR), rarer words weigh more (idf), more occurrences
 * weigh more with saturation (k1), long documents are discounted (b).
 * Facts and query go through the same analysis (see analyze.ts). The
 * query's last word, when still being typed, also matches fact words that
 * start with it: a document holding it only that way scores
 * {@link PREFIX_WEIGHT} of an exact match, with the idf of the documents
 * matching only that way, capped at the idf of the word itself. A document scores above zero exactly when it
 * matches a query word. Returns documents with score > 0, best first, ties
 * newest (highest id) first, at most `limit`.
 */
export function rankDocuments<D extends SearchDocument>(docs: readonly D[], query: string, limit: number): Scored<D>[] {
  const q = analyzeQuery(query);
  const terms = new Set(q.terms);
  if (terms.size === 0 || docs.length === 0) return [];
  const analysed = docs.map((d) => analyseDoc(d, q, terms));
  const n = analysed.length;
  const avgLength = analysed.reduce((sum, a) => sum + a.length, 0) / n;
  if (avgLength === 0) return [];
  const df = new Map<string, number>();
  let prefixDf = 0;
  for (const a of analysed) {
    for (const term of a.tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
    if (q.prefix !== undefined && a.prefixTf > 0 && !a.tf.has(q.prefix.term)) prefixDf++;
  }
  // The completions weigh as rare as they are, but never more than the
  // word as typed: a rare completion must not outrank the exact word.
  const prefixIdf = q.prefix === undefined ? 0 : Math.min(idf(n, prefixDf), idf(n, df.get(q.prefix.term) ?? 0));
  const scored: Scored<D>[] = [];
  for (const a of analysed) {
    const norm = K1 * (1 - B + (B * a.length) / avgLength);
    const saturate = (f: number) => (f * (K1 + 1)) / (f + norm);
    let score = 0;
    for (const [term, f] of a.tf) score += idf(n, df.get(term)!) * saturate(f);
    if (q.prefix !== undefined && a.prefixTf > 0 && !a.tf.has(q.prefix.term)) {
      score += PREFIX_WEIGHT * prefixIdf * saturate(a.prefixTf);
    }
    if (score > 0) scored.push({ doc: a.doc, score });
  }
  scored.sort((x, y) => y.score - x.score || (x.doc.id < y.doc.id ? 1 : x.doc.id > y.doc.id ? -1 : 0));
  return scored.slice(0, limit);
}
