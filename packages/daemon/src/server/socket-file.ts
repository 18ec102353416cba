import { lstat, unlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { socketDirProblem, socketPathProblem } from '@memoryd/protocol';
import { DaemonError, DaemonErrorCodes } from '../errors.js';
import { makeDirs } from '../make-dirs.js';

/** How long to wait for a possible live daemon on an existing socket. */
const PROBE_TIMEOUT_MS = 1_000;

function socketPathError(message: string, cause?: unknown): DaemonError {
  return new DaemonError(DaemonErrorCodes.SocketPath, message, { cause });
}

/**
 * Makes the socket's directory ready. A directory the daemon creates is
 * 0700. An existing default directory must be ours and closed to everyone
 * else, or we refuse without touching it; an explicit path is the user's
 * choice and is not second-guessed.
 */
export async function prepareSocketDir(socketPath: string, explicit: boolean): Promise<void> {
  const problem = socketPathProblem(socketPath, Buffer.byteLength(socketPath), process.platform);
  if (problem !== undefined) throw socketPathError(problem);
  const dir = dirname(socketPath);
  const uid = process.getuid?.() ?? 0;
  try {
    // Creates what is missing, 0700; leaves an existing directory as it is.
    await makeDirs(dir, 0o700);
  } catch (err) {
    throw socketPathError(`cannot create socket directory ${dir}: ${(err as Error).message}`, err);
  }
  if (explicit) return;
  // Judge what is there now, created by us or not (lstat: no symlink games).
  const st = await lstat(dir);
  const reason = socketDirProblem(
    dir,
    { isDirectory: st.isDirectory(), isSymbolicLink: st.isSymbolicLink(), uid: st.uid, mode: st.mode },
    uid,
  );
  if (reason !== undefined) throw socketPathError(reason);
}

/** Resolves true when something accepts connections on `socketPath`. */
function isLive(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socketPath);
    const done = (live: boolean) => {
      clearTimeout(timer);
      probe.destroy();
      resolve(live);
    };
    // A listener that accepts but is too busy to answer still counts as live.
    const timer = setTimeout(() => done(true), PROBE_TIMEOUT_MS);
    probe.once('connect', () => done(true));
    probe.once('error', () => done(false));
  });
}

/**
 * Clears the way to bind `socketPath`: a stale socket file with no listener
 * is removed; a live one means another daemon serves it; anything that is
 * not a socket is left alone.
 */
export async function claimSocketPath(socketPath: string): Promise<void> {
  let st;
  try {
    st = await lstat(socketPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw socketPathError(`cannot inspect socket ${socketPath}: ${(err as Error).message}`, err);
  }
  if (!st.isSocket()) throw socketPathError(`${socketPath} exists and is not a socket; not replacing it`);
  if (await isLive(socketPath)) {
    throw new DaemonError(DaemonErrorCodes.SocketInUse, `socket ${socketPath} is already served by another memoryd`);
  }
  await unlink(socketPath).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw socketPathError(`cannot remove stale socket ${socketPath}: ${(err as Error).message}`, err);
    }
  });
}
