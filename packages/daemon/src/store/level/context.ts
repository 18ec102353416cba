import { getRandomValues } from 'node:crypto';
import type { Level } from 'level';
import { DaemonError, storageError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { AgentLock } from './agent-lock.js';
import type { AgentCounters } from './counters.js';
import type { GroupCommit } from './group-commit.js';
import type { FactCache } from './fact-cache.js';
import type { SearchIndexes } from './search-indexes.js';
import { SublevelNames } from './keys.js';
import { type RawSublevel, SealedSublevel } from './sealed-sublevel.js';

export { idSource } from '../ids.js';

/** The root database: UTF-8 keys and values (values are JSON, see codec.ts). */
export type Db = Level<string, string>;

function openSublevel(db: Db, name: string): SealedSublevel {
  const raw = db.sublevel<string, string>(name, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  return new SealedSublevel(raw as unknown as RawSublevel, name);
}

/** One sublevel of the layout in keys.ts: every value sealed, every read checked. */
export type Sublevel = SealedSublevel;

/** The sublevels of the layout in keys.ts. */
export interface Sublevels {
  meta: Sublevel;
  fact: Sublevel;
  hist: Sublevel;
  dedup: Sublevel;
  ckpt: Sublevel;
  stats: Sublevel;
  post: Sublevel;
  term: Sublevel;
  surf: Sublevel;
}

/** Creates the sublevel handles of the layout. */
export function openSublevels(db: Db): Sublevels {
  return {
    meta: openSublevel(db, SublevelNames.meta),
    fact: openSublevel(db, SublevelNames.fact),
    hist: openSublevel(db, SublevelNames.hist),
    dedup: openSublevel(db, SublevelNames.dedup),
    ckpt: openSublevel(db, SublevelNames.ckpt),
    stats: openSublevel(db, SublevelNames.stats),
    post: openSublevel(db, SublevelNames.post),
    term: openSublevel(db, SublevelNames.term),
    surf: openSublevel(db, SublevelNames.surf),
  };
}

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

/**
 * Runs a store operation, turning any failure that is not already ours
 * (level's errors) into a storage error that keeps it as the cause.
 */
export async function guard<T>(what: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof DaemonError) throw err;
    throw storageError(what, err);
  }
}

/** {@link guard} for a synchronous read (`getSync`). */
export function readSync<T>(what: string, op: () => T): T {
  try {
    return op();
  } catch (err) {
    if (err instanceof DaemonError) throw err;
    throw storageError(what, err);
  }
}

/**
 * A put or del for the root `db.batch`, its key already carrying the
 * sublevel's prefix (see WriteBatch): abstract-level's per-operation
 * sublevel handling cost ~6 µs an operation on an add's path, and the
 * stored bytes are the same.
 */
export type BatchOp = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };
