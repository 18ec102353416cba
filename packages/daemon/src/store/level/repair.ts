import { existsSync } from 'node:fs';
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { Level } from 'level';
import { DaemonError, DaemonErrorCodes, rootCause, storageError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { type AgentStats, decodeCheckpoint, decodeFact, decodeStats } from './codec.js';
import { type BatchOp, type Db, type Sublevels, guard, openSublevels } from './db.js';
import { rebuildDedup } from './dedup-build.js';
import { ensureIndex } from './index-build.js';
import { LayoutVersion, isAgentId, splitKey } from './keys.js';
import { inspectStoreFiles } from './level-files/inspect.js';
import { type BatchWrite, type LogBatch, logBatches, salvagedWrites } from './level-files/log-salvage.js';
import { holdStoreLock } from './level-files/store-lock.js';
import { describeRecord, unseal } from './record-seal.js';
import { checkLayout } from './seal-store.js';
import type { SealedSublevel } from './sealed-sublevel.js';

/** What `memoryd --repair` did. */
export interface RepairReport {
  /** Where the store was copied, as it was, before anything was changed. */
  backup: string;
  /** Why LevelDB's own repair ran (damaged files), or undefined when it was not needed. */
  engineRepair: string | undefined;
  /** Files LevelDB's repair set aside in `store/lost/` this time: the logs and MANIFEST it rebuilt from, and tables it could not read whole. */
  lost: string[];
  /** Write batches LevelDB's repair drops from a damaged log (the rest of a 32 KiB block) that were written back. */
  salvaged: number;
  /** Records that failed their checksum or did not decode, removed (they stay in the backup). */
  removed: string[];
  /** Each agent's counters as the store held them before, and as the records add up after. */
  counts: Array<{ agentId: string; before: AgentStats | undefined; after: AgentStats | undefined }>;
}

/** Entries read per round trip while removing damaged records. */
const CHUNK = 256;

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

/**
 * Repairs the store in `<dataDir>/store`, copy first: holds the store's
 * lock (a running daemon makes this fail), copies the store dir as it is
 * to `<dataDir>/store.before-repair-<time>`, runs LevelDB's RepairDB when
 * the tables, MANIFEST or CURRENT are damaged or LevelDB cannot open
 * them, writes back the intact writes LevelDB drops from a damaged log
 * (level-files/log-salvage.ts), removes the records that fail their
 * checksum or do not decode, and rebuilds everything derived from the
 * records (counters, dedup entries, search index).
 */
export async function repairStore(dataDir: string, logger: Logger): Promise<RepairReport> {
  const storeDir = join(dataDir, 'store');
  const before = await inspectStoreFiles(storeDir);
  if (before.state !== 'present') throw new DaemonError(DaemonErrorCodes.Usage, `there is no store to repair in ${dataDir}`);
  let lock = await holdStoreLock(storeDir, dataDir);
  let db: Db | undefined;
  try {
    const files = await inspectStoreFiles(storeDir);
    const backup = await copyStore(storeDir);
    logger.info('store copied before repair', { backup });
    // Read before anything replays the logs (and drops from them, and deletes them).
    const batches = files.state === 'present' ? await readBatches(files.logs.map((l) => l.file)) : [];
    const problems = files.state === 'present' ? files.problems : [];
    // Damage inside logs alone is left to LevelDB's own open, which checks every record's checksum
    // and drops a damaged one whole (with the rest of its block, written back below); RepairDB reads
    // logs without checksums and would store a damaged write as it is.
    const logsOnly = problems.length > 0 && problems.every((p) => p.file.endsWith('.log') && existsSync(p.file));
    let engineRepair = logsOnly ? undefined : problems[0]?.reason;
    if (engineRepair === undefined) {
      const opened = await openEngine(storeDir);
      if (opened.failure === undefined) db = opened.db;
      else {
        engineRepair = opened.failure;
        // POSIX locks belong to the process: the failed open's close released ours too.
        await lock.release();
        lock = await holdStoreLock(storeDir, dataDir);
      }
    }
    const lostBefore = new Set(await lostFiles(storeDir));
    if (engineRepair !== undefined) {
      logger.info('running LevelDB repair', { reason: engineRepair });
      await guard('repair the LevelDB files', () => ClassicLevel.repair(storeDir));
    }
    const lost = (await lostFiles(storeDir)).filter((name) => !lostBefore.has(name));
    db ??= await openRepaired(storeDir);
    const { removed, counts } = await repairRecords(db, salvagedWrites(batches), logger);
    return { backup, engineRepair, lost, salvaged: batches.filter((b) => !b.kept).length, removed, counts };
  } finally {
    await db?.close();
    await lock.release();
  }
}

/**
 * Copies the store dir as it is next to it, `LOCK` left out: closing a
 * handle on it would release this process's lock on the store. A copy
 * that fails (a full disk) is removed, and nothing else happens.
 */
async function copyStore(storeDir: string): Promise<string> {
  const backup = `${storeDir}.before-repair-${stamp()}`;
  try {
    await cp(storeDir, backup, { recursive: true, errorOnExist: true, force: false, filter: (src) => basename(src) !== 'LOCK' });
  } catch (err) {
    await rm(backup, { recursive: true, force: true });
    throw storageError(`cannot copy the store to ${backup} before repairing it; nothing was changed`, err);
  }
  return backup;
}

/** What `store/lost/` holds (LevelDB's repair moves files there; earlier repairs may have). */
async function lostFiles(storeDir: string): Promise<string[]> {
  return readdir(join(storeDir, 'lost')).catch(() => []);
}

/** Entries read per round trip while reading the whole store. */
const SCAN_CHUNK = 1000;

/**
 * LevelDB's own open of the store, and a read of every entry: the open
 * fails on damaged files, and a damaged table block passes the open and
 * fails only when read. Either is a reason for RepairDB; the store is left
 * open only when both went through.
 */
async function openEngine(storeDir: string): Promise<{ db: Db; failure?: undefined } | { db?: undefined; failure: string }> {
  const db: Db = new Level<string, string>(storeDir, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  try {
    await db.open({ createIfMissing: false });
  } catch (err) {
    return { failure: rootCause(err) };
  }
  const iterator = db.iterator();
  try {
    while ((await iterator.nextv(SCAN_CHUNK)).length > 0);
    return { db };
  } catch (err) {
    await db.close();
    return { failure: rootCause(err) };
  } finally {
    await iterator.close().catch(() => undefined);
  }
}

/** The store after RepairDB, open. */
async function openRepaired(storeDir: string): Promise<Db> {
  const db: Db = new Level<string, string>(storeDir, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await guard('open the repaired store', () => db.open({ createIfMissing: false }));
  return db;
}

/** The write batches of the live logs, read before LevelDB's repair replays (and drops from) them. */
async function readBatches(logs: string[]): Promise<LogBatch[]> {
  const out: LogBatch[] = [];
  for (const log of logs) out.push(...logBatches(await guard(`read ${log}`, () => readFile(log))));
  return out;
}

/**
 * Writes back what LevelDB dropped from damaged logs, removes damaged
 * records, and rebuilds what derives from the rest; reports the last two.
 */
async function repairRecords(db: Db, salvaged: BatchWrite[], logger: Logger): Promise<Pick<RepairReport, 'removed' | 'counts'>> {
  if (salvaged.length > 0) {
    const ops: BatchOp[] = salvaged.map((w) => (w.value === undefined ? { type: 'del', key: w.key } : { type: 'put', key: w.key, value: w.value }));
    await guard('write back what LevelDB dropped from the log', () => db.batch(ops, { sync: true }));
  }
  const subs = openSublevels(db);
  await restoreLayout(db, subs);
  await checkLayout(db, subs, true, true, logger);
  const removed: string[] = [];
  const decodesFact = (key: string, text: string) => void decodeFact('value', text, splitKey(key).rest);
  const decodesCheckpoint = (key: string, text: string) => void decodeCheckpoint('value', text, splitKey(key).rest);
  removed.push(...(await removeDamaged(db, subs.fact, decodesFact)));
  removed.push(...(await removeDamaged(db, subs.hist, decodesFact)));
  removed.push(...(await removeDamaged(db, subs.ckpt, decodesCheckpoint)));
  const old = await oldCounters(subs);
  await guard('drop the derived records', async () => {
    await db.batch([{ type: 'del', key: subs.meta.fullKey('index') }], { sync: true });
    // Meaning search's vectors too: a daemon with an embedder embeds every fact again at its next start.
    await Promise.all([subs.stats.clear(), subs.dedup.clear(), subs.vec.clear()]);
  });
  await rebuildDedup(db, subs);
  await ensureIndex(db, subs, true, logger);
  const fresh = await oldCounters(subs);
  const agents = [...new Set([...old.keys(), ...fresh.keys()])].sort();
  return { removed, counts: agents.map((agentId) => ({ agentId, before: old.get(agentId), after: fresh.get(agentId) })) };
}

/**
 * Puts back a layout record the damage took or broke, as the records show
 * it: a store whose records are not sealed is layout 1 (and is sealed
 * next), so that none of them is taken for damaged and removed.
 */
async function restoreLayout(db: Db, subs: Sublevels): Promise<void> {
  const stored = await guard('read the store layout', () => subs.meta.raw.get('layout'));
  if (stored === '1' || (stored !== undefined && unseal(subs.meta.fullKey('layout'), stored) !== undefined)) return;
  let layout = subs.meta.seal('layout', LayoutVersion);
  for (const sublevel of [subs.fact, subs.hist, subs.ckpt]) {
    const iterator = sublevel.raw.iterator({});
    const [first] = await guard(`read the ${sublevel.name} records`, () => iterator.nextv(1)).finally(() => iterator.close());
    if (first === undefined) continue;
    if (!first[1].startsWith('~')) layout = '1';
    break;
  }
  await guard('write the store layout', () => db.batch([{ type: 'put', key: subs.meta.fullKey('layout'), value: layout }], { sync: true }));
}

/** Whether a record's checksum holds and its payload decodes; the reason it does not, otherwise. */
function damage(sublevel: SealedSublevel, key: string, stored: string, decodes: (key: string, text: string) => void): string | undefined {
  const text = unseal(sublevel.fullKey(key), stored);
  if (text === undefined) return 'checksum mismatch';
  try {
    decodes(key, text);
    return undefined;
  } catch (err) {
    return rootCause(err);
  }
}

/** Deletes every record of the sublevel that fails its seal or does not decode; returns what each was. */
async function removeDamaged(db: Db, sublevel: SealedSublevel, decodes: (key: string, text: string) => void): Promise<string[]> {
  const removed: string[] = [];
  const ops: BatchOp[] = [];
  const iterator = sublevel.raw.iterator({});
  try {
    for (;;) {
      const chunk = await guard(`read the ${sublevel.name} records`, () => iterator.nextv(CHUNK));
      if (chunk.length === 0) break;
      for (const [key, stored] of chunk) {
        const why = damage(sublevel, key, stored, decodes);
        if (why === undefined) continue;
        removed.push(`${describeRecord(sublevel.name, key)} (${why})`);
        ops.push({ type: 'del', key: sublevel.fullKey(key) });
      }
    }
  } finally {
    await iterator.close();
  }
  if (ops.length > 0) await guard('remove damaged records', () => db.batch(ops, { sync: true }));
  return removed;
}

/** The counters the store holds, those that can still be read. */
async function oldCounters(subs: Sublevels): Promise<Map<string, AgentStats>> {
  const out = new Map<string, AgentStats>();
  const iterator = subs.stats.raw.iterator({});
  const entries: Array<[string, string]> = [];
  try {
    for (let chunk = await iterator.nextv(CHUNK); chunk.length > 0; chunk = await iterator.nextv(CHUNK)) entries.push(...chunk);
  } finally {
    await iterator.close();
  }
  for (const [agentId, stored] of entries) {
    const text = unseal(subs.stats.fullKey(agentId), stored);
    if (text === undefined || !isAgentId(agentId)) continue;
    try {
      out.set(agentId, decodeStats(agentId, text));
    } catch {
      // A counter that does not decode is rebuilt like the rest; there is nothing to report from it.
    }
  }
  return out;
}

