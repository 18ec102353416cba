import { ClientErrorCodes, isClientError } from '@memoryd/client';

/** memoryctl's exit codes (docs/api-stability.md, "Command lines"). */
export const Exit = {
  /** Done. */
  ok: 0,
  /** The daemon answered with an error, or an import rejected some lines (after importing the rest). */
  failed: 1,
  /** A usage error. */
  usage: 2,
  /** No daemon reachable. */
  unavailable: 3,
  /** Not found: a fact or checkpoint that does not exist. */
  notFound: 4,
} as const;

/** JSON-RPC's not_found (docs/protocol.md, "Errors"). */
const NOT_FOUND = -32004;

/** The exit code for an error a command let through. */
export function exitCodeOf(err: unknown): number {
  if (isClientError(err, ClientErrorCodes.Unavailable) || isClientError(err, ClientErrorCodes.ProtocolMismatch)) return Exit.unavailable;
  if (isClientError(err, ClientErrorCodes.Rpc) && err.rpcCode === NOT_FOUND) return Exit.notFound;
  return Exit.failed;
}
