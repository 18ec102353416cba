import { randomBytes } from 'node:crypto';
import { invalidParams } from '../errors.js';
import type { Logger } from '../logger.js';

/*
 * admin.export's sessions, the same on every backend (ADR 0027): what a
 * backend keeps for one export (a snapshot) is its own, and so is how it
 * reads a page; the cursors, the idle timeout and the ending are here.
 */

/** Where a page ended: the last record it returned. */
export interface ExportPositionOf {
  agentId: string;
  kind: string | number;
  id: string;
}

/** The part of a session this module keeps. */
export interface ExportSession<P extends ExportPositionOf> {
  id: string;
  /** Cursor → position. Earlier cursors stay valid, so a retried page reads the same records. */
  cursors: Map<string, P>;
  /** Position → the cursor issued for it, so a replayed page returns the same cursor. */
  issued: Map<string, string>;
  seq: number;
  /** Why the session ends once no page is being read (the last page was read, or one failed). */
  ending: string | undefined;
  /** Pages being read; the idle timer runs only while this is 0. */
  busy: number;
  timer: NodeJS.Timeout | undefined;
}

/** The fields of a new session that this module keeps, with a fresh id. */
export function newExportSession<P extends ExportPositionOf>(): ExportSession<P> {
  return { id: randomBytes(16).toString('base64url'), cursors: new Map(), issued: new Map(), seq: 0, ending: undefined, busy: 0, timer: undefined };
}

/**
 * The export sessions of one store. A session idle for `ttlMs` ends, as
 * does one whose last page was read; `release` then lets go of what the
 * backend held for it (its snapshot), once.
 */
export class ExportSessions<P extends ExportPositionOf, S extends ExportSession<P>> {
  readonly #ttlMs: number;
  readonly #logger: Logger;
  readonly #release: (session: S) => Promise<void>;
  readonly #sessions = new Map<string, S>();
  readonly #closing = new Set<Promise<void>>();

  constructor(ttlMs: number, logger: Logger, release: (session: S) => Promise<void>) {
    this.#ttlMs = ttlMs;
    this.#logger = logger;
    this.#release = release;
  }

  /** Sessions open now. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Starts keeping a new session. */
  add(session: S): void {
    this.#sessions.set(session.id, session);
  }

  /** The session of `cursor`, and where it continues; InvalidParams when it is unknown or expired. */
  resume(cursor: string): { session: S; from: P } {
    const session = this.#sessions.get(cursor.slice(0, cursor.indexOf('.')));
    const from = session?.cursors.get(cursor);
    if (session === undefined || from === undefined) throw invalidParams('cursor', 'unknown or expired export cursor');
    return { session, from };
  }

  /** The cursor continuing after `position`; the same one when a page is read again. */
  cursorFor(session: S, position: P): string {
    const key = `${position.kind}\x00${position.agentId}\x00${position.id}`;
    let cursor = session.issued.get(key);
    if (cursor === undefined) {
      cursor = `${session.id}.${++session.seq}`;
      session.issued.set(key, cursor);
      session.cursors.set(cursor, position);
    }
    return cursor;
  }

  /**
   * Reads one page of `session` with `read`: the idle timer stops
   * meanwhile; afterwards the session ends if it is done (a first page
   * that fails hands out no cursor, so it is done too), else its timer
   * starts again.
   */
  async read<T>(session: S, first: boolean, read: () => Promise<T>): Promise<T> {
    if (session.timer !== undefined) clearTimeout(session.timer);
    session.busy++;
    try {
      return await read();
    } catch (err) {
      if (first) session.ending ??= 'failed';
      throw err;
    } finally {
      session.busy--;
      // A page read again at the same time (a retried cursor) still reads the snapshot: it closes after both.
      if (session.busy === 0 && session.ending !== undefined) this.end(session, session.ending);
      else if (session.busy === 0 && this.#sessions.has(session.id)) this.#arm(session);
    }
  }

  /** Ends every session (the store is closing) and waits for their release. */
  async close(): Promise<void> {
    for (const session of [...this.#sessions.values()]) this.end(session, 'store closing');
    await Promise.all([...this.#closing]);
  }

  /** Ends a session now, once: its cursors stop working and its snapshot is released. */
  end(session: S, why: string): void {
    if (this.#sessions.get(session.id) !== session) return;
    this.#sessions.delete(session.id);
    if (session.timer !== undefined) clearTimeout(session.timer);
    this.#logger.debug('export session closed', { session: session.id, why });
    const closing = this.#release(session)
      .catch((err: unknown) => this.#logger.warn('could not close an export snapshot', { err }))
      .finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
  }

  #arm(session: S): void {
    session.timer = setTimeout(() => this.end(session, 'idle'), this.#ttlMs);
    // An idle cursor must not keep the daemon's event loop alive.
    session.timer.unref();
  }
}
