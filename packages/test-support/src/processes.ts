import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { waitFor } from './wait.js';

/** One line of `ps`: pid, session id, state (`Z…` for a zombie) and command line. */
export interface ProcessInfo {
  pid: number;
  sid: number;
  stat: string;
  args: string;
}

/**
 * Every process, from `ps -ww` (full command lines: a test's unique temp
 * dir sits far along a daemon's argv). Daemons a client or shim autostarts
 * are detached and not our children, so `ps` is how a test sees them.
 */
export function processes(): ProcessInfo[] {
  const out = execFileSync('ps', ['-ww', '-eo', 'pid=,sid=,stat=,args='], { encoding: 'utf8' });
  const list: ProcessInfo[] = [];
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (m) list.push({ pid: Number(m[1]), sid: Number(m[2]), stat: m[3]!, args: m[4]! });
  }
  return list;
}

/** The pids in `list` whose command line contains every one of `needles`, but for zombies, `ps` itself and this process. */
export function mentioning(list: readonly ProcessInfo[], needles: readonly string[]): number[] {
  return list
    .filter((p) => !p.stat.startsWith('Z') && p.pid !== process.pid && !p.args.startsWith('ps ') && needles.every((n) => p.args.includes(n)))
    .map((p) => p.pid);
}

/**
 * Pids of running processes whose command line contains every one of
 * `needles` (e.g. the daemon's bin and a test's unique data dir). A zombie
 * has exited (it only waits for init to reap it) and is left out.
 */
export function pidsMentioning(...needles: string[]): number[] {
  return mentioning(processes(), needles);
}

/** Pids of memoryd processes whose command line names `dir` (each test's paths are unique). */
export function daemonsUnder(dir: string): number[] {
  return pidsMentioning('memoryd', dir);
}

/**
 * True while a process with this pid runs. Signal 0 probes without killing,
 * but a zombie answers it too: a daemon started detached is reparented to
 * init when its starter exits, and some inits (containers) reap only now
 * and then. So a zombie counts as gone. (Its leader thread turns zombie
 * before its other threads are done: a test that needs the daemon's socket
 * closed waits for that too.)
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

/** A process's resident memory now and at its peak (Linux `/proc/PID/status`: VmRSS, VmHWM), in bytes. */
export function residentBytes(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (m === null) throw new Error(`no ${field} in /proc/${pid}/status`);
    return Number(m[1]) * 1024;
  };
  return { now: kib('VmRSS'), peak: kib('VmHWM') };
}
