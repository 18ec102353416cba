import { parseArgs } from 'node:util';
import type { OnMissing } from './tools/tool.js';

/** Everything the shim is configured by, after flags and environment. */
export interface ShimConfig {
  /** The daemon's socket when chosen by flag or env; else the client's default. */
  socket?: string;
  /** Data dir for an autostarted daemon when chosen by flag or env. */
  dataDir?: string;
  /** Start `memoryd` when no daemon answers. */
  autostart: boolean;
  /** Default `on_missing` of `checkpoint_resume`. */
  resumeOnMissing: OnMissing;
}

/** What `main` should do. */
export type Invocation = { kind: 'run'; config: ShimConfig } | { kind: 'help' } | { kind: 'version' };

/** A command line or environment the shim does not understand (exit 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `--help`: every flag and the environment variable that also sets it. */
export const HELP = `Usage: memoryd-mcp [options]

The memoryd MCP server: speaks MCP over stdio (stdout carries only MCP
messages) and forwards its tools (memory_search, memory_add, memory_reflect,
checkpoint_save, checkpoint_resume) to the memoryd daemon over its Unix
socket. It connects on the first tool call and starts the daemon when none
answers.

Options (each also settable by the environment variable shown):
  --socket PATH                the daemon's socket                  [MEMORYD_SOCKET]
                               default: $XDG_RUNTIME_DIR/memoryd/memoryd.sock,
                               else $TMPDIR/memoryd-<uid>/memoryd.sock (TMPDIR: /tmp)
  --data-dir DIR               data dir given to an autostarted daemon [MEMORYD_DATA_DIR]
                               (default: the daemon's own default)
  --no-autostart               never start the daemon; fail when none answers
                                                                    [MEMORYD_NO_AUTOSTART=1]
  --resume-on-missing MODE     default on_missing of checkpoint_resume: "error"
                               (a tool error) or "empty" ({found: false});
                               default "error"                      [MEMORYD_RESUME_ON_MISSING]
  -h, --help                   print this help and exit
  -V, --version                print the version and exit

Environment only:
  MEMORYD_BIN                  the memoryd JS entry to autostart with this node
                               (default: node_modules/.bin/memoryd, else memoryd on PATH)
`;

function truthy(text: string | undefined): boolean {
  return text !== undefined && /^(1|true|yes|on)$/i.test(text.trim());
}

function onMissing(value: string, source: string): OnMissing {
  if (value === 'error' || value === 'empty') return value;
  throw new UsageError(`${source} must be "error" or "empty", got ${JSON.stringify(value)}`);
}

/** An env value, with empty counting as unset. */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

/**
 * Reads flags, then the environment, then defaults (flags win). Throws
 * {@link UsageError} on anything it does not understand.
 */
export function parseInvocation(argv: readonly string[], env: NodeJS.ProcessEnv): Invocation {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        socket: { type: 'string' },
        'data-dir': { type: 'string' },
        'no-autostart': { type: 'boolean' },
        'resume-on-missing': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help === true) return { kind: 'help' };
  if (values.version === true) return { kind: 'version' };
  if (values.socket === '') throw new UsageError('--socket must not be empty');
  if (values['data-dir'] === '') throw new UsageError('--data-dir must not be empty');

  const flagMode = values['resume-on-missing'];
  const envMode = envValue(env, 'MEMORYD_RESUME_ON_MISSING');
  const resumeOnMissing =
    flagMode !== undefined
      ? onMissing(flagMode, '--resume-on-missing')
      : envMode !== undefined
        ? onMissing(envMode, 'MEMORYD_RESUME_ON_MISSING')
        : 'error';
  const socket = values.socket ?? envValue(env, 'MEMORYD_SOCKET');
  const dataDir = values['data-dir'] ?? envValue(env, 'MEMORYD_DATA_DIR');
  const config: ShimConfig = {
    ...(socket !== undefined ? { socket } : {}),
    ...(dataDir !== undefined ? { dataDir } : {}),
    autostart: values['no-autostart'] !== true && !truthy(env['MEMORYD_NO_AUTOSTART']),
    resumeOnMissing,
  };
  return { kind: 'run', config };
}
