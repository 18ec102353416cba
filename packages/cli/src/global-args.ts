import { type DaemonClientOptions } from '@memoryd/client';
import { UsageError, connectionFromArgs, type ConnectionFlags } from '@memoryd/client/args';

/** What the command line asks for, before the command runs. */
export type Invocation =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'run'; command: string; argv: string[]; json: boolean; connection: DaemonClientOptions };

const WITH_VALUE = new Set(['--socket', '--data-dir']);
const SWITCHES = new Set(['--no-autostart', '--json', '--help', '-h', '--version', '-V']);

/** memoryctl's own long options, which a mistyped option of a command may have meant (`--jsn`). */
export const GLOBAL_OPTIONS: readonly string[] = [...WITH_VALUE, ...SWITCHES].filter((o) => o.startsWith('--'));

/**
 * Splits the command line into memoryctl's own options (anywhere before a
 * `--`), the command word and the command's arguments (the `--` and all
 * after it included), and reads the connection flags and environment
 * (@memoryd/client/args).
 */
export function parseInvocation(argv: readonly string[], env: NodeJS.ProcessEnv): Invocation {
  const flags: ConnectionFlags = {};
  const switches = new Set<string>();
  const rest: string[] = [];
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      // Kept: the command's own parser must see it too, so that text after it starting with `-` stays text.
      rest.push(...argv.slice(i));
      break;
    }
    const [name, inline] = token.startsWith('--') && token.includes('=') ? [token.slice(0, token.indexOf('=')), token.slice(token.indexOf('=') + 1)] : [token, undefined];
    if (WITH_VALUE.has(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`${name} needs a value`);
      if (name === '--socket') flags.socket = value;
      else flags['data-dir'] = value;
    } else if (SWITCHES.has(token)) {
      switches.add(token);
    } else if (command === undefined && !token.startsWith('-')) {
      command = token;
    } else {
      rest.push(token);
    }
  }
  if (switches.has('--no-autostart')) flags['no-autostart'] = true;
  const help = switches.has('--help') || switches.has('-h');
  if (command === undefined) {
    if (switches.has('--version') || switches.has('-V')) return { kind: 'version' };
    if (help) return { kind: 'help' };
    throw new UsageError('missing COMMAND');
  }
  // A command's own --help goes to the command.
  if (help) rest.push('--help');
  return { kind: 'run', command, argv: rest, json: switches.has('--json'), connection: connectionFromArgs(flags, env) };
}
