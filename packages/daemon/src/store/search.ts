import { Limits, type MemorySearch, type ParamsOf, type ResultOf } from '@memoryd/protocol';
import { analyzeQuery } from '../search/analyze.js';
import { PREFIX_WEIGHT, type QueryModel, idf, scoreDoc } from '../search/bm25.js';
import { docTerms } from '../search/doc-terms.js';
import { type Posting, type PostingSource, type WeightedList, mergeSources } from '../search/postings.js';
import { MAX_LISTS, topK } from '../search/top-k.js';
import { type StoredFact, decodeFact, decodeSurface, decodeTermCount } from './codec.js';
import { type StoreContext, guard, readSync } from './context.js';
import { toFact } from './facts.js';
import { KEY_SEP, parsePosting, postingKey, postingRange, recordKey, wordKey, wordPrefixRange } from './keys.js';

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

/** An agent's current-fact count holding `term` (its df): 0 when none does. */
function documentFrequency(ctx: StoreContext, agentId: string, term: string): number {
  const key = wordKey(agentId, term);
  const text = readSync(`read index entry of agent ${agentId}`, () => ctx.subs.term.getSync(key));
  return text === undefined ? 0 : decodeTermCount(`index entry ${JSON.stringify(key)}`, text);
}

type Completion = { term: string; count: number };

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
  let iterator: { nextv(size: number): Promise<string[]>; close(): Promise<void> } | undefined;
  const postingAt = (i: number): Posting => (i < head ? cached!.at(i) : more[i - head]!);
  const fromStore = async (max: number): Promise<Posting[]> => {
    if (iterator === undefined) {
      const range = postingRange(agentId, term);
      const last = head + more.length > 0 ? postingAt(head + more.length - 1) : undefined;
      iterator = ctx.subs.post.keys(last === undefined ? range : { gt: postingKey(agentId, term, last.frequency, last.length, last.id), lt: range.lt });
    }
    const keys = await iterator.nextv(max);
    if (keys.length === 0) whole = true;
    const postings = keys.map((k) => parsePosting(k, prefixLength));
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
 * `memory.search`: BM25 over the agent's current facts through the
 * inverted index (see docs/search.md). The statistics are exact: the
 * fact count and summed length from the agent's counters, each term's df
 * from the dictionary, all written in the batches that change the facts.
 * Only current facts are indexed, so superseded and deleted versions can
 * never come back. A fact removed while the search runs is not returned.
 */
export async function searchFacts(ctx: StoreContext, p: ParamsOf<typeof MemorySearch>): Promise<ResultOf<typeof MemorySearch>> {
  const limit = p.limit ?? Limits.limitDefault;
  const query = analyzeQuery(p.query);
  const stats = ctx.counters.get(p.agentId);
  if (query.terms.length === 0 || stats.facts === 0 || stats.length === 0) return { facts: [] };
  const n = stats.facts;
  // Before any read: what is read is cached only if no change came meanwhile.
  const generation = ctx.postings.generation(p.agentId);
  const model: QueryModel & { terms: Array<{ term: string; idf: number }> } = { terms: [], avgLength: stats.length / n };
  const lists: WeightedList[] = [];
  const dfs = new Map(query.terms.map((term) => [term, documentFrequency(ctx, p.agentId, term)]));
  for (const [term, df] of dfs) if (df > 0) model.terms.push({ term, idf: idf(n, df) });
  // The rarest terms get lists (one is kept for the completions); a fact
  // holding only the others is not found, one found is scored on them all.
  // The prefix's own word always keeps its list: facts holding it get
  // nothing from its completions, which only its list can tell.
  const own = query.prefix === undefined ? undefined : model.terms.find((t) => t.term === query.prefix!.term);
  const rarest = [...model.terms].sort((a, b) => b.idf - a.idf).filter((t) => t !== own);
  const listed = [...(own === undefined ? [] : [own]), ...rarest].slice(0, MAX_LISTS - 1);
  for (const { term, idf: weight } of listed) lists.push({ source: postingSource(ctx, p.agentId, term, generation), weight });
  // The prefix's own word's list: listed first when it has one.
  const ownList = own === undefined ? undefined : lists[0];
  if (query.prefix !== undefined) {
    const exact = query.prefix.term;
    const found = (await completions(ctx, p.agentId, query.prefix.surface, generation))
      .filter((c) => c.term !== exact)
      .sort((a, b) => b.count - a.count)
      .slice(0, MAX_COMPLETIONS);
    // Facts holding a completion: at most the sum (a fact may hold two), never more than all.
    const prefixDf = Math.min(n, found.reduce((sum, c) => sum + c.count, 0));
    if (prefixDf > 0) {
      // The completions weigh as rare as they are, but never more than the
      // word as typed: a rare completion must not outrank the exact word.
      const weight = Math.min(idf(n, prefixDf), idf(n, dfs.get(exact) ?? documentFrequency(ctx, p.agentId, exact)));
      const terms = new Set(found.map((c) => c.term));
      model.prefix = { term: exact, completions: terms, idf: weight };
      const sources = [...terms].map((term) => postingSource(ctx, p.agentId, term, generation));
      const completions: WeightedList = { source: mergeSources(sources), weight: PREFIX_WEIGHT * weight };
      lists.push(completions);
      if (ownList !== undefined) completions.excludes = ownList;
    }
  }
  const facts = new Map<string, StoredFact | undefined>();
  const read = (id: string): StoredFact | undefined => {
    if (facts.has(id)) return facts.get(id);
    const text = readSync(`read fact ${id}`, () => ctx.subs.fact.getSync(recordKey(p.agentId, id)));
    const fact = text === undefined ? undefined : decodeFact(`fact ${id} of agent ${p.agentId}`, text, id);
    facts.set(id, fact);
    return fact;
  };
  const score = (id: string): number | undefined => {
    const fact = read(id);
    return fact === undefined ? undefined : scoreDoc(docTerms(fact.content, fact.tags), model);
  };
  const hits = await topK(lists, limit, model.avgLength, score);
  const found: ResultOf<typeof MemorySearch>['facts'] = [];
  for (const { id, score: s } of hits) {
    // Postings alone may have settled a hit; one removed meanwhile is left out.
    const fact = read(id);
    if (fact !== undefined) found.push({ ...toFact(fact), score: s });
  }
  return { facts: found };
}
