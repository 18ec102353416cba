import { randomBytes } from 'node:crypto';
import { type AdminExport, Limits, type ParamsOf, type ResultOf } from '@memoryd/protocol';
import { invalidParams } from '../errors.js';
import { type StoreContext, guard } from './context.js';
import { ExportTally } from './count-check.js';
import { type ExportPosition, type Snapshot, readExportPage } from './export-page.js';

/** One export in progress: a snapshot and where each issued cursor continues. */
interface Session {
  id: string;
  snapshot: Snapshot;
  agentId: string | undefined;
  limit: number;
  /** Cursor → position. Earlier cursors stay valid, so a retried page reads the same records. */
  cursors: Map<string, ExportPosition>;
  /** Position → the cursor issued for it, so a replayed page returns the same cursor. */
  issued: Map<string, string>;
  seq: number;
  /** What the export returned so far, checked against the counters agent by agent. */
  tally: ExportTally;
  /** Why the session ends once no page is being read (the last page was read, or one failed). */
  ending: string | undefined;
  /** Pages being read; the idle timer runs only while this is 0. */
  busy: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * `admin.export` sessions. The first call opens an explicit LevelDB
 * snapshot, so later writes are invisible to the whole export; each page
 * returns a cursor naming the session and the position after that page.
 * A session idle for `ttlMs` is dropped and its snapshot closed; the last
 * page closes it at once.
 */
export class ExportCursors {
  readonly #ctx: StoreContext;
  readonly #ttlMs: number;
  readonly #sessions = new Map<string, Session>();
  readonly #closing = new Set<Promise<void>>();

  constructor(ctx: StoreContext, ttlMs: number = Limits.exportCursorIdleMs) {
    this.#ctx = ctx;
    this.#ttlMs = ttlMs;
  }

  /** Serves one page: a new export without `cursor`, else the page after it. */
  async page(p: ParamsOf<typeof AdminExport>): Promise<ResultOf<typeof AdminExport>> {
    const { session, from } = p.cursor === undefined ? this.#start(p) : this.#resume(p.cursor);
    if (session.timer !== undefined) clearTimeout(session.timer);
    session.busy++;
    let next: ExportPosition | undefined;
    try {
      const page = await readExportPage(this.#ctx, session.snapshot, session.agentId, from, session.limit);
      next = page.next;
      try {
        await session.tally.add(page.records);
        if (next === undefined) await session.tally.end();
      } catch (err) {
        // Short of what the counters say: this export can never be whole.
        session.ending = 'damaged';
        throw err;
      }
      if (next === undefined) {
        session.ending = 'done';
        return { records: page.records };
      }
      return { records: page.records, cursor: this.#cursorFor(session, next) };
    } catch (err) {
      // A first page that fails hands out no cursor: nothing could resume it.
      if (p.cursor === undefined) session.ending ??= 'failed';
      throw err;
    } finally {
      session.busy--;
      // A page read again at the same time (a retried cursor) still reads the snapshot: it closes after both.
      if (session.busy === 0 && session.ending !== undefined) this.#end(session, session.ending);
      else if (session.busy === 0 && this.#sessions.has(session.id)) this.#arm(session);
    }
  }

  /** Drops every session and closes their snapshots. */
  async close(): Promise<void> {
    for (const session of [...this.#sessions.values()]) this.#end(session, 'store closing');
    await Promise.all([...this.#closing]);
  }

  #start(p: ParamsOf<typeof AdminExport>): { session: Session; from: undefined } {
    // Taken synchronously, before any await: the export sees exactly the
    // writes acknowledged before this call.
    const snapshot = this.#ctx.db.snapshot();
    const session: Session = {
      id: randomBytes(16).toString('base64url'),
      snapshot,
      agentId: p.agentId,
      limit: p.limit ?? Limits.exportLimitDefault,
      tally: new ExportTally(this.#ctx.subs, snapshot, p.agentId),
      ending: undefined,
      cursors: new Map(),
      issued: new Map(),
      seq: 0,
      busy: 0,
      timer: undefined,
    };
    this.#sessions.set(session.id, session);
    return { session, from: undefined };
  }

  /** The cursor continuing after `position`; the same one when a page is read again. */
  #cursorFor(session: Session, position: ExportPosition): string {
    const key = `${position.kind}\x00${position.agentId}\x00${position.id}`;
    let cursor = session.issued.get(key);
    if (cursor === undefined) {
      cursor = `${session.id}.${++session.seq}`;
      session.issued.set(key, cursor);
      session.cursors.set(cursor, position);
    }
    return cursor;
  }

  #resume(cursor: string): { session: Session; from: ExportPosition } {
    const session = this.#sessions.get(cursor.slice(0, cursor.indexOf('.')));
    const from = session?.cursors.get(cursor);
    if (session === undefined || from === undefined) throw invalidParams('cursor', 'unknown or expired export cursor');
    return { session, from };
  }

  #arm(session: Session): void {
    session.timer = setTimeout(() => this.#end(session, 'idle'), this.#ttlMs);
    // An idle cursor must not keep the daemon's event loop alive.
    session.timer.unref();
  }

  #end(session: Session, why: string): void {
    if (this.#sessions.get(session.id) !== session) return;
    this.#sessions.delete(session.id);
    if (session.timer !== undefined) clearTimeout(session.timer);
    this.#ctx.logger.debug('export session closed', { session: session.id, why });
    // Pages in progress hold references on the snapshot; LevelDB releases
    // it when the last one finishes.
    const closing = guard('close export snapshot', () => session.snapshot.close())
      .catch((err: unknown) => this.#ctx.logger.warn('could not close an export snapshot', { err }))
      .finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
  }
}
