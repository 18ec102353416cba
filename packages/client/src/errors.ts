/**
 * Stable codes of {@link ClientError}. They are the contract: callers branch
 * on them (and on `rpcCode` for {@link ClientErrorCodes.Rpc}), never on
 * message text.
 */
export const ClientErrorCodes = {
  /**
   * No daemon reachable (after autostart, when allowed), or the default
   * socket directory is unsafe. The message is exactly
   * `memory daemon unavailable at ${socketPath}: ${cause}`.
   */
  Unavailable: 'MEMORYD_UNAVAILABLE',
  /**
   * The daemon answered with a JSON-RPC error: `rpcCode` is its numeric
   * code, `message` the daemon's message and `data` its data.
   */
  Rpc: 'MEMORYD_RPC_ERROR',
  /** No answer came within the request timeout. */
  Timeout: 'MEMORYD_TIMEOUT',
  /** The connection closed before the answer came. */
  ConnectionLost: 'MEMORYD_CONNECTION_LOST',
  /**
   * The daemon speaks a protocol version this client does not
   * (`daemonProtocol`, `clientProtocols`): restarting it with the matching
   * memoryd is the fix. The next call says hello again.
   */
  ProtocolMismatch: 'MEMORYD_PROTOCOL_MISMATCH',
  /**
   * The call asks for what the daemon does not announce (`capability`):
   * filters, history or tag edits sent to an older daemon, which would
   * ignore them. Nothing was sent; upgrading the daemon is the fix.
   */
  Unsupported: 'MEMORYD_UNSUPPORTED',
} as const;

/** One of {@link ClientErrorCodes}. */
export type ClientErrorCode = (typeof ClientErrorCodes)[keyof typeof ClientErrorCodes];

/** What a {@link ClientError} carries besides its code and message. */
export interface ClientErrorOptions {
  /** The underlying error (socket error, spawn failure, the unsafe-dir reason). */
  cause?: unknown;
  /** The JSON-RPC error code, for {@link ClientErrorCodes.Rpc}. */
  rpcCode?: number;
  /** The JSON-RPC error's `data`, for {@link ClientErrorCodes.Rpc}. */
  data?: unknown;
  /** The protocol version the daemon announced, for {@link ClientErrorCodes.ProtocolMismatch}. */
  daemonProtocol?: number;
  /** The protocol versions this client speaks, for {@link ClientErrorCodes.ProtocolMismatch}. */
  clientProtocols?: readonly number[];
  /** The capability the daemon lacks, for {@link ClientErrorCodes.Unsupported}. */
  capability?: string;
}

/**
 * The one error class of `@memoryd/client`: a stable string `code` and a
 * `cause` (errors.ts's codes; docs/architecture.md, "Errors"). A daemon's JSON-RPC error arrives as
 * code {@link ClientErrorCodes.Rpc} with the wire code in `rpcCode`; absence
 * is never decided from it (the shim asks for `reportNotFound` instead).
 */
export class ClientError extends Error {
  /** One of {@link ClientErrorCodes}. */
  readonly code: ClientErrorCode;
  // `declare`: no own property unless set, so other codes carry neither.
  /** The daemon's numeric JSON-RPC error code (only for `Rpc`). */
  declare readonly rpcCode?: number;
  /** The daemon's JSON-RPC error `data` (only for `Rpc`, when it sent one). */
  declare readonly data?: unknown;
  /** The daemon's protocol version (only for `ProtocolMismatch`). */
  declare readonly daemonProtocol?: number;
  /** The protocol versions this client speaks (only for `ProtocolMismatch`). */
  declare readonly clientProtocols?: readonly number[];
  /** The capability the daemon lacks (only for `Unsupported`). */
  declare readonly capability?: string;

  constructor(code: ClientErrorCode, message: string, options: ClientErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ClientError';
    this.code = code;
    if (options.rpcCode !== undefined) this.rpcCode = options.rpcCode;
    if (options.data !== undefined) this.data = options.data;
    if (options.daemonProtocol !== undefined) this.daemonProtocol = options.daemonProtocol;
    if (options.clientProtocols !== undefined) this.clientProtocols = options.clientProtocols;
    if (options.capability !== undefined) this.capability = options.capability;
  }
}

/** True when `err` is a {@link ClientError}, and has `code` when one is given. */
export function isClientError(err: unknown, code?: string): err is ClientError {
  return err instanceof ClientError && (code === undefined || err.code === code);
}

/** The "no daemon" text of docs/api-stability.md "MCP tools": `memory daemon unavailable at SOCKET: CAUSE`. */
export function unavailable(socketPath: string, cause: Error): ClientError {
  return new ClientError(ClientErrorCodes.Unavailable, `memory daemon unavailable at ${socketPath}: ${cause.message}`, {
    cause,
  });
}

/** A plain Error carrying a one-line reason (and what led to it), used as a cause. */
export function reason(message: string, cause?: unknown): Error {
  return cause === undefined ? new Error(message) : new Error(message, { cause });
}

/**
 * `memoryd at SOCKET speaks protocol N, this CLIENT speaks M` (CLIENT: the
 * client's name, e.g. memoryd-mcp): a daemon of another protocol version.
 */
export function protocolMismatch(socketPath: string, daemonProtocol: number, clientProtocols: readonly number[], clientName = 'client'): ClientError {
  return new ClientError(
    ClientErrorCodes.ProtocolMismatch,
    `memoryd at ${socketPath} speaks protocol ${daemonProtocol}, this ${clientName} speaks ${clientProtocols.join(' or ')}`,
    { daemonProtocol, clientProtocols },
  );
}

/**
 * `memoryd VERSION at SOCKET cannot WHAT: it does not announce capability
 * "CAP"; upgrade memoryd and restart it`.
 */
export function unsupported(socketPath: string, daemonVersion: string, capability: string, what: string): ClientError {
  return new ClientError(
    ClientErrorCodes.Unsupported,
    `memoryd ${daemonVersion} at ${socketPath} cannot ${what}: it does not announce capability "${capability}"; upgrade memoryd and restart it`,
    { capability },
  );
}
