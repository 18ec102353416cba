/**
 * How a lexical ranking and a vector ranking become one (docs/embeddings.md,
 * "Fusion"; ADR 0034 says which is used and why, from measurements of
 * `npm run bench:quality -- --embeddings`).
 */

/** A candidate of one ranking: a fact and its score there (BM25, or cosine). */
export interface Ranked {
  id: string;
  score: number;
}

/** A fused candidate: the fused score, best first. */
export interface Fused {
  id: string;
  score: number;
}

/** The fusion methods measured. */
export const FusionMethods = ['rrf', 'weighted'] as const;
export type FusionMethod = (typeof FusionMethods)[number];

/** Reciprocal rank fusion's constant (Cormack et al. 2009, and what Graphiti and Letta use). */
export const RRF_K = 60;

/** Orders fused candidates: score, then the later id (as lexical search breaks ties). */
function byScore(a: Fused, b: Fused): number {
  return b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * Reciprocal rank fusion: each list gives 1/(k + rank); scores themselves
 * are ignored, so neither scale has to be made comparable.
 */
export function fuseRrf(lexical: readonly Ranked[], vector: readonly Ranked[], k = RRF_K): Fused[] {
  const scores = new Map<string, number>();
  lexical.forEach((r, i) => scores.set(r.id, (scores.get(r.id) ?? 0) + 1 / (k + i + 1)));
  vector.forEach((r, i) => scores.set(r.id, (scores.get(r.id) ?? 0) + 1 / (k + i + 1)));
  return [...scores].map(([id, score]) => ({ id, score })).sort(byScore);
}

/**
 * Weighted score fusion: BM25 divided by the query's best BM25 (the best
 * lexical hit is 1), and the cosine as it is (below 0 as 0), each fact's
 * two summed with `vectorWeight` on the cosine. `cosines` holds the cosine
 * of every candidate, the lexical ones too (a fact the lexical side found
 * has a vector score even when it is not among the vector side's best).
 */
export function fuseWeighted(lexical: readonly Ranked[], cosines: ReadonlyMap<string, number>, vectorWeight: number): Fused[] {
  const best = lexical.reduce((m, r) => Math.max(m, r.score), 0);
  const lex = new Map(lexical.map((r) => [r.id, best > 0 ? r.score / best : 0]));
  const ids = new Set([...lex.keys(), ...cosines.keys()]);
  return [...ids]
    .map((id) => ({ id, score: (1 - vectorWeight) * (lex.get(id) ?? 0) + vectorWeight * Math.max(0, cosines.get(id) ?? 0) }))
    .sort(byScore);
}
