import {
  type Fact,
  Limits,
  type MemoryAdd,
  type MemoryList,
  type ParamsOf,
  type ResultOf,
} from '@memoryd/protocol';
import { DaemonError, DaemonErrorCodes } from '../../errors.js';
import { type AgentStats, type StoredFact, decodeFact, encodeFact } from './codec.js';
import type { StoreContext } from './context.js';
import { guard, readSync } from './db.js';
import { readWhole } from './count-check.js';
import { DedupEdits } from './dedup.js';
import { IndexEdits } from './index-edits.js';
import { agentRange, agentRangeBefore, recordKey, splitKey } from './keys.js';
import type { RangeOptions } from './sealed-sublevel.js';
import { contentHash } from '../rules/dedupe-key.js';
import { WriteBatch, commit } from './write-batch.js';

import { toFact } from '../rules/records.js';
import { factFilter, passesFilter } from '../rules/fact-filter.js';
import type { IndexFilter } from '../../search/filter-mask.js';

export { toFact };

/** Reads a current fact, or undefined when `id` is not current. */
export async function readCurrentFact(ctx: StoreContext, agentId: string, id: string): Promise<StoredFact | undefined> {
  const text = await guard(`read fact ${id}`, () => ctx.subs.fact.get(recordKey(agentId, id)));
  return text === undefined ? undefined : decodeFact(`fact ${id} of agent ${agentId}`, text, id);
}

/** Reads a past (superseded or deleted) version, or undefined. */
export async function readPastFact(ctx: StoreContext, agentId: string, id: string): Promise<StoredFact | undefined> {
  const text = await guard(`read fact ${id}`, () => ctx.subs.hist.get(recordKey(agentId, id)));
  return text === undefined ? undefined : decodeFact(`fact version ${id} of agent ${agentId}`, text, id);
}

/**
 * A current fact the agent's search index names, from the fact cache or
 * LevelDB (read synchronously: a search or a list page reads a few).
 * Undefined when a batch of the agent not yet applied to the index
 * removed it; otherwise the index and the store agree, unless the store
 * lost the record, which is Damaged: a shorter answer would hide it.
 */
export function readIndexedFact(ctx: StoreContext, agentId: string, id: string): StoredFact | undefined {
  let fact = ctx.facts.get(agentId, id);
  if (fact === undefined) {
    const text = readSync(`read fact ${id}`, () => ctx.subs.fact.getSync(recordKey(agentId, id)));
    fact = text === undefined ? undefined : decodeFact(`fact ${id} of agent ${agentId}`, text, id);
    if (fact !== undefined) ctx.facts.set(agentId, fact);
  }
  if (fact === undefined && !ctx.search.isPending(agentId)) {
    throw new DaemonError(DaemonErrorCodes.Damaged, `fact ${id} of agent ${agentId} is in its search index but not in the store; run memoryd --verify`);
  }
  return fact;
}

/**
 * Reads a fact the dedup index lists as current. The entry and the fact
 * are written in one batch, so a listed fact that is not current means a
 * damaged store: reported, never papered over.
 */
export async function readClaimant(ctx: StoreContext, agentId: string, id: string): Promise<StoredFact> {
  const fact = await readCurrentFact(ctx, agentId, id);
  if (fact === undefined) {
    throw new DaemonError(DaemonErrorCodes.Storage, `dedup entry of agent ${agentId} lists fact ${id}, which is not current`);
  }
  return fact;
}

/** `memory.add`: stores a fact unless the agent already holds its text. */
export async function addFact(ctx: StoreContext, p: ParamsOf<typeof MemoryAdd>): Promise<ResultOf<typeof MemoryAdd>> {
  const hash = contentHash(p.content);
  // Under the agent's lock, so two concurrent adds of one text make one fact.
  return ctx.lock.run([p.agentId], async () => {
    const dedup = new DedupEdits(ctx);
    const [holder] = await dedup.claimants(p.agentId, hash);
    if (holder !== undefined) {
      const existing = await readClaimant(ctx, p.agentId, holder);
      return { factId: existing.id, createdAt: existing.createdAt, duplicate: true as const };
    }
    const { id, createdAt } = ctx.newId();
    const fact: StoredFact = { id, content: p.content, createdAt };
    if (p.tags !== undefined) fact.tags = p.tags;
    if (p.context !== undefined) fact.context = p.context;
    const batch = new WriteBatch();
    batch.put(ctx.subs.fact, recordKey(p.agentId, id), encodeFact(fact));
    dedup.add(p.agentId, hash, id);
    dedup.flush(batch);
    const index = new IndexEdits(batch);
    index.add(p.agentId, fact);
    await commit(ctx, batch, `add fact for agent ${p.agentId}`);
    return { factId: id, createdAt };
  });
}

/** Decodes one `fact` sublevel entry read by a range scan. */
function decodeCurrentEntry(key: string, text: string): StoredFact {
  const { agentId, rest: id } = splitKey(key);
  return decodeFact(`fact ${id} of agent ${agentId}`, text, id);
}

/**
 * The keys a list page reads and the way it walks them: the agent's facts
 * past `after` in the order asked, so ids above it oldest first and ids
 * below it, read in reverse, newest first.
 */
function pageScan(p: ParamsOf<typeof MemoryList>): RangeOptions {
  return p.order === 'newest' ? { ...agentRangeBefore(p.agentId, p.after), reverse: true } : agentRange(p.agentId, p.after);
}

/**
 * `memory.list`: current facts, oldest first (newest first with `order:
 * 'newest'`), a page at a time. A first page that holds all of them is
 * checked against the agent's counters (store/level/count-check.ts).
 */
export async function listFacts(ctx: StoreContext, p: ParamsOf<typeof MemoryList>): Promise<ResultOf<typeof MemoryList>> {
  const limit = p.limit ?? Limits.limitDefault;
  const filter = factFilter(p);
  if (filter !== undefined) return listFiltered(ctx, p, filter, limit);
  const scan = pageScan(p);
  // One more than asked tells whether a next page exists.
  const check = { agentId: p.agentId, fromStart: p.after === undefined, asked: limit + 1, what: 'current facts listed', count: (s: AgentStats) => s.facts };
  const entries = await readWhole(ctx, check, (options) =>
    guard(`list facts of agent ${p.agentId}`, () => ctx.subs.fact.iterator({ ...scan, ...options, limit: limit + 1 }).all()),
  );
  const facts = entries.slice(0, limit).map(([key, text]) => toFact(decodeCurrentEntry(key, text)));
  const last = facts[facts.length - 1];
  return entries.length > limit && last !== undefined ? { facts, next: last.id } : { facts };
}

/** Facts a filtered list reads per step of its scan. */
const FILTER_SCAN = 256;

/**
 * A filtered `memory.list`: the agent's index names the page's facts
 * (search/resident-index.ts `listIds`, from the mask a filtered search
 * uses), and only they are read; where the index cannot (its ordinals do
 * not follow ids), the facts past `after` are read in the order asked, a
 * step at a time, until a page and one more pass.
 */
async function listFiltered(ctx: StoreContext, p: ParamsOf<typeof MemoryList>, filter: IndexFilter, limit: number): Promise<ResultOf<typeof MemoryList>> {
  const index = await ctx.search.index(p.agentId);
  if (index === undefined) return { facts: [] };
  const ids = index.listIds(filter, p.after, limit + 1, p.order);
  if (ids !== undefined) {
    const facts: Fact[] = [];
    for (const id of ids.slice(0, limit)) {
      const fact = readIndexedFact(ctx, p.agentId, id);
      if (fact !== undefined) facts.push(toFact(fact));
    }
    // The next page follows the last id of this one, returned or not.
    return ids.length > limit ? { facts, next: ids[limit - 1]! } : { facts };
  }
  return scanFiltered(ctx, p, filter, limit);
}

/** A filtered `memory.list` by reading the facts in the order asked until a page and one more pass. */
async function scanFiltered(ctx: StoreContext, p: ParamsOf<typeof MemoryList>, filter: IndexFilter, limit: number): Promise<ResultOf<typeof MemoryList>> {
  const facts: Fact[] = [];
  let more = false;
  const iterator = ctx.subs.fact.iterator(pageScan(p));
  try {
    while (!more) {
      const entries = await guard(`list facts of agent ${p.agentId}`, () => iterator.nextv(FILTER_SCAN));
      if (entries.length === 0) break;
      for (const [key, text] of entries) {
        const fact = decodeCurrentEntry(key, text);
        if (!passesFilter(filter, fact)) continue;
        if (facts.length === limit) {
          more = true;
          break;
        }
        facts.push(toFact(fact));
      }
    }
  } finally {
    await guard('close a fact iterator', () => iterator.close());
  }
  const last = facts[facts.length - 1];
  return more && last !== undefined ? { facts, next: last.id } : { facts };
}
