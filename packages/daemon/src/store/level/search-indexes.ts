import { DaemonError, DaemonErrorCodes, storageError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { type DocTerms, UNIT } from '../../search/doc-terms.js';
import { ResidentIndex } from '../../search/resident-index.js';
import type { AgentStats } from './codec.js';
import type { Db, Sublevels } from './db.js';
import { buildIndex } from './index-builder.js';
import type { ImageStamp, IndexImages } from './index-images.js';
import { recordKey } from './keys.js';
import { DEFAULT_INDEX_MEMORY_BYTES } from '../store-config.js';
import { fitBudget, LoadFailures } from '../index-rules.js';

/** One fact entering (+1) or leaving (-1) an agent's current set, as its batch recorded it. */
export interface IndexChange {
  id: string;
  doc: DocTerms;
  sign: 1 | -1;
}

/** Applies committed changes to an index, in commit order. */
function applyChanges(index: ResidentIndex, changes: readonly IndexChange[]): void {
  for (const c of changes) {
    if (c.sign > 0) index.add(c.id, c.doc);
    else index.remove(c.id, c.doc);
  }
}

/** Builds this large (summed length, in units of half a word: search/doc-terms.ts) are logged when they start and end. */
const LOG_BUILDS_FROM = 50_000 * UNIT;


/**
 * A stop writes images for at most this long: the daemon must exit within
 * 5 s of SIGTERM (docs/operations.md "Stopping"), and a large run can leave many indexes to
 * write. An agent whose image is not written in time is rebuilt at the
 * next start (its old image no longer matches the store), slower, never
 * wrong.
 */
export const STOP_IMAGES_MS = 2_500;

/** Changes an agent whose image is not read yet may wait with; past this many its image is read and they are applied. */
const MAX_PENDING = 10_000;

/** An agent whose index is still in its image: what the image must match, and the changes committed since. */
interface Cold extends ImageStamp {
  pending: IndexChange[];
  /** About what `pending` takes in memory ({@link changeBytes}). */
  pendingBytes: number;
  /** About what the index takes once read (what folding the changes into its image costs to read and write). */
  indexBytes: number;
}

/** A guess at an index's size from its agent's counters, before it was ever read: some 100 bytes a word of its facts (a word is UNIT of length). */
const GUESS_BYTES_PER_LENGTH = 100 / UNIT;

/**
 * Facts read ahead when an agent's index comes back from its image
 * (SearchIndexes#openTables): as many as LevelDB keeps tables open
 * (ADR 0010), so at most one read a table it can keep.
 */
const TABLE_PROBES = 64;

/**
 * About what a change waiting for its agent's image takes in memory: its
 * analysed fact (two maps, an entry and an object per term and word).
 */
function changeBytes(c: IndexChange): number {
  return 200 + 120 * (c.doc.terms.size + c.doc.surfaces.size);
}

interface Building {
  /** Changes committed since the build's snapshot, replayed when it ends. */
  changes: IndexChange[];
  /** Settles when the build has ended, whichever way. */
  done: Promise<void>;
  settle: () => void;
}

/**
 * Every agent's search index, in memory: the one way a search is
 * answered (docs/search.md). An agent's index exists from its first write
 * and every commit applies its changes to it (after the batch is written,
 * before the caller is answered), so it always holds exactly the current
 * facts the store holds.
 *
 * After an open, an agent's index comes back from its image
 * (store/level/index-images.ts) at its first search, when the image stands for
 * the store's facts, or is rebuilt from the facts in a worker thread
 * (store/level/index-builder.ts) otherwise; a search of an agent being rebuilt
 * waits for it, so no answer ever comes from a part of the facts. Changes committed during a rebuild are replayed after it:
 * a change says what a fact is (current with these terms, or not), so
 * replaying one the rebuild's snapshot already held changes nothing. At
 * close, the images of the agents whose index changed are written, for at
 * most {@link STOP_IMAGES_MS}. Indexes in memory and changes waiting for
 * images are kept within a budget (#fitBudget).
 */
export class SearchIndexes {
  readonly #db: Db;
  readonly #subs: Sublevels;
  readonly #images: IndexImages;
  readonly #logger: Logger;
  /** Indexes in memory, least recently used first (a use moves an agent to the end). */
  readonly #ready = new Map<string, ResidentIndex>();
  readonly #memoryBudget: number;
  readonly #stopImagesMs: number;
  /** Agents whose index waits in its image, read at their first search or write burst. */
  readonly #cold = new Map<string, Cold>();
  /** What the changes waiting in `#cold` take, together. */
  #pendingBytes = 0;
  readonly #building = new Map<string, Building>();
  readonly #queue: Array<{ agentId: string; length: number }> = [];
  /** The stamp each agent's facts were last changed under (what its image must carry). */
  readonly #stamps = new Map<string, string>();
  /** Agents whose index differs from their image. */
  readonly #dirty = new Set<string>();
  /**
   * Agents whose build failed: their searches fail with it until the first
   * search past its wait (index-rules.ts) builds it again; damage stays
   * until a restart.
   */
  readonly #failed = new LoadFailures<DaemonError>((err) => err.code === DaemonErrorCodes.Damaged);
  /** Agents with a batch written or being written whose changes are not applied yet. */
  readonly #pending = new Map<string, number>();
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(db: Db, subs: Sublevels, images: IndexImages, logger: Logger, memoryBudget = DEFAULT_INDEX_MEMORY_BYTES, stopImagesMs = STOP_IMAGES_MS) {
    this.#db = db;
    this.#subs = subs;
    this.#images = images;
    this.#logger = logger;
    this.#memoryBudget = memoryBudget;
    this.#stopImagesMs = stopImagesMs;
  }

  /**
   * Brings back every agent's index: an agent with an image waits in it
   * until its first search (or a burst of writes) reads it, when it must
   * match `stamps` and the agent's counters as they are now; an agent
   * without one is rebuilt, starting now, in the background. So a start
   * builds no index from an image (one may be read ahead: IndexImages),
   * and memory holds the indexes of the agents in use.
   */
  open(agents: Iterable<[string, AgentStats]>, stamps: ReadonlyMap<string, string>): void {
    const started = Date.now();
    const withFacts: string[] = [];
    let inImages = 0;
    for (const [agentId, stats] of agents) {
      if (stats.facts === 0) continue;
      withFacts.push(agentId);
      const stamp = stamps.get(agentId);
      if (stamp !== undefined) this.#stamps.set(agentId, stamp);
      if (stamp !== undefined && this.#images.exists(agentId)) {
        this.#cold.set(agentId, { stamp, facts: stats.facts, length: stats.length, pending: [], pendingBytes: 0, indexBytes: GUESS_BYTES_PER_LENGTH * stats.length });
        inImages++;
      } else {
        this.#dirty.add(agentId);
        this.#enqueue(agentId, stats.length);
      }
    }
    this.#images.prune(withFacts);
    if (withFacts.length > 0) {
      this.#logger.info('search indexes opened', { agents: withFacts.length, inImages, rebuilding: withFacts.length - inImages, ms: Date.now() - started });
    }
  }

  /**
   * Reads a cold agent's image and applies the changes committed since;
   * an image that does not match is rebuilt instead (from the store,
   * which holds those changes).
   */
  #warm(agentId: string, read?: Buffer): ResidentIndex | undefined {
    const cold = this.#cold.get(agentId)!;
    this.#cold.delete(agentId);
    this.#pendingBytes -= cold.pendingBytes;
    const started = Date.now();
    const index = this.#images.load(agentId, cold, read);
    if (index === undefined) {
      // The rebuild reads the store, which holds the changes that waited.
      this.#dirty.add(agentId);
      this.#enqueue(agentId, cold.length);
      return undefined;
    }
    applyChanges(index, cold.pending);
    if (cold.pending.length > 0) this.#dirty.add(agentId);
    this.#ready.set(agentId, index);
    this.#logger.debug('search index read from its image', { agentId, facts: index.facts, pending: cold.pending.length, ms: Date.now() - started });
    return index;
  }

  /**
   * The agent's index, once it is complete (waiting for a rebuild in
   * progress); `undefined` when the agent has no facts. Throws what a
   * failed build of the agent found.
   */
  async index(agentId: string): Promise<ResidentIndex | undefined> {
    if (this.#cold.has(agentId)) {
      const read = await this.#images.prefetched(agentId);
      // A burst of writes may have read it meanwhile.
      if (this.#cold.has(agentId)) {
        const index = this.#warm(agentId, read);
        if (index !== undefined) this.#openTables(agentId, index);
        this.#fitBudget(agentId);
      }
    }
    for (;;) {
      const index = this.#ready.get(agentId);
      if (index !== undefined) {
        this.#used(agentId, index);
        return index;
      }
      const failed = this.#failed.error(agentId);
      if (failed !== undefined && !this.#building.has(agentId)) {
        if (this.#closed || this.#failed.blocking(agentId, Date.now()) !== undefined) throw failed;
        this.#enqueue(agentId, 0);
      }
      const building = this.#building.get(agentId);
      if (building === undefined) return undefined;
      // A search waits: the agent's rebuild goes first.
      const queued = this.#queue.findIndex((q) => q.agentId === agentId);
      if (queued > 0) this.#queue.unshift(...this.#queue.splice(queued, 1));
      await building.done;
    }
  }

  /** Applies a committed batch's changes of one agent, made under `stamp`. */
  apply(agentId: string, changes: readonly IndexChange[], stamp: string): void {
    this.#stamps.set(agentId, stamp);
    const cold = this.#cold.get(agentId);
    if (cold !== undefined) {
      cold.pending.push(...changes);
      let bytes = 0;
      for (const c of changes) bytes += changeBytes(c);
      cold.pendingBytes += bytes;
      this.#pendingBytes += bytes;
      if (cold.pending.length > MAX_PENDING) this.#warm(agentId);
      return;
    }
    this.#dirty.add(agentId);
    const building = this.#building.get(agentId);
    if (building !== undefined) {
      building.changes.push(...changes);
      return;
    }
    let index = this.#ready.get(agentId);
    if (index === undefined) {
      // A new agent (or one whose failed build waits for a retry: it is rebuilt then, and this is replayed).
      if (this.#failed.has(agentId)) return;
      this.#ready.set(agentId, (index = new ResidentIndex()));
    }
    applyChanges(index, changes);
    this.#used(agentId, index);
  }

  /**
   * Reads a few of the agent's facts, spread over its ids, on LevelDB's
   * thread, and drops them: the tables holding its facts are then open
   * (LevelDB opens a table at the first read that needs it) and their
   * index blocks read when its first searches read the facts they
   * return. Right after a restart those reads took 110-150 µs a fact
   * over the first 10 searches and 57 µs over the next 40, against 15 µs
   * later; with this, 56-61 and 38 µs (Zipf 100,000: 32 tables).
   * Nothing waits for it; a failed read is logged (a warning, unless the
   * store closed meanwhile), and the search that needs that fact meets
   * the failure itself.
   */
  #openTables(agentId: string, index: ResidentIndex): void {
    const keys = index.spreadIds(TABLE_PROBES).map((id) => recordKey(agentId, id));
    if (keys.length === 0) return;
    this.#subs.fact.getMany(keys).catch((err: unknown) => {
      if (this.#closed) this.#logger.debug("reading ahead an agent's facts ended with the store", { agentId, err });
      else this.#logger.warn("reading ahead an agent's facts failed", { agentId, err });
    });
  }

  /** Marks an agent's index the most recently used. */
  #used(agentId: string, index: ResidentIndex): void {
    this.#ready.delete(agentId);
    this.#ready.set(agentId, index);
  }

  /**
   * Keeps the indexes in memory and the changes waiting for images within
   * the budget. First the least recently used agents (never `keep`) go
   * back to their images; then, while the waiting changes alone are too
   * many, the agent with the most for the size of its image is read, given
   * them, and sent back (its image written with them): a burst of writes spread over many cold
   * agents folds into their images instead of piling up in memory. An
   * agent with a batch on its way to its index, or whose image cannot be
   * written, stays.
   */
  #fitBudget(keep: string): void {
    const total = fitBudget(this.#ready, this.stats().bytes, this.#memoryBudget, keep, (agentId, index) => this.#evict(agentId, index));
    if (total <= this.#memoryBudget) return;
    while (this.#pendingBytes > this.#memoryBudget / 2) {
      // The most waiting writes for the least image to read and write.
      let most: string | undefined;
      let best = 0;
      for (const [agentId, cold] of this.#cold) {
        const worth = cold.pendingBytes / (cold.indexBytes + 1);
        if (worth > best && !this.#pending.has(agentId)) {
          most = agentId;
          best = worth;
        }
      }
      if (most === undefined) return;
      const index = this.#warm(most);
      if (index !== undefined && !this.#evict(most, index)) return;
    }
  }

  /** Sends an agent's index back to its image (written first if it changed); false if it must stay. */
  #evict(agentId: string, index: ResidentIndex): boolean {
    const stamp = this.#stamps.get(agentId);
    const bytes = index.memoryBytes;
    if (index.facts === 0 || stamp === undefined || this.#pending.has(agentId) || this.#building.has(agentId)) return false;
    try {
      // Unsynced while the daemon runs (a power loss then costs a rebuild, never a wrong answer); synced at a stop.
      if (this.#dirty.has(agentId)) this.#images.save(agentId, index, stamp, this.#closed);
    } catch (err) {
      this.#logger.warn('cannot write a search index image; the index stays in memory', { agentId, err });
      return false;
    }
    this.#dirty.delete(agentId);
    this.#ready.delete(agentId);
    this.#cold.set(agentId, { stamp, facts: index.facts, length: index.length, pending: [], pendingBytes: 0, indexBytes: bytes });
    this.#logger.debug('search index sent back to its image', { agentId, facts: index.facts, bytes });
    return true;
  }

  /**
   * Marks the agents of a batch about to be written (+1) or applied or
   * failed (-1): while one is marked, the store may be a batch ahead of
   * its index; otherwise they agree, and a fact the index holds that the
   * store lacks means the store lost it.
   */
  pending(agentIds: Iterable<string>, by: 1 | -1): void {
    let last = '';
    for (const agentId of agentIds) {
      const n = (this.#pending.get(agentId) ?? 0) + by;
      if (n === 0) this.#pending.delete(agentId);
      else this.#pending.set(agentId, n);
      last = agentId;
    }
    // A batch is in its indexes (or failed): the budget can be kept again,
    // its agents now among the most recently used.
    if (by < 0) this.#fitBudget(last);
  }

  /** Whether a batch of the agent is between its write and the index's update. */
  isPending(agentId: string): boolean {
    return this.#pending.has(agentId);
  }

  /**
   * Agents whose index is in memory (not those still in their image),
   * their postings, and about what they and the changes waiting for images
   * take (what the budget counts).
   */
  stats(): { agents: number; postings: number; bytes: number } {
    let postings = 0;
    let bytes = this.#pendingBytes;
    for (const index of this.#ready.values()) {
      postings += index.postings;
      bytes += index.memoryBytes;
    }
    return { agents: this.#ready.size, postings, bytes };
  }

  /**
   * Stops rebuilding (an interrupted rebuild is dropped: its agent is
   * rebuilt at the next open) and writes the image of every agent whose
   * index changed, as many as {@link STOP_IMAGES_MS} allows (the rest are
   * rebuilt at the next open). The store closes after, so nothing changes
   * meanwhile.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#queue.length = 0;
    await this.#running;
    const started = Date.now();
    const late = () => Date.now() - started >= this.#stopImagesMs;
    let written = 0;
    let left = 0;
    // An agent changed but without an index (its rebuild stopped, or failed): its old image is out of date.
    for (const agentId of this.#dirty) if (!this.#ready.has(agentId)) this.#images.remove(agentId);
    // The indexes in memory, the most recently used first (the likeliest
    // to be searched after the start); then each cold agent written to
    // since the open, one at a time (they need not fit in memory together).
    const stale = [...this.#ready.keys()].reverse().filter((agentId) => this.#dirty.has(agentId));
    for (const [agentId, cold] of this.#cold) if (cold.pending.length > 0) stale.push(agentId);
    for (const agentId of stale) {
      if (late()) {
        left++;
        continue;
      }
      const index = this.#ready.get(agentId) ?? this.#warm(agentId);
      if (index === undefined) continue;
      const stamp = this.#stamps.get(agentId);
      try {
        if (index.facts === 0 || stamp === undefined) this.#images.remove(agentId);
        else {
          this.#images.save(agentId, index, stamp);
          written++;
        }
      } catch (err) {
        // The next open rebuilds this agent's index: slower, never wrong.
        this.#logger.warn('cannot write a search index image; the next start rebuilds the index', { agentId, err });
      }
      // One at a time: what was written need not stay in memory.
      this.#ready.delete(agentId);
    }
    if (written > 0) this.#logger.info('search index images written', { agents: written, ms: Date.now() - started });
    if (left > 0) this.#logger.warn('stopping before every search index image was written; those agents are rebuilt at the next start', { agents: left, ms: Date.now() - started });
    this.#ready.clear();
  }

  #enqueue(agentId: string, length: number): void {
    if (this.#building.has(agentId)) return;
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    this.#building.set(agentId, { changes: [], done, settle });
    this.#queue.push({ agentId, length });
    this.#running ??= this.#buildQueued().finally(() => (this.#running = undefined));
  }

  async #buildQueued(): Promise<void> {
    for (let next = this.#queue.shift(); next !== undefined && !this.#closed; next = this.#queue.shift()) {
      const { agentId, length } = next;
      const building = this.#building.get(agentId)!;
      const started = Date.now();
      const large = length >= LOG_BUILDS_FROM;
      if (large) this.#logger.info('building a search index', { agentId, length });
      try {
        const index = await buildIndex(this.#db, this.#subs, agentId, length, () => this.#closed);
        if (index !== undefined) {
          applyChanges(index, building.changes);
          this.#failed.succeeded(agentId);
          this.#ready.set(agentId, index);
          this.#fitBudget(agentId);
          if (large) this.#logger.info('search index built', { agentId, facts: index.facts, postings: index.postings, ms: Date.now() - started });
        }
      } catch (err) {
        const failure = err instanceof DaemonError ? err : storageError(`build the search index of agent ${agentId}`, err);
        this.#failed.failed(agentId, failure, Date.now());
        this.#logger.error('could not build a search index; searches of this agent fail until it is built', { agentId, err });
      } finally {
        this.#building.delete(agentId);
        building.settle();
      }
    }
    // Closing: builds that never started end too, so no search waits for them.
    for (const [agentId, building] of this.#building) {
      this.#building.delete(agentId);
      this.#failed.failed(agentId, storageError(`build the search index of agent ${agentId}`, new Error('the store is closing')), Date.now());
      building.settle();
    }
  }
}
