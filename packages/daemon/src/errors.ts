import type { InvalidParamsData } from '@memoryd/protocol';

/**
 * Stable codes of the daemon's local errors. Code is the contract, message
 * is for people: callers and tests branch on `code` (and `cause.code`),
 * never on text. The RPC server maps these to wire codes in one place.
 */
export const DaemonErrorCodes = {
  /** Params passed the schema but break a rule it cannot express. */
  InvalidParams: 'MEMORYD_INVALID_PARAMS',
  /** A fact or checkpoint that does not exist. */
  NotFound: 'MEMORYD_NOT_FOUND',
  /** The store failed (I/O, closed, ...). */
  Storage: 'MEMORYD_STORAGE',
  /** A stored record failed to decode. */
  Decode: 'MEMORYD_DECODE',
  /** A stored record failed its checksum: damaged on disk, never served. */
  Damaged: 'MEMORYD_DAMAGED',
  /** The store's files cannot be opened as they are (missing CURRENT, a missing or truncated table, a damaged log or MANIFEST). */
  StoreDamaged: 'MEMORYD_STORE_DAMAGED',
  /** A write failed earlier: writes are refused until the store is known good again. */
  ReadOnly: 'MEMORYD_READ_ONLY',
  /** The database server cannot be reached, or kept this daemon waiting past a timeout (PostgreSQL store). */
  StoreUnavailable: 'MEMORYD_STORE_UNAVAILABLE',
  /** The database was migrated by a newer daemon than this one (PostgreSQL store). */
  StoreNewer: 'MEMORYD_STORE_NEWER',
  /** Another process holds the data dir's LevelDB lock. */
  DataDirLocked: 'MEMORYD_DATA_DIR_LOCKED',
  /** Another daemon answers on the socket. */
  SocketInUse: 'MEMORYD_SOCKET_IN_USE',
  /** The socket path or its directory is unusable (length, owner, mode). */
  SocketPath: 'MEMORYD_SOCKET_PATH',
  /** Bad command-line flags or environment. */
  Usage: 'MEMORYD_USAGE',
} as const;

export type DaemonErrorCode = (typeof DaemonErrorCodes)[keyof typeof DaemonErrorCodes];

/**
 * The one local error class of the daemon: a stable `code`, a message for
 * people, the original error as `cause`, and for invalid params the
 * `{field, reason}` that goes on the wire as `data`.
 */
export class DaemonError extends Error {
  readonly code: DaemonErrorCode;
  readonly data: InvalidParamsData | undefined;

  constructor(code: DaemonErrorCode, message: string, options: { cause?: unknown; data?: InvalidParamsData } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DaemonError';
    this.code = code;
    this.data = options.data;
  }
}

/** An invalid_params error for one field. */
export function invalidParams(field: string, reason: string): DaemonError {
  return new DaemonError(DaemonErrorCodes.InvalidParams, `invalid params: ${field}: ${reason}`, {
    data: { field, reason },
  });
}

/** A not_found error. */
export function notFound(message: string): DaemonError {
  return new DaemonError(DaemonErrorCodes.NotFound, message);
}

/**
 * The innermost cause of an error, as one line: level wraps LevelDB's
 * status (`LEVEL_DATABASE_NOT_OPEN: Database failed to open`, cause
 * `Corruption: 1 missing files; e.g. …`), and only the innermost names
 * what went wrong. Its code is prefixed unless the message already
 * carries it (Node's `ENOTDIR: not a directory, mkdir …` does) or it is
 * one of level's, whose LevelDB message says the same (`IO error: …`).
 */
export function rootCause(err: unknown): string {
  let e = err;
  while (e instanceof Error && e.cause instanceof Error && !(e instanceof DaemonError)) e = e.cause;
  if (!(e instanceof Error)) return String(e);
  if (e instanceof DaemonError) return e.message;
  const code = (e as { code?: unknown }).code;
  const message = e.message.split('\n')[0] ?? '';
  if (typeof code !== 'string' || code.startsWith('LEVEL_') || message.includes(code)) return message || e.name;
  return message === '' ? code : `${code}: ${message}`;
}

/**
 * Wraps a failure of the store, keeping it as the cause and its root
 * cause in the message (the wire carries the message; the whole chain
 * stays in the log).
 */
export function storageError(what: string, cause: unknown): DaemonError {
  return new DaemonError(DaemonErrorCodes.Storage, `${what}: ${rootCause(cause)}`, { cause });
}

/** A stored record that does not decode: an error for the request that read it. */
export function decodeError(what: string, cause: unknown): DaemonError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new DaemonError(DaemonErrorCodes.Decode, `could not decode ${what}: ${detail}`, { cause });
}

/** The refusal of writes while a store is read-only, naming why. */
export function readOnly(cause: string, err?: unknown): DaemonError {
  return new DaemonError(DaemonErrorCodes.ReadOnly, `the store is read-only: ${cause}`, err === undefined ? {} : { cause: err });
}

/**
 * A server that cannot be reached (or kept a request waiting past a
 * timeout): `what` and the failure's own first line, which says more
 * than its root ("connection timeout", not "terminated unexpectedly").
 */
export function unavailableError(what: string, cause: unknown): DaemonError {
  return new DaemonError(DaemonErrorCodes.StoreUnavailable, `${what}: ${firstLine(cause)}`, { cause });
}

/** The first line of a failure's own message (its name when that is empty): what it says, not its root's. */
export function firstLine(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0] || err.name : String(err);
}
