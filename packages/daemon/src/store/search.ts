import { Limits, type MemorySearch, type ParamsOf, type ResultOf } from '@memoryd/protocol';
import { type AnalysedQuery, analyzeQuery } from '../search/analyze.js';
import { scoreDoc } from '../search/bm25.js';
import { docTerms } from '../search/doc-terms.js';
import { type Posting, type PostingSource, type WeightedList, mergeSources } from '../search/postings.js';
import { type Completion, MAX_PREFIX_SCAN, planPrefix, planTerms } from '../search/query-plan.js';
import { type Hit, topK } from '../search/top-k.js';
import { type StoredFact, decodeFact, decodeSurface, decodeTermCount } from './codec.js';
import { type StoreContext, guard, readSync } from './context.js';
import { toFact } from './facts.js';
import type { SealedIterator } from './sealed-sublevel.js';
import { KEY_SEP, parsePosting, postingKey, postingRange, recordKey, wordKey, wordPrefixRange } from './keys.js';

/** An agent's current-fact count holding `term` (its df): 0 when none does. */
function documentFrequency(ctx: StoreContext, agentId: string, term: string): number {
  const key = wordKey(agentId, term);
  const text = readSync(`read index entry of agent ${agentId}`, () => ctx.subs.term.getSync(key));
  return text === undefined ? 0 : decodeTermCount(`index entry ${JSON.stringify(key)}`, text);
}

/** Words of the agent's dictionary starting with `prefix`: the terms they stand for and how many facts hold them. */
async function completions(ctx: StoreContext, agentId: string, prefix: string, generation: number): Promise<Completion[]> {
  const cached = ctx.postings.completions<Completion[]>(agentId, prefix);
  if (cached !== undefined) return cached;
  const entries = await guard(`read the dictionary of agent ${agentId}`, () =>
    ctx.subs.surf.iterator({ ...wordPrefixRange(agentId, prefix), limit: MAX_PREFIX_SCAN }).all(),
  );
  const found = entries.map(([key, text]) => decodeSurface(`index entry ${JSON.stringify(key)}`, text));
  ctx.postings.storeCompletions(agentId, prefix, generation, found);
  return found;
}

/**
 * A term's postings: first the head the cache holds, then LevelDB through a
 * key iterator opened only if the search reads past it. What was read is
 * offered back to the cache when the source closes.
 */
function postingSource(ctx: StoreContext, agentId: string, term: string, generation: number): PostingSource {
  const prefixLength = wordKey(agentId, term).length + KEY_SEP.length;
  const cached = ctx.postings.list(agentId, term);
  const head = cached?.length ?? 0;
  // Postings read from the store, after the cached head.
  const more: Posting[] = [];
  let at = 0;
  let whole = cached?.whole ?? false;
  let iterator: SealedIterator | undefined;
  const postingAt = (i: number): Posting => (i < head ? cached!.at(i) : more[i - head]!);
  const fromStore = async (max: number): Promise<Posting[]> => {
    if (iterator === undefined) {
      const range = postingRange(agentId, term);
      const last = head + more.length > 0 ? postingAt(head + more.length - 1) : undefined;
      iterator = ctx.subs.post.iterator(last === undefined ? range : { gt: postingKey(agentId, term, last.frequency, last.length, last.id), lt: range.lt });
    }
    // The values are empty, but read: their seal checks the key.
    const entries = await iterator.nextv(max);
    if (entries.length === 0) whole = true;
    const postings = entries.map(([k]) => parsePosting(k, prefixLength));
    for (const p of postings) more.push(p);
    return postings;
  };
  return {
    read: (max) =>
      guard(`read the postings of agent ${agentId}`, async () => {
        if (at < head + more.length) {
          const out: Posting[] = [];
          for (const end = Math.min(at + max, head + more.length); at < end; at++) out.push(postingAt(at));
          return out;
        }
        if (whole) return [];
        const out = await fromStore(max);
        at += out.length;
        return out;
      }),
    close: async () => {
      if (iterator !== undefined) await guard('close a postings iterator', () => iterator!.close());
      if (more.length > 0 || (whole && !(cached?.whole ?? false))) {
        const all: Posting[] = [];
        for (let i = 0; i < head + more.length; i++) all.push(postingAt(i));
        ctx.postings.storeList(agentId, term, generation, all, whole);
      }
    },
    probe: (id, frequency, length) =>
      readSync(`read the postings of agent ${agentId}`, () =>
        ctx.subs.post.getSync(postingKey(agentId, term, frequency, length, id)),
      ) !== undefined,
  };
}

/**
 * The k best facts from the LevelDB index: top-k over the posting lists
 * of the planned terms (search/top-k.ts), the facts read only to settle
 * the last undecided ones.
 */
async function searchStore(ctx: StoreContext, agentId: string, query: AnalysedQuery, limit: number, read: (id: string) => StoredFact | undefined): Promise<Hit[]> {
  const stats = ctx.counters.get(agentId);
  const n = stats.facts;
  // Before any read: what is read is cached only if no change came meanwhile.
  const generation = ctx.postings.generation(agentId);
  const dfs = new Map<string, number>();
  const df = (term: string): number => {
    let count = dfs.get(term);
    if (count === undefined) dfs.set(term, (count = documentFrequency(ctx, agentId, term)));
    return count;
  };
  const plan = planTerms(query, n, stats.length, df);
  if (plan === undefined) return [];
  const lists: WeightedList[] = plan.listed.map(({ term, idf }) => ({ source: postingSource(ctx, agentId, term, generation), weight: idf }));
  if (query.prefix !== undefined) {
    const prefix = planPrefix(plan, query, n, await completions(ctx, agentId, query.prefix.surface, generation));
    if (prefix !== undefined) {
      const sources = prefix.terms.map((term) => postingSource(ctx, agentId, term, generation));
      const merged: WeightedList = { source: mergeSources(sources), weight: prefix.listWeight };
      // The prefix's own word's list is listed first when it has one.
      if (plan.own !== undefined) merged.excludes = lists[0];
      lists.push(merged);
    }
  }
  const score = (id: string): number | undefined => {
    const fact = read(id);
    return fact === undefined ? undefined : scoreDoc(docTerms(fact.content, fact.tags), plan.model);
  };
  return topK(lists, limit, plan.model.avgLength, score);
}

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
 * `memory.search`: BM25 over the agent's current facts (see
 * docs/search.md), from the agent's in-memory index once it is loaded
 * (store/resident-set.ts), from the LevelDB index until then; both rank
 * alike. The statistics are exact: written in the batches that change the
 * facts. Only current facts are indexed, so superseded and deleted
 * versions can never come back. A fact removed while the search runs is
 * not returned.
 */
export async function searchFacts(ctx: StoreContext, p: ParamsOf<typeof MemorySearch>): Promise<ResultOf<typeof MemorySearch>> {
  const limit = p.limit ?? Limits.limitDefault;
  const query = analyzeQuery(p.query);
  const stats = ctx.counters.get(p.agentId);
  if (query.terms.length === 0 || stats.facts === 0 || stats.length === 0) return { facts: [] };
  // Every fact read goes through the fact cache, so one that top-k read
  // to settle a hit is not read from LevelDB again below.
  const read = (id: string): StoredFact | undefined => readFact(ctx, p.agentId, id);
  const resident = ctx.resident.get(p.agentId, stats.length);
  const hits = resident !== undefined ? resident.search(query, limit) : await searchStore(ctx, p.agentId, query, limit, read);
  const found: ResultOf<typeof MemorySearch>['facts'] = [];
  for (const { id, score } of hits) {
    // Postings alone may have settled a hit; one removed meanwhile is left out.
    const fact = read(id);
    if (fact !== undefined) found.push(toFact(fact, score));
  }
  return { facts: found };
}
