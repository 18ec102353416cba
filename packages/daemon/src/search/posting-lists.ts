import { saturation } from './bm25.js';
import { own } from './dictionary.js';
import { UNIT } from './doc-terms.js';
import type { IndexSnapshot } from './index-image.js';
import { BLOCK, PostingBlocks } from './posting-blocks.js';
import { PostingPool } from './posting-pool.js';
import { FRONT, frontierBound } from './score-frontier.js';
import { atLeast } from './typed-arrays.js';
import { WindowReader } from './window-reader.js';
import type { Slot } from './window-search.js';

/**
 * A term's postings with at least this frequency are also kept in a list
 * of their own, its strong list (under {@link strongKey}). A search that
 * needs only the postings a frequency of 1 cannot give (the weak parts all
 * fall below what can still enter: window-scoring.ts) reads that list
 * alone: for a word in most facts, a fraction of its postings.
 */
export const STRONG_F = 2 * UNIT;

/** No weak posting yet: the weakest length of a list that has none. */
const NO_WEAK = 0xffffffff;

/** The pool's key of a term's strong list (no analysed term holds a NUL). */
function strongKey(term: string): string {
  return `\u0000${term}`;
}

/**
 * Every term's posting list of one index, in fact-ordinal order: the
 * newest postings of each (fewer than {@link BLOCK}) as plain pairs in the
 * pool (posting-pool.ts), the older sealed in compressed blocks with score
 * bounds (posting-blocks.ts); and per list the least length of a fact it
 * held with a frequency below {@link STRONG_F}, which bounds what the
 * postings left out of the term's strong list score.
 */
export class PostingLists {
  pool = new PostingPool();
  blocks = new PostingBlocks();
  #weakLen: Uint32Array = new Uint32Array(64).fill(NO_WEAK);
  /** A load: the postings, as (list, fact ordinal, frequency) triples, until its end fills the lists at once. */
  #staged: Uint32Array | undefined;
  #stagedCount = 0;

  /** Postings held, live or not. */
  get postings(): number {
    return this.pool.used + this.blocks.postings;
  }

  /** What the postings take, in bytes: the sealed blocks, and 8 a posting not yet sealed. */
  get postingBytes(): number {
    return this.blocks.byteSize + 8 * this.pool.used;
  }

  /** What the lists' arrays take in memory, room included. */
  get memoryBytes(): number {
    return this.pool.byteSize + this.blocks.memoryBytes + this.#weakLen.byteLength;
  }

  /** The number of current facts holding `term`. */
  df(term: string): number {
    const id = this.pool.list(term);
    return id < 0 ? 0 : this.pool.df[id]!;
  }

  /** Starts a load of about `postings` postings: posted ones wait until {@link endLoad}. */
  beginLoad(postings: number): void {
    this.#staged = new Uint32Array(3 * Math.max(1024, postings));
    this.#stagedCount = 0;
  }

  /** Whether a load is under way. */
  get loading(): boolean {
    return this.#staged !== undefined;
  }

  /** Ends a load: fills each list with its staged postings at once and seals its whole blocks. */
  endLoad(lengths: Uint32Array): void {
    if (this.#staged === undefined) return;
    this.pool.fill(this.#staged, this.#stagedCount);
    this.#staged = undefined;
    for (const list of this.pool.ids()) this.#sealFull(list, lengths);
  }

  /** Posts a fact's `frequency` of `term` (a fact of `length`): in its list, and in its strong list when strong. */
  post(term: string, ord: number, frequency: number, length: number, lengths: Uint32Array): void {
    const list = this.#post(term, ord, frequency, length, lengths);
    if (frequency >= STRONG_F) this.#post(strongKey(term), ord, frequency, length, lengths);
    else if (length < this.#weakLen[list]!) this.#weakLen[list] = length;
  }

  /** Adds a posting to `key`'s list (created if need be); returns the list. */
  #post(key: string, ord: number, frequency: number, length: number, lengths: Uint32Array): number {
    let list = this.pool.list(key);
    if (list < 0) {
      // A kept copy: the analysis cuts terms from the fact's text.
      list = this.pool.listFor(own(key));
      this.blocks.ensureLists(list + 1);
      if (list >= this.#weakLen.length) this.#weakLen = atLeast(this.#weakLen, 2 * (list + 1), (n) => new Uint32Array(n).fill(NO_WEAK));
      this.#weakLen[list] = NO_WEAK;
    }
    this.blocks.note(list, frequency, length);
    if (this.#staged !== undefined) this.#stage(list, ord, frequency);
    else this.#append(list, ord, frequency, lengths);
    this.pool.df[list]!++;
    return list;
  }

  #stage(list: number, ord: number, frequency: number): void {
    let staged = this.#staged!;
    const at = 3 * this.#stagedCount++;
    if (at + 3 > staged.length) {
      const more = new Uint32Array(Math.ceil(staged.length * 1.5) + 3);
      more.set(staged);
      this.#staged = staged = more;
    }
    staged[at] = list;
    staged[at + 1] = ord;
    staged[at + 2] = frequency;
  }

  /** Counts a removed fact's `frequency` of `term` out of its lists (its posting stays, dead, until rewritten). */
  unpost(term: string, frequency: number, alive: Uint8Array, lengths: Uint32Array): void {
    // A freed list's number could be reused while staged triples still name it.
    if (this.#staged !== undefined) throw new Error('PostingLists.unpost during a load: replay removals after endLoad');
    this.#unpost(term, alive, lengths);
    if (frequency >= STRONG_F) this.#unpost(strongKey(term), alive, lengths);
  }

  /** Drops `key`'s list when no live posting is left, rewrites it when mostly dead. */
  #unpost(key: string, alive: Uint8Array, lengths: Uint32Array): void {
    const pool = this.pool;
    const list = pool.list(key);
    if (list < 0) return;
    const df = --pool.df[list]!;
    const held = pool.size[list]! + this.blocks.sealed[list]!;
    if (df === 0) {
      this.blocks.drop(list);
      pool.delete(key);
    } else if (held >= 2 * BLOCK && held > 2 * df) this.#rebuildList(list, alive, undefined, lengths);
  }

  /** Appends a posting to a list's tail, sealing the tail into a block once it holds a whole one. */
  #append(list: number, ord: number, frequency: number, lengths: Uint32Array): void {
    const pool = this.pool;
    pool.append(list, ord, frequency);
    if (pool.size[list] === BLOCK) {
      this.blocks.seal(list, pool.pairs, pool.start[list]!, BLOCK, lengths);
      pool.clear(list);
    }
  }

  /** Seals a list filled in one go (a load) into blocks, keeping what is left over as its tail. */
  #sealFull(list: number, lengths: Uint32Array): void {
    const pool = this.pool;
    const size = pool.size[list]!;
    if (size < BLOCK) return;
    const whole = size - (size % BLOCK);
    for (let at = 0; at < whole; at += BLOCK) this.blocks.seal(list, pool.pairs, pool.start[list]! + at, BLOCK, lengths);
    // The rest moves to the front of the list's room: appends after a clear write there, reading ahead of it.
    const base = 2 * pool.start[list]!;
    pool.clear(list);
    for (let i = whole; i < size; i++) pool.append(list, pool.pairs[base + 2 * i]!, pool.pairs[base + 2 * i + 1]!);
  }

  /** Every pair a list holds (blocks, then tail), oldest first, removed facts' too. */
  #pairsOf(list: number): Uint32Array {
    const blocks = this.blocks;
    const chain: number[] = [];
    for (let b = blocks.head[list]!; b >= 0; b = blocks.prev[b]!) chain.push(b);
    const tail = this.pool.size[list]!;
    const out = new Uint32Array(2 * (blocks.sealed[list]! + tail));
    const docs = new Uint32Array(BLOCK);
    const freqs = new Uint32Array(BLOCK);
    let at = 0;
    for (let i = chain.length - 1; i >= 0; i--) {
      const n = blocks.decode(chain[i]!, docs, freqs);
      for (let j = 0; j < n; j++) {
        out[at++] = docs[j]!;
        out[at++] = freqs[j]!;
      }
    }
    const base = 2 * this.pool.start[list]!;
    out.set(this.pool.pairs.subarray(base, base + 2 * tail), at);
    return out;
  }

  /**
   * Rewrites a list with only the pairs of facts `keep` approves,
   * renumbered by `renumber` when given (then in the new ordinals' order),
   * its bounds recounted from what it keeps, against `lengths`.
   */
  #rebuildList(list: number, keep: Uint8Array, renumber: Uint32Array | undefined, lengths: Uint32Array): void {
    const all = this.#pairsOf(list);
    const kept: Array<[number, number]> = [];
    for (let i = 0; i < all.length; i += 2) {
      const ord = all[i]!;
      if (keep[ord] !== 0) kept.push([renumber === undefined ? ord : renumber[ord]!, all[i + 1]!]);
    }
    if (renumber !== undefined) kept.sort((a, b) => a[0] - b[0]);
    this.blocks.drop(list);
    this.pool.clear(list);
    for (const [ord, f] of kept) {
      this.blocks.note(list, f, lengths[ord]!);
      this.#append(list, ord, f, lengths);
    }
  }

  /** Rewrites every list with only the pairs of the facts `keep` approves, their ordinals renumbered (`lengths`: by the new ones). */
  renumber(keep: Uint8Array, renumber: Uint32Array, lengths: Uint32Array): void {
    for (const list of this.pool.ids()) this.#rebuildList(list, keep, renumber, lengths);
    this.pool.pack();
  }

  /**
   * A search's slot for a term of the query: its list read by windows,
   * and its strong list, made when a window first asks (most searches
   * never do), with the bound of the postings it leaves out.
   */
  termSlot(term: string, idf: number, avg: number, lengths: Uint32Array): Slot {
    const list = this.pool.list(term);
    const strong = this.pool.list(strongKey(term));
    let reader: WindowReader | null | undefined;
    const strongReader = () => (reader === undefined ? (reader = strong < 0 ? null : new WindowReader(this.pool, this.blocks, lengths, strong, idf, avg)) : reader);
    // The very expression a weak posting's part is: at least each of them.
    const weakLen = list < 0 ? NO_WEAK : this.#weakLen[list]!;
    const weakBound = weakLen === NO_WEAK ? 0 : idf * saturation(STRONG_F - 1, weakLen, avg);
    const lists: number[] = [];
    lists.push(list);
    return this.#slot(lists, idf, avg, lengths, strongReader, weakBound);
  }

  /** A search's slot for the prefix: its completions' lists, weighed by `weight`. */
  prefixSlot(terms: readonly string[], weight: number, avg: number, lengths: Uint32Array): Slot {
    const lists: number[] = [];
    for (const t of terms) lists.push(this.pool.list(t));
    return this.#slot(lists, weight, avg, lengths, null, Number.NaN);
  }

  #slot(lists: readonly number[], weight: number, avg: number, lengths: Uint32Array, strong: Slot['strong'], weakBound: number): Slot {
    const readers: WindowReader[] = [];
    let ub = 0;
    for (const list of lists) {
      if (list < 0) continue;
      readers.push(new WindowReader(this.pool, this.blocks, lengths, list, weight, avg));
      ub = Math.max(ub, frontierBound(this.blocks.listFront, 2 * FRONT * list, weight, avg));
    }
    return { readers, weight, ub, strong, weakBound };
  }

  /** The lists as data: their arrays as `pool.*`, `blocks.*` and `weakLen` (views, not copies). */
  snapshot(): IndexSnapshot {
    if (this.#staged !== undefined) throw new Error('PostingLists.snapshot during a load');
    // Without the room relocated tails left behind.
    this.pool.pack();
    const pool = this.pool.snapshot();
    const blocks = this.blocks.snapshot();
    const arrays: IndexSnapshot['arrays'] = { weakLen: this.#weakLen };
    for (const [name, a] of Object.entries(pool.arrays)) arrays[`pool.${name}`] = a;
    for (const [name, a] of Object.entries(blocks.arrays)) arrays[`blocks.${name}`] = a;
    return { meta: { pool: pool.meta, blocks: blocks.meta }, arrays };
  }

  /** Lists from {@link snapshot}'s data. */
  static restore(s: IndexSnapshot): PostingLists {
    const m = s.meta as { pool: IndexSnapshot['meta']; blocks: IndexSnapshot['meta'] };
    const part = (prefix: string, meta: IndexSnapshot['meta']): IndexSnapshot => {
      const arrays: IndexSnapshot['arrays'] = {};
      for (const [name, a] of Object.entries(s.arrays)) if (name.startsWith(prefix)) arrays[name.slice(prefix.length)] = a;
      return { meta, arrays };
    };
    const lists = new PostingLists();
    lists.pool = PostingPool.restore(part('pool.', m.pool));
    lists.blocks = PostingBlocks.restore(part('blocks.', m.blocks));
    lists.#weakLen = s.arrays['weakLen'] as Uint32Array;
    return lists;
  }
}
