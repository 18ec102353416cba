import { usageText } from '@memoryd/client/args';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { HELP, type Invocation, parseInvocation } from '../config.js';
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

  let closing = false;
  const shutdown = (): void => {
    if (closing) return;
    closing = true;
    // Leave even if something holds the event loop; unref'd so a clean
    // close exits at once.
    setTimeout(() => process.exit(0), SHUTDOWN_BOUND_MS).unref();
    void Promise.allSettled([server.close(), client.close()]).then(() => {
      process.exitCode = 0;
      process.exit(0);
    });
  };
  // The MCP client ends the session by closing our stdin (the stdio
  // transport spec); a signal means the same. EPIPE on stdout: it is gone.
  process.stdin.once('end', shutdown);
  process.stdin.once('close', shutdown);
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  process.stdout.on('error', shutdown);

  await server.connect(new StdioServerTransport());
}
