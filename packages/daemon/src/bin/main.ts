import { type DaemonConfig, HELP, type Invocation, parseInvocation } from '../config.js';
import { startDaemon, stopOnSignals } from '../daemon.js';
import { DaemonError, rootCause } from '../errors.js';
import { runRepair } from '../maintenance/repair-command.js';
import { runVerify } from '../maintenance/verify-command.js';
import { runFetchModel } from '../embed/fetch-model-command.js';
import { createLogger, type Logger } from '../logger.js';
import { DAEMON_VERSION } from '../version.js';

/** Exit codes: 0 stopped cleanly (or nothing damaged), 1 could not start or stop (or damage found), 2 usage. */
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/**
 * The `memoryd` command. A failure to start ends with one plain line on
 * stderr, `memoryd: cannot start: REASON`, and no stack trace: it is what
 * a person or a supervisor reads to learn which socket or data dir is taken.
 */
export async function main(argv: readonly string[]): Promise<void> {
  const invocation = invocationOf(argv);
  if (invocation === undefined) return;
  if (invocation.kind === 'help') {
    process.stdout.write(HELP);
    return;
  }
  if (invocation.kind === 'version') {
    process.stdout.write(`memoryd ${DAEMON_VERSION}\n`);
    return;
  }
  // Everything the daemon creates is private to its user (docs/operations.md "Permissions").
  process.umask(0o077);
  if (invocation.kind === 'fetch-model') process.exitCode = await fetchModel(invocation.dataDir, invocation.model);
  else if (invocation.kind === 'verify' || invocation.kind === 'repair') process.exitCode = await maintain(invocation.kind, invocation.dataDir);
  else await run(invocation.config);
}

/** What the command line asks for; undefined, with the usage line written and exit code 2 set, when it makes no sense. */
function invocationOf(argv: readonly string[]): Invocation | undefined {
  try {
    return parseInvocation(argv, process.env);
  } catch (err) {
    // The usage line of every bin (@memoryd/client's usageText): the reason, and where help is.
    process.stderr.write(`memoryd: ${(err as Error).message} (see memoryd --help)\n`);
    process.exitCode = EXIT_USAGE;
    return undefined;
  }
}

/** `--fetch-model`: the download's lines on stdout, one plain line on stderr if it fails. */
async function fetchModel(dataDir: string, model: string | undefined): Promise<number> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  try {
    return await runFetchModel(dataDir, model, print);
  } catch (err) {
    process.stderr.write(`memoryd: cannot fetch the model: ${rootCause(err)}\n`);
    return EXIT_FAILURE;
  }
}

/** Serves until stopped, then exits 0; a failure to start exits 1 with one plain line. */
async function run(config: DaemonConfig): Promise<void> {
  const log = createLogger(config.logLevel);
  const exit = (code: number) => process.exit(code);
  const starting = startDaemon(config, log);
  // Before the first await: a signal during start-up must not kill us
  // half-started (the socket may accept before start-up returns).
  stopOnSignals(
    starting.catch(() => undefined),
    log,
    exit,
  );
  let daemon;
  try {
    daemon = await starting;
  } catch (err) {
    reportStartFailure(err, log);
    exit(EXIT_FAILURE);
    return;
  }
  await daemon.stopped;
  // Everything is closed; leave now rather than wait on stray handles.
  exit(0);
}

/**
 * One line at warn with the code, for whoever reads the log (an autostarting client tells another
 * daemon's win from a failure); the stacks only at debug: a user reads the reason, not our code.
 */
function reportStartFailure(err: unknown, log: Logger): void {
  const code = err instanceof DaemonError ? err.code : 'MEMORYD_INTERNAL';
  log.warn('start failed', { code, reason: (err as Error).message });
  log.debug('start failed: the stacks', { err });
  process.stderr.write(`memoryd: cannot start: ${(err as Error).message}\n`);
}

/** `--verify` or `--repair`: one run over the store, lines on stdout, one plain line on stderr if it fails. */
async function maintain(kind: 'verify' | 'repair', dataDir: string): Promise<number> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  try {
    return kind === 'verify' ? await runVerify(dataDir, print) : await runRepair(dataDir, createLogger('warn'), print);
  } catch (err) {
    process.stderr.write(`memoryd: cannot ${kind}: ${rootCause(err)}\n`);
    return EXIT_FAILURE;
  }
}
