import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, mentioning, processes } from './processes.js';
import { POLL_MS, sleep } from './wait.js';

// Every process, open handle and temp dir a test creates is registered
// here, so one `after(cleanupAll)` per test file (or describe block) closes
// what is open, kills leftovers by pid and deletes the dirs even when a
// test failed half-way. A hang or a leaked process is a failure of the
// suite, never something the next run inherits. Daemons a client or shim
// autostarts are detached and not children we can track, so cleanup also
// finds, by pid, every memoryd whose command line names one of our temp
// dirs (each test's paths are unique), and kills those too.

const pids = new Set<number>();
const dirs = new Set<string>();
const closers = new Set<() => Promise<void>>();

/** How long {@link cleanupAll} waits for the processes it killed to be gone. */
const KILL_WAIT_MS = 5_000;

/** Registers a pid to be SIGKILLed by {@link cleanupAll} if still running. */
export function trackPid(pid: number): void {
  pids.add(pid);
}

/** Forgets a pid whose process has exited (its number may be reused). */
export function untrackPid(pid: number): void {
  pids.delete(pid);
}

/**
 * Registers an async close (an MCP client, a DaemonClient, a fixture
 * server) for {@link cleanupAll}; returns a close that runs it once now
 * and unregisters it.
 */
export function trackCloser(close: () => Promise<void>): () => Promise<void> {
  closers.add(close);
  return async () => {
    closers.delete(close);
    await close();
  };
}

/**
 * A fresh temp dir under os.tmpdir() with a short random name: socket
 * paths inside it must stay under the 107-byte sun_path limit.
 */
export function tempDir(prefix = 'mt-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone: nothing to do.
  }
}

/**
 * Closes what is open, kills (SIGKILL, by pid) every tracked process and
 * every memoryd naming one of our temp dirs, waits (bounded) until they are
 * gone, then removes the dirs.
 */
export async function cleanupAll(): Promise<void> {
  const pending = [...closers];
  closers.clear();
  await Promise.allSettled(pending.map((c) => c()));
  const victims = new Set(pids);
  pids.clear();
  if (dirs.size > 0) {
    const list = processes();
    for (const dir of dirs) for (const pid of mentioning(list, ['memoryd', dir])) victims.add(pid);
  }
  for (const pid of victims) kill(pid);
  // Bounded: a killed process is gone within milliseconds.
  const deadline = Date.now() + KILL_WAIT_MS;
  while ([...victims].some((pid) => isAlive(pid)) && Date.now() < deadline) await sleep(POLL_MS);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  dirs.clear();
}

// Last resort when the test process exits without running its hooks.
process.on('exit', () => {
  for (const pid of pids) kill(pid);
});
