import { closeSync } from 'node:fs';
import type { Socket } from 'node:net';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AutostartLog, autostartLogPath, openAutostartLog, startFailure } from './autostart-log.js';
import { dial } from './connection.js';
import { ClientError, ClientErrorCodes, reason, unavailable } from './errors.js';
import type { MemorydCommand } from './locate-memoryd.js';

/** Pause between connect attempts while a daemon starts (docs/architecture.md "Connecting and autostart"). */
export const POLL_INTERVAL_MS = 30;
/**
 * Daemons one connect may spawn. The first may lose the LevelDB lock to a
 * daemon that is itself about to stop (a restart); a later one then wins.
 */
export const MAX_SPAWNS = 3;
/** Bound of one connect attempt; a Unix socket answers at once or not at all. */
export const DIAL_TIMEOUT_MS = 1_000;

/** Errors after which a daemon we start could answer: no socket, or no listener on it. */
export function autostartMayHelp(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ECONNREFUSED';
}

/** Everything {@link dialWithAutostart} needs. */
export interface AutostartPlan {
  /** The socket the daemon is told to serve and the client dials. */
  socketPath: string;
  /** Passed as `--data-dir` only when set. */
  dataDir: string | undefined;
  /** How to run memoryd (see locateMemoryd). */
  command: MemorydCommand;
  /** The daemon's environment (the client's `env` option). */
  env: NodeJS.ProcessEnv;
  /** Bound of the whole wait, from the first spawn. */
  startTimeoutMs: number;
  /** False once the client was closed: stop waiting. */
  stillWanted: () => boolean;
}

/** One spawned daemon, as far as we can observe it: its exit, and its log. */
interface Started {
  /** Set when it exited (code or signal) or could not be run at all. */
  ended?: string;
  /** Set when it could not be run at all (spawn's 'error'). */
  spawnError?: Error;
  /** Where its stderr goes, when the log could be opened. */
  log?: AutostartLog;
}

/**
 * Daemon codes saying another daemon owns the data dir or the socket: the
 * one that is starting (or stopping) wins, so waiting, or starting again,
 * can still end in a connection. Any other failure will not mend itself.
 */
const ANOTHER_DAEMON = new Set(['MEMORYD_DATA_DIR_LOCKED', 'MEMORYD_SOCKET_IN_USE']);

/**
 * Starts memoryd detached: its own session, no stdio (the shim's stdout
 * carries only MCP messages, and a daemon must outlive the shim that
 * started it), not waited for (unref). It runs in `/` so it pins no
 * working directory of whoever started it; paths are therefore absolute.
 * Its environment is the plan's.
 */
function startMemoryd(plan: AutostartPlan, spawn: typeof import('node:child_process').spawn): Started {
  const args = [...plan.command.args, '--socket', resolve(plan.socketPath)];
  if (plan.dataDir) args.push('--data-dir', resolve(plan.dataDir));
  const log = openAutostartLog(autostartLogPath(plan.env));
  const started: Started = log === undefined ? {} : { log };
  const stderr = log?.fd ?? 'ignore';
  let child;
  try {
    child = spawn(plan.command.command, args, { detached: true, stdio: ['ignore', 'ignore', stderr], env: plan.env, cwd: '/' });
  } finally {
    // The daemon has its own copy of the fd.
    if (log !== undefined) closeSync(log.fd);
  }
  child.once('error', (err) => {
    started.spawnError = err;
    started.ended = `cannot run ${plan.command.command}: ${err.message}`;
  });
  child.once('exit', (code, signal) => {
    started.ended ??= `memoryd exited with ${code === null ? `signal ${signal}` : `code ${code}`}`;
  });
  child.unref();
  return started;
}

/**
 * Starts a daemon and connects to it, or to whichever daemon wins: two
 * clients autostarting at once each spawn one, the loser of the LevelDB
 * lock exits, and both connect to the winner. So a spawned daemon that
 * exits is not a failure while the wait lasts; when it exited and the
 * socket still refuses, another is spawned, up to {@link MAX_SPAWNS}.
 * Fails with Unavailable after `startTimeoutMs`, or at once when memoryd
 * cannot be run at all. Any daemon started is left running: it is shared.
 */
export async function dialWithAutostart(plan: AutostartPlan): Promise<Socket> {
  // Loaded here, not with the module: most runs find the daemon serving,
  // and child_process is a few ms of every memoryctl start-up.
  const { spawn } = await import('node:child_process');
  const deadline = Date.now() + plan.startTimeoutMs;
  let current = startMemoryd(plan, spawn);
  let spawns = 1;
  let lastError: unknown;
  for (;;) {
    await sleep(POLL_INTERVAL_MS);
    if (!plan.stillWanted()) throw closedWhileConnecting();
    if (current.spawnError !== undefined) throw unavailable(plan.socketPath, reason(current.ended!, current.spawnError));
    const remaining = deadline - Date.now();
    try {
      return await dial(plan.socketPath, Math.max(1, Math.min(DIAL_TIMEOUT_MS, remaining)));
    } catch (err) {
      lastError = err;
    }
    if (current.ended !== undefined) {
      // It exited, and nothing answers: unless another daemon holds what it needed, say why at once.
      const failure = current.log === undefined ? undefined : startFailure(current.log);
      const lost = failure?.code !== undefined && ANOTHER_DAEMON.has(failure.code);
      if (!lost && failure?.reason !== undefined) throw unavailable(plan.socketPath, reason(failure.reason, lastError));
      if (spawns < MAX_SPAWNS) {
        current = startMemoryd(plan, spawn);
        spawns += 1;
        continue;
      }
    }
    if (Date.now() >= deadline) {
      const failure = current.ended === undefined || current.log === undefined ? undefined : startFailure(current.log).reason;
      const detail = current.ended === undefined ? '' : ` (${failure ?? current.ended})`;
      const why = `no daemon answered within ${plan.startTimeoutMs} ms of autostart${detail}`;
      throw unavailable(plan.socketPath, reason(why, lastError));
    }
  }
}

/** What a connect attempt ends with when close() came first. */
export function closedWhileConnecting(): ClientError {
  return new ClientError(ClientErrorCodes.ConnectionLost, 'the client was closed while connecting');
}
