import { lstat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { defaultSocketPath, socketDirProblem, socketPathProblem } from '@memoryd/protocol';
import { reason } from './errors.js';

/** Where the client connects, and whether the user chose that path. */
export interface SocketTarget {
  /** The socket path. */
  path: string;
  /**
   * True for `socket` given as an option or as MEMORYD_SOCKET: the user's
   * choice, whose directory is not second-guessed (docs/architecture.md,
   * "Connecting and autostart").
   */
  explicit: boolean;
}

/** This process's uid; 0 where the platform has none. */
export function currentUid(): number {
  return process.getuid?.() ?? 0;
}

/**
 * The socket to use: the option, else MEMORYD_SOCKET, else protocol's
 * default for this user (empty strings count as unset, as in the daemon).
 */
export function resolveSocketTarget(socket: string | undefined, env: NodeJS.ProcessEnv, uid: number): SocketTarget {
  if (socket) return { path: socket, explicit: true };
  const fromEnv = env['MEMORYD_SOCKET'];
  if (fromEnv) return { path: fromEnv, explicit: true };
  return { path: defaultSocketPath(env, uid), explicit: false };
}

/**
 * Why the client must not use `target` (neither connect nor autostart), or
 * undefined. A path too long for a socket can never work. An existing
 * default socket directory must be a real directory of ours that admits no
 * one else, judged by `lstat` exactly as the daemon judges it; one that does
 * not exist yet is fine (the daemon creates it 0700). Never changes anything.
 */
export async function socketRefusal(target: SocketTarget, uid: number): Promise<Error | undefined> {
  const tooLong = socketPathProblem(target.path, Buffer.byteLength(target.path), process.platform);
  if (tooLong !== undefined) return reason(tooLong);
  if (target.explicit) return undefined;
  const dir = dirname(target.path);
  let st;
  try {
    st = await lstat(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return reason(`cannot inspect socket directory ${dir}: ${(err as Error).message}`, err);
  }
  const problem = socketDirProblem(
    dir,
    { isDirectory: st.isDirectory(), isSymbolicLink: st.isSymbolicLink(), uid: st.uid, mode: st.mode },
    uid,
  );
  return problem === undefined ? undefined : reason(problem);
}
