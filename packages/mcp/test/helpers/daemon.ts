import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir, trackPid, untrackPid } from './cleanup.js';
import { canConnect, withTimeout } from './wait.js';

/**
 * The daemon's committed bin, found from this compiled file
 * (packages/mcp/dist-test/helpers/daemon.js → packages/daemon/bin/memoryd.js).
 * Tests run the real daemon as a process; the shim never imports it.
 */
export const DAEMON_BIN = fileURLToPath(new URL('../../../daemon/bin/memoryd.js', import.meta.url));

/** The shim's committed bin (bundle when built, else the compiled dist). */
export const SHIM_BIN = fileURLToPath(new URL('../../bin/memoryd-mcp.js', import.meta.url));

/** An environment without a developer's MEMORYD_* settings, plus `overrides`. */
export function cleanEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('MEMORYD_') || k.startsWith('LISTEN_') || k === 'NOTIFY_SOCKET') continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** A daemon process started by a test. */
export interface DaemonHandle {
  pid: number;
  socket: string;
  dataDir: string;
  /** All stderr so far (JSON log lines). */
  stderr(): string;
  /** SIGTERM, wait (bounded), SIGKILL if needed. */
  stop(): Promise<void>;
}

/** Where a test's daemon lives: a socket and a data dir in a fresh temp dir. */
export function daemonPaths(): { socket: string; dataDir: string } {
  const dir = tempDir();
  return { socket: join(dir, 'd.sock'), dataDir: join(dir, 'data') };
}

/**
 * Starts `memoryd --socket S --data-dir D` and waits (bounded) until the
 * socket accepts. Polling the socket is the only readiness signal a black
 * box gives.
 */
export async function startDaemon(paths = daemonPaths(), timeoutMs = 10_000): Promise<DaemonHandle> {
  const child: ChildProcess = spawn(
    process.execPath,
    [DAEMON_BIN, '--socket', paths.socket, '--data-dir', paths.dataDir, '--no-sync', '--log-level', 'warn'],
    { env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not spawn memoryd');
  trackPid(pid);
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  let gone = false;
  const exited = new Promise<void>((resolve) =>
    child.once('close', () => {
      gone = true;
      untrackPid(pid);
      resolve();
    }),
  );
  const deadline = Date.now() + timeoutMs;
  while (!(await canConnect(paths.socket))) {
    if (gone) throw new Error(`memoryd exited before listening; stderr:\n${err}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`memoryd did not listen on ${paths.socket} within ${timeoutMs} ms; stderr:\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    pid,
    ...paths,
    stderr: () => err,
    stop: async () => {
      if (gone) return;
      child.kill('SIGTERM');
      try {
        await withTimeout(exited, 5000, `memoryd ${pid} to stop`);
      } catch (e) {
        child.kill('SIGKILL');
        await exited;
        throw e;
      }
    },
  };
}
