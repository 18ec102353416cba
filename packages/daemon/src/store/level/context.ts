import { getRandomValues } from 'node:crypto';
import type { Logger } from '../../logger.js';
import type { AgentLock } from './agent-lock.js';
import type { AgentCounters } from './counters.js';
import type { Db, Sublevels } from './db.js';
import type { FactCache } from './fact-cache.js';
import type { FactPrepPool } from './fact-prep-pool.js';
import type { GroupCommit } from './group-commit.js';
import type { SearchIndexes } from './search-indexes.js';
import type { FactChange } from '../vector-store.js';

export { idSource } from '../ids.js';

/** What the store's parts share. */
export interface StoreContext {
  db: Db;
  subs: Sublevels;
  /** `sync` of every batch: true unless the daemon runs with --no-sync. */
  sync: boolean;
  /** Every change's batch goes through here (group commit). */
  writer: GroupCommit;
  lock: AgentLock;
  logger: Logger;
  /** Every agent's counters and the totals, kept exact in memory. */
  counters: AgentCounters;
  /** Every agent's search index, in memory (store/level/search-indexes.ts). */
  search: SearchIndexes;
  /** A fresh stamp for a batch that changes facts (what an index image must match). */
  newStamp(): string;
  /** Facts recently returned by searches (store/level/fact-cache.ts). */
  facts: FactCache;
  /** Prepares imported facts off the event loop (store/level/fact-prep-pool.ts). */
  factPrep: FactPrepPool;
  /** Called after every committed batch that changes current facts (meaning search keeps its vectors in step). */
  factListeners: Array<(changes: readonly FactChange[]) => void>;
  /** A new ULID and its creation time (the same millisecond). */
  newId(): { id: string; createdAt: string };
}

/**
 * A source of stamps for the batches that change facts: this process's
 * random prefix and a count, so no two batches, in this run or another,
 * share one.
 */
export function stampSource(): () => string {
  const run = Buffer.from(getRandomValues(new Uint8Array(8))).toString('hex');
  let n = 0;
  return () => `${run}.${(n++).toString(36)}`;
}
