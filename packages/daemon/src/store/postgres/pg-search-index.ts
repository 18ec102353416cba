import pg from 'pg';
import type { Logger } from '../../logger.js';
import { docTerms } from '../../search/doc-terms.js';
import { ResidentIndex } from '../../search/resident-index.js';
import { fitBudget, LOAD_PAGE, LoadFailures } from '../index-rules.js';
import type { FactChange } from '../vector-store.js';
import { PgChangeListener } from './pg-change-listener.js';

/*
 * The daemon's own search indexes of a PostgreSQL store (ADR 0032): one
 * ResidentIndex an agent, the engine the LevelDB store searches with, so
 * that both backends rank alike and PostgreSQL never ranks every fact
 * that holds a common word.
 *
 * Kept in step with the database, whoever writes it: a trigger on
 * `facts` (migration 2) sends NOTIFY `agent \n id` for every fact row
 * written, and this daemon hears them (pg-change-listener.ts). A
 * notification says only which fact changed; the index reads the row
 * (current or not) and adds or removes it, so notifications that arrive
 * late or twice leave the index right. This daemon's own writes are
 * applied as they commit, before they are acknowledged (a search right
 * after an add finds it); their notifications then change nothing.
 *
 * An agent's index is loaded a page of facts at a time, in one snapshot
 * (index-rules.ts): at start, the agents written last first, while they
 * fit the memory budget; else on the agent's first search, which waits for
 * the load (other requests are answered between pages). This daemon's
 * writes during a load are applied to the index before the load ends. The
 * budget is kept after every change: past it the least recently used
 * indexes are dropped, to be loaded again when next used. A load that
 * fails is tried again after a wait that doubles (searches go by SQL
 * meanwhile). While the listening connection is down, notifications may be
 * missed: every index is dropped, and searches go by SQL (pg-search.ts)
 * until it is back.
 *
 * Listeners of fact changes (meaning search, pg-vectors.ts) hear of the
 * same two sources: this daemon's own writes as they are applied, and
 * every notified fact, of any agent, once its row is read (current: +1,
 * retired or gone: −1). They hear of some changes twice, and of a change
 * of another daemon's not at all while not listening.
 */

/** Notified facts read by one statement. */
const READ_BATCH = 1_000;

/** What a test may set of {@link PgSearchIndexes}: the page of a load, the listener's echo wait, the clock of load retries. */
export interface PgSearchIndexesOptions {
  loadPage?: number;
  echoMs?: number;
  now?: () => number;
}

/** A fact as the index reads it: its row's id, content, tags, context and creation time. */
export interface IndexedFact {
  id: string;
  content: string;
  tags: string[] | null;
  context: string | null;
  createdAt: string;
}

/** The columns of an {@link IndexedFact}. */
const INDEXED_COLUMNS = 'id, content, tags, context, created_at AS "createdAt"';

interface AgentIndex {
  index: ResidentIndex | undefined;
  /** Settles once the load is done (or failed). */
  ready: Promise<void>;
  /** Facts another writer changed while the index loaded: read again once it is. */
  pending: string[];
  /** This daemon's own writes while the index loaded: applied as it ends, before a search can use it. */
  own: Array<{ fact: IndexedFact; current: boolean }>;
}

/** The search indexes of one PostgreSQL store. */
export class PgSearchIndexes {
  readonly #pool: pg.Pool;
  readonly #logger: Logger;
  readonly #budget: number;
  readonly #loadPage: number;
  readonly #now: () => number;
  readonly #listener: PgChangeListener;
  /** Least recently used first. */
  #agents = new Map<string, AgentIndex>();
  /** Agents loaded by the preload and not used since: they stay least recently used. */
  readonly #preloaded = new Set<string>();
  /** Agents whose load failed, and when one may be tried again. */
  readonly #failures = new LoadFailures<Error>();
  /** Facts notified and not yet read, by agent. */
  #notified = new Map<string, Set<string>>();
  #reading: Promise<void> | undefined;
  readonly #resyncListeners: Array<() => void> = [];
  #listening = false;
  #closed = false;
  readonly #changeListeners: Array<(changes: readonly FactChange[]) => void> = [];

  /** `budget`: what the indexes may take in memory together, in bytes. */
  constructor(pool: pg.Pool, connection: pg.ClientConfig, logger: Logger, budget: number, options: PgSearchIndexesOptions = {}) {
    this.#pool = pool;
    this.#logger = logger;
    this.#budget = budget;
    this.#loadPage = options.loadPage ?? LOAD_PAGE;
    this.#now = options.now ?? Date.now;
    this.#listener = new PgChangeListener(
      pool,
      connection,
      logger,
      { onFact: (agentId, id) => this.#notify(agentId, [id]), onUp: (again) => this.#up(again), onDown: () => this.#down() },
      options.echoMs === undefined ? {} : { echoMs: options.echoMs },
    );
  }

  /** Starts listening, then loading the agents written last; a failure is logged and tried again (searches go by SQL meanwhile). */
  start(): void {
    this.#listener.start();
  }

  /**
   * The agent's index, loaded and in step, once its load is done; or
   * undefined (search by SQL) while notifications cannot be heard, or
   * while a failed load waits to be tried again.
   */
  async index(agentId: string): Promise<ResidentIndex | undefined> {
    // Right after the start the first searches wait for the listener (bounded by its echo's wait),
    // so that a daemon answers alike from its first search on.
    if (!this.#listening) await this.#listener.firstAttempt;
    const entry = this.#entry(agentId);
    if (entry === undefined) return undefined;
    if (entry.index === undefined) await entry.ready;
    return entry.index;
  }

  /** The agent's entry, used now (and its load started), or undefined while not listening or while its failed load waits. */
  #entry(agentId: string): AgentIndex | undefined {
    if (!this.#listening) return undefined;
    let entry = this.#agents.get(agentId);
    if (entry !== undefined) {
      this.#agents.delete(agentId);
      this.#agents.set(agentId, entry);
      this.#preloaded.delete(agentId);
      return entry;
    }
    if (this.#failures.blocking(agentId, this.#now()) !== undefined) return undefined;
    const made: AgentIndex = { index: undefined, ready: Promise.resolve(), pending: [], own: [] };
    made.ready = this.#load(agentId, made).catch((err: unknown) => this.#failedLoad(agentId, made, err));
    this.#agents.set(agentId, (entry = made));
    return entry;
  }

  #failedLoad(agentId: string, entry: AgentIndex, err: unknown): void {
    if (this.#agents.get(agentId) === entry) this.#agents.delete(agentId);
    if (this.#closed) return;
    this.#failures.failed(agentId, err instanceof Error ? err : new Error(String(err)), this.#now());
    this.#logger.warn('could not load a search index; searching by SQL until it is tried again', { agentId, err });
  }

  /** Listening works: load the agents written last; after a loss, the listeners of changes read what they hold again. */
  #up(again: boolean): void {
    this.#listening = true;
    if (again) this.#resync();
    this.#preload().catch((err: unknown) => this.#logger.warn('could not preload the search indexes', { err }));
  }

  /** Listening is lost: notifications may be missed from now on, so every index goes, to be loaded again when searched. */
  #down(): void {
    this.#listening = false;
    this.#agents.clear();
    this.#preloaded.clear();
    this.#notified.clear();
  }

  /** Calls `listener` with the changes to the current facts this daemon makes or hears of. */
  onChange(listener: (changes: readonly FactChange[]) => void): void {
    this.#changeListeners.push(listener);
  }

  /**
   * Calls `listener` each time changes went unheard: listening is back after
   * it was lost, or the rows of notified facts could not be read.
   */
  onResync(listener: () => void): void {
    this.#resyncListeners.push(listener);
  }

  /** Tells the listeners of lost changes to read what they hold again. */
  #resync(): void {
    for (const listener of this.#resyncListeners) {
      try {
        listener();
      } catch (err) {
        this.#logger.error('a listener of lost changes failed', { err });
      }
    }
  }

  /** Tells the change listeners; a listener's failure is logged, never the write's or the read's. */
  #changed(changes: readonly FactChange[]): void {
    if (changes.length === 0) return;
    for (const listener of this.#changeListeners) {
      try {
        listener(changes);
      } catch (err) {
        this.#logger.error('a listener of fact changes failed', { err });
      }
    }
  }

  /** This daemon's own write, as it commits: facts now current, and facts no longer current. */
  applied(agentId: string, added: readonly IndexedFact[], removed: readonly IndexedFact[]): void {
    if (this.#changeListeners.length > 0) {
      this.#changed([
        ...removed.map((f): FactChange => ({ agentId, id: f.id, sign: -1 })),
        ...added.map((f): FactChange => ({ agentId, id: f.id, sign: 1 })),
      ]);
    }
    // An agent without an index gets this write when it is loaded (its first search loads it).
    const entry = this.#agents.get(agentId);
    if (entry === undefined) return;
    if (entry.index === undefined) {
      for (const fact of removed) entry.own.push({ fact, current: false });
      for (const fact of added) entry.own.push({ fact, current: true });
      return;
    }
    for (const f of removed) entry.index.remove(f.id, docTerms(f));
    for (const f of added) entry.index.add(f.id, docTerms(f));
    this.#fitBudget(agentId);
  }

  /** Indexes loaded, and what they take in memory. */
  stats(): { agents: number; bytes: number } {
    let bytes = 0;
    let agents = 0;
    for (const { index } of this.#agents.values()) {
      if (index === undefined) continue;
      agents++;
      bytes += index.memoryBytes;
    }
    return { agents, bytes };
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#listener.close();
    await this.#reading?.catch(() => undefined);
  }

  /**
   * Reads the agent's current facts a page at a time, in one snapshot (a
   * read-only REPEATABLE READ transaction: the pages agree), and indexes
   * them; other requests are served between pages.
   */
  async #load(agentId: string, entry: AgentIndex): Promise<void> {
    const index = new ResidentIndex();
    index.beginLoad();
    const client = await this.#pool.connect();
    let failed: unknown;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      for (let after = ''; ; ) {
        const { rows } = await client.query<IndexedFact>(
          `SELECT ${INDEXED_COLUMNS} FROM facts WHERE agent_id = $1 AND dedup_key IS NOT NULL AND id > $2 ORDER BY id LIMIT $3`,
          [agentId, after, this.#loadPage],
        );
        for (const row of rows) index.add(row.id, docTerms(row));
        if (rows.length < this.#loadPage) break;
        after = rows[rows.length - 1]!.id;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await client.query('COMMIT');
    } catch (err) {
      failed = err;
      throw err;
    } finally {
      // A connection that failed mid-transaction goes, rather than back to the pool.
      client.release(failed instanceof Error ? failed : undefined);
    }
    index.endLoad();
    // This daemon's writes during the load, whether or not its read saw them (add and remove change nothing twice).
    for (const { fact, current } of entry.own.splice(0)) {
      const doc = docTerms(fact);
      if (current) index.add(fact.id, doc);
      else if (index.has(fact.id)) index.remove(fact.id, doc);
    }
    if (this.#agents.get(agentId) !== entry) return; // dropped meanwhile (the listener went down)
    entry.index = index;
    this.#failures.succeeded(agentId);
    this.#logger.debug('loaded a search index', { agentId, facts: index.facts });
    if (entry.pending.length > 0) this.#notify(agentId, entry.pending.splice(0));
    this.#fitBudget(agentId);
  }

  /** Drops the least recently used loaded indexes while they take more than the budget, never `keep`. */
  #fitBudget(keep: string): void {
    fitBudget(
      new Map([...this.#agents].map(([agentId, e]) => [agentId, e.index])),
      this.stats().bytes,
      this.#budget,
      keep,
      (agentId) => {
        this.#agents.delete(agentId);
        this.#preloaded.delete(agentId);
        this.#logger.debug('dropped a search index past the memory budget', { agentId });
        return true;
      },
    );
  }

  /**
   * Loads the agents written last, one at a time, while they fit the
   * budget. Each is then less recently used than the ones before it, and
   * than every agent used meanwhile: the order is set once, at the end.
   */
  async #preload(): Promise<void> {
    const { rows } = await this.#pool.query<{ agent_id: string }>(
      'SELECT agent_id FROM facts WHERE dedup_key IS NOT NULL GROUP BY agent_id ORDER BY max(id) DESC',
    );
    let bytes = this.stats().bytes;
    for (const { agent_id: agentId } of rows) {
      if (this.#closed || !this.#listening || bytes >= this.#budget) break;
      if (this.#agents.has(agentId)) continue;
      const entry = this.#entry(agentId);
      await entry?.ready;
      const index = this.#agents.get(agentId)?.index;
      if (index === undefined) continue;
      bytes += index.memoryBytes;
      this.#preloaded.add(agentId);
    }
    // The preloaded agents not used since go first (least recently used), the one written longest ago first.
    const first = [...this.#preloaded].reverse().flatMap((agentId) => {
      const entry = this.#agents.get(agentId);
      return entry === undefined ? [] : [[agentId, entry] as const];
    });
    this.#agents = new Map([...first, ...[...this.#agents].filter(([agentId]) => !this.#preloaded.has(agentId))]);
    this.#preloaded.clear();
  }

  #notify(agentId: string, ids: Iterable<string>): void {
    let set = this.#notified.get(agentId);
    if (set === undefined) this.#notified.set(agentId, (set = new Set()));
    for (const id of ids) set.add(id);
    this.#reading ??= this.#readNotified()
      .catch((err: unknown) => {
        // An index that could not take a change is behind: every one goes, to be loaded again when next used.
        this.#logger.error('could not bring the search indexes to a change; dropping them', { err });
        this.#agents.clear();
      })
      .finally(() => (this.#reading = undefined));
  }

  /** Reads the notified facts, a batch at a time, in order, and brings the indexes to them. */
  async #readNotified(): Promise<void> {
    while (this.#notified.size > 0 && !this.#closed) {
      const batch = this.#notified;
      this.#notified = new Map();
      for (const [agentId, ids] of batch) {
        const entry = this.#agents.get(agentId);
        const listened = this.#changeListeners.length > 0;
        if (entry !== undefined && entry.index === undefined) entry.pending.push(...ids);
        // The listeners hear of every agent's changes; an index only of its own, once loaded.
        if (!listened && entry?.index === undefined) continue;
        const rows: (IndexedFact & { current: boolean })[] = [];
        try {
          const all = [...ids];
          for (let at = 0; at < all.length; at += READ_BATCH) {
            const read = await this.#pool.query<IndexedFact & { current: boolean }>(
              `SELECT ${INDEXED_COLUMNS}, dedup_key IS NOT NULL AS current FROM facts WHERE agent_id = $1 AND id = ANY($2::text[])`,
              [agentId, all.slice(at, at + READ_BATCH)],
            );
            rows.push(...read.rows);
          }
        } catch (err) {
          // What changed cannot be read: the index may be behind, so it goes (the next search loads it
          // again), and the listeners of changes, who missed these, read what they hold again.
          this.#logger.warn('could not read changed facts; dropping the search index', { agentId, err });
          if (entry?.index !== undefined) this.#agents.delete(agentId);
          if (listened) this.#resync();
          continue;
        }
        if (listened) {
          const current = new Set(rows.filter((row) => row.current).map((row) => row.id));
          this.#changed([...ids].map((id): FactChange => ({ agentId, id, sign: current.has(id) ? 1 : -1 })));
        }
        // The index read for must still be the agent's: one loaded since (after the listener came back) is newer than this read.
        const index = entry?.index;
        if (entry === undefined || index === undefined || this.#agents.get(agentId) !== entry) continue;
        if (rows.length < ids.size) {
          // A fact row deleted by hand: what it held is unknown, so the index is loaded again.
          this.#agents.delete(agentId);
          continue;
        }
        for (const row of rows) {
          const doc = docTerms(row);
          if (row.current) index.add(row.id, doc);
          else if (index.has(row.id)) index.remove(row.id, doc);
        }
        this.#fitBudget(agentId);
      }
    }
  }
}
