import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every process and temp dir a test creates is registered here, so one
// `after(cleanupAll)` per test file kills leftovers by pid and deletes the
// dirs even when a test failed half-way. Daemons the client autostarts are
// detached and not our children's children we can track, so cleanup also
// finds, by pid, every memoryd whose command line names one of our temp
// dirs (each test's paths are unique), and kills those.

const pids = new Set<number>();
const dirs = new Set<string>();

/** Registers a pid to be SIGKILLed by {@link cleanupAll} if still running. */
export function trackPid(pid: number): void {
  pids.add(pid);
}

/** Forgets a pid whose process has exited (its number may be reused). */
export function untrackPid(pid: number): void {
  pids.delete(pid);
}

/**
 * A fresh temp dir with a short random name: socket paths inside it must
 * stay under the 107-byte sun_path limit.
 */
export function tempDir(prefix = 'mc-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

/** True while a process with this pid runs (a zombie, dead but not yet reaped, does not count). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return processes().some((p) => p.pid === pid && !p.args.includes('<defunct>'));
}

/** pid, session id and command line of every process (zombies have no args). */
export function processes(): { pid: number; sid: number; args: string }[] {
  const out = execFileSync('ps', ['-eo', 'pid=,sid=,args='], { encoding: 'utf8' });
  const list: { pid: number; sid: number; args: string }[] = [];
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (m) list.push({ pid: Number(m[1]), sid: Number(m[2]), args: m[3]! });
  }
  return list;
}

/** Pids of memoryd processes whose command line names `dir`. */
export function daemonsUnder(dir: string): number[] {
  return processes()
    .filter((p) => p.pid !== process.pid && p.args.includes('memoryd') && p.args.includes(dir))
    .map((p) => p.pid);
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone: nothing to do.
  }
}

/** Kills every tracked process and every memoryd under our temp dirs, by pid, then removes the dirs. */
export async function cleanupAll(): Promise<void> {
  const victims = new Set(pids);
  for (const dir of dirs) for (const pid of daemonsUnder(dir)) victims.add(pid);
  for (const pid of victims) kill(pid);
  pids.clear();
  // Bounded: a killed process is gone within milliseconds.
  const deadline = Date.now() + 5_000;
  while ([...victims].some((pid) => isAlive(pid)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  dirs.clear();
}

// Last resort when the test process exits without running its hooks.
process.on('exit', () => {
  for (const pid of pids) kill(pid);
});
