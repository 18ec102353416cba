import { link, mkdir, open, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Level } from 'level';
import { DaemonError, DaemonErrorCodes, storageError } from '../../../errors.js';

/** Beside the store dir: where the throwaway LevelDB that holds the lock lives. */
const LOCK_DIR = '.memoryd-lock';

/** A held LevelDB lock on a store dir; release it after closing anything else opened on the store. */
export interface StoreLock {
  release(): Promise<void>;
}

/**
 * Takes the LevelDB lock of `storeDir` without opening the store. LevelDB
 * locks `<dir>/LOCK` with fcntl(F_SETLK), which locks the file's inode,
 * not its name, and takes the lock before it reads anything; opening a
 * throwaway LevelDB in a temp dir whose `LOCK` is a hard link to the
 * store's therefore takes the store's lock while leaving the store's
 * files untouched. Opening the store itself would first replay its log,
 * and LevelDB 1.20 drops a damaged log's records doing so; RepairDB takes
 * no lock at all. So verify and repair hold this for as long as they run.
 *
 * POSIX record locks belong to the process: closing the store after
 * opening it in this process releases this lock too, so release it last.
 */
export async function holdStoreLock(storeDir: string, dataDir: string): Promise<StoreLock> {
  const lockFile = join(storeDir, 'LOCK');
  // One name, not a fresh temp dir: what a killed run left is cleared by the next. A run in
  // progress loses nothing by it: its open handle keeps its lock, and this one then fails.
  const dir = join(dirname(storeDir), LOCK_DIR);
  let db: Level | undefined;
  try {
    await (await open(lockFile, 'a', 0o600)).close();
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { mode: 0o700 });
    await link(lockFile, join(dir, 'LOCK'));
    // Made only now and opened at once: abstract-level opens a new database by itself on the next tick.
    db = new Level(dir);
    await db.open({ createIfMissing: true });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    const e = err as { code?: unknown; cause?: { code?: unknown } };
    if (e.code === 'LEVEL_DATABASE_NOT_OPEN' && e.cause?.code === 'LEVEL_LOCKED') {
      throw new DaemonError(DaemonErrorCodes.DataDirLocked, `data dir ${dataDir} is in use by a running memoryd: stop it first`, { cause: err });
    }
    throw storageError(`cannot lock the store in ${storeDir}`, err);
  }
  const held = db;
  return {
    release: async () => {
      await held.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
