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

/** How weighted fusion scales each side to 0-1 before summing. */
export interface WeightedScales {
  /**
   * relative: BM25 ÷ the query's best BM25 (the best lexical hit is 1,
   * however weak); coverage: that times the share of the query's terms
   * the fact holds (`coverage`), so a fact matching one word of four
   * counts a quarter.
   */
  lexical: 'relative' | 'coverage';
  /** raw: the cosine as it is (below 0 as 0); minmax: scaled so the candidates' lowest is 0 and highest 1. */
  vector: 'raw' | 'minmax';
}

/**
 * Weighted score fusion: each side scaled to 0-1 (`scales`), each fact's
 * two summed with `vectorWeight` on the vector side. `cosines` holds the
 * cosine of every candidate, the lexical ones too (a fact the lexical side
 * found has a vector score even when it is not among the vector side's
 * best); `coverage` the share of the query's terms each lexical candidate
 * holds.
 */
export function fuseWeighted(
  lexical: readonly Ranked[],
  cosines: ReadonlyMap<string, number>,
  vectorWeight: number,
  scales: WeightedScales = { lexical: 'relative', vector: 'raw' },
  coverage?: ReadonlyMap<string, number>,
): Fused[] {
  const best = lexical.reduce((m, r) => Math.max(m, r.score), 0);
  const lex = new Map(
    lexical.map((r) => [r.id, (best > 0 ? r.score / best : 0) * (scales.lexical === 'coverage' ? (coverage?.get(r.id) ?? 1) : 1)]),
  );
  let low = Infinity;
  let high = -Infinity;
  for (const c of cosines.values()) {
    low = Math.min(low, c);
    high = Math.max(high, c);
  }
  const vec = (c: number | undefined): number => {
    if (c === undefined) return 0;
    if (scales.vector === 'raw') return Math.max(0, c);
    return high > low ? (c - low) / (high - low) : 1;
  };
  const ids = new Set([...lex.keys(), ...cosines.keys()]);
  return [...ids]
    .map((id) => ({ id, score: (1 - vectorWeight) * (lex.get(id) ?? 0) + vectorWeight * vec(cosines.get(id)) }))
    .sort(byScore);
}
