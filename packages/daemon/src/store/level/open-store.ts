import { join } from 'node:path';
import { Limits } from '@memoryd/protocol';
import { Level } from 'level';
import { DaemonError, DaemonErrorCodes, rootCause, storageError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { AgentLock } from './agent-lock.js';
import { type StoreContext, idSource, stampSource } from './context.js';
import { type Db, openSublevels } from './db.js';
import { prepareDataDir } from './data-dir.js';
import { type StoreFiles, inspectStoreFiles } from './level-files/inspect.js';
import { holdStoreLock } from './level-files/store-lock.js';
import { checkLayout } from './seal-store.js';
import { LevelMemoryStore } from './level-store.js';
import { AgentCounters } from './counters.js';
import { GroupCommit } from './group-commit.js';
import { ensureIndex, ensureStamps } from './index-build.js';
import { FactCache } from './fact-cache.js';
import { FactPrepPool } from './fact-prep-pool.js';
import { IndexImages } from './index-images.js';
import { SearchIndexes } from './search-indexes.js';

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
   * What the agents' search indexes may take in memory together before the
   * least recently used go back to their images (store/level/search-indexes.ts);
   * default 128 MiB.
   */
  indexMemoryBytes?: number;
  /** How long a stop may spend writing index images; default 2,500 ms (tests set less). */
  stopImagesMs?: number;
  /**
   * Told once when a write fails: the store then refuses every write until
   * it is closed and opened again (store/level/group-commit.ts).
   */
  onWriteFailure?: (err: unknown) => void;
}

/** classic-level's way of saying another process holds the LevelDB lock. */
function isLocked(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  return e?.code === 'LEVEL_DATABASE_NOT_OPEN' && e.cause?.code === 'LEVEL_LOCKED';
}

/** LevelDB found its files damaged while opening (a missing table, a bad MANIFEST). */
function isCorruption(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  return e?.code === 'LEVEL_CORRUPTION' || e?.cause?.code === 'LEVEL_CORRUPTION';
}

/** The way out of a store that cannot be opened as it is, for the one start-up line. */
function wayOut(dataDir: string): string {
  return `the store was left as it is; run memoryd --repair --data-dir ${JSON.stringify(dataDir)} (it copies the store first) or restore a backup`;
}

/**
 * The store's files as LevelDB would find them at open. The first look
 * is taken without the store's lock; if it finds damage, or a file that
 * vanished under it, another daemon may be compacting that very store,
 * so the verdict is taken again holding the lock (store-lock.ts), which
 * also tells that case apart: DataDirLocked.
 */
async function inspectBeforeOpen(storeDir: string, dataDir: string): Promise<StoreFiles> {
  const first = await inspectStoreFiles(storeDir).catch(() => undefined);
  if (first !== undefined && (first.state !== 'present' || first.problems.length === 0)) return first;
  const lock = await holdStoreLock(storeDir, dataDir);
  try {
    return await inspectStoreFiles(storeDir);
  } catch (err) {
    throw storageError(`cannot read the store in ${storeDir}`, err);
  } finally {
    await lock.release();
  }
}

/**
 * Opens LevelDB in `<dataDir>/store`, never creating over files that are
 * there: only an absent or empty store dir is created. Another process
 * holding the lock is DataDirLocked (how a second daemon learns the first
 * won); damage found before or by LevelDB is StoreDamaged; anything else
 * is Storage, with the cause kept.
 */
async function openLevel(dataDir: string, storeDir: string, logger: Logger): Promise<{ db: Db; created: boolean }> {
  const files = await inspectBeforeOpen(storeDir, dataDir);
  const created = files.state !== 'present';
  if (files.state === 'present') {
    const [first] = files.problems;
    if (first !== undefined) {
      const more = files.problems.length > 1 ? ` (and ${files.problems.length - 1} more problems: memoryd --verify lists them)` : '';
      throw new DaemonError(DaemonErrorCodes.StoreDamaged, `cannot open the store in ${storeDir}: ${first.reason}${more}; ${wayOut(dataDir)}`);
    }
    for (const torn of files.tornTails) logger.warn('the log ends in a torn record (a write that was never acknowledged); LevelDB drops it', { ...torn });
  }
  const db: Db = new Level<string, string>(storeDir, { keyEncoding: 'utf8', valueEncoding: 'utf8', ...LEVELDB_OPTIONS });
  try {
    await db.open({ createIfMissing: created, errorIfExists: false });
  } catch (err) {
    if (isLocked(err)) {
      throw new DaemonError(DaemonErrorCodes.DataDirLocked, `data dir ${dataDir} is in use by another memoryd`, { cause: err });
    }
    if (isCorruption(err)) {
      throw new DaemonError(DaemonErrorCodes.StoreDamaged, `cannot open the store in ${storeDir}: ${rootCause(err)}; ${wayOut(dataDir)}`, { cause: err });
    }
    throw storageError(`cannot open the store in ${storeDir}`, err);
  }
  return { db, created };
}

/**
 * Opens the store in `<dataDir>/store`: makes the data dir private,
 * refuses damaged files, seals a store of an older layout, rebuilds the
 * search index when its analysis changed, and loads the counters.
 */
export async function openLevelStore(options: OpenStoreOptions): Promise<LevelMemoryStore> {
  const { dataDir, sync, logger } = options;
  const storeDir = join(dataDir, 'store');
  const started = performance.now();
  const phases: Record<string, number> = {};
  const phase = (name: string, since: number) => (phases[name] = Math.round(performance.now() - since));
  const images = new IndexImages(dataDir, logger);
  images.prefetchNewest();
  let t = performance.now();
  await prepareDataDir(dataDir, storeDir, logger);
  phase('dataDirMs', t);
  t = performance.now();
  const { db, created } = await openLevel(dataDir, storeDir, logger);
  phase('levelOpenMs', t);
  try {
    const subs = openSublevels(db);
    t = performance.now();
    await checkLayout(db, subs, sync, created, logger);
    await ensureIndex(db, subs, sync, logger);
    const newStamp = stampSource();
    const counters = await AgentCounters.load(subs, logger);
    const stamps = await ensureStamps(db, subs, sync, newStamp, counters.agentIds());
    phase('metaMs', t);
    t = performance.now();
    const search = new SearchIndexes(db, subs, images, logger, options.indexMemoryBytes, options.stopImagesMs);
    search.open(counters.entries(), stamps);
    phase('searchMs', t);
    logger.debug('store opened', { ...phases, ms: Math.round(performance.now() - started) });
    const ctx: StoreContext = {
      db,
      subs,
      sync,
      writer: new GroupCommit(db, sync, options.onWriteFailure),
      lock: new AgentLock(),
      logger,
      counters,
      facts: new FactCache(FACT_CACHE_SIZE),
      factPrep: new FactPrepPool(),
      search,
      factListeners: [],
      newId: idSource(),
      newStamp,
    };
    return new LevelMemoryStore(ctx, options.exportCursorTtlMs ?? Limits.exportCursorIdleMs);
  } catch (err) {
    await db.close().catch((closeErr: unknown) => logger.error('could not close the store after a failed open', { err: closeErr }));
    // What the open reads (layout, index version, counters) is in the tables too.
    if (isCorruption(err) || (err instanceof DaemonError && (err.code === DaemonErrorCodes.Damaged || err.code === DaemonErrorCodes.Decode))) {
      throw new DaemonError(DaemonErrorCodes.StoreDamaged, `cannot open the store in ${storeDir}: ${rootCause(err)}; ${wayOut(dataDir)}`, { cause: err });
    }
    throw err;
  }
}
