import { DaemonError, DaemonErrorCodes } from '../errors.js';
import type { Logger } from '../logger.js';
import { countersAt, expectCount } from './count-check.js';
import type { DocTerms } from '../search/doc-terms.js';
import { ResidentIndex } from '../search/resident-index.js';
import { docTerms } from '../search/doc-terms.js';
import { type StoredFact, decodeFact } from './codec.js';
import { type Db, type Sublevels, guard } from './context.js';
import { collectGarbage } from './full-gc.js';
import { agentRange, splitKey } from './keys.js';

/** One fact entering (+1) or leaving (-1) an agent's current set, as its batch indexed it. */
export interface IndexChange {
  id: string;
  doc: DocTerms;
  sign: 1 | -1;
}

/** Told that an agent's index is in memory, with the newest current facts its load read, oldest first. */
export type Loaded = (agentId: string, newest: readonly StoredFact[]) => void;

/** Applies committed changes to an index, in commit order; returns the ids they removed. */
function applyChanges(index: ResidentIndex, changes: readonly IndexChange[]): Set<string> {
  const removed = new Set<string>();
  for (const c of changes) {
    if (c.sign > 0) index.add(c.id, c.doc);
    else {
      index.remove(c.id, c.doc);
      removed.add(c.id);
    }
  }
  return removed;
}

/** Facts read (and analysed, ~30 µs each) per LevelDB round trip while loading: the event loop is held ~10 ms at most. */
const LOAD_CHUNK = 256;
/** A failed load is not retried for this long (the failure is logged once). */
const RETRY_AFTER_MS = 60_000;
/**
 * Loads this large are logged at start and end, and followed by a full
 * garbage collection: a load decodes and analyses every fact of the agent,
 * and that garbage grew V8's old generation by 40-60 MB at 100,000 facts,
 * which stayed in the RSS long after (ADR 0013).
 */
const LARGE_LOAD_POSTINGS = 100_000;

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
  /** Agents whose load found the store damaged: their searches fail with that error until a restart. */
  readonly #damaged = new Map<string, DaemonError>();
  #running: Promise<void> | undefined;
  #closed = false;
  #gcFailed = false;
  readonly #loaded: Loaded;
  readonly #keepFacts: number;

  /**
   * `loaded` is told of each agent whose index is now in memory, with the
   * newest `keepFacts` of the current facts its load read (decoded anyway,
   * they seed the fact cache: searches need not read them again).
   */
  constructor(db: Db, subs: Sublevels, logger: Logger, budget: number, { loaded = () => {}, keepFacts = 0 }: { loaded?: Loaded; keepFacts?: number } = {}) {
    this.#db = db;
    this.#subs = subs;
    this.#logger = logger;
    this.#budget = budget;
    this.#loaded = loaded;
    this.#keepFacts = keepFacts;
  }

  /**
   * The agent's index if it is in memory; otherwise `undefined`, and a
   * load is queued when `length` (the agent's summed fact length, which
   * bounds its postings) fits the budget. Throws the damage an earlier
   * load of the agent found.
   */
  get(agentId: string, length: number): ResidentIndex | undefined {
    const damaged = this.#damaged.get(agentId);
    if (damaged !== undefined) throw damaged;
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
    applyChanges(index, changes);
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
      if (next.length >= LARGE_LOAD_POSTINGS) this.#logger.info('loading a search index into memory', { agentId, length: next.length });
      try {
        const loaded = await this.#load(agentId, next.length);
        if (loaded === undefined) continue;
        const { index, newest } = loaded;
        const removed = applyChanges(index, changes);
        this.#ready.set(agentId, index);
        this.#failedAt.delete(agentId);
        // The snapshot's facts that a change committed during the load removed are not current.
        this.#loaded(agentId, removed.size === 0 ? newest : newest.filter((f) => !removed.has(f.id)));
        this.#evictOverBudget();
        if (index.postings >= LARGE_LOAD_POSTINGS) {
          const gcMs = Math.round(this.#collectGarbage());
          this.#logger.info('search index in memory', { agentId, facts: index.facts, postings: index.postings, ms: Date.now() - started, gcMs });
        }
      } catch (err) {
        this.#failedAt.set(agentId, Date.now());
        if (err instanceof DaemonError && err.code === DaemonErrorCodes.Damaged) this.#damaged.set(agentId, err);
        this.#logger.error('could not load a search index into memory; searches read it from the store', { agentId, err });
      } finally {
        this.#loading.delete(agentId);
      }
    }
  }

  /**
   * Indexes the agent's current facts as of one snapshot, each analysed
   * as the writes that indexed it in LevelDB did (search/doc-terms.ts);
   * `undefined` if closing interrupted it. Reading the facts maps about a
   * third of the table pages that reading their postings would. Also
   * returns the newest facts read (keys are in id order, so the last).
   */
  async #load(agentId: string, length: number): Promise<{ index: ResidentIndex; newest: StoredFact[] } | undefined> {
    const snapshot = this.#db.snapshot();
    const index = new ResidentIndex();
    const keep = this.#keepFacts;
    let newest: StoredFact[] = [];
    // A fact's distinct terms are about its length (tags count twice, identifier parts not at all).
    index.beginLoad(length);
    try {
      const facts = this.#subs.fact.iterator({ ...agentRange(agentId), snapshot });
      try {
        for (let read = 0; ; ) {
          if (this.#closed) return undefined;
          const chunk = await guard(`load the facts of agent ${agentId}`, () => facts.nextv(LOAD_CHUNK));
          if (chunk.length === 0) {
            // A search index that silently lacks facts would hide them for good.
            expectCount('current facts loaded for search', agentId, read, (await countersAt(this.#subs, agentId, { snapshot })).facts);
            break;
          }
          read += chunk.length;
          for (const [key, text] of chunk) {
            const id = splitKey(key).rest;
            const fact = decodeFact(`fact ${id} of agent ${agentId}`, text, id);
            index.add(fact.id, docTerms(fact.content, fact.tags));
            if (keep > 0) newest.push(fact);
          }
          // Trimmed by chunks, so holding them costs at most twice `keep`.
          if (newest.length >= 2 * keep && keep > 0) newest = newest.slice(-keep);
        }
      } finally {
        await guard('close a facts iterator', () => facts.close());
      }
      index.endLoad();
      return { index, newest: newest.slice(-keep) };
    } finally {
      await guard('close a snapshot', () => snapshot.close());
    }
  }

  /** {@link collectGarbage}; a failure is logged once, and loads go on without it. */
  #collectGarbage(): number {
    if (this.#gcFailed) return 0;
    try {
      return collectGarbage();
    } catch (err) {
      this.#gcFailed = true;
      this.#logger.warn('cannot run a garbage collection after loading a search index; memory is freed later, by V8 alone', { err });
      return 0;
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
