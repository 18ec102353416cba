import type pg from 'pg';
import { firstLine, readOnly } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { isConnectionLoss, sqlState } from './pg-connections.js';
import { SCHEMA_VERSION, newerSchema } from './pg-schema.js';

/** How often the store asks a server it lost (or a standby) whether it is back. */
const PROBE_MS = 1_000;

/**
 * What daemon.status's `health` says of a PostgreSQL store (ADR 0031):
 *
 * - `unavailable: CAUSE` from a connection that failed until a statement
 *   succeeds again (a probe asks every second meanwhile, so health comes
 *   back by itself when the server does);
 * - `read-only: CAUSE` while the server refuses writes (a standby, or
 *   `default_transaction_read_only`), and for good once a newer daemon
 *   migrated the schema under this one: this daemon then refuses every
 *   write itself, since it no longer knows what a row must hold.
 *
 * Requests are never held back while unavailable: each one tries, and
 * fails within the connect timeout if the server is still gone.
 */
export class PgHealth {
  readonly #pool: pg.Pool;
  readonly #logger: Logger;
  #unavailable: string | undefined;
  #serverReadOnly: string | undefined;
  #newer: string | undefined;
  #probe: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(pool: pg.Pool, logger: Logger) {
    this.#pool = pool;
    this.#logger = logger;
  }

  /** daemon.status's `health`. */
  describe(): string {
    if (this.#newer !== undefined) return `read-only: ${this.#newer}`;
    if (this.#unavailable !== undefined) return `unavailable: ${this.#unavailable}`;
    if (this.#serverReadOnly !== undefined) return `read-only: ${this.#serverReadOnly}`;
    return 'ok';
  }

  /** Throws the read-only error while this daemon refuses writes. */
  refuseWrite(): void {
    if (this.#newer !== undefined) throw readOnly(this.#newer);
  }

  /** A statement succeeded: the server is reachable. */
  reached(): void {
    if (this.#unavailable === undefined) return;
    this.#logger.info('PostgreSQL is reachable again');
    this.#unavailable = undefined;
  }

  /** A connection failed (its error listener, or a statement's failure). */
  lost(err: Error): void {
    if (this.#closed) return;
    if (this.#unavailable === undefined) this.#logger.warn('PostgreSQL is unavailable', { reason: err.message });
    this.#unavailable = firstLine(err);
    this.#schedule();
  }

  /**
   * Learns what it can from a failed statement: a lost connection, a
   * server refusing writes, or (after a write failed on a column, table
   * or function this daemon expects) a schema a newer daemon migrated.
   * Resolves once any such state is known, so the caller can report it.
   */
  async failed(err: unknown, write: boolean): Promise<void> {
    if (isConnectionLoss(err)) return this.lost(err as Error);
    const code = sqlState(err) ?? '';
    if (code === '25006') {
      this.#serverReadOnly = 'the server accepts no writes (a standby, or default_transaction_read_only)';
      this.#schedule();
    } else if (write && (code.startsWith('42') || code.startsWith('23') || code === '0A000')) {
      await this.checkSchema();
    }
  }

  /** The newer schema's error, once a check found one. */
  newer(): string | undefined {
    return this.#newer;
  }

  /** Reads the schema's version and turns read-only for good when a newer daemon migrated it. */
  async checkSchema(): Promise<void> {
    let at: number;
    try {
      const { rows } = await this.#pool.query<{ version: number | null }>('SELECT max(version) AS version FROM memoryd_migrations');
      at = rows[0]?.version ?? 0;
    } catch (err) {
      this.#logger.warn('could not read the schema version', { err });
      return;
    }
    if (at <= SCHEMA_VERSION || this.#newer !== undefined) return;
    this.#newer = newerSchema(at);
    this.#logger.error('a newer memoryd migrated the database; this daemon refuses writes until it is upgraded', { version: at, known: SCHEMA_VERSION });
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#probe);
  }

  #schedule(): void {
    if (this.#probe !== undefined || this.#closed) return;
    this.#probe = setTimeout(() => void this.#ask(), PROBE_MS).unref();
  }

  async #ask(): Promise<void> {
    try {
      const { rows } = await this.#pool.query<{ ro: string }>("SELECT current_setting('transaction_read_only') AS ro");
      this.reached();
      if (rows[0]?.ro !== 'on' && this.#serverReadOnly !== undefined) {
        this.#logger.info('PostgreSQL accepts writes again');
        this.#serverReadOnly = undefined;
      }
    } catch (err) {
      if (isConnectionLoss(err)) this.#unavailable = firstLine(err);
    }
    this.#probe = undefined;
    if (this.#unavailable !== undefined || this.#serverReadOnly !== undefined) this.#schedule();
  }
}
