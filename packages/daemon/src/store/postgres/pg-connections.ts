import pg from 'pg';
import type { Logger } from '../../logger.js';

/*
 * The PostgreSQL store's connections (ADR 0031): two pools, one for
 * requests and one for export snapshots, so that open exports never take
 * the connections requests need. Every connection a pool makes has an
 * error listener for its whole life: a server that restarts or goes away
 * fails the statements on that connection, never the daemon (pg emits
 * 'error' on a client the pool has handed out, and an 'error' event
 * nobody listens to ends the process). Every wait is bounded.
 */

/** How long the store waits for the server, in milliseconds. */
export interface PgTimeouts {
  /** To get a connection: from the pool, or a new one (TCP, TLS, authentication). */
  connectMs: number;
  /** For one statement to finish (the server's statement_timeout). */
  statementMs: number;
  /** For one lock: a row, a table, the migration lock (the server's lock_timeout). */
  lockMs: number;
}

/** What a user would expect: seconds, not minutes (docs/operations.md). */
export const DEFAULT_PG_TIMEOUTS: Readonly<PgTimeouts> = { connectMs: 10_000, statementMs: 30_000, lockMs: 5_000 };

/** Connections of the request pool. */
export const REQUEST_CONNECTIONS = 8;
/** Connections of the export pool: at most this many exports are open at once. */
export const EXPORT_CONNECTIONS = 4;

/**
 * A pool of `max` connections with the timeouts set on each and an error
 * listener on each; `lost` hears of every connection that failed.
 */
export function openPool(
  connection: pg.PoolConfig,
  timeouts: PgTimeouts,
  max: number,
  logger: Logger,
  lost: (err: Error) => void,
): pg.Pool {
  const pool = new pg.Pool({
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    lock_timeout: timeouts.lockMs,
    // The client's own bound, for a server that takes a statement and
    // then never answers (statement_timeout is the server's, and a
    // silent server keeps no promise).
    query_timeout: timeouts.statementMs + timeouts.connectMs,
    keepAlive: true,
    ...connection,
  });
  const onError = (err: Error): void => {
    logger.warn('a PostgreSQL connection failed', { err });
    lost(err);
  };
  pool.on('connect', (client) => client.on('error', onError));
  // An idle connection that fails is also reported here; the pool drops it.
  pool.on('error', () => undefined);
  return pool;
}

/** SQLSTATE of a pg error the server sent, or undefined for a failure of the connection itself. */
export function sqlState(err: unknown): string | undefined {
  return err instanceof pg.DatabaseError ? err.code : undefined;
}

/** Socket errors of a connection that failed or never came up. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ENOENT', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

/** pg's and pg-pool's own words for a connection that went or never came (they carry no code). */
const CLIENT_LOSS = /connection terminated|connection ended|not queryable|connection error|query read timeout/i;

/**
 * True when `err` says the connection or the server is gone, not that
 * the statement was wrong: a socket error, pg's own "Connection
 * terminated ..." and timeouts, class 08 (connection exception),
 * 57P01-57P03 (the server shut down, crashed or is starting) or 53300 (no
 * connection slot left). Anything else (a statement the server refused,
 * a rule of ours, a bug) is not: its connection is whole.
 */
export function isConnectionLoss(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = sqlState(err);
  if (code !== undefined) return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';
  const socket = (err as { code?: unknown }).code;
  return (typeof socket === 'string' && SOCKET_CODES.has(socket)) || CLIENT_LOSS.test(err.message);
}

/** True when `err` is a serialization failure (40001) or a deadlock (40P01): the transaction may run again. */
export function isRetryable(err: unknown): boolean {
  const code = sqlState(err);
  return code === '40001' || code === '40P01';
}

/** Releases a client: back to its pool when it is whole, destroyed when `err` says its connection is not. */
export function release(client: pg.PoolClient, err?: unknown): void {
  client.release(err !== undefined && isConnectionLoss(err) ? (err as Error) : undefined);
}
