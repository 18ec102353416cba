import { closeSync, mkdirSync, openSync, readSync, renameSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** A start that finds the log larger than this moves it aside first: one start's log plus the one before. */
export const AUTOSTART_LOG_MAX_BYTES = 10 * 1024 * 1024;
/** The most of a failed start's log that is read back for its reason. */
const TAIL_BYTES = 64 * 1024;

/**
 * Where an autostarted daemon's stderr (its JSON log lines, and the one
 * line of a failed start) goes: `$XDG_STATE_HOME/memoryd/memoryd.log`
 * (`~/.local/state/memoryd/memoryd.log`), on macOS
 * `~/Library/Logs/memoryd/memoryd.log`. A daemon a supervisor starts logs
 * wherever the supervisor puts its stderr.
 */
export function autostartLogPath(env: NodeJS.ProcessEnv, platform: string = process.platform): string {
  const home = env['HOME'] || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Logs', 'memoryd', 'memoryd.log');
  const state = env['XDG_STATE_HOME'] || join(home, '.local', 'state');
  return join(state, 'memoryd', 'memoryd.log');
}

/** The log a daemon is started with: an fd to hand it as stderr, and where its own lines begin. */
export interface AutostartLog {
  path: string;
  fd: number;
  /** The file's size before the daemon wrote: its lines start here. */
  from: number;
}

/**
 * Opens the log for appending (0600, its directory 0700), moving it to
 * `memoryd.log.old` first when it is over the cap. Undefined when it
 * cannot be opened: the daemon then starts without a log, as before.
 */
export function openAutostartLog(path: string): AutostartLog | undefined {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
    if (size > AUTOSTART_LOG_MAX_BYTES) renameSync(path, `${path}.old`);
    const fd = openSync(path, 'a', 0o600);
    return { path, fd, from: size > AUTOSTART_LOG_MAX_BYTES ? 0 : size };
  } catch {
    return undefined;
  }
}

/** Why a start failed, as the daemon wrote it. */
export interface StartFailure {
  /** `memoryd could not start: REASON`, from its last line `memoryd: cannot start: REASON`. */
  reason: string | undefined;
  /** The daemon's error code from its `start failed` log line (e.g. MEMORYD_DATA_DIR_LOCKED), if it wrote one. */
  code: string | undefined;
}

/** What the daemon wrote about its failed start, read back from the log. */
export function startFailure(log: AutostartLog): StartFailure {
  let fd: number | undefined;
  try {
    fd = openSync(log.path, 'r');
    const end = statSync(log.path).size;
    const from = Math.max(log.from, end - TAIL_BYTES);
    const bytes = Buffer.alloc(Math.max(0, end - from));
    readSync(fd, bytes, 0, bytes.length, from);
    const lines = bytes.toString('utf8').split('\n').filter((l) => l.trim() !== '');
    const last = lines.at(-1);
    const prefix = 'memoryd: cannot start: ';
    const reason = last !== undefined && last.startsWith(prefix) ? `memoryd could not start: ${last.slice(prefix.length)}` : undefined;
    return { reason, code: failureCode(lines) };
  } catch {
    return { reason: undefined, code: undefined };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The `code` of the last `start failed` JSON line. */
function failureCode(lines: string[]): string | undefined {
  for (const line of [...lines].reverse()) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: unknown; code?: unknown };
      if (entry.msg === 'start failed') return typeof entry.code === 'string' ? entry.code : undefined;
    } catch {
      // Not a log line of ours.
    }
  }
  return undefined;
}
