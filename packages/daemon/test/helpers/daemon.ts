import { type ChildProcess, spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir, trackPid, untrackPid } from './cleanup.js';

/**
 * The committed bin, found from this compiled file
 * (dist-test/helpers/daemon.js → bin/memoryd.js), so the suite runs from
 * any checkout.
 */
export const DAEMON_BIN = fileURLToPath(new URL('../../bin/memoryd.js', import.meta.url));

/** How a daemon process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of {@link spawnDaemon}. */
export interface SpawnOptions {
  /** Extra flags after the defaults. */
  args?: string[];
  /** Environment overrides; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Socket path; default `<tmp>/d.sock`. */
  socket?: string;
  /** Pass `--socket`; false to exercise the default path (then `socket` is only where to wait). */
  socketFlag?: boolean;
  /** Data dir; default `<tmp>/data`. */
  dataDir?: string;
  /** Pass `--data-dir`. */
  dataDirFlag?: boolean;
  /** Pass `--log-level debug` (default true). */
  debug?: boolean;
  /** A command that execs the rest (e.g. a socket-activation launcher); keeps the pid. */
  launcher?: string[];
  /**
   * What to wait for: the socket accepting (or the process exiting), the
   * process exiting (a daemon expected to refuse to start), or nothing.
   */
  wait?: 'listening' | 'exit' | 'none';
  /** Bound of that wait; default 10 s. */
  timeoutMs?: number;
}

/** A running (or exited) daemon process. */
export interface DaemonHandle {
  pid: number;
  socket: string;
  dataDir: string;
  /** True when the socket accepted a connection during the start wait. */
  listening: boolean;
  /** All stderr so far. */
  stderr(): string;
  /** All stdout so far. */
  stdout(): string;
  /** The last non-empty stderr line. */
  lastStderrLine(): string;
  /** Resolves once when the process exits. */
  exited: Promise<Exit>;
  /** The exit, if it happened. */
  exit(): Exit | undefined;
  /** SIGTERM, wait up to `timeoutMs` (5 s), then SIGKILL; resolves with the exit. */
  stop(timeoutMs?: number): Promise<Exit>;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<Exit>;
  /** Sends a signal without waiting. */
  signal(sig: NodeJS.Signals): void;
}

/** Rejects after `ms` with a message naming what was awaited. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
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

function buildEnv(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // The suite must not inherit a developer's daemon config or a
    // socket-activation environment.
    if (k.startsWith('MEMORYD_') || k.startsWith('LISTEN_') || k === 'NOTIFY_SOCKET') continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/**
 * Starts `node bin/memoryd.js --socket S --data-dir D --log-level debug ...`
 * and waits (bounded) until its socket accepts a connection or it exits.
 */
export async function spawnDaemon(opts: SpawnOptions = {}): Promise<DaemonHandle> {
  const needTmp = opts.socket === undefined || opts.dataDir === undefined;
  const tmp = needTmp ? tempDir() : '';
  const socket = opts.socket ?? join(tmp, 'd.sock');
  const dataDir = opts.dataDir ?? join(tmp, 'data');
  const args = [DAEMON_BIN];
  if (opts.socketFlag !== false) args.push('--socket', socket);
  if (opts.dataDirFlag !== false) args.push('--data-dir', dataDir);
  if (opts.debug !== false) args.push('--log-level', 'debug');
  args.push(...(opts.args ?? []));
  const [file, ...pre] = opts.launcher ? [...opts.launcher, process.execPath] : [process.execPath];
  const child: ChildProcess = spawn(file!, [...pre, ...args], {
    env: buildEnv(opts.env ?? {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) {
    throw new Error(`could not spawn ${file}`);
  }
  const pid = child.pid;
  trackPid(pid);
  let err = '';
  let out = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  let exitInfo: Exit | undefined;
  // 'close' (not 'exit') so stderr is complete when the promise resolves.
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      exitInfo = { code, signal };
      untrackPid(pid);
      resolve(exitInfo);
    });
  });

  const handle: DaemonHandle = {
    pid,
    socket,
    dataDir,
    listening: false,
    stderr: () => err,
    stdout: () => out,
    lastStderrLine: () => {
      const lines = err.split('\n').filter((l) => l.trim() !== '');
      return lines[lines.length - 1] ?? '';
    },
    exited,
    exit: () => exitInfo,
    signal: (sig) => {
      if (exitInfo === undefined) child.kill(sig);
    },
    stop: async (timeoutMs = 5000) => {
      if (exitInfo !== undefined) return exitInfo;
      child.kill('SIGTERM');
      try {
        return await withTimeout(exited, timeoutMs, `daemon ${pid} to exit after SIGTERM`);
      } catch (e) {
        child.kill('SIGKILL');
        await exited;
        throw e;
      }
    },
    kill: async () => {
      if (exitInfo === undefined) child.kill('SIGKILL');
      return exited;
    },
  };

  const wait = opts.wait ?? 'listening';
  const timeoutMs = opts.timeoutMs ?? 10_000;
  if (wait === 'exit') {
    await withTimeout(exited, timeoutMs, `daemon ${pid} to exit`).catch(async (e: unknown) => {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`${(e as Error).message}; stderr:\n${err}`);
    });
  } else if (wait === 'listening') {
    handle.listening = await waitListening(socket, exited, timeoutMs, () => err);
  }
  return handle;
}

/** {@link spawnDaemon}, failing (with its stderr) unless the daemon listens. */
export async function startDaemon(opts: SpawnOptions = {}): Promise<DaemonHandle> {
  const d = await spawnDaemon({ ...opts, wait: 'listening' });
  if (!d.listening) {
    throw new Error(`daemon exited before listening: ${JSON.stringify(d.exit())}; stderr:\n${d.stderr()}`);
  }
  return d;
}

/**
 * Polls the socket until it accepts (true) or the process exits (false).
 * Polling is the only signal a black box gives for "ready"; each probe is
 * short and the whole wait is bounded.
 */
async function waitListening(socket: string, exited: Promise<Exit>, timeoutMs: number, stderr: () => string): Promise<boolean> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) return false;
    if (await canConnect(socket)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`daemon did not listen on ${socket} within ${timeoutMs} ms; stderr:\n${stderr()}`);
}

/** Polls `check` until it returns true, bounded; for state only a query can reveal. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
