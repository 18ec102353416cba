import { chmod, lstat, readdir, stat as statPath } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirs } from '../../make-dirs.js';
import { storageError } from '../../errors.js';
import type { Logger } from '../../logger.js';

/** Group and other permission bits: none may be set on what holds the store. */
const SHARED_BITS = 0o077;

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

/**
 * Makes the data dir (and any missing parent) 0700 if it is missing, and
 * tightens the data dir and the store dir to 0700, and the files in the
 * store dir to 0600, wherever group or others had any permission: a
 * memory holds what agents were told, and nobody else on the machine may
 * read it. Each tightening is logged with the mode it replaced. A path
 * that cannot be tightened (not ours) fails the start.
 */
export async function prepareDataDir(dataDir: string, storeDir: string, logger: Logger): Promise<void> {
  try {
    await makeDirs(dataDir, 0o700);
  } catch (err) {
    throw storageError(`cannot create data dir ${dataDir}`, err);
  }
  await tighten(dataDir, 'data dir', 0o700, logger);
  const inStore = await entries(storeDir);
  if (inStore === undefined) return;
  await tighten(storeDir, 'store dir', 0o700, logger);
  let files = 0;
  let from = 0;
  // All at once: a large store holds hundreds of tables, and one stat at a
  // time cost some 60 ms of every start.
  const stats = await Promise.all(inStore.map((name) => lstat(join(storeDir, name)).catch(() => undefined)));
  for (const [i, stat] of stats.entries()) {
    if (stat === undefined || !stat.isFile() || (stat.mode & SHARED_BITS) === 0) continue;
    await chmodOrFail(join(storeDir, inStore[i]!), 0o600);
    files++;
    from = stat.mode;
  }
  if (files > 0) logger.warn('store files were readable by others; tightened to 0600', { storeDir, files, oldMode: octal(from) });
}

/** The names in a directory, or undefined when it does not exist. */
async function entries(dir: string): Promise<string[] | undefined> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw storageError(`cannot read ${dir}`, err);
  }
}

async function tighten(path: string, what: string, mode: number, logger: Logger): Promise<void> {
  let stat;
  try {
    // stat, not lstat: a data dir may be a symlink to the user's choice of place.
    stat = await statPath(path);
  } catch (err) {
    throw storageError(`cannot read ${what} ${path}`, err);
  }
  if ((stat.mode & SHARED_BITS) === 0) return;
  await chmodOrFail(path, mode);
  logger.warn(`${what} was readable by others; tightened to ${octal(mode)}`, { path, oldMode: octal(stat.mode) });
}

async function chmodOrFail(path: string, mode: number): Promise<void> {
  try {
    await chmod(path, mode);
  } catch (err) {
    throw storageError(`cannot make ${path} private (mode ${octal(mode)})`, err);
  }
}
