import { DaemonError, DaemonErrorCodes } from '../errors.js';
import { type DocTerms, docTerms } from '../search/doc-terms.js';
import { type StoredFact, decodeSurface, decodeTermCount, encodeSurface, encodeTermCount } from './codec.js';
import { type Sublevel, type Sublevels, readSync } from './context.js';
import { postingKey, wordKey } from './keys.js';
import type { WriteBatch } from './stats.js';

/**
 * The value of every posting. Only its key matters (search reads keys and
 * probes for presence), but it must not be empty: classic-level 3's
 * binding copies each value into a `new char[n + 1]` and frees it only when
 * `n > 0` (DisposeSliceBuffer), so every empty value leaked one malloc
 * chunk (~32 bytes), ~17 per fact: the daemon's RSS grew ~0.5-0.9 KB per
 * indexed fact with heap fragmentation. Stores written with empty values
 * read the same.
 */
const POSTING_VALUE = '1';

interface Entry {
  count: number;
  /** For a surface: its term (the value keeps it after the count). */
  term?: string;
  dirty: boolean;
}

/**
 * The index edits of one change: a fact entering the current set puts
 * its postings and counts up its terms and words in the dictionaries,
 * one leaving does the reverse, and {@link flush} adds the changed counts.
 * Everything lands in the change's batch, next to the fact itself, so the
 * index can never disagree with the facts, even after a crash. The caller
 * holds the agents' locks, so the counts read here are the latest and the
 * statistics BM25 needs stay exact under concurrent writers.
 */
export class IndexEdits {
  readonly #subs: Sublevels;
  readonly #batch: WriteBatch;
  readonly #terms = new Map<string, Entry>();
  readonly #surfaces = new Map<string, Entry>();

  constructor(subs: Sublevels, batch: WriteBatch) {
    this.#subs = subs;
    this.#batch = batch;
  }

  /** Indexes a fact that becomes current, and counts it in its agent's statistics. */
  add(agentId: string, fact: StoredFact): void {
    this.#apply(agentId, fact, docTerms(fact.content, fact.tags), 1);
  }

  /** Removes a fact that stops being current from the index and the statistics. */
  remove(agentId: string, fact: StoredFact): void {
    this.#apply(agentId, fact, docTerms(fact.content, fact.tags), -1);
  }

  /** Adds the changed dictionary counts to the batch (a count reaching 0 deletes its entry). */
  flush(): void {
    for (const [key, e] of this.#terms) {
      if (!e.dirty) continue;
      if (e.count === 0) this.#batch.del(this.#subs.term, key);
      else this.#batch.put(this.#subs.term, key, encodeTermCount(e.count));
    }
    for (const [key, e] of this.#surfaces) {
      if (!e.dirty) continue;
      if (e.count === 0) this.#batch.del(this.#subs.surf, key);
      else this.#batch.put(this.#subs.surf, key, encodeSurface(e.count, e.term!));
    }
  }

  #apply(agentId: string, fact: StoredFact, doc: DocTerms, sign: 1 | -1): void {
    for (const [term, frequency] of doc.terms) {
      const key = postingKey(agentId, term, frequency, doc.length, fact.id);
      if (sign > 0) this.#batch.put(this.#subs.post, key, POSTING_VALUE);
      else this.#batch.del(this.#subs.post, key);
      this.#batch.touch(agentId, term);
      this.#bump(this.#terms, this.#subs.term, wordKey(agentId, term), sign, undefined);
    }
    for (const [surface, { term }] of doc.surfaces) {
      this.#bump(this.#surfaces, this.#subs.surf, wordKey(agentId, surface), sign, term);
    }
    this.#batch.count(agentId, sign, 0, sign * doc.length);
    this.#batch.indexed(agentId, { id: fact.id, doc, sign });
  }

  #bump(entries: Map<string, Entry>, sublevel: Sublevel, key: string, by: 1 | -1, term: string | undefined): void {
    let e = entries.get(key);
    if (e === undefined) {
      const what = `index entry ${JSON.stringify(key)}`;
      // getSync (~2 µs) rather than get() (~40 µs): a fact has tens of words.
      const text = readSync(`read ${what}`, () => sublevel.getSync(key));
      if (text === undefined) e = { count: 0, term, dirty: false };
      else if (term === undefined) e = { count: decodeTermCount(what, text), dirty: false };
      else e = { ...decodeSurface(what, text), dirty: false };
      entries.set(key, e);
    }
    e.count += by;
    e.dirty = true;
    if (e.count < 0) {
      // Only a bug or a damaged store gets here; writing would make it worse.
      throw new DaemonError(DaemonErrorCodes.Storage, `index entry ${JSON.stringify(key)} would count below zero`);
    }
  }
}
