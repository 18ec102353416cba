import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every process and temp dir a test creates is registered here, so one
// `after(cleanupAll)` per test file kills leftovers by pid and deletes the
// dirs even when a test failed half-way. A hang or a leaked process is a
// failure of the suite, never something the next run inherits.

const pids = new Set<number>();
const dirs = new Set<string>();
const closers = new Set<() => Promise<void>>();

/** Registers a pid to be SIGKILLed by {@link cleanupAll} if still running. */
export function trackPid(pid: number): void {
  pids.add(pid);
}

/** Forgets a pid whose process has exited (its number may be reused). */
export function untrackPid(pid: number): void {
  pids.delete(pid);
}

/** Registers an async close (an MCP client, a DaemonClient, a fixture server). */
export function trackCloser(close: () => Promise<void>): () => Promise<void> {
  closers.add(close);
  return async () => {
    closers.delete(close);
    await close();
  };
}

/**
 * A fresh temp dir with a short name: socket paths inside it must stay
 * under the 107-byte sun_path limit.
 */
export function tempDir(prefix = 'mm-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

function killAll(): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone: nothing to do.
    }
  }
  pids.clear();
}

/** Closes what is open, kills every tracked process by pid and removes every temp dir. */
export async function cleanupAll(): Promise<void> {
  const pending = [...closers];
  closers.clear();
  await Promise.allSettled(pending.map((c) => c()));
  killAll();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

// Last resort when the test process exits without running its hooks.
process.on('exit', killAll);
