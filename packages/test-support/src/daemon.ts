import { createHash } from 'node:crypto';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir, trackPid, untrackPid } from './cleanup.js';
import { canConnect, POLL_MS, sleep, withTimeout } from './wait.js';

/**
 * The daemon's committed bin, found from this compiled file
 * (packages/test-support/dist/daemon.js → packages/daemon/bin/memoryd.js),
 * so the suites run from any checkout. Tests run the real daemon as a
 * process; nothing here imports it.
 */
export const DAEMON_BIN = fileURLToPath(new URL('../../daemon/bin/memoryd.js', import.meta.url));

/** memoryctl's committed bin, likewise (suites other than cli's run it for what it generates). */
export const MEMORYCTL_BIN = fileURLToPath(new URL('../../cli/bin/memoryctl.js', import.meta.url));

/** How long a stop waits after SIGTERM, and a kill after SIGKILL, by default. */
const EXIT_WAIT_MS = 5_000;

/**
 * process.env without a developer's memoryd config or a socket-activation
 * environment, with XDG_STATE_HOME in a temp dir (where an autostarted
 * daemon logs), plus `overrides` (`undefined` removes a variable).
 */
export function cleanEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('MEMORYD_') || k.startsWith('LISTEN_') || k === 'NOTIFY_SOCKET') continue;
    env[k] = v;
  }
  // An autostarted daemon logs under XDG_STATE_HOME: a test's go to a temp dir, not the developer's.
  env['XDG_STATE_HOME'] = testStateHome();
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

let stateHome: string | undefined;

/** This process's XDG_STATE_HOME for what it starts (a temp dir, made on first use). */
export function testStateHome(): string {
  // cleanupAll removes it with the other temp dirs: a later test gets a new one.
  if (stateHome === undefined || !existsSync(stateHome)) stateHome = tempDir('mst-');
  return stateHome;
}

/** Where a test's daemon lives: a socket and a data dir in a fresh temp dir. */
export function daemonPaths(): { socket: string; dataDir: string } {
  const dir = tempDir();
  return { socket: join(dir, 'd.sock'), dataDir: join(dir, 'data') };
}

/** How a daemon process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Most characters of a daemon's stderr (and stdout) a handle keeps: the end, which says why it stopped. */
const STDIO_KEEP = 4 * 1024 * 1024;

function keepTail(text: string): string {
  return text.length <= 2 * STDIO_KEEP ? text : text.slice(-STDIO_KEEP);
}

/** Options of {@link spawnDaemon}. */
export interface SpawnOptions {
  /** Extra flags after the defaults. */
  args?: string[];
  /** Environment overrides of {@link cleanEnv}; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Socket path; default `<tmp>/d.sock`. */
  socket?: string;
  /** Pass `--socket`; false to exercise the default path (then `socket` is only where to wait). */
  socketFlag?: boolean;
  /** Data dir; default `<tmp>/data`. */
  dataDir?: string;
  /** Pass `--data-dir`. */
  dataDirFlag?: boolean;
  /** `--log-level` to pass; default `debug`, so a failure's stderr tells all; `null` passes none. */
  logLevel?: 'error' | 'warn' | 'info' | 'debug' | null;
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
  /** All stderr so far (its last 4 to 8 MiB, should it be longer). */
  stderr(): string;
  /** All stdout so far (likewise). */
  stdout(): string;
  /** The last non-empty stderr line. */
  lastStderrLine(): string;
  /** Resolves once when the process exits. */
  exited: Promise<Exit>;
  /** The exit, if it happened. */
  exit(): Exit | undefined;
  /** SIGTERM, wait up to `timeoutMs` (5 s), then SIGKILL and fail; resolves with the exit. */
  stop(timeoutMs?: number): Promise<Exit>;
  /** SIGKILL and wait (bounded) for the exit. */
  kill(): Promise<Exit>;
  /** Sends a signal without waiting. */
  signal(sig: NodeJS.Signals): void;
}

/** Flags that tune only the LevelDB store, with the number of values each takes. */
const LEVEL_ONLY_FLAGS: ReadonlyMap<string, number> = new Map([
  ['--no-sync', 0],
  ['--index-memory', 1],
]);

/** Removes the LevelDB store's own flags (and their values) from `args`, in place. */
function dropLevelFlags(args: string[]): void {
  for (let i = 0; i < args.length; ) {
    const arg = args[i]!;
    const name = arg.split('=', 1)[0]!;
    const values = LEVEL_ONLY_FLAGS.get(name);
    if (values === undefined) i += 1;
    else args.splice(i, arg.includes('=') ? 1 : 1 + values);
  }
}

/** The PostgreSQL schema of a data dir's daemon under MEMORYD_TEST_STORE=postgres: one per data dir. */
export function testSchemaFor(dataDir: string): string {
  return `memoryd_t_${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`;
}

/**
 * Starts `node memoryd.js --socket S --data-dir D --log-level debug ...`,
 * tracked by pid for cleanup, and waits (bounded) until its socket accepts
 * a connection or it exits.
 */
export async function spawnDaemon(opts: SpawnOptions = {}): Promise<DaemonHandle> {
  const tmp = opts.socket === undefined || opts.dataDir === undefined ? daemonPaths() : undefined;
  const socket = opts.socket ?? tmp!.socket;
  const dataDir = opts.dataDir ?? tmp!.dataDir;
  const args = [DAEMON_BIN];
  if (opts.socketFlag !== false) args.push('--socket', socket);
  if (opts.dataDirFlag !== false) args.push('--data-dir', dataDir);
  const logLevel = opts.logLevel === undefined ? 'debug' : opts.logLevel;
  if (logLevel !== null) args.push('--log-level', logLevel);
  args.push(...(opts.args ?? []));
  const env = { ...(opts.env ?? {}) };
  if (process.env['MEMORYD_TEST_STORE'] === 'postgres' && !args.includes('--store')) {
    // The suites that run on every backend, run again on PostgreSQL (scripts/run-tests.mjs):
    // each data dir's daemon keeps its tables in a schema of its own, the same one at a restart.
    // The LevelDB store's own flags are usage errors there, so they are left out.
    dropLevelFlags(args);
    args.push('--store', 'postgres');
    env['PGOPTIONS'] ??= `-c search_path=${testSchemaFor(dataDir)}`;
  }
  const [file, ...pre] = opts.launcher ? [...opts.launcher, process.execPath] : [process.execPath];
  const child: ChildProcess = spawn(file!, [...pre, ...args], {
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) {
    throw new Error(`could not spawn ${file}`);
  }
  const pid = child.pid;
  trackPid(pid);
  let err = '';
  let out = '';
  // Kept to its last STDIO_KEEP characters: a daemon logging at debug under load writes hundreds of MB.
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err = keepTail(err + d)));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out = keepTail(out + d)));
  let exitInfo: Exit | undefined;
  // 'close' (not 'exit') so stderr is complete when the promise resolves.
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      exitInfo = { code, signal };
      untrackPid(pid);
      resolve(exitInfo);
    });
  });
  /** SIGKILL and wait, bounded, for the exit. */
  const killNow = (): Promise<Exit> => {
    if (exitInfo === undefined) child.kill('SIGKILL');
    return withTimeout(exited, EXIT_WAIT_MS, `daemon ${pid} to exit after SIGKILL`);
  };

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
    stop: async (timeoutMs = EXIT_WAIT_MS) => {
      if (exitInfo !== undefined) return exitInfo;
      child.kill('SIGTERM');
      try {
        return await withTimeout(exited, timeoutMs, `daemon ${pid} to exit after SIGTERM`);
      } catch (e) {
        await killNow().catch(() => undefined);
        throw e;
      }
    },
    kill: killNow,
  };

  const wait = opts.wait ?? 'listening';
  const timeoutMs = opts.timeoutMs ?? 10_000;
  if (wait === 'exit') {
    await withTimeout(exited, timeoutMs, `daemon ${pid} to exit`).catch(async (e: unknown) => {
      await killNow().catch(() => undefined);
      throw new Error(`${(e as Error).message}; stderr:\n${err}`);
    });
  } else if (wait === 'listening') {
    try {
      handle.listening = await waitListening(socket, exited, timeoutMs);
    } catch (e) {
      await killNow().catch(() => undefined);
      throw new Error(`${(e as Error).message}; stderr:\n${err}`);
    }
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
async function waitListening(socket: string, exited: Promise<Exit>, timeoutMs: number): Promise<boolean> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) return false;
    if (await canConnect(socket)) return true;
    await sleep(POLL_MS);
  }
  throw new Error(`daemon did not listen on ${socket} within ${timeoutMs} ms`);
}
