import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Level } from 'level';
import { DaemonError, DaemonErrorCodes, rootCause } from '../errors.js';

/** The lock on a socket path, held while serving it. */
export interface SocketLock {
  /** Where the lock lives: `<socket>.lock`, a directory left in place. */
  readonly path: string;
  /** Lets the path go; call it after the socket is closed. */
  release(): Promise<void>;
}

/**
 * Claims `socketPath` for this process before anything else is touched,
 * so that of any number of daemons started at once on one socket (with
 * any data dirs, a stale socket file or not) exactly one goes on, and the
 * others stop naming the socket. Checking the socket file and binding it
 * are two steps another daemon can come between; the lock makes them one.
 *
 * Node has no flock: the lock is LevelDB's, a throwaway database in
 * `<socket>.lock` whose `LOCK` file LevelDB holds with fcntl(F_SETLK) while
 * it is open. The kernel drops it when the process dies, so a killed
 * daemon leaves nothing to clean. The directory is never removed:
 * removing it while another daemon opens it could give two daemons two
 * locks on two files.
 */
export async function claimSocketLock(socketPath: string): Promise<SocketLock> {
  const path = `${socketPath}.lock`;
  const db = new Level(path);
  try {
    await db.open({ createIfMissing: true });
  } catch (err) {
    const e = err as { code?: unknown; cause?: { code?: unknown } };
    if (e.code === 'LEVEL_DATABASE_NOT_OPEN' && e.cause?.code === 'LEVEL_LOCKED') {
      const holder = await readFile(join(path, HOLDER), 'utf8').then((t) => /^\d+$/.test(t.trim()) ? ` (pid ${t.trim()})` : '', () => '');
      throw new DaemonError(DaemonErrorCodes.SocketInUse, `socket ${socketPath} is taken by another memoryd${holder} (it holds ${path})`, { cause: err });
    }
    throw new DaemonError(DaemonErrorCodes.SocketPath, `cannot lock socket ${socketPath} (${path}): ${rootCause(err)}`, { cause: err });
  }
  // Who holds it, for the message of a daemon that finds it taken; a failure to say so is no failure to lock.
  await writeFile(join(path, HOLDER), `${process.pid}\n`).catch(() => {});
  return { path, release: () => db.close() };
}

/** The file in the lock's directory naming the process that holds it. */
const HOLDER = 'memoryd.pid';
