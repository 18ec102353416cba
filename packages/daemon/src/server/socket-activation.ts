import { readFileSync, readlinkSync } from 'node:fs';

/** First file descriptor systemd passes (SD_LISTEN_FDS_START in sd-daemon.h). */
export const SD_LISTEN_FDS_START = 3;

/**
 * The inherited listening fd under systemd socket activation, or undefined.
 * As sd_listen_fds(3) does, the variables count only when LISTEN_PID names
 * this process, and they are removed so children do not inherit them.
 */
export function takeActivationFd(env: NodeJS.ProcessEnv, pid: number): number | undefined {
  const fds = env['LISTEN_FDS'];
  const listenPid = env['LISTEN_PID'];
  delete env['LISTEN_FDS'];
  delete env['LISTEN_PID'];
  delete env['LISTEN_FDNAMES'];
  if (fds === undefined || listenPid === undefined) return undefined;
  if (Number(listenPid) !== pid) return undefined;
  const count = Number(fds);
  if (!Number.isInteger(count) || count < 1) return undefined;
  return SD_LISTEN_FDS_START;
}

/**
 * The path the inherited socket is bound to, read from the kernel
 * (Linux: the fd's inode in /proc/self/fd, its path in /proc/net/unix), so
 * the daemon reports, logs and locks the socket it serves whatever its
 * environment says (without XDG_RUNTIME_DIR the default path is another
 * one). Undefined when it cannot be read (another system, an abstract or
 * unnamed socket); the caller falls back to the configured path.
 */
export function inheritedSocketPath(fd: number): string | undefined {
  try {
    const link = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
    if (link === null) return undefined;
    for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
      // Num RefCount Protocol Flags Type St Inode Path
      const fields = line.trim().split(/\s+/);
      if (fields[6] === link[1] && fields[7] !== undefined && fields[7].startsWith('/')) return fields.slice(7).join(' ');
    }
  } catch {
    // Not Linux, or /proc is not mounted: the configured path is all there is.
  }
  return undefined;
}
