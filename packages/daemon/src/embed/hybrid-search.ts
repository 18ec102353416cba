import type { Fact } from '@memoryd/protocol';
import type { LexicalResult } from '../store/memory-store.js';
import type { VectorStore } from '../store/vector-store.js';
import type { AgentVectors } from './agent-vectors.js';
import { fuse } from './fusion.js';
import type { QueryVectors } from './query-vectors.js';

/**
 * Candidates each side gives a fused search: at least this many, and at
 * least the search's limit (ADR 0036: the sweep measured no gain past it).
 */
export const CANDIDATES = 30;

/** What a fused search reads from. */
export interface HybridSources {
  vectors: AgentVectors;
  queries: QueryVectors;
  store: Pick<VectorStore, 'readFacts'>;
}

/**
 * `memory.search` with meaning (docs/embeddings.md, "Fusion"): the query's
 * vector is asked for first, the lexical search runs while it is on its
 * way, then the agent's vectors are scanned and both rankings fused
 * (embed/fusion.ts). Without a vector to use (none loaded for the agent,
 * or the query's not had in time) the answer is the lexical one.
 *
 * `lexical(n)` gives the lexical ranking's n best. A filtered search's
 * lexical side says which facts pass (`passes`), and the vector side
 * takes only those; when the store cannot say (`passes: null`), the
 * answer is the lexical one.
 */
export async function hybridSearch(
  sources: HybridSources,
  agentId: string,
  query: string,
  limit: number,
  lexical: (n: number) => Promise<LexicalResult>,
): Promise<Fact[]> {
  const known = sources.vectors.index(agentId);
  if (known === undefined || known.size === 0) return (await lexical(limit)).facts;
  const n = Math.max(limit, CANDIDATES);
  const asked = sources.queries.get(query, known.dimensions);
  const [lex, queryVector] = await Promise.all([lexical(n), asked]);
  if (lex.passes === null) return lex.facts.slice(0, limit);
  // A load may have replaced the agent's index meanwhile: the newest is scanned.
  const index = sources.vectors.index(agentId);
  if (queryVector === undefined || index === undefined || index.dimensions !== queryVector.length) return lex.facts.slice(0, limit);
  const scan = index.search(queryVector, n, lex.passes);
  const fused = fuse(
    { hits: lex.facts.map((f) => ({ id: f.id, score: f.score ?? 0 })), fullMatch: lex.fullMatch },
    { ...scan, cosines: index.similarities(queryVector, lex.facts.map((f) => f.id)) },
  );
  // Read only what makes the answer: the facts the lexical side did not return, a limit's worth
  // at a time (one not current any more, its removal on its way to the index, is left out).
  const byId = new Map(lex.facts.map((f) => [f.id, f]));
  const out: Fact[] = [];
  for (let from = 0; out.length < limit && from < fused.length; ) {
    const next = fused.slice(from, from + limit - out.length);
    from += next.length;
    const unread = next.filter((f) => !byId.has(f.id)).map((f) => f.id);
    if (unread.length > 0) for (const fact of await sources.store.readFacts(agentId, unread)) byId.set(fact.id, fact);
    for (const f of next) {
      const fact = byId.get(f.id);
      if (fact !== undefined) out.push({ ...fact, score: f.score });
    }
  }
  return out;
}
