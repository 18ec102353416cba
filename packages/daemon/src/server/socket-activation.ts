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
