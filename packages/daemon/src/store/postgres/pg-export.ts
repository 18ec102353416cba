import { randomBytes } from 'node:crypto';
import { type AdminExport, type ExportRecord, Limits, type ParamsOf, type ResultOf } from '@memoryd/protocol';
import type pg from 'pg';
import { invalidParams, storageError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { checkpointRecord, factRecord } from '../rules/records.js';
import { type CheckpointRow, type FactRow, storedCheckpointOfRow, storedFactOfRow } from './pg-rows.js';

/*
 * admin.export on PostgreSQL: the first call opens a REPEATABLE READ,
 * READ ONLY transaction on a connection of its own, whose snapshot every
 * page of that export reads (DESIGN.md: later writes are invisible to
 * it). The cursor names the session and the last record a page returned;
 * the same page read again (a retried call) hands out the same cursor.
 * An idle session ends after the cursor TTL, and its connection goes
 * back to the pool.
 */

/** Where a page ended: records sort by agent, then facts (0) before checkpoints (1), then id. */
interface Position {
  agentId: string;
  kind: 0 | 1;
  id: string;
}

interface Session {
  id: string;
  client: pg.PoolClient;
  agentId: string | undefined;
  limit: number;
  cursors: Map<string, Position>;
  issued: Map<string, string>;
  seq: number;
  timer: NodeJS.Timeout | undefined;
  /** Pages being read; the session ends after the last one when it is done. */
  busy: number;
  ending: string | undefined;
}

/** One row of the union the export pages through. */
type ExportRow = (FactRow & { kind: 0; state: null; message_count: null }) | (CheckpointRow & { kind: 1 });

const PAGE_SQL = `
  SELECT * FROM (
    SELECT agent_id, 0 AS kind, id, content, tags, created_at, updated_at, superseded_by, deleted_at,
           NULL::text AS state, NULL::integer AS message_count
      FROM facts
    UNION ALL
    SELECT agent_id, 1 AS kind, id, NULL, NULL, created_at, NULL, NULL, NULL, state, message_count
      FROM checkpoints
  ) r
  WHERE ($1::text IS NULL OR agent_id = $1) AND (agent_id, kind, id) > ($2::text COLLATE "C", $3::integer, $4::text COLLATE "C")
  ORDER BY agent_id, kind, id
  LIMIT $5`;

/** The export sessions of one PostgreSQL store. */
export class PgExports {
  readonly #pool: pg.Pool;
  readonly #ttlMs: number;
  readonly #logger: Logger;
  readonly #sessions = new Map<string, Session>();
  readonly #closing = new Set<Promise<void>>();

  constructor(pool: pg.Pool, ttlMs: number, logger: Logger) {
    this.#pool = pool;
    this.#ttlMs = ttlMs;
    this.#logger = logger;
  }

  async page(p: ParamsOf<typeof AdminExport>): Promise<ResultOf<typeof AdminExport>> {
    const { session, from } = p.cursor === undefined ? await this.#start(p) : this.#resume(p.cursor);
    if (session.timer !== undefined) clearTimeout(session.timer);
    session.busy++;
    try {
      const { rows } = await session.client.query<ExportRow>(PAGE_SQL, [
        session.agentId ?? null,
        from.agentId,
        from.kind,
        from.id,
        session.limit + 1,
      ]);
      const more = rows.length > session.limit;
      const records: ExportRecord[] = rows
        .slice(0, session.limit)
        .map((row) => (row.kind === 1 ? checkpointRecord(row.agent_id, storedCheckpointOfRow(row)) : factRecord(row.agent_id, storedFactOfRow(row))));
      if (!more) {
        session.ending = 'done';
        return { records };
      }
      const last = rows[session.limit - 1]!;
      return { records, cursor: this.#cursorFor(session, { agentId: last.agent_id, kind: last.kind, id: last.id }) };
    } catch (err) {
      if (p.cursor === undefined) session.ending ??= 'failed';
      if (err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('MEMORYD_')) throw err;
      throw storageError('read an export page', err);
    } finally {
      session.busy--;
      if (session.busy === 0 && session.ending !== undefined) this.#end(session, session.ending);
      else if (session.busy === 0 && this.#sessions.has(session.id)) this.#arm(session);
    }
  }

  async close(): Promise<void> {
    for (const session of [...this.#sessions.values()]) this.#end(session, 'store closing');
    await Promise.all([...this.#closing]);
  }

  async #start(p: ParamsOf<typeof AdminExport>): Promise<{ session: Session; from: Position }> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw storageError('open an export snapshot', err);
    }
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    } catch (err) {
      client.release(true);
      throw storageError('open an export snapshot', err);
    }
    const session: Session = {
      id: randomBytes(16).toString('base64url'),
      client,
      agentId: p.agentId,
      limit: p.limit ?? Limits.exportLimitDefault,
      cursors: new Map(),
      issued: new Map(),
      seq: 0,
      timer: undefined,
      busy: 0,
      ending: undefined,
    };
    this.#sessions.set(session.id, session);
    return { session, from: { agentId: '', kind: 0, id: '' } };
  }

  #cursorFor(session: Session, position: Position): string {
    const key = `${position.kind}\x00${position.agentId}\x00${position.id}`;
    let cursor = session.issued.get(key);
    if (cursor === undefined) {
      cursor = `${session.id}.${++session.seq}`;
      session.issued.set(key, cursor);
      session.cursors.set(cursor, position);
    }
    return cursor;
  }

  #resume(cursor: string): { session: Session; from: Position } {
    const session = this.#sessions.get(cursor.slice(0, cursor.indexOf('.')));
    const from = session?.cursors.get(cursor);
    if (session === undefined || from === undefined) throw invalidParams('cursor', 'unknown or expired export cursor');
    return { session, from };
  }

  #arm(session: Session): void {
    session.timer = setTimeout(() => this.#end(session, 'idle'), this.#ttlMs);
    session.timer.unref();
  }

  #end(session: Session, why: string): void {
    if (this.#sessions.get(session.id) !== session) return;
    this.#sessions.delete(session.id);
    if (session.timer !== undefined) clearTimeout(session.timer);
    this.#logger.debug('export session closed', { session: session.id, why });
    const closing = session.client
      .query('ROLLBACK')
      .then(
        () => session.client.release(),
        (err: unknown) => {
          session.client.release(true);
          this.#logger.warn('could not end an export snapshot', { err });
        },
      )
      .finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
  }
}
