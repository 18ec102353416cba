import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';

/** Rejects after `ms` with a message naming what was awaited. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** Polls `check` until it returns true, bounded; for state only a probe can reveal. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One connect attempt: true if the socket accepted. */
export function canConnect(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(socket);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * True while a process with this pid runs. Signal 0 probes without killing,
 * but a zombie answers it too: a daemon the shim started detached is
 * reparented to init when the shim exits, and some inits (containers) reap
 * only now and then. So a zombie counts as gone. (Its leader thread turns
 * zombie before its other threads are done: a test that needs the daemon's
 * socket closed waits for that too.)
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    // /proc/PID/stat: "pid (comm) S ...", comm may hold spaces or parens.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || process.platform === 'linux') return false;
  }
  // No procfs (macOS): ask ps.
  try {
    return execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim().startsWith('Z');
  } catch {
    return false;
  }
}

/** SIGTERM a process that is not our child, wait (bounded) for it to go, SIGKILL if it lingers. */
export async function terminate(pid: number, timeoutMs = 5000): Promise<void> {
  if (!isAlive(pid)) return;
  process.kill(pid, 'SIGTERM');
  try {
    await waitFor(() => !isAlive(pid), timeoutMs, `process ${pid} to exit after SIGTERM`);
  } catch (err) {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await waitFor(() => !isAlive(pid), timeoutMs, `process ${pid} to exit after SIGKILL`);
    throw err;
  }
}
