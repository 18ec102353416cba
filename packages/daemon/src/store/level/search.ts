import { Limits, type MemorySearch, type ParamsOf, type ResultOf } from '@memoryd/protocol';
import { analyzeQuery } from '../../search/analyze.js';
import type { StoreContext } from './context.js';
import type { LexicalResult } from '../memory-store.js';
import { readIndexedFact, toFact } from './facts.js';
import { factFilter } from '../rules/fact-filter.js';

/**
 * `memory.search`: BM25 over the agent's current facts (docs/search.md),
 * answered by the agent's in-memory index (store/level/search-indexes.ts), the
 * one engine, exact at every moment. Only current facts are indexed, so
 * superseded and deleted versions never come back; a fact removed by a
 * batch not yet applied to the index is left out. A filter is applied by
 * the index as it ranks (search/filter-mask.ts): the best `limit` of the
 * facts that pass.
 */
export async function searchFacts(ctx: StoreContext, p: ParamsOf<typeof MemorySearch>): Promise<LexicalResult> {
  const limit = p.limit ?? Limits.limitDefault;
  const filter = factFilter(p);
  const query = analyzeQuery(p.query);
  const index = await ctx.search.index(p.agentId);
  // A filtered search says which facts pass, whatever it found: the vector side of a fused search asks.
  const passes = filter === undefined ? {} : { passes: (id: string) => index?.passes(id, filter) ?? false };
  if (query.terms.length === 0 || index === undefined || index.facts === 0) return { facts: [], ...passes };
  const found: ResultOf<typeof MemorySearch>['facts'] = [];
  for (const { id, score } of index.search(query, limit, filter)) {
    const fact = readIndexedFact(ctx, p.agentId, id);
    if (fact !== undefined) found.push(toFact(fact, score));
  }
  return found.length === 0 ? { facts: [], ...passes } : { facts: found, fullMatch: index.fullMatch(query), ...passes };
}
