import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../../logger.js';

/** Wait before the listening connection is made again. */
const RELISTEN_MS = 1_000;
/** How long a notification of its own may take to come back, by default. */
export const ECHO_MS = 5_000;
/** How often the listening connection is checked by a notification of its own. */
const ECHO_EVERY_MS = 30_000;
/** Wait before listening again when notifications did not come back. */
const RELISTEN_DEAF_MS = 60_000;

/** What the listener tells of. */
export interface ChangeListenerEvents {
  /** A fact row of `agentId` was written (notified by the trigger of migration 2). */
  onFact(agentId: string, id: string): void;
  /** Listening works, and every change from now on is heard; `again` when it was lost before. */
  onUp(again: boolean): void;
  /** Listening is lost (`err` why, none at a close): changes may go unheard from now on. */
  onDown(err: Error | undefined): void;
}

export interface ChangeListenerOptions {
  /** How long a notification of its own may take to come back ({@link ECHO_MS}). */
  echoMs?: number;
}

/**
 * A PostgreSQL store's ears (ADR 0032): a connection of its own that
 * LISTENs on the schema's channel, where a trigger on `facts` (migration 2)
 * sends `agent \n id` for every fact row written, by any daemon.
 *
 * It trusts the connection only once a notification of its own, sent
 * through the request pool, came back within {@link ECHO_MS}: a pooler in
 * transaction mode (PgBouncer) takes LISTEN and delivers nothing, and a
 * connection whose server vanished without a word delivers nothing either;
 * it asks again every {@link ECHO_EVERY_MS}. A lost connection is made
 * again after {@link RELISTEN_MS} ({@link RELISTEN_DEAF_MS} when nothing
 * came back).
 */
export class PgChangeListener {
  readonly #pool: pg.Pool;
  readonly #connection: pg.ClientConfig;
  readonly #logger: Logger;
  readonly #events: ChangeListenerEvents;
  readonly #echoMs: number;
  #client: pg.Client | undefined;
  #check: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;
  #retryMs = RELISTEN_MS;
  #upBefore = false;
  #closed = false;
  /** Tokens of notifications of its own on their way back. */
  readonly #expected = new Map<string, () => void>();
  /** Settles once the first attempt to listen succeeded or failed. */
  readonly firstAttempt: Promise<void>;
  #firstSettled!: () => void;

  constructor(pool: pg.Pool, connection: pg.ClientConfig, logger: Logger, events: ChangeListenerEvents, options: ChangeListenerOptions = {}) {
    this.#pool = pool;
    this.#connection = connection;
    this.#logger = logger;
    this.#events = events;
    this.#echoMs = options.echoMs ?? ECHO_MS;
    this.firstAttempt = new Promise((resolve) => (this.#firstSettled = resolve));
  }

  start(): void {
    void this.#listen();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#firstSettled();
    clearTimeout(this.#retry);
    clearInterval(this.#check);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Connects, listens, and checks that its own notification comes back; a failure is tried again later. */
  async #listen(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client(this.#connection);
    this.#retryMs = RELISTEN_MS;
    this.#client = client;
    client.on('error', (err) => this.#down(client, err));
    client.on('end', () => this.#down(client, undefined));
    client.on('notification', (msg) => this.#route(msg.payload ?? ''));
    try {
      await client.connect();
      const { rows } = await client.query<{ channel: string }>("SELECT 'memoryd_' || md5(current_schema()) AS channel");
      const channel = rows[0]!.channel;
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
      if (!(await this.#echoes(channel))) {
        this.#retryMs = RELISTEN_DEAF_MS;
        throw new Error(`a notification sent through the pool did not come back within ${this.#echoMs / 1000} s (a connection pooler in transaction mode passes none); searching by SQL`);
      }
      if (this.#client !== client) return;
      const again = this.#upBefore;
      this.#upBefore = true;
      this.#firstSettled();
      this.#events.onUp(again);
      this.#checkEvery(client, channel);
    } catch (err) {
      this.#down(client, err as Error);
      client.end().catch(() => undefined);
      this.#firstSettled();
    }
  }

  /** The connection is lost: tell, and listen again after a while. */
  #down(client: pg.Client, err: Error | undefined): void {
    if (this.#client !== client) return;
    clearInterval(this.#check);
    this.#client = undefined;
    this.#events.onDown(err);
    if (this.#closed) return;
    if (err !== undefined) this.#logger.warn('lost the connection that hears of changes; searching by SQL until it is back', { reason: err.message });
    this.#retry = setTimeout(() => void this.#listen(), this.#retryMs);
    this.#retry.unref();
  }

  /** A notification: a fact's (`agent \n id`), or one of its own coming back (`\n token`). */
  #route(payload: string): void {
    const cut = payload.indexOf('\n');
    if (cut > 0) this.#events.onFact(payload.slice(0, cut), payload.slice(cut + 1));
    else if (cut === 0) this.#expected.get(payload.slice(1))?.();
  }

  /** True once a notification of its own, sent through the request pool, came back on the listening connection in time. */
  async #echoes(channel: string): Promise<boolean> {
    const token = randomUUID();
    const back = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), this.#echoMs);
      this.#expected.set(token, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    try {
      await this.#pool.query('SELECT pg_notify($1, $2)', [channel, `\n${token}`]);
      return await back;
    } finally {
      this.#expected.delete(token);
    }
  }

  /** Asks again now and then: a listening connection can die without a word (a failover behind an address). */
  #checkEvery(client: pg.Client, channel: string): void {
    this.#check = setInterval(() => {
      this.#echoes(channel)
        .then((ok) => {
          if (ok || this.#client !== client) return;
          this.#down(client, new Error(`no notification came back within ${this.#echoMs / 1000} s`));
          client.end().catch(() => undefined);
        })
        .catch(() => undefined); // the request pool is failing: its own requests say so, and the next check asks again
    }, ECHO_EVERY_MS);
    this.#check.unref();
  }
}
