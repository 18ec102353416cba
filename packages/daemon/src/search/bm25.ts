import { type DocTerms, UNIT } from './doc-terms.js';

/** BM25 term-frequency saturation (the usual default). */
export const K1 = 1.2;
/**
 * BM25 length normalisation: 0.5, below the usual 0.75. Memories are
 * short, and a long one (a conversation turn that tells a story) is not
 * less about each of its words; chosen by the relevance sets
 * (docs/search.md, "Parameters").
 */
export const B = 0.5;

/**
 * A prefix-only match (the last query word begins a longer fact word)
 * scores this fraction of what an exact match with the same frequency
 * would: a little below, so finished words still win.
 */
export const PREFIX_WEIGHT = 0.8;

/** Lucene's idf, `ln(1 + (N - df + 0.5) / (df + 0.5))`: always positive. */
export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * BM25's term-frequency part for weighted frequency `f` in a document of
 * weighted length `length` (both in doc-terms.ts's units): rises with `f`
 * (saturating at K1 + 1) and falls with `length`.
 */
export function saturation(f: number, length: number, avgLength: number): number {
  const words = f / UNIT;
  return (words * (K1 + 1)) / (words + K1 * (1 - B + (B * length) / avgLength));
}

/** A query made ready to score: each term with its idf, the prefix with its own. */
export interface QueryModel {
  terms: ReadonlyArray<{ term: string; idf: number }>;
  /**
   * The last query word as a prefix: `completions` are the terms of the
   * agent's words that start with it. A fact that does not hold the word's
   * own `term` but holds completions scores {@link PREFIX_WEIGHT} × idf ×
   * saturation of its most frequent one (the best completion counts, as
   * one term would).
   */
  prefix?: { term: string; completions: ReadonlySet<string>; idf: number };
  /** The agent's average fact length. */
  avgLength: number;
}

/**
 * The BM25 score of a fact for a query: the sum over query terms it holds
 * of idf × saturation, plus the prefix part. Above zero exactly when the
 * fact matches. The single scoring function: the index only decides which
 * facts get scored (search/max-score.ts, which sums exactly as this does),
 * never how.
 */
export function scoreDoc(doc: DocTerms, q: QueryModel): number {
  let score = 0;
  for (const { term, idf: weight } of q.terms) {
    const f = doc.terms.get(term);
    if (f !== undefined) score += weight * saturation(f, doc.length, q.avgLength);
  }
  const prefix = q.prefix;
  if (prefix !== undefined && !doc.terms.has(prefix.term)) {
    let f = 0;
    for (const term of prefix.completions) f = Math.max(f, doc.terms.get(term) ?? 0);
    if (f > 0) score += PREFIX_WEIGHT * prefix.idf * saturation(f, doc.length, q.avgLength);
  }
  return score;
}
