import { type AdminExport, type ExportRecord, Limits, type ParamsOf, type ResultOf } from '@memoryd/protocol';
import type pg from 'pg';
import { DaemonError, DaemonErrorCodes, storageError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { checkpointRecord, factRecord } from '../rules/records.js';
import { type ExportSession, ExportSessions, newExportSession } from '../export-sessions.js';
import { EXPORT_CONNECTIONS, isConnectionLoss, release } from './pg-connections.js';
import { type CheckpointRow, type FactRow, storedCheckpointOfRow, storedFactOfRow } from './pg-rows.js';

/*
 * admin.export on PostgreSQL: the first call opens a REPEATABLE READ,
 * READ ONLY transaction on a connection of its own, whose snapshot every
 * page of that export reads (docs/protocol.md "admin.export": later
 * writes are invisible to it). The cursor names the session and the last record a page returned;
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

interface Session extends ExportSession<Position> {
  client: pg.PoolClient;
  agentId: string | undefined;
  limit: number;
}

/** One row of the union the export pages through. */
type ExportRow = (FactRow & { kind: 0; state: null; message_count: null }) | (CheckpointRow & { kind: 1 });

const PAGE_SQL = `
  SELECT * FROM (
    SELECT agent_id, 0 AS kind, id, content, tags, created_at, updated_at, superseded_by, deleted_at, context,
           NULL::text AS state, NULL::integer AS message_count
      FROM facts
    UNION ALL
    SELECT agent_id, 1 AS kind, id, NULL, NULL, created_at, NULL, NULL, NULL, NULL, state, message_count
      FROM checkpoints
  ) r
  WHERE ($1::text IS NULL OR agent_id = $1) AND (agent_id, kind, id) > ($2::text COLLATE "C", $3::integer, $4::text COLLATE "C")
  ORDER BY agent_id, kind, id
  LIMIT $5`;

/** The export sessions of one PostgreSQL store. */
export class PgExports {
  readonly #pool: pg.Pool;
  readonly #sessions: ExportSessions<Position, Session>;
  readonly #ttlMs: number;
  /** Sessions being opened: they count against the bound before they are kept. */
  #opening = 0;
  readonly #lost: (err: unknown) => void;

  /** `pool` is the export pool; `lost` hears of a connection that failed. */
  constructor(pool: pg.Pool, ttlMs: number, logger: Logger, lost: (err: unknown) => void) {
    this.#pool = pool;
    this.#ttlMs = ttlMs;
    this.#lost = lost;
    this.#sessions = new ExportSessions(ttlMs, logger, async (session) => {
      try {
        await session.client.query('ROLLBACK');
        session.client.release();
      } catch (err) {
        session.client.release(true);
        if (!isConnectionLoss(err)) throw err;
      }
    });
  }

  async page(p: ParamsOf<typeof AdminExport>): Promise<ResultOf<typeof AdminExport>> {
    const { session, from } = p.cursor === undefined ? await this.#start(p) : this.#sessions.resume(p.cursor);
    return this.#sessions.read(session, p.cursor === undefined, async () => {
      let rows: ExportRow[];
      try {
        ({ rows } = await session.client.query<ExportRow>(PAGE_SQL, [session.agentId ?? null, from.agentId, from.kind, from.id, session.limit + 1]));
      } catch (err) {
        if (isConnectionLoss(err)) {
          session.ending = 'connection lost';
          this.#lost(err);
        }
        throw storageError('read an export page', err);
      }
      const records: ExportRecord[] = rows
        .slice(0, session.limit)
        .map((row) => (row.kind === 1 ? checkpointRecord(row.agent_id, storedCheckpointOfRow(row)) : factRecord(row.agent_id, storedFactOfRow(row))));
      if (rows.length <= session.limit) {
        session.ending = 'done';
        return { records };
      }
      const last = rows[session.limit - 1]!;
      return { records, cursor: this.#sessions.cursorFor(session, { agentId: last.agent_id, kind: last.kind, id: last.id }) };
    });
  }

  close(): Promise<void> {
    return this.#sessions.close();
  }

  async #start(p: ParamsOf<typeof AdminExport>): Promise<{ session: Session; from: Position }> {
    const open = this.#sessions.size + this.#opening;
    if (open >= EXPORT_CONNECTIONS) {
      throw new DaemonError(
        DaemonErrorCodes.Storage,
        `${open} exports are open, the most at once on PostgreSQL: read one to its end, or wait for one to go idle for ${this.#ttlMs / 1000} s`,
      );
    }
    let client: pg.PoolClient;
    this.#opening++;
    try {
      client = await this.#pool.connect();
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      } catch (err) {
        release(client, err);
        throw err;
      }
    } catch (err) {
      this.#lost(err);
      throw storageError('open an export snapshot', err);
    } finally {
      this.#opening--;
    }
    const session: Session = { ...newExportSession<Position>(), client, agentId: p.agentId, limit: p.limit ?? Limits.exportLimitDefault };
    this.#sessions.add(session);
    return { session, from: { agentId: '', kind: 0, id: '' } };
  }
}
