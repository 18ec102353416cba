/**
 * Numeric JSON-RPC error codes on the wire. These are the contract: clients
 * branch on them, never on the message text. The names mirror the
 * error table of docs/protocol.md "Errors".
 */
export const ErrorCodes = {
  /** A line that is not JSON. */
  ParseError: -32700,
  /** Not a JSON-RPC 2.0 request, or a line over the framing limit. */
  InvalidRequest: -32600,
  /** Unknown method. */
  MethodNotFound: -32601,
  /** Params fail the method's schema or a limit; `data` is {@link InvalidParamsData}. */
  InvalidParams: -32602,
  /** A fact or checkpoint that does not exist (absence without opt-in). */
  NotFound: -32004,
  /** The store failed or a record failed to decode; the cause is in the message. */
  StorageError: -32010,
  /** Too many connections: sent once with id null, then the connection closes. */
  Overloaded: -32011,
  /** A bug in the daemon; logged there with its stack, generic on the wire. */
  InternalError: -32603,
} as const;

/** One of {@link ErrorCodes}. */
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** The stable names docs/protocol.md "Errors" gives the codes, for logs and docs. */
export const ErrorNames: Readonly<Record<ErrorCode, string>> = {
  [ErrorCodes.ParseError]: 'parse_error',
  [ErrorCodes.InvalidRequest]: 'invalid_request',
  [ErrorCodes.MethodNotFound]: 'method_not_found',
  [ErrorCodes.InvalidParams]: 'invalid_params',
  [ErrorCodes.NotFound]: 'not_found',
  [ErrorCodes.StorageError]: 'storage_error',
  [ErrorCodes.Overloaded]: 'overloaded',
  [ErrorCodes.InternalError]: 'internal_error',
};

/**
 * `data` of an invalid_params error: which field failed and why. `field` is
 * a path into params such as `agentId`, `tags[3]` or `records[7].content`;
 * `params` itself when the whole value is wrong.
 */
export interface InvalidParamsData {
  field: string;
  reason: string;
}
