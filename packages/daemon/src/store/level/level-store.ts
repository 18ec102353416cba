import { storageError } from '../../errors.js';
import { listCheckpoints, resumeCheckpoint, saveCheckpoint } from './checkpoints.js';
import type { StoreContext } from './context.js';
import { guard } from './db.js';
import { ExportCursors } from './export-cursors.js';
import { addFact, listFacts } from './facts.js';
import { history } from './history.js';
import { tags } from './tags.js';
import { importRecords } from './import.js';
import type { MemoryStore, StoreCounts, StoreParams as Params, StoreResult as Result } from '../memory-store.js';
import { reflect } from './reflect.js';
import { searchFacts } from './search.js';
import { counts, listAgents } from './stats.js';
import { LevelVectors } from './vectors.js';
import type { VectorStore } from '../vector-store.js';

/**
 * The MemoryStore on LevelDB. Each method lives in its own module; this
 * class tracks writes in progress so that close() can wait for them, and
 * refuses new writes once closing has begun.
 */
export class LevelMemoryStore implements MemoryStore {
  readonly #ctx: StoreContext;
  readonly #cursors: ExportCursors;
  readonly #writes = new Set<Promise<unknown>>();
  #closed: Promise<void> | undefined;
  #vectors: LevelVectors | undefined;

  constructor(ctx: StoreContext, exportCursorTtlMs: number) {
    this.#ctx = ctx;
    this.#cursors = new ExportCursors(ctx, exportCursorTtlMs);
  }

  addFact(p: Params<'addFact'>): Result<'addFact'> {
    return this.#write(() => addFact(this.#ctx, p));
  }

  searchFacts(p: Params<'searchFacts'>): Result<'searchFacts'> {
    return searchFacts(this.#ctx, p);
  }

  listFacts(p: Params<'listFacts'>): Result<'listFacts'> {
    return listFacts(this.#ctx, p);
  }

  reflect(p: Params<'reflect'>): Result<'reflect'> {
    return this.#write(() => reflect(this.#ctx, p));
  }

  history(p: Params<'history'>): Result<'history'> {
    return history(this.#ctx, p);
  }

  tags(p: Params<'tags'>): Result<'tags'> {
    return tags(this.#ctx, p);
  }

  saveCheckpoint(p: Params<'saveCheckpoint'>): Result<'saveCheckpoint'> {
    return this.#write(() => saveCheckpoint(this.#ctx, p));
  }

  resumeCheckpoint(p: Params<'resumeCheckpoint'>): Result<'resumeCheckpoint'> {
    return resumeCheckpoint(this.#ctx, p);
  }

  listCheckpoints(p: Params<'listCheckpoints'>): Result<'listCheckpoints'> {
    return listCheckpoints(this.#ctx, p);
  }

  listAgents(_p: Params<'listAgents'>): Result<'listAgents'> {
    return listAgents(this.#ctx);
  }

  exportPage(p: Params<'exportPage'>): Result<'exportPage'> {
    if (this.#closed !== undefined) return Promise.reject(closedError());
    return this.#cursors.page(p);
  }

  importRecords(p: Params<'importRecords'>): Result<'importRecords'> {
    return this.#write(() => importRecords(this.#ctx, p));
  }

  async counts(): Promise<StoreCounts> {
    return counts(this.#ctx);
  }

  health(): string {
    const cause = this.#ctx.writer.failureCause;
    return cause === undefined ? 'ok' : `read-only: ${cause}`;
  }

  vectors(): VectorStore {
    this.#vectors ??= new LevelVectors(this.#ctx);
    return this.#vectors;
  }

  searchMemory(): { agents: number; postings: number; bytes: number } {
    return this.#ctx.search.stats();
  }

  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    // Writes already started finish (and are acknowledged) before LevelDB
    // closes; their own failures belong to their callers.
    await Promise.allSettled([...this.#writes]);
    await this.#cursors.close();
    await this.#ctx.factPrep.close();
    await this.#ctx.search.close();
    await guard('close the store', () => this.#ctx.db.close());
  }

  #write<T>(op: () => Promise<T>): Promise<T> {
    if (this.#closed !== undefined) return Promise.reject(closedError());
    const running = op();
    this.#writes.add(running);
    const forget = () => this.#writes.delete(running);
    running.then(forget, forget);
    return running;
  }
}

function closedError() {
  return storageError('the store is closing', new Error('no new writes are accepted after close()'));
}
