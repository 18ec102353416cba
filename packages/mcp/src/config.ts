import { parseArgs } from 'node:util';
import type { DaemonClientOptions } from '@memoryd/client';
import { CONNECTION_HELP, CONNECTION_OPTIONS, MEMORYD_BIN_HELP, UsageError, connectionFromArgs, envValue } from '@memoryd/client/args';
import type { OnMissing } from './tools/tool.js';

export { UsageError };

/** Everything the shim is configured by, after flags and environment. */
export interface ShimConfig {
  /** Where the daemon is and whether to start it (@memoryd/client's connection story). */
  connection: DaemonClientOptions;
  /** Default `on_missing` of `checkpoint_resume`. */
  resumeOnMissing: OnMissing;
}

/** What `main` should do. */
export type Invocation = { kind: 'run'; config: ShimConfig } | { kind: 'help' } | { kind: 'version' };

/** Bound on answering the calls still in flight when stdin closes (bin/main.ts). */
export const DRAIN_BOUND_MS = 10_000;

/** `--help`: every flag and the environment variable that also sets it. */
export const HELP = `Usage: memoryd-mcp [options]

The memoryd MCP server: speaks MCP over stdio (stdout carries only MCP
messages) and forwards its tools (memory_search, memory_add, memory_reflect,
checkpoint_save, checkpoint_resume) to the memoryd daemon over its Unix
socket. It connects on the first tool call and starts the daemon when none
answers. When stdin closes it answers the calls it has read (for at most
${DRAIN_BOUND_MS / 1000} s), then exits 0.

Options (each also settable by the environment variable shown):
${CONNECTION_HELP}
  --resume-on-missing MODE     default on_missing of checkpoint_resume: "error"
                               (a tool error) or "empty" ({found: false});
                               default "error"                      [MEMORYD_RESUME_ON_MISSING]
  -h, --help                   print this help and exit
  -V, --version                print the version and exit

Environment only:
${MEMORYD_BIN_HELP}
`;

function onMissing(value: string, source: string): OnMissing {
  if (value === 'error' || value === 'empty') return value;
  throw new UsageError(`${source} must be "error" or "empty", got ${JSON.stringify(value)}`);
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
        ...CONNECTION_OPTIONS,
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
  const connection = connectionFromArgs(values, env);

  const flagMode = values['resume-on-missing'];
  const envMode = envValue(env, 'MEMORYD_RESUME_ON_MISSING');
  const resumeOnMissing =
    flagMode !== undefined
      ? onMissing(flagMode, '--resume-on-missing')
      : envMode !== undefined
        ? onMissing(envMode, 'MEMORYD_RESUME_ON_MISSING')
        : 'error';
  const config: ShimConfig = { connection, resumeOnMissing };
  return { kind: 'run', config };
}
