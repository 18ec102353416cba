import { usageText } from '@memoryd/client/args';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { AnsweringTransport } from '../answering-transport.js';
import { DRAIN_BOUND_MS, HELP, type Invocation, parseInvocation } from '../config.js';
import { LazyBackend } from '../lazy-backend.js';
import { createShimServer } from '../server.js';
import { SHIM_VERSION } from '../version.js';

/** Exit codes: 0 the MCP client closed stdin (or a signal), 1 a fatal error, 2 usage. */
const EXIT_USAGE = 2;

/** Bound on closing the daemon connection before leaving anyway. */
const SHUTDOWN_BOUND_MS = 2000;

/**
 * The `memoryd-mcp` command. stdout carries only MCP messages; the shim
 * itself writes to stderr only for usage errors. It does not touch the
 * daemon until the first tool call, so spawn → initialize → tools/list
 * never waits on it.
 */
export async function main(argv: readonly string[]): Promise<void> {
  let invocation: Invocation;
  try {
    invocation = parseInvocation(argv, process.env);
  } catch (err) {
    process.stderr.write(usageText('memoryd-mcp', (err as Error).message));
    process.exitCode = EXIT_USAGE;
    return;
  }
  if (invocation.kind === 'help') {
    process.stdout.write(HELP);
    return;
  }
  if (invocation.kind === 'version') {
    process.stdout.write(`memoryd-mcp ${SHIM_VERSION}\n`);
    return;
  }

  const { config } = invocation;
  // The client (and the protocol schemas) load on the first tool call.
  const client = new LazyBackend({ ...config.connection, clientName: 'memoryd-mcp', clientVersion: SHIM_VERSION });
  const server = createShimServer({ backend: client, resumeOnMissing: config.resumeOnMissing });

  const transport = new AnsweringTransport(new StdioServerTransport());
  let closing = false;
  const shutdown = (): void => {
    if (closing) return;
    closing = true;
    // Leave even if something holds the event loop; unref'd so a clean
    // close exits at once.
    setTimeout(() => process.exit(0), SHUTDOWN_BOUND_MS).unref();
    void Promise.allSettled([server.close(), client.close()])
      .then(stdoutFlushed)
      .then(() => {
        process.exitCode = 0;
        process.exit(0);
      });
  };
  let draining = false;
  // The MCP client ends the session by closing our stdin (the stdio
  // transport spec): every call it sent is answered first, for at most
  // DRAIN_BOUND_MS (a script may write its calls and close stdin at once).
  const endOfInput = (): void => {
    if (draining || closing) return;
    draining = true;
    setTimeout(shutdown, DRAIN_BOUND_MS).unref();
    void transport.answered().then(shutdown);
  };
  process.stdin.once('end', endOfInput);
  process.stdin.once('close', endOfInput);
  // A signal means leave now; EPIPE on stdout: the client is gone.
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  process.stdout.on('error', shutdown);

  await server.connect(transport);
}

/** Resolves once stdout has handed over what was written to it (a pipe can be asynchronous). */
function stdoutFlushed(): Promise<void> {
  if (process.stdout.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => process.stdout.once('drain', () => resolve()));
}
