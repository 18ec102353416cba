import type { AnalysedQuery } from './analyze.js';
import { PREFIX_WEIGHT, type QueryModel, idf } from './bm25.js';

/**
 * The agent's words starting with the prefix are read up to this many, in
 * byte order (Lucene's prefix queries cap their expansion alike): a
 * two-letter prefix must not turn one search into thousands of lists.
 */
export const MAX_PREFIX_SCAN = 64;

/**
 * Of those, the prefix completes to the terms of this many most frequent
 * words, as an autocompleter offers the likeliest words: each completion
 * is one more list to read in step with the others.
 */
export const MAX_COMPLETIONS = 8;

/** A word of the agent's dictionary: the term it stands for and how many current facts hold it. */
export interface Completion {
  term: string;
  count: number;
}

/** A weighted query term. */
export interface WeightedTerm {
  term: string;
  idf: number;
}

/** How one search scores: the model scoreDoc and the index both follow. */
export interface QueryPlan {
  /** The scoring model: every query term held by some fact, in query order. */
  model: QueryModel & { terms: WeightedTerm[] };
  /** The prefix's own word, when some fact holds it. */
  own: WeightedTerm | undefined;
}

/**
 * Plans the whole-word part of a search over `n` current facts of summed
 * length `length`, `df` giving each term's document frequency; `undefined`
 * when nothing can match.
 */
export function planTerms(query: AnalysedQuery, n: number, length: number, df: (term: string) => number): QueryPlan | undefined {
  if (query.terms.length === 0 || n === 0 || length === 0) return undefined;
  const model: QueryPlan['model'] = { terms: [], avgLength: length / n };
  for (const term of query.terms) {
    const count = df(term);
    if (count > 0) model.terms.push({ term, idf: idf(n, count) });
  }
  // Facts holding the prefix's own word get nothing from its completions.
  const own = query.prefix === undefined ? undefined : model.terms.find((t) => t.term === query.prefix!.term);
  return { model, own };
}

/** The prefix part of a search: the completion terms and the weight of their list. */
export interface PrefixPlan {
  terms: string[];
  /** The completions' idf (what {@link QueryModel.prefix} holds). */
  idf: number;
  /** What multiplies a completion's saturation: {@link PREFIX_WEIGHT} × idf. */
  listWeight: number;
}

/**
 * Completes the prefix from `found` (the first {@link MAX_PREFIX_SCAN}
 * dictionary words starting with it, in byte order) to the terms of the
 * {@link MAX_COMPLETIONS} most frequent, other than the word's own term,
 * and sets the model's prefix part. `undefined` when no fact holds one.
 */
export function planPrefix(plan: QueryPlan, query: AnalysedQuery, n: number, found: readonly Completion[]): PrefixPlan | undefined {
  if (query.prefix === undefined) return undefined;
  const exact = query.prefix.term;
  const chosen = found
    .filter((c) => c.term !== exact)
    .sort((a, b) => b.count - a.count)
    .slice(0, MAX_COMPLETIONS);
  // Facts holding a completion: at most the sum (a fact may hold two), never more than all.
  const prefixDf = Math.min(n, chosen.reduce((sum, c) => sum + c.count, 0));
  if (prefixDf === 0) return undefined;
  // The completions weigh as rare as they are, but never more than the
  // word as typed: a rare completion must not outrank the exact word.
  const weight = Math.min(idf(n, prefixDf), plan.own?.idf ?? idf(n, 0));
  const terms = [...new Set(chosen.map((c) => c.term))];
  plan.model.prefix = { term: exact, completions: new Set(terms), idf: weight };
  return { terms, idf: weight, listWeight: PREFIX_WEIGHT * weight };
}
