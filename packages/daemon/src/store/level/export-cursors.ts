import { type AdminExport, Limits, type ParamsOf, type ResultOf } from '@memoryd/protocol';
import type { StoreContext } from './context.js';
import { guard } from './db.js';
import { ExportTally } from './count-check.js';
import { type ExportPosition, type Snapshot, readExportPage } from './export-page.js';
import { type ExportSession, ExportSessions, newExportSession } from '../export-sessions.js';

/** One export in progress: a snapshot, and the counters it is checked against. */
interface Session extends ExportSession<ExportPosition> {
  snapshot: Snapshot;
  agentId: string | undefined;
  limit: number;
  /** What the export returned so far, checked against the counters agent by agent. */
  tally: ExportTally;
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
  readonly #sessions: ExportSessions<ExportPosition, Session>;

  constructor(ctx: StoreContext, ttlMs: number = Limits.exportCursorIdleMs) {
    this.#ctx = ctx;
    // Pages in progress hold references on the snapshot; LevelDB releases it when the last one finishes.
    this.#sessions = new ExportSessions(ttlMs, ctx.logger, (session) => guard('close export snapshot', () => session.snapshot.close()));
  }

  /** Serves one page: a new export without `cursor`, else the page after it. */
  page(p: ParamsOf<typeof AdminExport>): Promise<ResultOf<typeof AdminExport>> {
    const { session, from } = p.cursor === undefined ? this.#start(p) : this.#sessions.resume(p.cursor);
    return this.#sessions.read(session, p.cursor === undefined, async () => {
      const page = await readExportPage(this.#ctx, session.snapshot, session.agentId, from, session.limit);
      try {
        await session.tally.add(page.records);
        if (page.next === undefined) await session.tally.end();
      } catch (err) {
        // Short of what the counters say: this export can never be whole.
        session.ending = 'damaged';
        throw err;
      }
      if (page.next === undefined) {
        session.ending = 'done';
        return { records: page.records };
      }
      return { records: page.records, cursor: this.#sessions.cursorFor(session, page.next) };
    });
  }

  /** Drops every session and closes their snapshots. */
  close(): Promise<void> {
    return this.#sessions.close();
  }

  #start(p: ParamsOf<typeof AdminExport>): { session: Session; from: undefined } {
    // Taken synchronously, before any await: the export sees exactly the
    // writes acknowledged before this call.
    const snapshot = this.#ctx.db.snapshot();
    const session: Session = {
      ...newExportSession<ExportPosition>(),
      snapshot,
      agentId: p.agentId,
      limit: p.limit ?? Limits.exportLimitDefault,
      tally: new ExportTally(this.#ctx.subs, snapshot, p.agentId),
    };
    this.#sessions.add(session);
    return { session, from: undefined };
  }
}
