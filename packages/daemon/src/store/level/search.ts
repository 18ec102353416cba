import { Limits, type MemorySearch, type ParamsOf, type ResultOf } from '@memoryd/protocol';
import { analyzeQuery } from '../../search/analyze.js';
import { type StoredFact, decodeFact } from './codec.js';
import { DaemonError, DaemonErrorCodes } from '../../errors.js';
import type { StoreContext } from './context.js';
import type { LexicalResult } from '../memory-store.js';
import { readSync } from './db.js';
import { toFact } from './facts.js';
import { recordKey } from './keys.js';

/** A current fact, from the fact cache or LevelDB; undefined when it is not current. */
function readFact(ctx: StoreContext, agentId: string, id: string): StoredFact | undefined {
  let fact = ctx.facts.get(agentId, id);
  if (fact === undefined) {
    const text = readSync(`read fact ${id}`, () => ctx.subs.fact.getSync(recordKey(agentId, id)));
    fact = text === undefined ? undefined : decodeFact(`fact ${id} of agent ${agentId}`, text, id);
    if (fact !== undefined) ctx.facts.set(agentId, fact);
  }
  return fact;
}

/**
 * `memory.search`: BM25 over the agent's current facts (docs/search.md),
 * answered by the agent's in-memory index (store/level/search-indexes.ts), the
 * one engine, exact at every moment. Only current facts are indexed, so
 * superseded and deleted versions never come back; a fact removed by a
 * batch not yet applied to the index is left out.
 */
export async function searchFacts(ctx: StoreContext, p: ParamsOf<typeof MemorySearch>): Promise<LexicalResult> {
  const limit = p.limit ?? Limits.limitDefault;
  const query = analyzeQuery(p.query);
  if (query.terms.length === 0) return { facts: [] };
  const index = await ctx.search.index(p.agentId);
  if (index === undefined || index.facts === 0) return { facts: [] };
  const found: ResultOf<typeof MemorySearch>['facts'] = [];
  for (const { id, score } of index.search(query, limit)) {
    const fact = readFact(ctx, p.agentId, id);
    if (fact !== undefined) found.push(toFact(fact, score));
    else if (!ctx.search.isPending(p.agentId)) {
      // No batch of the agent is between its write and the index: they
      // agree, unless the store lost the record. A shorter answer would hide it.
      throw new DaemonError(DaemonErrorCodes.Damaged, `fact ${id} of agent ${p.agentId} is in its search index but not in the store; run memoryd --verify`);
    }
  }
  return found.length === 0 ? { facts: [] } : { facts: found, fullMatch: index.fullMatch(query) };
}
