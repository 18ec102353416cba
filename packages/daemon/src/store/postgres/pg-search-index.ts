import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../../logger.js';
import { type DocTerms, docTerms } from '../../search/doc-terms.js';
import { ResidentIndex } from '../../search/resident-index.js';
import type { FactChange } from '../vector-store.js';

/*
 * The daemon's own search indexes of a PostgreSQL store (ADR 0032): one
 * ResidentIndex an agent, the engine the LevelDB store searches with, so
 * that both backends rank alike and PostgreSQL never ranks every fact
 * that holds a common word.
 *
 * Kept in step with the database, whoever writes it: a trigger on
 * `facts` (migration 2) sends NOTIFY `agent \n id` on the schema's
 * channel for every fact row written, and this daemon LISTENs on a
 * connection of its own. A notification says only which fact changed;
 * the index reads the row (current or not) and adds or removes it, so
 * notifications that arrive late or twice leave the index right. This
 * daemon's own writes are applied as they commit, before they are
 * acknowledged (a search right after an add finds it); their
 * notifications then change nothing.
 *
 * An agent's index is loaded by one read of its current facts: at start,
 * the agents written last first, while they fit the memory budget; else
 * on the agent's first search, which waits for the load (a second or two
 * at 100,000 facts; other requests are answered meanwhile, the load
 * yielding every few thousand facts). This daemon's writes during a load
 * are applied to the index before the load ends. Past the budget the
 * least recently used indexes are dropped, to be loaded again when next
 * used. While the listening connection is down, or does not echo a
 * notification of its own (checked every 30 s), notifications may be
 * missed: every index is dropped, and searches go by SQL (pg-search.ts)
 * until it is back.
 *
 * Listeners of fact changes (meaning search, pg-vectors.ts) hear of the
 * same two sources: this daemon's own writes as they are applied, and
 * every notified fact, of any agent, once its row is read (current: +1,
 * retired or gone: −1). They hear of some changes twice, and of a change
 * of another daemon's not at all while not listening.
 */

/** Facts indexed between two turns of the event loop while loading. */
const LOAD_SLICE = 2_000;
/** Notified facts read by one statement. */
const READ_BATCH = 1_000;
/** Wait before the listening connection is made again. */
const RELISTEN_MS = 1_000;
/** How long a notification of its own may take to come back. */
const ECHO_MS = 5_000;
/** How often the listening connection is checked by a notification of its own. */
const ECHO_EVERY_MS = 30_000;
/** Wait before listening again when notifications did not come back. */
const RELISTEN_DEAF_MS = 60_000;

/** A fact as the index reads it. */
interface FactText {
  id: string;
  content: string;
  tags: string[] | null;
  context: string | null;
}

/** What the index keeps of a fact: its text, tags and context analysed (search/doc-terms.ts). */
function docOf(f: FactText): DocTerms {
  return docTerms(f.content, f.tags ?? undefined, f.context ?? undefined);
}

interface AgentIndex {
  index: ResidentIndex | undefined;
  /** Settles once the load is done (or failed). */
  ready: Promise<void>;
  /** Facts another writer changed while the index loaded: read again once it is. */
  pending: string[];
  /** This daemon's own writes while the index loaded: applied as it ends, before a search can use it. */
  own: Array<{ fact: FactText; current: boolean }>;
}

/** The search indexes of one PostgreSQL store. */
export class PgSearchIndexes {
  readonly #pool: pg.Pool;
  readonly #connection: pg.ClientConfig;
  readonly #logger: Logger;
  readonly #budget: number;
  /** Least recently used first. */
  #agents = new Map<string, AgentIndex>();
  /** Facts notified and not yet read, by agent. */
  #notified = new Map<string, Set<string>>();
  #reading: Promise<void> | undefined;
  #listener: pg.Client | undefined;
  /** Listening worked once: when it is back after that, changes may have gone unheard. */
  #heardBefore = false;
  readonly #resyncListeners: Array<() => void> = [];
  #listening = false;
  /** Settles once the first attempt to listen succeeded or failed: searches wait for it, not after. */
  #firstAttempt: Promise<void>;
  #firstSettled!: () => void;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #changeListeners: Array<(changes: readonly FactChange[]) => void> = [];

  /** `budget`: what the indexes may take in memory together, in bytes. */
  constructor(pool: pg.Pool, connection: pg.ClientConfig, logger: Logger, budget: number) {
    this.#pool = pool;
    this.#connection = connection;
    this.#logger = logger;
    this.#budget = budget;
    this.#firstAttempt = new Promise((resolve) => (this.#firstSettled = resolve));
  }

  /** Starts listening, then loading the agents written last; a failure is logged and tried again (searches go by SQL meanwhile). */
  start(): void {
    void this.#listen();
  }

  /**
   * The agent's index, loaded and in step, once its load is done; or
   * undefined (search by SQL) while notifications cannot be heard, or
   * when the load failed.
   */
  async index(agentId: string): Promise<ResidentIndex | undefined> {
    // Right after the start the first searches wait for the listener (bounded by its echo's wait),
    // so that a daemon answers alike from its first search on.
    if (!this.#listening) await this.#firstAttempt;
    const entry = this.#entry(agentId);
    if (entry === undefined) return undefined;
    if (entry.index === undefined) await entry.ready;
    return entry.index;
  }

  /** The agent's entry, used now (and its load started), or undefined while not listening. */
  #entry(agentId: string): AgentIndex | undefined {
    if (!this.#listening) return undefined;
    let entry = this.#agents.get(agentId);
    if (entry !== undefined) {
      this.#agents.delete(agentId);
      this.#agents.set(agentId, entry);
      return entry;
    }
    const made: AgentIndex = { index: undefined, ready: Promise.resolve(), pending: [], own: [] };
    made.ready = this.#load(agentId, made).catch((err: unknown) => this.#failedLoad(agentId, made, err));
    this.#agents.set(agentId, (entry = made));
    return entry;
  }

  #failedLoad(agentId: string, entry: AgentIndex, err: unknown): void {
    if (this.#agents.get(agentId) === entry) this.#agents.delete(agentId);
    if (this.#closed) return;
    this.#logger.warn('could not load a search index; searching by SQL', { agentId, err });
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
  applied(agentId: string, added: readonly FactText[], removed: readonly FactText[]): void {
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
    for (const f of removed) entry.index.remove(f.id, docOf(f));
    for (const f of added) entry.index.add(f.id, docOf(f));
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
    this.#firstSettled();
    clearTimeout(this.#retry);
    await this.#reading?.catch(() => undefined);
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  /** Reads the agent's current facts and indexes them, yielding to other requests every {@link LOAD_SLICE}. */
  async #load(agentId: string, entry: AgentIndex): Promise<void> {
    const { rows } = await this.#pool.query<FactText>('SELECT id, content, tags, context FROM facts WHERE agent_id = $1 AND dedup_key IS NOT NULL ORDER BY id', [agentId]);
    const index = new ResidentIndex();
    index.beginLoad();
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      index.add(row.id, docOf(row));
      if (i % LOAD_SLICE === LOAD_SLICE - 1) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    index.endLoad();
    // This daemon's writes during the load, whether or not its read saw them (add and remove change nothing twice).
    for (const { fact, current } of entry.own.splice(0)) {
      const doc = docOf(fact);
      if (current) index.add(fact.id, doc);
      else if (index.has(fact.id)) index.remove(fact.id, doc);
    }
    if (this.#agents.get(agentId) !== entry) return; // dropped meanwhile (the listener went down)
    entry.index = index;
    this.#logger.debug('loaded a search index', { agentId, facts: rows.length });
    if (entry.pending.length > 0) this.#notify(agentId, entry.pending.splice(0));
    this.#fitBudget(agentId);
  }

  /** Drops the least recently used loaded indexes while they take more than the budget, never `keep`. */
  #fitBudget(keep: string): void {
    let bytes = this.stats().bytes;
    for (const [agentId, entry] of this.#agents) {
      if (bytes <= this.#budget) return;
      if (agentId === keep || entry.index === undefined) continue;
      bytes -= entry.index.memoryBytes;
      this.#agents.delete(agentId);
      this.#logger.debug('dropped a search index past the memory budget', { agentId });
    }
  }

  /** Loads the agents written last, one at a time, while they fit the budget. */
  async #preload(): Promise<void> {
    const { rows } = await this.#pool.query<{ agent_id: string }>(
      'SELECT agent_id FROM facts WHERE dedup_key IS NOT NULL GROUP BY agent_id ORDER BY max(id) DESC',
    );
    for (const { agent_id: agentId } of rows) {
      if (this.#closed || !this.#listening || this.stats().bytes >= this.#budget) return;
      if (this.#agents.has(agentId)) continue;
      const entry = this.#entry(agentId);
      await entry?.ready;
      // #entry made it the most recently used; a preloaded agent is not that.
      const loaded = this.#agents.get(agentId);
      if (loaded !== undefined && loaded.index !== undefined) {
        this.#agents.delete(agentId);
        this.#agents = new Map([[agentId, loaded], ...this.#agents]);
      }
    }
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
        const rows: (FactText & { current: boolean })[] = [];
        try {
          const all = [...ids];
          for (let at = 0; at < all.length; at += READ_BATCH) {
            const read = await this.#pool.query<FactText & { current: boolean }>(
              'SELECT id, content, tags, context, dedup_key IS NOT NULL AS current FROM facts WHERE agent_id = $1 AND id = ANY($2::text[])',
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
          const doc = docOf(row);
          if (row.current) index.add(row.id, doc);
          else if (index.has(row.id)) index.remove(row.id, doc);
        }
      }
    }
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client(this.#connection);
    let retryMs = RELISTEN_MS;
    let check: NodeJS.Timeout | undefined;
    const down = (err?: Error): void => {
      if (this.#listener !== client) return;
      clearInterval(check);
      this.#listener = undefined;
      this.#listening = false;
      // Notifications may be missed from now on: every index goes, and is loaded again when searched.
      this.#agents.clear();
      this.#notified.clear();
      if (this.#closed) return;
      if (err !== undefined) this.#logger.warn('lost the connection that hears of changes; searching by SQL until it is back', { reason: err.message });
      this.#retry = setTimeout(() => void this.#listen(), retryMs);
      this.#retry.unref();
    };
    const expected = new Map<string, () => void>();
    this.#listener = client;
    client.on('error', (err) => down(err));
    client.on('end', () => down());
    client.on('notification', (msg) => {
      const payload = msg.payload ?? '';
      const cut = payload.indexOf('\n');
      if (cut > 0) this.#notify(payload.slice(0, cut), [payload.slice(cut + 1)]);
      else if (cut === 0) expected.get(payload.slice(1))?.();
    });
    /**
     * True once a notification of its own, sent through the request pool,
     * came back on the listening connection within ECHO_MS: a pooler in
     * transaction mode (PgBouncer) takes LISTEN and delivers nothing, and
     * a connection whose server vanished without a word delivers nothing
     * either.
     */
    const echoes = async (channel: string): Promise<boolean> => {
      const token = randomUUID();
      const back = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), ECHO_MS);
        expected.set(token, () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      try {
        await this.#pool.query('SELECT pg_notify($1, $2)', [channel, `\n${token}`]);
        return await back;
      } finally {
        expected.delete(token);
      }
    };
    try {
      await client.connect();
      const { rows } = await client.query<{ channel: string }>("SELECT 'memoryd_' || md5(current_schema()) AS channel");
      const channel = rows[0]!.channel;
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
      if (!(await echoes(channel))) {
        retryMs = RELISTEN_DEAF_MS;
        throw new Error(`a notification sent through the pool did not come back within ${ECHO_MS / 1000} s (a connection pooler in transaction mode passes none); searching by SQL`);
      }
      if (this.#listener !== client) return;
      this.#listening = true;
      this.#firstSettled();
      if (this.#heardBefore) this.#resync();
      this.#heardBefore = true;
      this.#preload().catch((err: unknown) => this.#logger.warn('could not preload the search indexes', { err }));
      // Asked again now and then: a listening connection can die without a word (a failover behind an address).
      check = setInterval(() => {
        echoes(channel)
          .then((ok) => {
            if (ok || this.#listener !== client) return;
            down(new Error(`no notification came back within ${ECHO_MS / 1000} s`));
            client.end().catch(() => undefined);
          })
          .catch(() => undefined); // the request pool is failing: its own requests say so, and the next check asks again
      }, ECHO_EVERY_MS);
      check.unref();
    } catch (err) {
      down(err as Error);
      client.end().catch(() => undefined);
      this.#firstSettled();
    }
  }
}
