import type { DaemonClientOptions } from './daemon-client.js';

/**
 * The connection flags every front end takes (memoryd-mcp, memoryctl), as
 * `util.parseArgs` options: one story for where the daemon is and whether
 * to start it. Each has an environment variable; a flag wins over it.
 */
export const CONNECTION_OPTIONS = {
  socket: { type: 'string' },
  'data-dir': { type: 'string' },
  'no-autostart': { type: 'boolean' },
} as const;

/** The `--help` lines of {@link CONNECTION_OPTIONS}, aligned at column 31 as the bins' help is. */
export const CONNECTION_HELP = `  --socket PATH                the daemon's socket                  [MEMORYD_SOCKET]
                               default: $XDG_RUNTIME_DIR/memoryd/memoryd.sock,
                               else $TMPDIR/memoryd-<uid>/memoryd.sock (TMPDIR: /tmp)
  --data-dir DIR               data dir given to an autostarted daemon [MEMORYD_DATA_DIR]
                               (default: the daemon's own default)
  --no-autostart               never start the daemon; fail when none answers
                                                                    [MEMORYD_NO_AUTOSTART=1]`;

/** The `Environment only` help line about locating memoryd. */
export const MEMORYD_BIN_HELP = `  MEMORYD_BIN                  the memoryd JS entry to autostart with this node
                               (default: the memoryd of this release, else
                               node_modules/.bin/memoryd, else memoryd on PATH)`;

/** What {@link CONNECTION_OPTIONS} parsed into. */
export interface ConnectionFlags {
  socket?: string | undefined;
  'data-dir'?: string | undefined;
  'no-autostart'?: boolean | undefined;
}

/** A command line or environment a front end does not understand: it prints `PROG: MESSAGE` and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * The one usage-error line of every bin (memoryd, memoryd-mcp, memoryctl),
 * with exit code 2: `PROG: REASON (see PROG --help)`. One line, so the
 * last line a supervisor or a script reads is the reason.
 */
export function usageText(prog: string, message: string): string {
  return `${prog}: ${message} (see ${prog} --help)\n`;
}

/** True for 1, true, yes or on (any case): how every boolean environment variable reads. */
export function truthy(text: string | undefined): boolean {
  return text !== undefined && /^(1|true|yes|on)$/i.test(text.trim());
}

/** An environment value, empty counting as unset. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

/**
 * The {@link DaemonClient} options the connection flags and environment
 * choose (flags win): socket, the data dir for an autostarted daemon,
 * autostart on or off, and the environment (which also says where
 * memoryd is: MEMORYD_BIN). Throws {@link UsageError} for an empty path.
 */
export function connectionFromArgs(flags: ConnectionFlags, env: NodeJS.ProcessEnv): DaemonClientOptions {
  if (flags.socket === '') throw new UsageError('--socket must not be empty');
  if (flags['data-dir'] === '') throw new UsageError('--data-dir must not be empty');
  const socket = flags.socket ?? envValue(env, 'MEMORYD_SOCKET');
  const dataDir = flags['data-dir'] ?? envValue(env, 'MEMORYD_DATA_DIR');
  return {
    ...(socket !== undefined ? { socket } : {}),
    ...(dataDir !== undefined ? { dataDir } : {}),
    autostart: flags['no-autostart'] !== true && !truthy(env['MEMORYD_NO_AUTOSTART']),
    env,
  };
}
