// Where the daemon listens by default, and whether a socket directory is
// safe to use. Pure functions of their inputs (no I/O), so the daemon and
// every client judge a path the same way.

/** Longest socket path in bytes: sun_path minus its NUL (docs/protocol.md, "Framing"). */
export const MaxSocketPathBytes: Readonly<Record<string, number>> = { linux: 107, darwin: 102 };

/** The limit for `platform`, the stricter one when unknown. */
export function maxSocketPathBytes(platform: string): number {
  return MaxSocketPathBytes[platform] ?? 102;
}

/** The environment variables that decide the default socket path. */
export interface SocketEnv {
  XDG_RUNTIME_DIR?: string | undefined;
  TMPDIR?: string | undefined;
}

function joinPath(dir: string, ...parts: string[]): string {
  return [dir.replace(/\/+$/, '') || '/', ...parts].join('/').replace(/^\/\//, '/');
}

/**
 * The default (docs/protocol.md "Framing"): `$XDG_RUNTIME_DIR/memoryd/memoryd.sock`; without
 * XDG_RUNTIME_DIR, `$TMPDIR/memoryd-<uid>/memoryd.sock` (TMPDIR defaulting
 * to /tmp). Empty variables count as unset.
 */
export function defaultSocketPath(env: SocketEnv, uid: number): string {
  if (env.XDG_RUNTIME_DIR) return joinPath(env.XDG_RUNTIME_DIR, 'memoryd', 'memoryd.sock');
  return joinPath(env.TMPDIR || '/tmp', `memoryd-${uid}`, 'memoryd.sock');
}

/** What {@link socketDirProblem} needs of an `lstat` of the directory. */
export interface DirStat {
  isDirectory: boolean;
  isSymbolicLink: boolean;
  uid: number;
  mode: number;
}

/**
 * Why an existing default socket directory must not be used, or undefined
 * when it is safe: it must be a real directory owned by `uid` that admits
 * no one else (in a shared /tmp another user could pre-create it).
 */
export function socketDirProblem(dir: string, stat: DirStat, uid: number): string | undefined {
  if (stat.isSymbolicLink) return `socket directory ${dir} is a symbolic link`;
  if (!stat.isDirectory) return `socket directory ${dir} is not a directory`;
  if (stat.uid !== uid) return `socket directory ${dir} belongs to uid ${stat.uid}, not to you (uid ${uid})`;
  const perms = stat.mode & 0o777;
  if ((perms & 0o077) !== 0) {
    return `socket directory ${dir} has mode ${perms.toString(8).padStart(4, '0')}, which admits group or others (expected 0700)`;
  }
  return undefined;
}

/** Why a socket path cannot be bound, or undefined when it can. */
export function socketPathProblem(path: string, byteLength: number, platform: string): string | undefined {
  const max = maxSocketPathBytes(platform);
  if (byteLength > max) {
    return `socket path ${path} is ${byteLength} bytes, over the ${max}-byte limit of ${platform} sockets: choose a shorter --socket or MEMORYD_SOCKET`;
  }
  return undefined;
}
