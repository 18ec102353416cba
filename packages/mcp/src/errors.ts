import { ClientErrorCodes, isClientError } from '@memoryd/client';

/**
 * The text of a failed tool call (docs/api-stability.md "MCP tools"). No
 * daemon: the client's own `memory daemon unavailable at SOCKET: CAUSE`,
 * word for word. Anything else: `TOOL error: CAUSE`, TOOL being the tool
 * name with `_` as a space and CAUSE the daemon's (or the client's)
 * message.
 */
export function failureText(tool: string, err: unknown): string {
  if (isClientError(err, ClientErrorCodes.Unavailable)) return err.message;
  const name = tool.replace(/_/g, ' ');
  // The client names itself as the shim told it (memoryd-mcp): its message is the cause as is.
  if (isClientError(err, ClientErrorCodes.ProtocolMismatch)) return `${name} error: ${err.message}\n${PROTOCOL_HINT}`;
  return `${name} error: ${causeOf(err)}`;
}

/** What to do about a daemon of another protocol version: the same remedy as any version skew. */
export const PROTOCOL_HINT =
  'hint: restart the memory daemon with the memoryd binary of this memoryd-mcp\'s release ' +
  '(stop it with SIGTERM or its daemon.shutdown method; the next call starts the new one).';

/** The message of an error, or the value in words when something else was thrown. */
export function causeOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
