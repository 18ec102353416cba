import { HELP, parseInvocation } from '../config.js';
import { startDaemon, stopOnSignals } from '../daemon.js';
import { DaemonError, DaemonErrorCodes } from '../errors.js';
import { createLogger } from '../logger.js';
import { DAEMON_VERSION } from '../version.js';

/** Exit codes: 0 stopped cleanly, 1 could not start or stop, 2 usage. */
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/**
 * The `memoryd` command. A failure to start ends with one plain line on
 * stderr, `memoryd: cannot start: REASON`, and no stack trace: it is what
 * a person or a supervisor reads to learn which socket or data dir is taken.
 */
export async function main(argv: readonly string[]): Promise<void> {
  let invocation;
  try {
    invocation = parseInvocation(argv, process.env);
  } catch (err) {
    process.stderr.write(`memoryd: ${(err as Error).message}\n`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  if (invocation.kind === 'help') {
    process.stdout.write(HELP);
    return;
  }
  if (invocation.kind === 'version') {
    process.stdout.write(`memoryd ${DAEMON_VERSION}\n`);
    return;
  }

  const { config } = invocation;
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
    const known = err instanceof DaemonError && err.code !== DaemonErrorCodes.Storage;
    if (!known) log.error('start failed', { err });
    else log.debug('start failed', { err });
    process.stderr.write(`memoryd: cannot start: ${(err as Error).message}\n`);
    exit(EXIT_FAILURE);
    return;
  }
  await daemon.stopped;
  // Everything is closed; leave now rather than wait on stray handles.
  exit(0);
}
