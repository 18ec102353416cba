import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

// The relevance sets and how a search is scored on them: one scorer for
// the quality floors of the tests and for `npm run bench:quality`, so both
// measure exactly the same thing. The sets are data in this package's
// fixtures/relevance/ (docs/search.md, "Relevance").

/** The shipped relevance sets, by name. */
export const RELEVANCE_SETS = {
  /** One fact per question, in the phrasings agents use (inflections, case, identifiers…). */
  set: fileURLToPath(new URL('../fixtures/relevance/set.json', import.meta.url)),
  /** Every query in other words than its facts: no shared term after analysis (check-paraphrase.mjs). */
  paraphrase: fileURLToPath(new URL('../fixtures/relevance/paraphrase.json', import.meta.url)),
  /** Six long conversations stored turn by turn, each turn with the one before as context (make-conversations.mjs). */
  conversations: fileURLToPath(new URL('../fixtures/relevance/conversations.json', import.meta.url)),
} as const;

/** Cut-off of recall: an agent reads the first few results, not the tenth. */
export const RECALL_AT = 5;
/** How deep a query's results are fetched; MRR counts a first hit up to here. */
export const SEARCH_LIMIT = 10;

/** A fact of a relevance set. */
export interface RelevanceFact {
  key: string;
  agentId: string;
  content: string;
  tags?: string[];
  context?: string;
}

/** A query of a relevance set, with the facts a reader judged relevant to it. */
export interface RelevanceQuery {
  id: string;
  kind: string;
  agentId: string;
  query: string;
  relevant: string[];
}

export interface RelevanceSet {
  facts: RelevanceFact[];
  queries: RelevanceQuery[];
}

/**
 * Loads and checks a relevance set, so a typo (an unknown fact key, a
 * judged fact of another agent) fails loudly instead of silently lowering
 * the score.
 */
export async function loadRelevanceSet(path: string): Promise<RelevanceSet> {
  const set = JSON.parse(await readFile(path, 'utf8')) as RelevanceSet;
  if (!Array.isArray(set.facts) || !Array.isArray(set.queries)) throw new Error(`${path}: needs facts and queries arrays`);
  const facts = new Map<string, RelevanceFact>();
  for (const f of set.facts) {
    if (typeof f.key !== 'string' || typeof f.agentId !== 'string' || typeof f.content !== 'string') {
      throw new Error(`${path}: fact ${JSON.stringify(f)} needs key, agentId and content`);
    }
    if (facts.has(f.key)) throw new Error(`${path}: duplicate fact key ${f.key}`);
    facts.set(f.key, f);
  }
  const ids = new Set<string>();
  for (const q of set.queries) {
    if (ids.has(q.id)) throw new Error(`${path}: duplicate query id ${q.id}`);
    ids.add(q.id);
    if (typeof q.query !== 'string' || typeof q.kind !== 'string' || !Array.isArray(q.relevant) || q.relevant.length === 0) {
      throw new Error(`${path}: query ${q.id} needs query, kind and a non-empty relevant list`);
    }
    for (const key of q.relevant) if (facts.get(key)?.agentId !== q.agentId) throw new Error(`${path}: query ${q.id} judges ${key}, not a fact of ${q.agentId}`);
  }
  return set;
}

/** One answer scored: recall@5, recall@10, and the reciprocal rank of its first relevant fact (0 past 10). */
export interface RankingScore {
  recallAt5: number;
  recallAt10: number;
  reciprocalRank: number;
}

/** Scores one ranked answer: `got` fact keys best first, `relevant` the judged keys. */
export function scoreRanking(got: readonly string[], relevant: readonly string[]): RankingScore {
  const within = (k: number) => relevant.filter((key) => got.slice(0, k).includes(key)).length / relevant.length;
  const rank = got.slice(0, SEARCH_LIMIT).findIndex((key) => relevant.includes(key));
  return { recallAt5: within(RECALL_AT), recallAt10: within(SEARCH_LIMIT), reciprocalRank: rank === -1 ? 0 : 1 / (rank + 1) };
}

/** Averages over queries. */
export interface RelevanceSummary {
  queries: number;
  recallAt5: number;
  recallAt10: number;
  mrr: number;
}

/** One query's outcome. */
export interface QueryOutcome extends RankingScore {
  id: string;
  kind: string;
  agentId: string;
  query: string;
  expected: string[];
  got: string[];
}

/** A set's score: overall, per query kind, and every query's outcome. */
export interface RelevanceResult extends RelevanceSummary {
  facts: number;
  agents: number;
  byKind: Record<string, RelevanceSummary>;
  details: QueryOutcome[];
}

/** The averages of some queries' scores. */
export function summarize(rows: readonly RankingScore[]): RelevanceSummary {
  const n = rows.length;
  const mean = (f: (r: RankingScore) => number) => (n === 0 ? 0 : rows.reduce((s, r) => s + f(r), 0) / n);
  return { queries: n, recallAt5: mean((r) => r.recallAt5), recallAt10: mean((r) => r.recallAt10), mrr: mean((r) => r.reciprocalRank) };
}

/** Scores answers already gathered: `answers[i]` the fact keys, best first, of `set.queries[i]`. */
export function scoreAnswers(set: RelevanceSet, answers: readonly (readonly string[])[]): RelevanceResult {
  const details = set.queries.map((q, i): QueryOutcome => {
    const got = [...answers[i]!];
    return { id: q.id, kind: q.kind, agentId: q.agentId, query: q.query, expected: q.relevant, got, ...scoreRanking(got, q.relevant) };
  });
  const kinds = [...new Set(details.map((q) => q.kind))];
  return {
    facts: set.facts.length,
    agents: new Set(set.facts.map((f) => f.agentId)).size,
    ...summarize(details),
    byKind: Object.fromEntries(kinds.map((k) => [k, summarize(details.filter((q) => q.kind === k))])),
    details,
  };
}

/** How {@link scoreSearch} reaches the search it scores. */
export interface SearchUnderTest {
  /** Stores a fact; answers its id. */
  add(fact: RelevanceFact): Promise<string>;
  /** Called once every fact is added (meaning search embeds them then, say). */
  ready?(): Promise<void>;
  /** The ids of the agent's best facts for the query, best first, at most {@link SEARCH_LIMIT}. */
  search(query: RelevanceQuery): Promise<string[]>;
}

/** Adds every fact of the set, in its order, runs every query, and scores the answers. */
export async function scoreSearch(set: RelevanceSet, subject: SearchUnderTest): Promise<RelevanceResult> {
  const keyById = new Map<string, string>();
  for (const f of set.facts) keyById.set(await subject.add(f), f.key);
  await subject.ready?.();
  const answers: string[][] = [];
  for (const q of set.queries) answers.push((await subject.search(q)).map((id) => keyById.get(id) ?? `?${id}`));
  return scoreAnswers(set, answers);
}
