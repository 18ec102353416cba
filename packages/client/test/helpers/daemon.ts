import { type ChildProcess, spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir, trackPid, untrackPid } from './cleanup.js';

/** The committed daemon bin, found from this compiled file (client/dist-test/helpers → daemon/bin). */
export const DAEMON_BIN = fileURLToPath(new URL('../../../daemon/bin/memoryd.js', import.meta.url));

/**
 * process.env without a developer's memoryd config or a socket-activation
 * environment, plus `overrides` (`undefined` removes a variable).
 */
export function cleanEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('MEMORYD_') || k.startsWith('LISTEN_') || k === 'NOTIFY_SOCKET') continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Rejects after `ms` with a message naming what was awaited. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** Polls `check` until it returns true, bounded. */
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

/** A daemon the test started itself. */
export interface TestDaemon {
  pid: number;
  socket: string;
  dataDir: string;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  /** SIGTERM and wait (bounded) for the exit. */
  stop(): Promise<void>;
  /** SIGKILL and wait (bounded) for the exit. */
  kill(): Promise<void>;
}

/**
 * Runs `node memoryd.js --socket S --data-dir D` (defaults in a fresh temp
 * dir) and waits, bounded, until its socket accepts a connection.
 */
export async function startDaemon(opts: { socket?: string; dataDir?: string; args?: string[] } = {}): Promise<TestDaemon> {
  const tmp = opts.socket === undefined || opts.dataDir === undefined ? tempDir() : '';
  const socket = opts.socket ?? join(tmp, 'd.sock');
  const dataDir = opts.dataDir ?? join(tmp, 'data');
  const child: ChildProcess = spawn(
    process.execPath,
    [DAEMON_BIN, '--socket', socket, '--data-dir', dataDir, '--log-level', 'warn', ...(opts.args ?? [])],
    { env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not spawn the daemon');
  trackPid(pid);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let gone = false;
  const exited = new Promise<void>((resolve) =>
    child.once('close', () => {
      gone = true;
      untrackPid(pid);
      resolve();
    }),
  );
  const end = async (signal: NodeJS.Signals) => {
    if (!gone) child.kill(signal);
    await withTimeout(exited, 5_000, `daemon ${pid} to exit after ${signal}`);
  };
  await waitFor(
    async () => {
      if (gone) throw new Error(`daemon exited before listening; stderr:\n${stderr}`);
      return canConnect(socket);
    },
    10_000,
    `daemon on ${socket}`,
  );
  return { pid, socket, dataDir, exited, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}
