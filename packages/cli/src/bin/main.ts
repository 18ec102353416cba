import { isatty } from 'node:tty';
import { ClientErrorCodes, DaemonClient, isClientError } from '@memoryd/client';
import { CONNECTION_HELP, MEMORYD_BIN_HELP, UsageError, usageText } from '@memoryd/client/args';
import { endedByClosedStdout, isStdoutGone, watchOutput } from '../closed-output.js';
import type { CommandContext } from '../command.js';
import { COMMANDS } from '../commands/all.js';
import { Exit, exitCodeOf } from '../exit-codes.js';
import { invalidParamsSentence } from '../invalid-params.js';
import { type Invocation, parseInvocation } from '../global-args.js';
import { didYouMean } from '../suggest.js';
import { CLI_VERSION } from '../version.js';

/** `memoryctl --help`. */
export const HELP = `Usage: memoryctl [options] COMMAND [ARGS]

Drives the memoryd daemon from the shell and from scripts, starting it when
none answers (like memoryd-mcp). Human output is a table or plain lines;
--json prints exactly one JSON document on stdout when the command
succeeds (export aside, which writes the export file format; a failure
prints nothing there, its reason on stderr). Every command has --help.

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(13)}${c.summary}`).join('\n')}

Options (each also settable by the environment variable shown):
${CONNECTION_HELP}
  --json                       one JSON document on stdout (on success)
  -h, --help                   print this help (or a command's) and exit
  -V, --version                print the version and exit

Environment only:
${MEMORYD_BIN_HELP}

Exit codes: 0 done (also when stdout's reader leaves early, as head
does); 1 the daemon answered with an error (or an import rejected some
lines, after importing the rest); 2 usage, including an argument the
daemon refuses and a file that cannot be read or written; 3 no daemon
reachable; 4 not found. Options may stand anywhere; -- ends them, so text
starting with - can follow it.
`;

/** JSON-RPC's invalid_params: the daemon refused an argument. */
const INVALID_PARAMS = -32602;

/** Commands that must never start a daemon: stopping one that is not there is not a reason to start it. */
const NEVER_START = new Set(['stop']);

/** The `memoryctl` command; sets the exit code. */
export async function main(argv: readonly string[]): Promise<void> {
  watchOutput();
  let inv: Invocation;
  try {
    inv = parseInvocation(argv, process.env);
  } catch (err) {
    process.stderr.write(usageText('memoryctl', (err as Error).message));
    process.exitCode = Exit.usage;
    return;
  }
  if (inv.kind === 'help') return void process.stdout.write(HELP);
  if (inv.kind === 'version') return void process.stdout.write(`memoryctl ${CLI_VERSION}\n`);
  const word = inv.command;
  const entry = COMMANDS.find((c) => c.name === word);
  if (entry === undefined) {
    const hint = didYouMean(word, COMMANDS.map((c) => c.name));
    process.stderr.write(usageText('memoryctl', `unknown command ${JSON.stringify(word)}${hint}`));
    process.exitCode = Exit.usage;
    return;
  }
  const command = await entry.load();
  let client: DaemonClient | undefined;
  const ctx: CommandContext = {
    argv: inv.argv,
    json: inv.json,
    client: () =>
      (client ??= new DaemonClient({
        ...inv.connection,
        ...(NEVER_START.has(command.name) ? { autostart: false } : {}),
        clientName: 'memoryctl',
        clientVersion: CLI_VERSION,
      })),
    connection: inv.connection,
    out: (text) => {
      if (!isStdoutGone()) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    },
    err: (text) => process.stderr.write(`${text}\n`),
    stderrIsTTY: process.stderr.isTTY === true,
    // isatty(0) rather than process.stdin.isTTY: that getter would open stdin for every command.
    stdinIsTTY: isatty(0),
    stdin: () => process.stdin,
  };
  try {
    process.exitCode = await command.run(ctx);
  } catch (err) {
    process.exitCode = report(err, command.name);
  } finally {
    await client?.close();
  }
}

/** Says on stderr why command `name` failed, in one line; returns the exit code. */
function report(err: unknown, name: string): number {
  if (endedByClosedStdout(err)) return Exit.ok;
  if (err instanceof UsageError) {
    process.stderr.write(usageText(`memoryctl ${name}`, err.message));
    return Exit.usage;
  }
  if (isClientError(err, ClientErrorCodes.Rpc) && err.rpcCode === INVALID_PARAMS) {
    // The daemon refused an argument: a usage error, said as a sentence naming it.
    const data = (err.data ?? {}) as { field?: unknown; reason?: unknown };
    const said = typeof data.reason === 'string' ? invalidParamsSentence(String(data.field ?? ''), data.reason) : (err as Error).message;
    process.stderr.write(usageText(`memoryctl ${name}`, said));
    return Exit.usage;
  }
  process.stderr.write(`memoryctl: ${(err as Error).message}\n`);
  return exitCodeOf(err);
}
