import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Limits } from '@memoryd/protocol';
import { Level } from 'level';
import { DaemonError, DaemonErrorCodes, storageError } from '../errors.js';
import type { Logger } from '../logger.js';
import { AgentLock } from './agent-lock.js';
import { type Db, type StoreContext, type Sublevels, guard, idSource, openSublevels } from './context.js';
import { LayoutVersion } from './keys.js';
import { LevelMemoryStore } from './level-store.js';
import type { MemoryStore } from './memory-store.js';
import { AgentCounters } from './counters.js';
import { GroupCommit } from './group-commit.js';
import { ensureIndex } from './index-build.js';
import { PostingCache } from '../search/posting-cache.js';
import { FactCache } from './fact-cache.js';
import { ResidentSet } from './resident-set.js';

/** Postings kept in memory across searches, packed (~34 bytes each): some 10 MB at most. */
const POSTING_CACHE_SIZE = 300_000;

/**
 * Postings of the agents whose whole index is held in memory, in all
 * (~8 bytes each, plus their words and fact ids): an agent with 100,000
 * facts holds some 3 million.
 */
export const SEARCH_MEMORY_POSTINGS = 6_000_000;

/**
 * LevelDB reads its table files through mmap, and every page it touched
 * counts in the daemon's RSS for as long as the table stays in its table
 * cache (ADR 0010). 74 files is LevelDB's smallest cache (64 tables), and
 * 1 MiB tables (the default is 2 MiB) cap those pages at 64 MiB, where the
 * default cache of 990 tables let a 1 GB store's compaction map 165 MB.
 */
const LEVELDB_OPTIONS = { maxOpenFiles: 74, maxFileSize: 1024 * 1024 } as const;

/**
 * Facts recently returned by searches kept decoded, at most: ~240 bytes
 * each, so up to ~4 MB (at least half as many are kept). A search that
 * reads its facts from LevelDB costs about twice one served from here.
 */
const FACT_CACHE_SIZE = 16_384;

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /** The data dir; LevelDB lives in `<dataDir>/store`. Created (0700) when missing. */
  dataDir: string;
  /** `sync` of every write batch: true means acknowledged writes survive power loss. */
  sync: boolean;
  logger: Logger;
  /** Idle time after which an export cursor expires; default 60,000 ms. */
  exportCursorTtlMs?: number;
  /**
   * Postings of the agents whose search index is held in memory, in all;
   * default 6,000,000 (some 100 MB). 0 keeps none: every search reads LevelDB.
   */
  searchMemoryPostings?: number;
}

/** classic-level's way of saying another process holds the LevelDB lock. */
function isLocked(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  return e?.code === 'LEVEL_DATABASE_NOT_OPEN' && e.cause?.code === 'LEVEL_LOCKED';
}

/**
 * Checks (or, in a new store, writes) the layout version, so a store
 * written by an incompatible release is refused rather than misread.
 */
async function checkLayout(db: Db, subs: Sublevels, sync: boolean): Promise<void> {
  const found = await guard('read the store layout', () => subs.meta.get('layout'));
  if (found === undefined) {
    await guard('write the store layout', () => db.batch([{ type: 'put', sublevel: subs.meta, key: 'layout', value: LayoutVersion }], { sync }));
  } else if (found !== LayoutVersion) {
    throw storageError('cannot use the store', new Error(`store layout ${found} is not supported (expected ${LayoutVersion})`));
  }
}

/**
 * Opens the store in `<dataDir>/store`. Another process holding the
 * LevelDB lock is DataDirLocked (how a second daemon learns the first
 * won); any other failure is Storage, with the cause kept.
 */
export async function openStore(options: OpenStoreOptions): Promise<MemoryStore> {
  const { dataDir, sync, logger } = options;
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw storageError(`cannot create data dir ${dataDir}`, err);
  }
  const db: Db = new Level<string, string>(join(dataDir, 'store'), { keyEncoding: 'utf8', valueEncoding: 'utf8', ...LEVELDB_OPTIONS });
  try {
    await db.open();
  } catch (err) {
    if (isLocked(err)) {
      throw new DaemonError(DaemonErrorCodes.DataDirLocked, `data dir ${dataDir} is in use by another memoryd`, { cause: err });
    }
    throw storageError(`cannot open the store in ${dataDir}`, err);
  }
  try {
    const subs = openSublevels(db);
    await checkLayout(db, subs, sync);
    await ensureIndex(db, subs, sync, logger);
    const postings = new PostingCache(POSTING_CACHE_SIZE);
    const facts = new FactCache(FACT_CACHE_SIZE);
    const ctx: StoreContext = {
      db,
      subs,
      sync,
      writer: new GroupCommit(db, sync),
      lock: new AgentLock(),
      logger,
      counters: await AgentCounters.load(subs, logger),
      postings,
      facts,
      resident: new ResidentSet(db, subs, logger, options.searchMemoryPostings ?? SEARCH_MEMORY_POSTINGS, {
        // An agent in memory reads no posting list from LevelDB: its cached heads go.
        // The facts its load read fill the fact cache, the newest last (kept longest).
        loaded: (agentId, newest) => {
          postings.forget(agentId);
          for (const fact of newest) facts.set(agentId, fact);
        },
        keepFacts: FACT_CACHE_SIZE,
      }),
      newId: idSource(),
    };
    return new LevelMemoryStore(ctx, options.exportCursorTtlMs ?? Limits.exportCursorIdleMs);
  } catch (err) {
    await db.close().catch((closeErr: unknown) => logger.error('could not close the store after a failed open', { err: closeErr }));
    throw err;
  }
}
