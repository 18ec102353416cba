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

/** Flags of the LevelDB store only (a usage error with --store postgres), with the number of values each takes. */
const LEVEL_ONLY_FLAGS: ReadonlyMap<string, number> = new Map([['--no-sync', 0]]);

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
  const { args, env } = daemonCommand(opts, socket, dataDir);
  const handle = daemonHandle(launch(opts.launcher, args, env), socket, dataDir);
  await waitForStart(handle, opts.wait ?? 'listening', opts.timeoutMs ?? 10_000);
  return handle;
}

/** The daemon's command line (what node runs) and environment overrides, as `opts` and MEMORYD_TEST_STORE ask. */
function daemonCommand(opts: SpawnOptions, socket: string, dataDir: string): { args: string[]; env: Record<string, string | undefined> } {
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
    // The LevelDB store's own flag (--no-sync) is a usage error there, so it is left out.
    dropLevelFlags(args);
    args.push('--store', 'postgres');
    env['PGOPTIONS'] ??= `-c search_path=${testSchemaFor(dataDir)}`;
  }
  return { args, env };
}

/** Spawns node (behind `launcher`, if given) with `args`, its output piped, its pid tracked for cleanup. */
function launch(launcher: string[] | undefined, args: string[], env: Record<string, string | undefined>): ChildProcess & { pid: number } {
  const [file, ...pre] = launcher ? [...launcher, process.execPath] : [process.execPath];
  const child: ChildProcess = spawn(file!, [...pre, ...args], {
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) {
    throw new Error(`could not spawn ${file}`);
  }
  trackPid(child.pid);
  return child as ChildProcess & { pid: number };
}

/** The handle of a spawned daemon: its output, its exit, and the signals that end it. */
function daemonHandle(child: ChildProcess & { pid: number }, socket: string, dataDir: string): DaemonHandle {
  const { pid } = child;
  const output = recordOutput(child);
  const { exited, exit } = exitOf(child);
  /** SIGKILL and wait, bounded, for the exit. */
  const killNow = (): Promise<Exit> => {
    if (exit() === undefined) child.kill('SIGKILL');
    return withTimeout(exited, EXIT_WAIT_MS, `daemon ${pid} to exit after SIGKILL`);
  };
  return {
    pid,
    socket,
    dataDir,
    listening: false,
    ...output,
    lastStderrLine: () => {
      const lines = output.stderr().split('\n').filter((l) => l.trim() !== '');
      return lines[lines.length - 1] ?? '';
    },
    exited,
    exit,
    signal: (sig) => {
      if (exit() === undefined) child.kill(sig);
    },
    stop: async (timeoutMs = EXIT_WAIT_MS) => {
      const done = exit();
      if (done !== undefined) return done;
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
}

/** The child's stderr and stdout so far, each kept to its last STDIO_KEEP characters. */
function recordOutput(child: ChildProcess): Pick<DaemonHandle, 'stderr' | 'stdout'> {
  let err = '';
  let out = '';
  // Kept to its last STDIO_KEEP characters: a daemon logging at debug under load writes hundreds of MB.
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err = keepTail(err + d)));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out = keepTail(out + d)));
  return { stderr: () => err, stdout: () => out };
}

/** The child's exit, as a promise and (once it happened) as a value; the pid is untracked then. */
function exitOf(child: ChildProcess & { pid: number }): Pick<DaemonHandle, 'exited' | 'exit'> {
  let exitInfo: Exit | undefined;
  // 'close' (not 'exit') so stderr is complete when the promise resolves.
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      exitInfo = { code, signal };
      untrackPid(child.pid);
      resolve(exitInfo);
    });
  });
  return { exited, exit: () => exitInfo };
}

/** Waits as `wait` says; on a timeout, kills the daemon and fails with its stderr. */
async function waitForStart(handle: DaemonHandle, wait: NonNullable<SpawnOptions['wait']>, timeoutMs: number): Promise<void> {
  const fail = async (e: unknown): Promise<never> => {
    await handle.kill().catch(() => undefined);
    throw new Error(`${(e as Error).message}; stderr:\n${handle.stderr()}`);
  };
  if (wait === 'exit') await withTimeout(handle.exited, timeoutMs, `daemon ${handle.pid} to exit`).catch(fail);
  else if (wait === 'listening') handle.listening = await waitListening(handle.socket, handle.exited, timeoutMs).catch(fail);
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
