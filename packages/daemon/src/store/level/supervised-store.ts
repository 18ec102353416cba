import { join } from 'node:path';
import { DaemonError, DaemonErrorCodes, rootCause, storageError } from '../../errors.js';
import { readOnly } from '../../errors.js';
import { type StoreProblem, inspectStoreFiles } from './level-files/inspect.js';
import type { LevelMemoryStore } from './level-store.js';
import type { MemoryStore, StoreCounts, StoreParams as Params, StoreResult as Result } from '../memory-store.js';
import { type OpenStoreOptions, openLevelStore } from './open-store.js';
import { clearProbe, probeSpace } from './space-probe.js';
import type { FactChange, VectorStore } from '../vector-store.js';

/** First wait before a reopen is tried after a failed write; it doubles up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 100;
/** Longest wait between two tries. */
const MAX_RETRY_MS = 5_000;

/**
 * The store the daemon serves: a LevelDB store (store/level/level-store.ts) that
 * comes back by itself after a failed write. A failed write makes the
 * store read-only (the writer refuses every later write, see
 * group-commit.ts) and starts a recovery loop with backoff: once a probe
 * shows the file system takes writes again and the store's files are
 * sound, the store is closed and opened again, which starts a fresh log
 * and clears any error LevelDB keeps (a compaction that failed on a full
 * disk stops every write until then). Reads are served throughout, but
 * for the moment of the reopen, when they wait. `health()` says why
 * writes are refused.
 */
export class SupervisedStore implements LevelStore {
  readonly #options: OpenStoreOptions;
  readonly #storeDir: string;
  /** The open store; undefined while it is being reopened, or when reopening failed. */
  #store: LevelMemoryStore | undefined;
  /** Why writes are refused; undefined while they are accepted. */
  #cause: string | undefined;
  /** The store's files are damaged: retrying cannot help, a person must repair them. */
  #stuck = false;
  #retryMs = FIRST_RETRY_MS;
  #timer: NodeJS.Timeout | undefined;
  /** A recovery attempt in progress. */
  #attempt: Promise<void> | undefined;
  /** Set while the store is being closed and opened again: calls wait for it. */
  #swap: Promise<void> | undefined;
  #inFlight = new Set<Promise<unknown>>();
  #counts: StoreCounts = { facts: 0, checkpoints: 0, agents: 0 };
  #closed: Promise<void> | undefined;
  /** Listeners of fact changes, registered again on every store opened. */
  readonly #factListeners: Array<(changes: readonly FactChange[]) => void> = [];

  private constructor(options: OpenStoreOptions) {
    this.#options = options;
    this.#storeDir = join(options.dataDir, 'store');
  }

  /** Opens the store; a failure here is a failure to start. */
  static async open(options: OpenStoreOptions): Promise<SupervisedStore> {
    const supervised = new SupervisedStore(options);
    supervised.#store = await supervised.#openLevel();
    await clearProbe(options.dataDir).catch((err: unknown) => options.logger.warn('could not remove a leftover space probe', { err }));
    return supervised;
  }

  addFact(p: Params<'addFact'>): Result<'addFact'> {
    return this.#write((s) => s.addFact(p));
  }
  searchFacts(p: Params<'searchFacts'>): Result<'searchFacts'> {
    return this.#read((s) => s.searchFacts(p));
  }
  listFacts(p: Params<'listFacts'>): Result<'listFacts'> {
    return this.#read((s) => s.listFacts(p));
  }
  history(p: Params<'history'>): Result<'history'> {
    return this.#read((s) => s.history(p));
  }
  tags(p: Params<'tags'>): Result<'tags'> {
    return this.#read((s) => s.tags(p));
  }
  reflect(p: Params<'reflect'>): Result<'reflect'> {
    return this.#write((s) => s.reflect(p));
  }
  saveCheckpoint(p: Params<'saveCheckpoint'>): Result<'saveCheckpoint'> {
    return this.#write((s) => s.saveCheckpoint(p));
  }
  resumeCheckpoint(p: Params<'resumeCheckpoint'>): Result<'resumeCheckpoint'> {
    return this.#read((s) => s.resumeCheckpoint(p));
  }
  listCheckpoints(p: Params<'listCheckpoints'>): Result<'listCheckpoints'> {
    return this.#read((s) => s.listCheckpoints(p));
  }
  listAgents(p: Params<'listAgents'>): Result<'listAgents'> {
    return this.#read((s) => s.listAgents(p));
  }
  exportPage(p: Params<'exportPage'>): Result<'exportPage'> {
    return this.#read((s) => s.exportPage(p));
  }
  importRecords(p: Params<'importRecords'>): Result<'importRecords'> {
    return this.#write((s) => s.importRecords(p));
  }

  /** The store's counts; while it is closed for a reopen, the last ones it gave (no write can land meanwhile). */
  async counts(): Promise<StoreCounts> {
    if (this.#store !== undefined) this.#counts = await this.#store.counts();
    return { ...this.#counts };
  }

  health(): string {
    if (this.#cause !== undefined) return `read-only: ${this.#cause}`;
    return this.#store?.health() ?? 'ok';
  }

  /** The vectors of the store open at the time of each call; fact listeners follow a reopen. */
  vectors(): VectorStore {
    const vectors = (s: LevelMemoryStore) => s.vectors();
    return {
      agentsWithFacts: () => this.#read((s) => vectors(s).agentsWithFacts()),
      loadVectors: (space, agentId, accept, signal) => this.#read((s) => vectors(s).loadVectors(space, agentId, accept, signal)),
      claimVectors: (space, agentId, ids) => this.#read((s) => vectors(s).claimVectors(space, agentId, ids)),
      readVectors: (space, agentId, ids) => this.#read((s) => vectors(s).readVectors(space, agentId, ids)),
      textsToEmbed: (agentId, ids) => this.#read((s) => vectors(s).textsToEmbed(agentId, ids)),
      readFacts: (agentId, ids) => this.#read((s) => vectors(s).readFacts(agentId, ids)),
      putVectors: (space, agentId, list) => this.#write((s) => vectors(s).putVectors(space, agentId, list)),
      dropVectors: () => this.#write((s) => vectors(s).dropVectors()),
      // A reopen loses no change: writes are refused while it runs.
      onResync: () => {},
      onFactChanges: (listener) => {
        this.#factListeners.push(listener);
        this.#store?.vectors().onFactChanges(listener);
      },
    };
  }

  searchMemory(): { agents: number; postings: number; bytes: number } {
    return this.#store?.searchMemory() ?? { agents: 0, postings: 0, bytes: 0 };
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      clearTimeout(this.#timer);
      await this.#attempt;
      await this.#store?.close();
      this.#store = undefined;
    })();
    return this.#closed;
  }

  #openLevel(): Promise<LevelMemoryStore> {
    let opened: LevelMemoryStore | undefined;
    // Only the store that is current may put the daemon into read-only.
    const onWriteFailure = (err: unknown) => {
      if (opened !== undefined && opened === this.#store) this.#failed(err);
    };
    return openLevelStore({ ...this.#options, onWriteFailure }).then((store) => {
      for (const listener of this.#factListeners) store.vectors().onFactChanges(listener);
      return (opened = store);
    });
  }

  async #read<T>(op: (store: LevelMemoryStore) => Promise<T>): Promise<T> {
    if (this.#swap !== undefined) await this.#swap;
    const store = this.#store;
    if (store === undefined) throw this.#unavailable();
    const running = op(store);
    this.#inFlight.add(running);
    const forget = () => this.#inFlight.delete(running);
    running.then(forget, forget);
    return running;
  }

  #write<T>(op: (store: LevelMemoryStore) => Promise<T>): Promise<T> {
    if (this.#cause !== undefined && this.#swap === undefined) {
      this.#soon();
      return Promise.reject(readOnly(this.#cause));
    }
    return this.#read(async (store) => {
      if (this.#cause !== undefined) throw readOnly(this.#cause);
      return op(store);
    });
  }

  #unavailable(): DaemonError {
    const cause = this.#cause ?? (this.#closed === undefined ? 'it is being reopened' : 'the daemon is stopping');
    return storageError('the store is unavailable', new Error(cause));
  }

  /** A write failed: refuse writes, and start trying to reopen. */
  #failed(err: unknown): void {
    if (this.#closed !== undefined || this.#cause !== undefined) return;
    this.#cause = rootCause(err);
    this.#options.logger.error('a write failed; the store is read-only until it is reopened', { err });
    this.#schedule(FIRST_RETRY_MS);
  }

  /** A write came while read-only: try again soon rather than at the end of a long backoff. */
  #soon(): void {
    if (this.#stuck || this.#attempt !== undefined || this.#retryMs <= FIRST_RETRY_MS) return;
    this.#retryMs = FIRST_RETRY_MS;
    this.#schedule(FIRST_RETRY_MS);
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    if (this.#closed !== undefined || this.#stuck) return;
    this.#timer = setTimeout(() => {
      this.#attempt ??= this.#recover().finally(() => (this.#attempt = undefined));
    }, ms);
    this.#timer.unref();
  }

  /** One recovery attempt; schedules the next one if it fails. */
  async #recover(): Promise<void> {
    const { logger, dataDir } = this.#options;
    try {
      await probeSpace(dataDir, this.#storeDir);
      const damage = await settledDamage(this.#storeDir);
      if (damage !== undefined) {
        this.#stuck = true;
        this.#cause = `the store is damaged (${damage.reason}); stop memoryd and run memoryd --repair`;
        logger.error('cannot reopen the store: its files are damaged', { reason: damage.reason });
        return;
      }
      await this.#reopen();
    } catch (err) {
      if (this.#closed !== undefined) return;
      if (err instanceof DaemonError && err.code === DaemonErrorCodes.StoreDamaged) this.#stuck = true;
      this.#cause = rootCause(err);
      logger.warn('the store cannot be reopened yet', { cause: this.#cause, retryMs: this.#retryMs });
      this.#retryMs = Math.min(2 * this.#retryMs, MAX_RETRY_MS);
      this.#schedule(this.#retryMs);
    }
  }

  /**
   * Closes the store and opens it again, then accepts writes; calls wait
   * meanwhile. Throws if the open fails (the store stays closed).
   */
  async #reopen(): Promise<void> {
    let done!: () => void;
    this.#swap = new Promise((resolve) => (done = resolve));
    try {
      const old = this.#store;
      await Promise.allSettled([...this.#inFlight]);
      if (old !== undefined) {
        this.#counts = await old.counts().catch(() => this.#counts);
        this.#store = undefined;
        await old.close().catch((err: unknown) => this.#options.logger.warn('closing the store before reopening it failed', { err }));
      }
      if (this.#closed !== undefined) return;
      this.#store = await this.#openLevel();
      // Before the calls waiting on the swap go on: they must find writes accepted.
      this.#options.logger.info('the store was reopened; writes are accepted again', { after: this.#cause });
      this.#cause = undefined;
      this.#retryMs = FIRST_RETRY_MS;
    } finally {
      this.#swap = undefined;
      done();
    }
  }
}

/** Looks taken by {@link settledDamage} before it believes the files are damaged. */
const LOOKS = 3;
/** Between two looks: longer than a compaction takes to install its tables. */
const LOOK_APART_MS = 100;

/**
 * The first damage of the store's files, while this process holds the
 * store open: LevelDB may be compacting meanwhile (a table a look expects
 * is deleted, or a file vanishes while it is read), so only damage that
 * every one of a few looks finds counts. The lock trick of openLevel
 * cannot serve here: releasing it would release this process's own lock.
 */
async function settledDamage(storeDir: string): Promise<StoreProblem | undefined> {
  let last: unknown;
  for (let look = 0; look < LOOKS; look++) {
    if (look > 0) await new Promise((resolve) => setTimeout(resolve, LOOK_APART_MS));
    try {
      const files = await inspectStoreFiles(storeDir);
      const [damage] = files.state === 'present' ? files.problems : [];
      if (damage === undefined) return undefined;
      last = damage;
    } catch (err) {
      last = err;
    }
  }
  if (last instanceof Error) throw last;
  return last as StoreProblem;
}

/** The LevelDB store as {@link openStore} gives it: the seam, and what only this engine has. */
export interface LevelStore extends MemoryStore {
  /** Agents whose search index is held in memory, their postings, and about what they and the changes waiting for images take (for logs and tests). */
  searchMemory(): { agents: number; postings: number; bytes: number };
}

/** Opens the store the daemon serves: LevelDB in `<dataDir>/store`, reopened by itself after a failed write. */
export function openStore(options: OpenStoreOptions): Promise<LevelStore> {
  return SupervisedStore.open(options);
}
