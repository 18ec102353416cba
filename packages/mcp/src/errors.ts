import { ClientErrorCodes, isClientError } from '@memoryd/client';

/**
 * The text of a failed tool call (DESIGN.md "Prose"). No daemon: the
 * client's own `memory daemon unavailable at SOCKET: CAUSE`, word for word.
 * Anything else: `TOOL error: CAUSE`, TOOL being the tool name with `_` as a
 * space and CAUSE the daemon's (or the client's) message.
 */
export function failureText(tool: string, err: unknown): string {
  if (isClientError(err, ClientErrorCodes.Unavailable)) return err.message;
  return `${tool.replace(/_/g, ' ')} error: ${causeOf(err)}`;
}

/** The message of an error, or the value in words when something else was thrown. */
export function causeOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
