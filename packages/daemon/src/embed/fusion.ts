/**
 * How a lexical ranking and a vector ranking become one (docs/embeddings.md,
 * "Fusion"; ADR 0036 says why, from `npm run bench:quality -- --sweep`).
 *
 * Each side is first put on a scale that means the same whatever the query,
 * the agent or the model:
 *
 * - **words**: BM25 ÷ the BM25 a fact of average length would get by holding
 *   every query word once (`fullMatch`), at most 1. A fact holding all the
 *   query's words scores about 1; one sharing a single common word, little.
 * - **meaning**: how far the fact's cosine stands out from the agent's other
 *   facts. The cosines of one query over an agent's facts are turned into
 *   z-scores (their mean and standard deviation), and compared with what the
 *   best of that many unrelated facts reaches by chance (the expected
 *   maximum of n standard normals): 0 up to {@link MEANING_FROM} below it,
 *   rising to 1 at {@link MEANING_TO} above it. A raw cosine means different
 *   things per model (about 0.7 for unrelated texts on bge models, 0 on
 *   MiniLM); a z-score against the agent's own facts does not, and an
 *   embedder that carries no meaning for a query scores about nothing.
 *
 * The fused score is their convex combination, half each, in [0, 1].
 */

/** A candidate of one side: a fact and its raw score there (BM25, or cosine). */
export interface Ranked {
  id: string;
  score: number;
}

/** The lexical side of a search. */
export interface LexicalSide {
  /** The lexical ranking's best, best first, with their BM25 scores. */
  hits: readonly Ranked[];
  /**
   * The BM25 of a fact of average length holding every query word once; or
   * undefined when the lexical engine cannot say (PostgreSQL's SQL search,
   * while its own index is not in step): then the best hit's score stands in.
   */
  fullMatch: number | undefined;
}

/** The vector side of a search: the agent's cosines for the query, summed up. */
export interface VectorSide {
  /** The most similar facts, best first, with their cosines. */
  hits: readonly Ranked[];
  /** The cosine of every lexical candidate that has a vector. */
  cosines: ReadonlyMap<string, number>;
  /** Over all the agent's vectors: how many, and their cosines' mean and standard deviation. */
  count: number;
  mean: number;
  deviation: number;
}

/** A fused candidate, best first. */
export interface Fused {
  id: string;
  score: number;
}

/** The words' share of the fused score; meaning has the rest. */
export const WORDS_WEIGHT = 0.5;
/** Meaning is 0 up to this many standard deviations below the chance maximum… */
export const MEANING_FROM = -0.5;
/** …and 1 from this many above it. */
export const MEANING_TO = 1.5;

/**
 * The inverse of the standard normal distribution function (Acklam's
 * rational approximation, relative error under 1.2e-9).
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile needs 0 < p < 1, got ${p}`);
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) => (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/**
 * What the best of `n` unrelated facts reaches by chance, in standard
 * deviations: the expected maximum of n standard normals, by Blom's
 * approximation Φ⁻¹((n − 0.375) / (n + 0.25)) (0 for one fact; within 0.03
 * of the exact value from n = 2 to a million).
 */
export function chanceMaximum(n: number): number {
  return n <= 1 ? 0 : normalQuantile((n - 0.375) / (n + 0.25));
}

/** The words part of a fact's score, in [0, 1]. */
export function wordsScore(bm25: number, scale: number): number {
  return scale > 0 ? Math.min(1, bm25 / scale) : 0;
}

/**
 * The meaning part of a fact's score, in [0, 1], for each cosine of the
 * vector side's distribution: how many standard deviations the cosine stands
 * above the chance maximum, {@link MEANING_FROM} giving 0 and
 * {@link MEANING_TO} giving 1, linearly between.
 */
export function meaningScale(side: Pick<VectorSide, 'count' | 'mean' | 'deviation'>): (cosine: number) => number {
  if (!(side.deviation > 0)) return () => 0;
  const chance = chanceMaximum(side.count);
  return (cosine) => Math.min(1, Math.max(0, ((cosine - side.mean) / side.deviation - chance - MEANING_FROM) / (MEANING_TO - MEANING_FROM)));
}

/**
 * Fuses the two sides' candidates, best first. Every candidate is scored
 * on both scales; the ones neither side singles out (score 0) come after
 * the others, the more similar in meaning first, so a search returns a
 * limit's worth of facts whenever the agent has that many (docs/protocol.md,
 * `memory.search`). Ties keep the later id first, as lexical search breaks
 * them.
 */
export function fuse(lexical: LexicalSide, vector: VectorSide): Fused[] {
  const scale = lexical.fullMatch ?? lexical.hits.reduce((m, h) => Math.max(m, h.score), 0);
  const cosineOf = new Map(vector.cosines);
  for (const h of vector.hits) cosineOf.set(h.id, h.score);
  const meaningOf = meaningScale(vector);
  const scored: Array<Fused & { cosine: number }> = [];
  const seen = new Set<string>();
  const add = (id: string, bm25: number) => {
    if (seen.has(id)) return;
    seen.add(id);
    const cosine = cosineOf.get(id) ?? -Infinity;
    const meaning = cosine === -Infinity ? 0 : meaningOf(cosine);
    scored.push({ id, score: WORDS_WEIGHT * wordsScore(bm25, scale) + (1 - WORDS_WEIGHT) * meaning, cosine });
  };
  for (const h of lexical.hits) add(h.id, h.score);
  for (const h of vector.hits) add(h.id, 0);
  scored.sort((a, b) => b.score - a.score || b.cosine - a.cosine || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return scored.map(({ id, score }) => ({ id, score }));
}
