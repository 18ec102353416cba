import { decodeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { DocTerms } from '../search/doc-terms.js';
import { ResidentIndex } from '../search/resident-index.js';
import { decodeSurface } from './codec.js';
import { type Db, type Sublevels, guard } from './context.js';
import { KEY_SEP, POSTING_FIELD_MAX, agentRange } from './keys.js';

/** One fact entering (+1) or leaving (-1) an agent's current set, as its batch indexed it. */
export interface IndexChange {
  id: string;
  doc: DocTerms;
  sign: 1 | -1;
}

/** Keys read per LevelDB round trip while loading. */
const LOAD_CHUNK = 4096;
/** A failed load is not retried for this long (the failure is logged once). */
const RETRY_AFTER_MS = 60_000;
/** Loads this large are logged at start and end. */
const LOG_POSTINGS = 100_000;

/** Three base-36 digits at `key[at..at+3]` (a posting's F or L field), or -1. */
function base36(key: string, at: number): number {
  let value = 0;
  for (let i = at; i < at + 3; i++) {
    const c = key.charCodeAt(i);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 122 ? c - 87 : -1;
    if (digit < 0) return -1;
    value = value * 36 + digit;
  }
  return value;
}

/**
 * The agents whose search index is held in memory ({@link ResidentIndex}),
 * at most `budget` postings in all, least recently searched out first.
 *
 * An agent is loaded in the background after its first search (which, like
 * every search until the load ends, reads the LevelDB index), from one
 * LevelDB snapshot. From the moment its load begins, every committed
 * change of the agent is applied here too ({@link apply}, called by the
 * commit after its batch is written): changes during the load wait and are
 * replayed after it. Replay is safe whether or not the snapshot already
 * held a change, because a change says what a fact is (current, with
 * these terms, or not current), not how to move a count. So a resident
 * index always holds exactly the current facts LevelDB holds.
 */
export class ResidentSet {
  readonly #db: Db;
  readonly #subs: Sublevels;
  readonly #logger: Logger;
  readonly #budget: number;
  /** Loaded agents, least recently searched first. */
  readonly #ready = new Map<string, ResidentIndex>();
  /** Agents being loaded, with the changes committed meanwhile. */
  readonly #loading = new Map<string, IndexChange[]>();
  readonly #queue: Array<{ agentId: string; length: number }> = [];
  readonly #failedAt = new Map<string, number>();
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(db: Db, subs: Sublevels, logger: Logger, budget: number) {
    this.#db = db;
    this.#subs = subs;
    this.#logger = logger;
    this.#budget = budget;
  }

  /**
   * The agent's index if it is in memory; otherwise `undefined`, and a
   * load is queued when `length` (the agent's summed fact length, which
   * bounds its postings) fits the budget.
   */
  get(agentId: string, length: number): ResidentIndex | undefined {
    const index = this.#ready.get(agentId);
    if (index !== undefined) {
      this.#ready.delete(agentId);
      this.#ready.set(agentId, index);
      return index;
    }
    if (this.#closed || length > this.#budget || this.#loading.has(agentId) || this.#queue.some((q) => q.agentId === agentId)) return undefined;
    const failed = this.#failedAt.get(agentId);
    if (failed !== undefined && Date.now() - failed < RETRY_AFTER_MS) return undefined;
    this.#queue.push({ agentId, length });
    this.#running ??= this.#loadQueued().finally(() => (this.#running = undefined));
    return undefined;
  }

  /** Applies an agent's committed changes, in commit order. */
  apply(agentId: string, changes: readonly IndexChange[]): void {
    const pending = this.#loading.get(agentId);
    if (pending !== undefined) {
      pending.push(...changes);
      return;
    }
    const index = this.#ready.get(agentId);
    if (index === undefined) return;
    for (const c of changes) {
      if (c.sign > 0) index.add(c.id, c.doc);
      else index.remove(c.id, c.doc);
    }
    this.#evictOverBudget();
  }

  /** Agents in memory, and their postings. */
  stats(): { agents: number; postings: number } {
    let postings = 0;
    for (const index of this.#ready.values()) postings += index.postings;
    return { agents: this.#ready.size, postings };
  }

  /** Stops loading (an interrupted load is dropped) and frees every index; the store closes after. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#queue.length = 0;
    await this.#running;
    this.#ready.clear();
  }

  async #loadQueued(): Promise<void> {
    for (let next = this.#queue.shift(); next !== undefined && !this.#closed; next = this.#queue.shift()) {
      const { agentId } = next;
      const changes: IndexChange[] = [];
      this.#loading.set(agentId, changes);
      const started = Date.now();
      if (next.length >= LOG_POSTINGS) this.#logger.info('loading a search index into memory', { agentId, length: next.length });
      try {
        const index = await this.#load(agentId);
        if (index === undefined) continue;
        for (const c of changes) {
          if (c.sign > 0) index.add(c.id, c.doc);
          else index.remove(c.id, c.doc);
        }
        this.#ready.set(agentId, index);
        this.#failedAt.delete(agentId);
        if (index.postings >= LOG_POSTINGS) {
          this.#logger.info('search index in memory', { agentId, facts: index.facts, postings: index.postings, ms: Date.now() - started });
        }
        this.#evictOverBudget();
      } catch (err) {
        this.#failedAt.set(agentId, Date.now());
        this.#logger.error('could not load a search index into memory; searches read it from the store', { agentId, err });
      } finally {
        this.#loading.delete(agentId);
      }
    }
  }

  /** Reads the agent's postings and dictionary from one snapshot; `undefined` if closing interrupted it. */
  async #load(agentId: string): Promise<ResidentIndex | undefined> {
    const snapshot = this.#db.snapshot();
    const index = new ResidentIndex();
    const range = { ...agentRange(agentId), snapshot };
    const termAt = agentId.length + KEY_SEP.length;
    let term: string | undefined;
    try {
      const keys = this.#subs.post.keys(range);
      try {
        for (;;) {
          if (this.#closed) return undefined;
          const chunk = await guard(`load the postings of agent ${agentId}`, () => keys.nextv(LOAD_CHUNK));
          if (chunk.length === 0) break;
          for (const key of chunk) {
            const idAt = key.length - 26;
            const fieldsAt = idAt - 6;
            const frequency = POSTING_FIELD_MAX - base36(key, fieldsAt);
            const length = base36(key, fieldsAt + 3);
            if (fieldsAt <= termAt || key.charCodeAt(fieldsAt - 1) !== 0 || frequency > POSTING_FIELD_MAX || length < 0) {
              throw decodeError(`posting key ${JSON.stringify(key)}`, new Error('expected <agentId>\\0<term>\\0<F><L><id>'));
            }
            // A term's postings are adjacent: its string is cut once.
            if (term === undefined || fieldsAt - 1 !== termAt + term.length || !key.startsWith(term, termAt)) term = key.slice(termAt, fieldsAt - 1);
            index.loadPosting(term, key, idAt, frequency, length);
          }
        }
      } finally {
        await guard('close a postings iterator', () => keys.close());
      }
      index.endLoad();
      const words = this.#subs.surf.iterator(range);
      try {
        for (;;) {
          if (this.#closed) return undefined;
          const chunk = await guard(`load the dictionary of agent ${agentId}`, () => words.nextv(LOAD_CHUNK));
          if (chunk.length === 0) break;
          for (const [key, text] of chunk) {
            const { count, term } = decodeSurface(`index entry ${JSON.stringify(key)}`, text);
            index.loadSurface(key.slice(termAt), term, count);
          }
        }
      } finally {
        await guard('close a dictionary iterator', () => words.close());
      }
      return index;
    } finally {
      await guard('close a snapshot', () => snapshot.close());
    }
  }

  /** Frees the least recently searched indexes while the postings exceed the budget. */
  #evictOverBudget(): void {
    let total = this.stats().postings;
    for (const [agentId, index] of this.#ready) {
      if (total <= this.#budget) return;
      this.#ready.delete(agentId);
      total -= index.postings;
      this.#logger.debug('search index dropped from memory', { agentId, postings: index.postings });
    }
  }
}
